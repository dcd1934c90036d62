//! The read-only programs, one table entry each: every option the program accepts,
//! whether it takes a value, and what it does beyond printing (opens a file named by
//! its value, writes, runs, recurses), and what its operands are. An option that is not
//! in the entry asks: a program may grow an option that writes.
//!
//! The option lists follow each program's `--help` (GNU coreutils 9, grep 3, diffutils
//! 3, file 5, tree 2). Long options may be abbreviated to any unambiguous prefix, as
//! `getopt_long` accepts; an ambiguous prefix makes the program refuse to run, and is
//! treated as unknown here.

use crate::shell::Word;

/// What an option does beyond changing how the program prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Its value names a file the program opens (`grep -f F`, `file -m F`).
    ReadsFile,
    /// Its value names a file listing the files to work on (`wc --files0-from=F`,
    /// `file -f F`): F is opened, and so is every file it lists, named only at run time.
    ReadsFileList,
    /// It makes the program read every file under its operands (`grep -r`).
    Recursive,
    /// Its value is `recurse` for a recursive read (`grep -d recurse`), else harmless.
    RecurseValue,
    /// It writes a file (`sort -o F`, `file -C`).
    Writes,
    /// It runs another program (`sort --compress-program=P`).
    Runs,
    /// It never ends by itself (`tail -f`).
    Follows,
    /// Its value is the pattern or program (`grep -e P`): every operand is then a file.
    Pattern,
    /// Its value names a file holding the pattern or program, which the program opens
    /// (`grep -f F`, `jq -f F`): every operand is then a file.
    PatternFile,
    /// It makes the program open its operands as lists of paths (`tree --fromfile F`).
    OpensOperands,
}

/// What the program's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Files whose content it opens and prints or summarizes.
    Files,
    /// A pattern (unless `-e`/`-f` gives it), then files.
    PatternThenFiles,
    /// Paths it only names or stats (`ls`, `du`, `stat`): a secret is not opened.
    Names,
    /// Text it prints or compares, not files.
    Data,
    /// Every argument, option-like or not, is text it prints or compares (`echo -x`
    /// prints `-x`, `test -f F` only stats): no argument is an unknown option.
    Printed,
    /// A directory it makes the working directory (`cd DIR`), which the walker tracks.
    Dir,
    /// A file it reads, then a file it writes (`uniq IN OUT`): a second operand, or
    /// one that may expand to several, asks.
    InputThenOutput,
    /// Files or directories it creates or writes (`touch F`, `mkdir D`): each gets the
    /// verdict an edit tool call gets for it.
    Written,
    /// Sources, then a destination (`cp`, `mv`): read by their own rule.
    SourcesThenDestination,
}

/// One read-only program.
#[derive(Debug)]
pub struct Program {
    pub name: &'static str,
    /// Short options that take no value.
    pub flags: &'static str,
    /// Short options whose value is the rest of the word or the next word.
    pub short_values: &'static str,
    /// Short options whose value is optional and only attached (`sed -i.bak`,
    /// `date -Iseconds`): the rest of the word, if any.
    pub short_optional: &'static str,
    /// Long options: `name` (no value), `name=` (a value: `--name=V` or `--name V`),
    /// `name[=]` (an optional value, only as `--name=V`), `name==` (two values, the
    /// next two words: `jq --arg NAME VALUE`; the second is the option's value).
    pub longs: &'static [&'static str],
    /// Options with an effect: `-x` or `--long` (full name), and the effect.
    pub effects: &'static [(&'static str, Effect)],
    pub operands: Operands,
    /// Accepts `-NUM` (`head -5`, `grep -3`).
    pub digits: bool,
    /// Commands with the tier the built-in policy gives them: checked by a test.
    pub examples: &'static [(&'static str, &'static str)],
}

const HELP: &[&str] = &["help", "version"];

/// The long options of the coreutils `*sum` programs.
const SUM_LONGS: &[&str] = &[
    "binary",
    "check",
    "tag",
    "text",
    "zero",
    "ignore-missing",
    "quiet",
    "status",
    "strict",
    "warn",
];

pub const PROGRAMS: &[Program] = &[
    Program {
        name: "cat",
        flags: "AbeEnstTuv",
        short_values: "",
        short_optional: "",
        longs: &[
            "show-all",
            "number-nonblank",
            "show-ends",
            "number",
            "squeeze-blank",
            "show-tabs",
            "show-nonprinting",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("cat -n src/main.rs", "auto"),
            ("cat .env", "ask"),
            ("cat --bogus f", "ask"),
        ],
    },
    Program {
        name: "head",
        flags: "qvz",
        short_values: "cn",
        short_optional: "",
        longs: &[
            "bytes=",
            "lines=",
            "quiet",
            "silent",
            "verbose",
            "zero-terminated",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: true,
        examples: &[
            ("head -n 5 f.txt", "auto"),
            ("head -5 f.txt", "auto"),
            ("head -n5 ~/.ssh/id_rsa", "ask"),
        ],
    },
    Program {
        name: "tail",
        flags: "fFqvz",
        short_values: "cns",
        short_optional: "",
        longs: &[
            "bytes=",
            "follow[=]",
            "lines=",
            "max-unchanged-stats=",
            "pid=",
            "quiet",
            "silent",
            "retry",
            "sleep-interval=",
            "verbose",
            "zero-terminated",
        ],
        effects: &[
            ("-f", Effect::Follows),
            ("-F", Effect::Follows),
            ("--follow", Effect::Follows),
            ("--retry", Effect::Follows),
        ],
        operands: Operands::Files,
        digits: true,
        examples: &[
            ("tail -n 20 log.txt", "auto"),
            ("tail -f log.txt", "ask"),
            ("tail .env", "ask"),
        ],
    },
    Program {
        name: "wc",
        flags: "cmlLw",
        short_values: "",
        short_optional: "",
        longs: &[
            "bytes",
            "chars",
            "lines",
            "files0-from=",
            "max-line-length",
            "words",
            "total=",
        ],
        effects: &[("--files0-from", Effect::ReadsFileList)],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("wc -l f.txt", "auto"),
            ("wc --files0-from=.env", "ask"),
            ("wc --files0-from=list.txt", "ask"),
        ],
    },
    Program {
        name: "grep",
        flags: "EFGPiywxzsvVbnHhoqaIrRLlcTZUu",
        short_values: "efmdDBAC",
        short_optional: "",
        longs: &[
            "extended-regexp",
            "fixed-strings",
            "basic-regexp",
            "perl-regexp",
            "regexp=",
            "file=",
            "ignore-case",
            "no-ignore-case",
            "word-regexp",
            "line-regexp",
            "null-data",
            "no-messages",
            "invert-match",
            "max-count=",
            "byte-offset",
            "line-number",
            "no-line-number",
            "line-buffered",
            "with-filename",
            "no-filename",
            "label=",
            "only-matching",
            "quiet",
            "silent",
            "binary-files=",
            "text",
            "directories=",
            "devices=",
            "recursive",
            "dereference-recursive",
            "include=",
            "exclude=",
            "exclude-from=",
            "exclude-dir=",
            "files-without-match",
            "files-with-matches",
            "count",
            "initial-tab",
            "null",
            "before-context=",
            "after-context=",
            "context=",
            "group-separator=",
            "no-group-separator",
            "color[=]",
            "colour[=]",
            "binary",
        ],
        effects: &[
            ("-e", Effect::Pattern),
            ("--regexp", Effect::Pattern),
            ("-f", Effect::PatternFile),
            ("--file", Effect::PatternFile),
            ("--exclude-from", Effect::ReadsFile),
            ("-r", Effect::Recursive),
            ("-R", Effect::Recursive),
            ("--recursive", Effect::Recursive),
            ("--dereference-recursive", Effect::Recursive),
            ("-d", Effect::RecurseValue),
            ("--directories", Effect::RecurseValue),
        ],
        operands: Operands::PatternThenFiles,
        digits: true,
        examples: &[
            ("grep -n TODO src/main.rs", "auto"),
            ("grep -f.env notes.txt", "ask"),
            ("grep -rn x src", "ask"),
            ("grep -d recurse x .", "ask"),
            ("grep -e x -- -f.txt", "auto"),
        ],
    },
    Program {
        name: "nl",
        flags: "p",
        short_values: "bdfhilnsvw",
        short_optional: "",
        longs: &[
            "body-numbering=",
            "section-delimiter=",
            "footer-numbering=",
            "header-numbering=",
            "line-increment=",
            "join-blank-lines=",
            "number-format=",
            "no-renumber",
            "number-separator=",
            "starting-line-number=",
            "number-width=",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("nl -ba f.py", "auto"), ("nl id_rsa", "ask")],
    },
    Program {
        name: "diff",
        flags: "qsenyptTlrNiEZbwBadu",
        short_values: "CUWFxXSID",
        short_optional: "",
        longs: &[
            "normal",
            "brief",
            "report-identical-files",
            "context[=]",
            "unified[=]",
            "ed",
            "rcs",
            "side-by-side",
            "width=",
            "left-column",
            "suppress-common-lines",
            "show-c-function",
            "show-function-line=",
            "label=",
            "expand-tabs",
            "initial-tab",
            "tabsize=",
            "suppress-blank-empty",
            "paginate",
            "recursive",
            "no-dereference",
            "new-file",
            "unidirectional-new-file",
            "ignore-file-name-case",
            "no-ignore-file-name-case",
            "exclude=",
            "exclude-from=",
            "starting-file=",
            "from-file=",
            "to-file=",
            "ignore-case",
            "ignore-tab-expansion",
            "ignore-trailing-space",
            "ignore-space-change",
            "ignore-all-space",
            "ignore-blank-lines",
            "ignore-matching-lines=",
            "text",
            "strip-trailing-cr",
            "ifdef=",
            "old-group-format=",
            "new-group-format=",
            "unchanged-group-format=",
            "changed-group-format=",
            "line-format=",
            "old-line-format=",
            "new-line-format=",
            "unchanged-line-format=",
            "minimal",
            "horizon-lines=",
            "speed-large-files",
            "color[=]",
            "palette=",
            "no-index",
        ],
        effects: &[
            ("-r", Effect::Recursive),
            ("--recursive", Effect::Recursive),
            ("-X", Effect::ReadsFile),
            ("--exclude-from", Effect::ReadsFile),
            ("--from-file", Effect::ReadsFile),
            ("--to-file", Effect::ReadsFile),
        ],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("diff -u a.txt b.txt", "auto"),
            ("diff -r a b", "ask"),
            ("diff --from-file=.env a", "ask"),
        ],
    },
    Program {
        name: "cmp",
        flags: "blsv",
        short_values: "in",
        short_optional: "",
        longs: &[
            "print-bytes",
            "ignore-initial=",
            "verbose",
            "bytes=",
            "quiet",
            "silent",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("cmp a.bin b.bin", "auto")],
    },
    Program {
        name: "comm",
        flags: "123z",
        short_values: "",
        short_optional: "",
        longs: &[
            "check-order",
            "nocheck-order",
            "output-delimiter=",
            "total",
            "zero-terminated",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("comm -12 a.txt b.txt", "auto")],
    },
    Program {
        name: "cut",
        flags: "nszw",
        short_values: "bcdf",
        short_optional: "",
        longs: &[
            "bytes=",
            "characters=",
            "delimiter=",
            "fields=",
            "complement",
            "only-delimited",
            "output-delimiter=",
            "zero-terminated",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("cut -d: -f1 /etc/passwd", "auto"),
            ("cut -c1-5 .env", "ask"),
        ],
    },
    Program {
        name: "sort",
        flags: "bdfgiMhnRrVcCmsuz",
        short_values: "kotStT",
        short_optional: "",
        longs: &[
            "ignore-leading-blanks",
            "dictionary-order",
            "ignore-case",
            "general-numeric-sort",
            "ignore-nonprinting",
            "month-sort",
            "human-numeric-sort",
            "numeric-sort",
            "random-sort",
            "random-source=",
            "reverse",
            "sort=",
            "version-sort",
            "batch-size=",
            "check[=]",
            "compress-program=",
            "debug",
            "files0-from=",
            "key=",
            "merge",
            "output=",
            "stable",
            "buffer-size=",
            "field-separator=",
            "temporary-directory=",
            "parallel=",
            "unique",
            "zero-terminated",
        ],
        effects: &[
            ("--files0-from", Effect::ReadsFileList),
            ("--random-source", Effect::ReadsFile),
            ("-o", Effect::Writes),
            ("--output", Effect::Writes),
            ("--compress-program", Effect::Runs),
        ],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("sort -u -k2 f.txt", "auto"),
            ("sort -o out f", "ask"),
            ("sort --files0-from=.env", "ask"),
            ("sort --files0-from=list", "ask"),
        ],
    },
    Program {
        name: "uniq",
        flags: "cdDiuz",
        short_values: "fsw",
        short_optional: "",
        longs: &[
            "count",
            "repeated",
            "all-repeated[=]",
            "skip-fields=",
            "group[=]",
            "ignore-case",
            "skip-chars=",
            "unique",
            "zero-terminated",
            "check-chars=",
        ],
        effects: &[],
        operands: Operands::InputThenOutput,
        digits: false,
        examples: &[
            ("uniq -c f.txt", "auto"),
            ("uniq a b", "ask"),
            ("uniq -- *.txt", "ask"),
        ],
    },
    Program {
        name: "file",
        flags: "vzZbciklLhnN0prsSdC",
        short_values: "mefFP",
        short_optional: "",
        longs: &[
            "magic-file=",
            "uncompress",
            "uncompress-noreport",
            "brief",
            "checking-printout",
            "exclude=",
            "exclude-quiet=",
            "files-from=",
            "separator=",
            "mime",
            "apple",
            "extension",
            "mime-type",
            "mime-encoding",
            "keep-going",
            "list",
            "dereference",
            "no-dereference",
            "no-buffer",
            "no-pad",
            "print0",
            "preserve-date",
            "parameter=",
            "raw",
            "special-files",
            "no-sandbox",
            "debug",
            "compile",
        ],
        effects: &[
            ("-m", Effect::ReadsFile),
            ("--magic-file", Effect::ReadsFile),
            ("-f", Effect::ReadsFileList),
            ("--files-from", Effect::ReadsFileList),
            ("-C", Effect::Writes),
            ("--compile", Effect::Writes),
        ],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("file -b a.png", "auto"),
            ("file -bf.env", "ask"),
            ("file -C -m mymagic", "ask"),
        ],
    },
    Program {
        name: "du",
        flags: "0abcDHhklLmPSsx",
        short_values: "BdtX",
        short_optional: "",
        longs: &[
            "null",
            "all",
            "apparent-size",
            "block-size=",
            "bytes",
            "total",
            "dereference-args",
            "max-depth=",
            "files0-from=",
            "human-readable",
            "inodes",
            "dereference",
            "count-links",
            "no-dereference",
            "separate-dirs",
            "si",
            "summarize",
            "threshold=",
            "time[=]",
            "time-style=",
            "exclude-from=",
            "exclude=",
            "one-file-system",
        ],
        effects: &[
            ("--files0-from", Effect::ReadsFileList),
            ("-X", Effect::ReadsFile),
            ("--exclude-from", Effect::ReadsFile),
        ],
        operands: Operands::Names,
        digits: false,
        examples: &[
            ("du -sh src", "auto"),
            ("du -sh ~/.ssh", "auto"),
            ("du --files0-from=.env", "ask"),
            ("du --files0-from=list", "auto"),
        ],
    },
    Program {
        name: "ls",
        flags: "aAbBcCdDfFgGhHiklLmnNoqQrRsStuUvxXZ1",
        short_values: "IpTw",
        short_optional: "",
        longs: &[
            "all",
            "almost-all",
            "author",
            "escape",
            "block-size=",
            "ignore-backups",
            "color[=]",
            "colour[=]",
            "directory",
            "dired",
            "classify[=]",
            "file-type",
            "format=",
            "full-time",
            "group-directories-first",
            "no-group",
            "human-readable",
            "si",
            "dereference-command-line",
            "dereference-command-line-symlink-to-dir",
            "hide=",
            "hyperlink[=]",
            "indicator-style=",
            "inode",
            "ignore=",
            "kibibytes",
            "dereference",
            "numeric-uid-gid",
            "literal",
            "hide-control-chars",
            "show-control-chars",
            "quote-name",
            "quoting-style=",
            "reverse",
            "recursive",
            "size",
            "sort=",
            "time=",
            "time-style=",
            "tabsize=",
            "width=",
            "context",
            "zero",
        ],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[("ls -la ~/.ssh", "auto"), ("ls --hide='*.o' src", "auto")],
    },
    Program {
        name: "stat",
        flags: "Lfct",
        short_values: "",
        short_optional: "",
        longs: &[
            "dereference",
            "file-system",
            "cached=",
            "format=",
            "printf=",
            "terse",
        ],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[("stat -c %s f.txt", "auto")],
    },
    Program {
        name: "tr",
        flags: "cCdst",
        short_values: "",
        short_optional: "",
        longs: &["complement", "delete", "squeeze-repeats", "truncate-set1"],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("tr a-z A-Z", "auto")],
    },
    Program {
        name: "basename",
        flags: "az",
        short_values: "s",
        short_optional: "",
        longs: &["multiple", "suffix=", "zero"],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("basename -s .py src/a.py", "auto")],
    },
    Program {
        name: "dirname",
        flags: "z",
        short_values: "",
        short_optional: "",
        longs: &["zero"],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("dirname src/a.py", "auto")],
    },
    Program {
        name: "realpath",
        flags: "emLPqsz",
        short_values: "",
        short_optional: "",
        longs: &[
            "canonicalize-existing",
            "canonicalize-missing",
            "logical",
            "physical",
            "quiet",
            "relative-to=",
            "relative-base=",
            "strip",
            "no-symlinks",
            "zero",
        ],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[("realpath --relative-to=. src", "auto")],
    },
    Program {
        name: "readlink",
        flags: "femnqsvz",
        short_values: "",
        short_optional: "",
        longs: &[
            "canonicalize",
            "canonicalize-existing",
            "canonicalize-missing",
            "no-newline",
            "quiet",
            "silent",
            "verbose",
            "zero",
        ],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[("readlink -f link", "auto")],
    },
    Program {
        name: "seq",
        flags: "w",
        short_values: "fs",
        short_optional: "",
        longs: &["format=", "separator=", "equal-width"],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("seq 1 10", "auto"), ("seq -s, 5", "auto")],
    },
    Program {
        name: "uname",
        flags: "asnrvmpio",
        short_values: "",
        short_optional: "",
        longs: &[
            "all",
            "kernel-name",
            "nodename",
            "kernel-release",
            "kernel-version",
            "machine",
            "processor",
            "hardware-platform",
            "operating-system",
        ],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("uname -a", "auto")],
    },
    Program {
        name: "id",
        flags: "aZgGnruz",
        short_values: "",
        short_optional: "",
        longs: &["context", "group", "groups", "name", "real", "user", "zero"],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("id -u", "auto")],
    },
    Program {
        name: "whoami",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("whoami", "auto")],
    },
    Program {
        name: "echo",
        flags: "neE",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[
            ("echo -n hello", "auto"),
            ("echo --- -x", "auto"),
            ("echo hi > /dev/null", "auto"),
            ("echo hi > ~/.bashrc", "ask"),
        ],
    },
    Program {
        // `printf -v NAME` assigns a variable: its own rule asks.
        name: "printf",
        flags: "",
        short_values: "v",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("printf '%s\\n' a b", "auto"), ("printf -v PATH x", "ask")],
    },
    Program {
        name: "test",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("test -f src/main.rs", "auto"), ("test -f .env", "auto")],
    },
    Program {
        name: "[",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("[ -d src ]", "auto")],
    },
    Program {
        name: "[[",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("[[ -n x ]]", "auto")],
    },
    Program {
        name: "true",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("true", "auto")],
    },
    Program {
        name: "false",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("false", "auto")],
    },
    Program {
        name: ":",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[(": note", "auto")],
    },
    Program {
        name: "pwd",
        flags: "LP",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Data,
        digits: false,
        examples: &[("pwd -P", "auto"), ("pwd -x", "ask")],
    },
    Program {
        // bash's builtin; the walker follows the directory it changes to.
        name: "cd",
        flags: "LPe@",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Dir,
        digits: false,
        examples: &[("cd src && ls", "auto"), ("cd ~/.ssh && cat config", "ask")],
    },
    Program {
        // debianutils `which`: it searches PATH for each name and prints it.
        name: "which",
        flags: "as",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[
            ("which -a python3", "auto"),
            ("which --read-alias ls", "ask"),
        ],
    },
    Program {
        // bash's builtin.
        name: "type",
        flags: "afptP",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[("type -P ls", "auto"), ("type -x ls", "ask")],
    },
    Program {
        // net-tools `hostname`; an operand, or `-F`/`--file`, sets the host name. The
        // read-only list takes it with no arguments at all: its own rule asks on any.
        name: "hostname",
        flags: "aAbdfiIsyvV",
        short_values: "F",
        short_optional: "",
        longs: &[
            "alias",
            "all-fqdns",
            "boot",
            "domain",
            "fqdn",
            "long",
            "ip-address",
            "all-ip-addresses",
            "short",
            "yp",
            "nis",
            "verbose",
            "file=",
        ],
        effects: &[("-F", Effect::Writes), ("--file", Effect::Writes)],
        operands: Operands::Data,
        digits: false,
        examples: &[
            ("hostname", "auto"),
            ("hostname -f", "ask"),
            ("hostname box", "ask"),
            ("hostname -F name.txt", "ask"),
        ],
    },
    Program {
        // GNU coreutils 9 `date`. `-I` takes its optional format attached (`-Iseconds`);
        // an operand that does not start with `+` sets the clock (its own rule asks).
        name: "date",
        flags: "Ru",
        short_values: "dfrs",
        short_optional: "I",
        longs: &[
            "date=",
            "debug",
            "file=",
            "iso-8601[=]",
            "resolution",
            "rfc-email",
            "rfc-3339=",
            "reference=",
            "set=",
            "utc",
            "universal",
        ],
        effects: &[
            ("-f", Effect::ReadsFile),
            ("--file", Effect::ReadsFile),
            ("-s", Effect::Writes),
            ("--set", Effect::Writes),
        ],
        operands: Operands::Data,
        digits: false,
        examples: &[
            ("date +%s", "auto"),
            ("date -u -d @0", "auto"),
            ("date -r src/main.rs", "auto"),
            ("date -f ~/.ssh/id_rsa", "ask"),
            ("date -s 2020-01-01", "ask"),
            ("date --bogus", "ask"),
        ],
    },
    Program {
        // tree 2.1: `-R` (with `-H`) writes a 00Tree.html into every directory it
        // lists; `--hintro`/`--houtro` print the file they name; `--fromfile` reads
        // its operands as lists of paths.
        name: "tree",
        flags: "acdfghilnpqrstuvxACDFJQNSUXR",
        short_values: "LHTPIo",
        short_optional: "",
        longs: &[
            "gitignore",
            "gitfile=",
            "matchdirs",
            "metafirst",
            "ignore-case",
            "nolinks",
            "hintro=",
            "houtro=",
            "inodes",
            "device",
            "sort=",
            "dirsfirst",
            "filesfirst",
            "filelimit=",
            "si",
            "du",
            "prune",
            "charset=",
            "timefmt=",
            "fromfile",
            "fflinks",
            "info",
            "infofile=",
            "noreport",
        ],
        effects: &[
            ("-o", Effect::Writes),
            ("-R", Effect::Writes),
            ("--gitfile", Effect::ReadsFile),
            ("--hintro", Effect::ReadsFile),
            ("--houtro", Effect::ReadsFile),
            ("--infofile", Effect::ReadsFile),
            ("--fromfile", Effect::OpensOperands),
        ],
        operands: Operands::Names,
        digits: false,
        examples: &[
            ("tree -L 2 src", "auto"),
            ("tree -a ~/.ssh", "auto"),
            ("tree -o out.txt", "ask"),
            ("tree -H . --hintro .env", "ask"),
            ("tree --fromfile .env", "ask"),
            ("tree --fromfile paths.txt", "auto"),
        ],
    },
    Program {
        // jq 1.6. It reads the files after its program; `--rawfile`/`--slurpfile`
        // read the file they name; a program that imports modules asks (its own rule).
        name: "jq",
        flags: "cnesrjaSCMRh",
        short_values: "fL",
        short_optional: "",
        longs: &[
            "compact-output",
            "null-input",
            "exit-status",
            "slurp",
            "raw-output",
            "join-output",
            "ascii-output",
            "sort-keys",
            "color-output",
            "monochrome-output",
            "raw-input",
            "tab",
            "indent=",
            "unbuffered",
            "stream",
            "seq",
            "from-file=",
            "arg==",
            "argjson==",
            "slurpfile==",
            "rawfile==",
            "args",
            "jsonargs",
        ],
        effects: &[
            ("-f", Effect::PatternFile),
            ("--from-file", Effect::PatternFile),
            ("--slurpfile", Effect::ReadsFile),
            ("--rawfile", Effect::ReadsFile),
        ],
        operands: Operands::PatternThenFiles,
        digits: false,
        examples: &[
            ("jq -r .name package.json", "auto"),
            ("jq -n --arg x 1 '$x'", "auto"),
            ("jq --rawfile k .env -n '$k'", "ask"),
            ("jq -f prog.jq data.json", "auto"),
            ("jq . .env", "ask"),
            ("jq --run-tests t.txt", "ask"),
        ],
    },
    Program {
        // ripgrep 13 (and `--hostname-bin` from 14). It searches every file under a
        // directory operand, so it asks unless it reads a pipe or lists names
        // (`--files`); then its options are read here.
        name: "rg",
        flags: "bscFLh.ivnxUIN0oPpqzSaluVHw",
        short_values: "ABCEefgMmjrTtd",
        short_optional: "",
        longs: &[
            "after-context=",
            "auto-hybrid-regex",
            "before-context=",
            "binary",
            "block-buffered",
            "byte-offset",
            "case-sensitive",
            "color=",
            "colors=",
            "column",
            "context=",
            "context-separator=",
            "no-context-separator",
            "count",
            "count-matches",
            "crlf",
            "debug",
            "dfa-size-limit=",
            "encoding=",
            "engine=",
            "field-context-separator=",
            "field-match-separator=",
            "file=",
            "files",
            "files-with-matches",
            "files-without-match",
            "fixed-strings",
            "follow",
            "glob=",
            "glob-case-insensitive",
            "heading",
            "hidden",
            "iglob=",
            "ignore-case",
            "ignore-file=",
            "ignore-file-case-insensitive",
            "include-zero",
            "invert-match",
            "json",
            "line-buffered",
            "line-number",
            "line-regexp",
            "max-columns=",
            "max-columns-preview",
            "max-count=",
            "max-depth=",
            "max-filesize=",
            "mmap",
            "multiline",
            "multiline-dotall",
            "no-config",
            "no-filename",
            "no-heading",
            "no-ignore",
            "no-ignore-dot",
            "no-ignore-exclude",
            "no-ignore-files",
            "no-ignore-global",
            "no-ignore-messages",
            "no-ignore-parent",
            "no-ignore-vcs",
            "no-line-number",
            "no-messages",
            "no-mmap",
            "no-pcre2-unicode",
            "no-require-git",
            "no-unicode",
            "null",
            "null-data",
            "one-file-system",
            "only-matching",
            "passthru",
            "path-separator=",
            "pcre2",
            "pcre2-version",
            "pre=",
            "pre-glob=",
            "pretty",
            "quiet",
            "regex-size-limit=",
            "regexp=",
            "replace=",
            "search-zip",
            "smart-case",
            "sort=",
            "sortr=",
            "stats",
            "text",
            "threads=",
            "trim",
            "type=",
            "type-add=",
            "type-clear=",
            "type-list",
            "type-not=",
            "unrestricted",
            "vimgrep",
            "with-filename",
            "word-regexp",
            "hostname-bin=",
        ],
        effects: &[
            ("-e", Effect::Pattern),
            ("--regexp", Effect::Pattern),
            ("-f", Effect::PatternFile),
            ("--file", Effect::PatternFile),
            ("--ignore-file", Effect::ReadsFile),
            ("--pre", Effect::Runs),
            ("--hostname-bin", Effect::Runs),
            ("-z", Effect::Runs),
            ("--search-zip", Effect::Runs),
        ],
        operands: Operands::PatternThenFiles,
        digits: false,
        examples: &[
            ("git log | rg -i fix", "auto"),
            ("rg --files src", "auto"),
            ("rg TODO src", "ask"),
            ("ls | rg --pre sh x", "ask"),
            ("ls | rg --bogus x", "ask"),
        ],
    },
    Program {
        // GNU sed 4.9. The script (each `-e` value, else the first operand) is read
        // by [`crate::sed`]: only one that reads and prints is read-only. `-f` gives a
        // script in a file, which is not read (it asks); `-i` edits files in place.
        name: "sed",
        flags: "nrEsuzb",
        short_values: "efl",
        short_optional: "i",
        longs: &[
            "quiet",
            "silent",
            "expression=",
            "file=",
            "in-place[=]",
            "line-length=",
            "null-data",
            "zero-terminated",
            "regexp-extended",
            "separate",
            "unbuffered",
            "posix",
            "debug",
            "sandbox",
            "follow-symlinks",
            "binary",
        ],
        effects: &[
            ("-e", Effect::Pattern),
            ("--expression", Effect::Pattern),
            ("-f", Effect::PatternFile),
            ("--file", Effect::PatternFile),
            ("-i", Effect::Writes),
            ("--in-place", Effect::Writes),
        ],
        operands: Operands::PatternThenFiles,
        digits: false,
        examples: &[
            ("sed -n '240,260p' f.py", "auto"),
            ("nl -ba f.py | sed -n '1,50p'", "auto"),
            ("sed -n '/def write/,/return/p' f.py", "auto"),
            ("sed -e 's/a/b/g' -e '5q' f.py", "auto"),
            ("sed -n '1,5w out.txt' f.py", "ask"),
            ("sed 's/x/id/e' f.py", "ask"),
            ("sed '1r ~/.ssh/id_rsa' f.py", "ask"),
            ("sed -n p .env", "ask"),
            ("sed -f script.sed f.py", "ask"),
            ("sed -n \"${a},${b}p\" f.py", "ask"),
            ("sed '1a text' f.py", "ask"),
            ("sed --bogus p f.py", "ask"),
        ],
    },
    Program {
        // GNU coreutils 9. `-r`/`--reference` only reads a file's times.
        name: "touch",
        flags: "acfhm",
        short_values: "drt",
        short_optional: "",
        longs: &[
            "date=",
            "no-create",
            "no-dereference",
            "reference=",
            "time=",
        ],
        effects: &[],
        operands: Operands::Written,
        digits: false,
        examples: &[
            ("touch tests/__init__.py", "auto"),
            ("touch ../x", "ask"),
            ("touch .vscode/tasks.json", "ask"),
            ("touch -d yesterday a.txt", "auto"),
            ("touch --bogus a.txt", "ask"),
        ],
    },
    Program {
        name: "mkdir",
        flags: "pvZ",
        short_values: "m",
        short_optional: "",
        longs: &["mode=", "parents", "verbose", "context[=]"],
        effects: &[],
        operands: Operands::Written,
        digits: false,
        examples: &[
            ("mkdir -p tests/unit", "auto"),
            ("mkdir /tmp/x", "ask"),
            ("mkdir .husky", "ask"),
            ("mkdir -p $d", "ask"),
        ],
    },
    Program {
        // GNU coreutils 9; its own rule also asks when its input runs (`tee >(sh)`).
        name: "tee",
        flags: "aip",
        short_values: "",
        short_optional: "",
        longs: &["append", "ignore-interrupts", "output-error[=]"],
        effects: &[],
        operands: Operands::Written,
        digits: false,
        examples: &[
            ("ls | tee out.txt", "auto"),
            ("ls | tee -a log.txt notes.txt", "auto"),
            ("ls | tee ~/.profile", "ask"),
            ("ls | tee /etc/x", "deny"),
        ],
    },
    Program {
        // GNU coreutils 9.
        name: "od",
        flags: "abcdfilosxv",
        short_values: "AjNSt",
        short_optional: "w",
        longs: &[
            "address-radix=",
            "endian=",
            "skip-bytes=",
            "read-bytes=",
            "strings[=]",
            "format=",
            "output-duplicates",
            "width[=]",
            "traditional",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("od -c src/lib.rs", "auto"),
            ("od -An -tx1 -N16 f.bin", "auto"),
            ("od -c .env", "ask"),
        ],
    },
    Program {
        // util-linux 2.38; -L takes its optional mode attached only as --color=MODE.
        name: "hexdump",
        flags: "bcCdoxv",
        short_values: "efns",
        short_optional: "",
        longs: &[
            "one-byte-octal",
            "one-byte-char",
            "canonical",
            "two-bytes-decimal",
            "two-bytes-octal",
            "two-bytes-hex",
            "color[=]",
            "format=",
            "format-file=",
            "length=",
            "skip=",
            "no-squeezing",
        ],
        effects: &[
            ("-f", Effect::ReadsFile),
            ("--format-file", Effect::ReadsFile),
        ],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("hexdump -C f.bin", "auto"),
            ("hexdump -f .env f.bin", "ask"),
            ("hexdump -C ~/.ssh/id_rsa", "ask"),
        ],
    },
    Program {
        // GNU binutils 2.40; an operand `@FILE` reads more arguments from FILE (its own rule asks).
        name: "strings",
        flags: "adfow",
        short_values: "ntTesU",
        short_optional: "",
        longs: &[
            "all",
            "data",
            "print-file-name",
            "bytes=",
            "radix=",
            "include-all-whitespace",
            "target=",
            "encoding=",
            "unicode=",
            "output-separator=",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: true,
        examples: &[
            ("strings -n 8 f.bin", "auto"),
            ("strings .env", "ask"),
            ("strings @.env", "ask"),
        ],
    },
    Program {
        // util-linux 2.38.
        name: "column",
        flags: "tdeLJx",
        short_values: "nONlEHRTWripcos",
        short_optional: "",
        longs: &[
            "table",
            "table-name=",
            "table-order=",
            "table-columns=",
            "table-columns-limit=",
            "table-noextreme=",
            "table-noheadings",
            "table-header-repeat",
            "table-hide=",
            "table-right=",
            "table-truncate=",
            "table-wrap=",
            "keep-empty-lines",
            "json",
            "tree=",
            "tree-id=",
            "tree-parent=",
            "output-width=",
            "output-separator=",
            "separator=",
            "fillrows",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("column -t -s, data.csv", "auto"),
            ("column -t .env", "ask"),
        ],
    },
    Program {
        // GNU coreutils 9.
        name: "fold",
        flags: "bs",
        short_values: "w",
        short_optional: "",
        longs: &["bytes", "spaces", "width="],
        effects: &[],
        operands: Operands::Files,
        digits: true,
        examples: &[("fold -w 80 notes.txt", "auto"), ("fold .env", "ask")],
    },
    Program {
        // GNU coreutils 9.
        name: "paste",
        flags: "sz",
        short_values: "d",
        short_optional: "",
        longs: &["delimiters=", "serial", "zero-terminated"],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("paste -d, a.txt b.txt", "auto"), ("paste .env", "ask")],
    },
    Program {
        // util-linux 2.38.
        name: "rev",
        flags: "0",
        short_values: "",
        short_optional: "",
        longs: &["zero"],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("rev notes.txt", "auto"), ("rev .env", "ask")],
    },
    Program {
        // GNU coreutils 9.
        name: "tac",
        flags: "br",
        short_values: "s",
        short_optional: "",
        longs: &["before", "regex", "separator="],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("tac log.txt", "auto"), ("tac ~/.ssh/id_rsa", "ask")],
    },
    Program {
        // GNU coreutils 9: its arguments are an expression.
        name: "expr",
        flags: "",
        short_values: "",
        short_optional: "",
        longs: &[],
        effects: &[],
        operands: Operands::Printed,
        digits: false,
        examples: &[("expr 1 + 2", "auto"), ("expr length abc", "auto")],
    },
    Program {
        // GNU coreutils 9 (no -o: BSD's writes a file).
        name: "base64",
        flags: "di",
        short_values: "w",
        short_optional: "",
        longs: &["decode", "ignore-garbage", "wrap="],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("echo aGVsbG8= | base64 -d", "auto"),
            ("base64 -w0 f.bin", "auto"),
            ("base64 .env", "ask"),
            ("echo aWQ= | base64 -d | sh", "deny"),
        ],
    },
    Program {
        // GNU coreutils 9.
        name: "sha256sum",
        flags: "bctwz",
        short_values: "",
        short_optional: "",
        longs: SUM_LONGS,
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("sha256sum dist/app.tar.gz", "auto"),
            ("sha256sum .env", "ask"),
        ],
    },
    Program {
        name: "sha1sum",
        flags: "bctwz",
        short_values: "",
        short_optional: "",
        longs: SUM_LONGS,
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("sha1sum dist/app.tar.gz", "auto"), ("sha1sum .env", "ask")],
    },
    Program {
        name: "md5sum",
        flags: "bctwz",
        short_values: "",
        short_optional: "",
        longs: SUM_LONGS,
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("md5sum dist/app.tar.gz", "auto"), ("md5sum .env", "ask")],
    },
    Program {
        name: "sha224sum",
        flags: "bctwz",
        short_values: "",
        short_optional: "",
        longs: SUM_LONGS,
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("sha224sum dist/app.tar.gz", "auto"),
            ("sha224sum .env", "ask"),
        ],
    },
    Program {
        name: "sha384sum",
        flags: "bctwz",
        short_values: "",
        short_optional: "",
        longs: SUM_LONGS,
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("sha384sum dist/app.tar.gz", "auto"),
            ("sha384sum .env", "ask"),
        ],
    },
    Program {
        name: "sha512sum",
        flags: "bctwz",
        short_values: "",
        short_optional: "",
        longs: SUM_LONGS,
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[
            ("sha512sum dist/app.tar.gz", "auto"),
            ("sha512sum .env", "ask"),
        ],
    },
    Program {
        // GNU coreutils 9.
        name: "b2sum",
        flags: "bctwz",
        short_values: "l",
        short_optional: "",
        longs: &[
            "binary",
            "check",
            "tag",
            "text",
            "zero",
            "ignore-missing",
            "quiet",
            "status",
            "strict",
            "warn",
            "length=",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("b2sum -l 256 f.bin", "auto"), ("b2sum server.key", "ask")],
    },
    Program {
        // GNU coreutils 9.
        name: "cksum",
        flags: "czw",
        short_values: "al",
        short_optional: "",
        longs: &[
            "algorithm=",
            "check",
            "length=",
            "tag",
            "untagged",
            "zero",
            "ignore-missing",
            "quiet",
            "status",
            "strict",
            "warn",
            "debug",
            "base64",
            "raw",
        ],
        effects: &[],
        operands: Operands::Files,
        digits: false,
        examples: &[("cksum -a sha256 f.bin", "auto"), ("cksum .env", "ask")],
    },
    Program {
        // GNU coreutils 9. Its own rule reads the sources and the destination; these
        // options copy trees, make links or write backups, and ask.
        name: "cp",
        flags: "abdfiHlLnPpRrsTuvxZ",
        short_values: "St",
        short_optional: "",
        longs: &[
            "archive",
            "attributes-only",
            "backup[=]",
            "copy-contents",
            "force",
            "interactive",
            "link",
            "dereference",
            "no-clobber",
            "no-dereference",
            "preserve[=]",
            "no-preserve=",
            "parents",
            "recursive",
            "reflink[=]",
            "remove-destination",
            "sparse=",
            "strip-trailing-slashes",
            "symbolic-link",
            "suffix=",
            "target-directory=",
            "no-target-directory",
            "update[=]",
            "verbose",
            "one-file-system",
            "context[=]",
        ],
        effects: &[
            ("-a", Effect::Writes),
            ("--archive", Effect::Writes),
            ("-r", Effect::Writes),
            ("-R", Effect::Writes),
            ("--recursive", Effect::Writes),
            ("-l", Effect::Writes),
            ("--link", Effect::Writes),
            ("-s", Effect::Writes),
            ("--symbolic-link", Effect::Writes),
            ("-b", Effect::Writes),
            ("--backup", Effect::Writes),
            ("-S", Effect::Writes),
            ("--suffix", Effect::Writes),
            ("-t", Effect::Writes),
            ("--target-directory", Effect::Writes),
            ("--parents", Effect::Writes),
            // A copy of a symbolic link is a link: a later write through it lands
            // wherever it points.
            ("-d", Effect::Writes),
            ("-P", Effect::Writes),
            ("--no-dereference", Effect::Writes),
            ("--preserve", Effect::Writes),
        ],
        operands: Operands::SourcesThenDestination,
        digits: false,
        examples: &[
            ("cp a.txt b.txt", "auto"),
            ("cp src/a.py tests/", "auto"),
            ("cp .env backup.txt", "ask"),
            ("cp ~/.bashrc x", "ask"),
            ("cp a.txt ../b.txt", "ask"),
            ("cp a.txt .vscode/tasks.json", "ask"),
            ("cp -r src dst", "ask"),
            ("cp -s a.txt b.txt", "ask"),
            ("cp -P a.txt b.txt", "ask"),
            ("cp --preserve=links a.txt b.txt", "ask"),
            ("cp *.py tests/", "ask"),
        ],
    },
    Program {
        // GNU coreutils 9; as `cp`, and a source that may be a directory (no
        // extension) asks: it may carry protected files (`.github/workflows`) into place.
        name: "mv",
        flags: "bfinTuvZ",
        short_values: "St",
        short_optional: "",
        longs: &[
            "backup[=]",
            "force",
            "interactive",
            "no-clobber",
            "strip-trailing-slashes",
            "suffix=",
            "target-directory=",
            "no-target-directory",
            "update[=]",
            "verbose",
            "context",
        ],
        effects: &[
            ("-b", Effect::Writes),
            ("--backup", Effect::Writes),
            ("-S", Effect::Writes),
            ("--suffix", Effect::Writes),
            ("-t", Effect::Writes),
            ("--target-directory", Effect::Writes),
        ],
        operands: Operands::SourcesThenDestination,
        digits: false,
        examples: &[
            ("mv draft.md final.md", "auto"),
            ("mv reproduce.py tests/", "auto"),
            ("mv src /tmp/", "ask"),
            ("mv staged/.github .", "ask"),
            ("mv .env x.txt", "ask"),
            ("mv x.txt .git/hooks/pre-commit", "ask"),
        ],
    },
    Program {
        name: "df",
        flags: "ahHiklPTv",
        short_values: "Btx",
        short_optional: "",
        longs: &[
            "all",
            "block-size=",
            "human-readable",
            "si",
            "inodes",
            "local",
            "no-sync",
            "output[=]",
            "portability",
            "sync",
            "total",
            "type=",
            "print-type",
            "exclude-type=",
        ],
        effects: &[],
        operands: Operands::Names,
        digits: false,
        examples: &[("df -h .", "auto")],
    },
];

/// `xargs`'s options (not a read-only program: it runs the command after them, which is
/// classified on its own). Read for the file `-a` names.
pub const XARGS: Program = Program {
    name: "xargs",
    flags: "0prtx",
    short_values: "adEILnPs",
    short_optional: "eil",
    longs: &[
        "null",
        "arg-file=",
        "delimiter=",
        "eof[=]",
        "replace[=]",
        "max-lines[=]",
        "max-args=",
        "max-procs=",
        "interactive",
        "no-run-if-empty",
        "max-chars=",
        "verbose",
        "exit",
        "show-limits",
        "process-slot-var=",
        "open-tty",
    ],
    effects: &[
        ("-a", Effect::ReadsFileList),
        ("--arg-file", Effect::ReadsFileList),
    ],
    operands: Operands::Data,
    digits: false,
    examples: &[
        ("xargs -a notes.txt echo", "auto"),
        ("xargs -a.env", "ask"),
        ("xargs -0a.env echo", "ask"),
    ],
};

/// `find`'s expression (GNU findutils 4.9): every option, test, action and operator,
/// and how many words follow it. An expression word not here asks: `-files0-from F`
/// (a list of starting points, whose lines find prints in its errors) was missed while
/// find's words were matched one name at a time. `-exec`, `-execdir`, `-ok` and
/// `-okdir` take the words up to `;` or `+` (marked `u8::MAX`); `-newerXY` is read by
/// [`find_primary`].
pub const FIND_PRIMARIES: &[(&str, u8)] = &[
    // Options.
    ("-d", 0),
    ("-depth", 0),
    ("-daystart", 0),
    ("-follow", 0),
    ("-files0-from", 1),
    ("-help", 0),
    ("--help", 0),
    ("-ignore_readdir_race", 0),
    ("-maxdepth", 1),
    ("-mindepth", 1),
    ("-mount", 0),
    ("-noignore_readdir_race", 0),
    ("-noleaf", 0),
    ("-regextype", 1),
    ("-version", 0),
    ("--version", 0),
    ("-warn", 0),
    ("-nowarn", 0),
    ("-xdev", 0),
    // Tests.
    ("-amin", 1),
    ("-anewer", 1),
    ("-atime", 1),
    ("-cmin", 1),
    ("-cnewer", 1),
    ("-context", 1),
    ("-ctime", 1),
    ("-empty", 0),
    ("-executable", 0),
    ("-false", 0),
    ("-fstype", 1),
    ("-gid", 1),
    ("-group", 1),
    ("-ilname", 1),
    ("-iname", 1),
    ("-inum", 1),
    ("-ipath", 1),
    ("-iregex", 1),
    ("-iwholename", 1),
    ("-links", 1),
    ("-lname", 1),
    ("-mmin", 1),
    ("-mtime", 1),
    ("-name", 1),
    ("-newer", 1),
    ("-nogroup", 0),
    ("-nouser", 0),
    ("-path", 1),
    ("-perm", 1),
    ("-readable", 0),
    ("-regex", 1),
    ("-samefile", 1),
    ("-size", 1),
    ("-true", 0),
    ("-type", 1),
    ("-uid", 1),
    ("-used", 1),
    ("-user", 1),
    ("-wholename", 1),
    ("-writable", 0),
    ("-xtype", 1),
    // Actions (the walker asks on those that run, delete or write).
    ("-delete", 0),
    ("-exec", u8::MAX),
    ("-execdir", u8::MAX),
    ("-ok", u8::MAX),
    ("-okdir", u8::MAX),
    ("-fls", 1),
    ("-fprint", 1),
    ("-fprint0", 1),
    ("-fprintf", 2),
    ("-ls", 0),
    ("-print", 0),
    ("-print0", 0),
    ("-printf", 1),
    ("-prune", 0),
    ("-quit", 0),
    // Operators.
    ("(", 0),
    (")", 0),
    ("!", 0),
    (",", 0),
    ("-not", 0),
    ("-a", 0),
    ("-and", 0),
    ("-o", 0),
    ("-or", 0),
];

/// `find` commands with the tier the built-in policy gives them: checked by a test.
pub const FIND_EXAMPLES: &[(&str, &str)] = &[
    ("find . -name '*.py' -newermt 2020-01-01", "auto"),
    ("find src \\( -name a -o -name b \\) -print0", "auto"),
    ("find . -maxdepth 1 -type d ! -name '.*'", "auto"),
    ("find -files0-from list.txt -name x", "auto"),
    ("find -files0-from .env", "ask"),
    ("find . -bogus", "ask"),
    ("find . -fprint out.txt", "ask"),
    ("find / -exec rm -rf {} +", "deny"),
];

/// How many words follow `find` expression word `t`, if it is one find knows
/// (`-newerXY REF`: X one of `aBcm`, Y one of `aBcmt`).
pub fn find_primary(t: &str) -> Option<u8> {
    if let Some(xy) = t.strip_prefix("-newer") {
        let b = xy.as_bytes();
        if b.len() == 2 && b"aBcm".contains(&b[0]) && b"aBcmt".contains(&b[1]) {
            return Some(1);
        }
    }
    FIND_PRIMARIES
        .iter()
        .find(|(name, _)| *name == t)
        .map(|(_, n)| *n)
}

/// The table entry of a program (`egrep`/`fgrep` are `grep`).
pub fn lookup(name: &str) -> Option<&'static Program> {
    let name = match name {
        "egrep" | "fgrep" => "grep",
        n => n,
    };
    // Most programs are not in the table: a first-byte test skips the string compares.
    let first = name.as_bytes().first()?;
    PROGRAMS
        .iter()
        .find(|p| p.name.as_bytes().first() == Some(first) && p.name == name)
}

/// An option as the table names it: `-x` or `--long` (full name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Short(char),
    Long(&'static str),
}

impl Opt {
    /// Is this the option spelled `s` (`-x` or `--long`)?
    pub fn is(&self, s: &str) -> bool {
        match self {
            Opt::Short(c) => s
                .strip_prefix('-')
                .is_some_and(|r| !r.starts_with('-') && r.chars().eq([*c])),
            Opt::Long(l) => s.strip_prefix("--") == Some(l),
        }
    }
}

impl std::fmt::Display for Opt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Opt::Short(c) => write!(f, "-{c}"),
            Opt::Long(l) => write!(f, "--{l}"),
        }
    }
}

/// An option found in the arguments: its canonical spelling (`-x` or `--long`), the
/// word it is in, and its value (text and the word holding it), if any.
#[derive(Debug)]
pub struct Found<'w> {
    pub option: Opt,
    pub word: &'w Word,
    pub value: Option<(&'w str, &'w Word)>,
}

/// The arguments read with a program's table entry.
#[derive(Debug, Default)]
pub struct Scan<'w> {
    /// The options that matter (an effect, or the pattern given by `-e`), in order.
    pub options: Vec<Found<'w>>,
    pub operands: Vec<&'w Word>,
    /// The first word that is not a known option (unknown, ambiguous or malformed), and
    /// why.
    pub unknown: Option<(&'w Word, String)>,
    /// Words whose value is known only at run time where an option could stand: the
    /// program may read them as options. (They are in `operands` too.)
    pub dynamic_options: Vec<&'w Word>,
    /// The index in the arguments of the `--` that ended the options.
    pub end: Option<usize>,
}

impl<'w> Scan<'w> {
    /// Records an option that matters: one with an effect (giving the pattern is
    /// one). The rest only change how the program prints, and most commands have only
    /// those: nothing is allocated for them.
    fn keep(&mut self, p: &Program, f: Found<'w>) {
        if p.effect(&f).is_some() {
            self.options.push(f);
        }
    }
}

impl Program {
    /// Every argument is data (`echo`, `test`) or the directory it changes to (`cd`):
    /// a value known only at run time is never read as an option.
    pub fn args_are_data(&self) -> bool {
        matches!(self.operands, Operands::Printed | Operands::Dir)
    }

    /// No option writes, runs, follows, recurses or opens a file, and no operand is
    /// written: a glob that expands to an option (`cat *.rs` with a file named
    /// `-n.rs`) only changes how it prints.
    pub fn options_harmless(&self) -> bool {
        self.effects.is_empty() && self.operands != Operands::InputThenOutput
    }

    /// It writes its operands (`touch`, `mkdir`, `tee`).
    pub fn writes_operands(&self) -> bool {
        self.operands == Operands::Written
    }

    /// It opens its operands (after the pattern, for `grep`): what `find … | xargs`
    /// feeds it is read.
    pub fn opens_operands(&self) -> bool {
        matches!(
            self.operands,
            Operands::Files | Operands::PatternThenFiles | Operands::InputThenOutput
        )
    }

    fn long(&self, given: &str) -> Result<(&'static str, char), String> {
        let all = self.longs.iter().copied().chain(HELP.iter().copied());
        let mut hit: Option<(&'static str, char)> = None;
        for l in all {
            let (base, kind) = if let Some(b) = l.strip_suffix("[=]") {
                (b, 'o')
            } else if let Some(b) = l.strip_suffix("==") {
                (b, '2')
            } else if let Some(b) = l.strip_suffix('=') {
                (b, 'r')
            } else {
                (l, 'n')
            };
            if base == given {
                return Ok((base, kind));
            }
            if base.starts_with(given) {
                if hit.is_some_and(|(h, _)| h != base) {
                    return Err(format!("--{given} is ambiguous"));
                }
                hit = Some((base, kind));
            }
        }
        hit.ok_or_else(|| format!("--{given} is not an option of {} it knows", self.name))
    }

    /// Reads `args` as `getopt_long` does (GNU: options may follow operands; `--` ends
    /// them).
    pub fn scan<'w>(&self, args: &[&'w Word]) -> Scan<'w> {
        let mut s = Scan {
            operands: Vec::with_capacity(args.len()),
            ..Scan::default()
        };
        if self.operands == Operands::Printed {
            // `echo -x`, `test -f F`: every argument is text.
            s.operands.extend_from_slice(args);
            return s;
        }
        let mut i = 0;
        let mut ended = false;
        while i < args.len() {
            let w = args[i];
            i += 1;
            let t = w.text.as_str();
            if ended || t == "-" || !(t.starts_with('-') || w.dynamic) {
                s.operands.push(w);
                continue;
            }
            if w.dynamic {
                // `-$x`, `$x`, `"$(cmd)"`: could be any option (the caller decides what
                // a run-time value may be); `./$x` cannot.
                let lead = t.trim_start_matches(['"', '\'']);
                if t.starts_with('-') || lead.starts_with('$') || lead.starts_with('`') {
                    s.dynamic_options.push(w);
                }
                // Also an operand, in its place: judged as the file it may name.
                s.operands.push(w);
                continue;
            }
            if t == "--" {
                ended = true;
                s.end = Some(i - 1);
                continue;
            }
            if let Some(long) = t.strip_prefix("--") {
                let (given, inline) = match long.split_once('=') {
                    Some((g, v)) => (g, Some(v)),
                    None => (long, None),
                };
                match self.long(given) {
                    Ok((base, kind)) => {
                        let value = match (kind, inline) {
                            ('2', Some(_)) => {
                                s.unknown.get_or_insert((
                                    w,
                                    format!("--{base} takes its two values as the next words"),
                                ));
                                None
                            }
                            ('2', None) => match (args.get(i), args.get(i + 1)) {
                                (Some(_), Some(second)) => {
                                    i += 2;
                                    Some((second.text.as_str(), *second))
                                }
                                _ => {
                                    i = args.len();
                                    None
                                }
                            },
                            (_, Some(v)) if kind != 'n' => Some((v, w)),
                            ('n', Some(_)) => {
                                s.unknown
                                    .get_or_insert((w, format!("--{base} takes no value")));
                                None
                            }
                            ('r', None) => match args.get(i) {
                                Some(next) => {
                                    i += 1;
                                    Some((next.text.as_str(), *next))
                                }
                                None => None,
                            },
                            _ => None,
                        };
                        s.keep(
                            self,
                            Found {
                                option: Opt::Long(base),
                                word: w,
                                value,
                            },
                        );
                    }
                    Err(why) => {
                        s.unknown.get_or_insert((w, why));
                    }
                }
                continue;
            }
            let cluster = &t[1..];
            if self.digits && cluster.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            for (ci, c) in cluster.char_indices() {
                if self.short_optional.contains(c) {
                    let rest = &cluster[ci + c.len_utf8()..];
                    s.keep(
                        self,
                        Found {
                            option: Opt::Short(c),
                            word: w,
                            value: (!rest.is_empty()).then_some((rest, w)),
                        },
                    );
                    break;
                }
                if self.short_values.contains(c) {
                    let rest = &cluster[ci + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        args.get(i).map(|next| {
                            i += 1;
                            (next.text.as_str(), *next)
                        })
                    } else {
                        Some((rest, w))
                    };
                    s.keep(
                        self,
                        Found {
                            option: Opt::Short(c),
                            word: w,
                            value,
                        },
                    );
                    break;
                }
                if self.flags.contains(c) {
                    s.keep(
                        self,
                        Found {
                            option: Opt::Short(c),
                            word: w,
                            value: None,
                        },
                    );
                } else {
                    s.unknown.get_or_insert((
                        w,
                        format!("-{c} is not an option of {} it knows", self.name),
                    ));
                    break;
                }
            }
        }
        s
    }

    /// The effect of a found option, if it has one.
    pub fn effect(&self, f: &Found) -> Option<Effect> {
        self.effects
            .iter()
            .find(|(o, _)| f.option.is(o))
            .map(|(_, e)| *e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Policy, Tier, ToolCall};

    /// Each entry's examples get the tier they name from the built-in policy.
    #[test]
    fn examples_hold() {
        let policy = Policy::defaults("/home/dev/app", "/home/dev");
        let mut bad = Vec::new();
        let find = Program {
            name: "find",
            flags: "",
            short_values: "",
            short_optional: "",
            longs: &[],
            effects: &[],
            operands: Operands::Names,
            digits: false,
            examples: FIND_EXAMPLES,
        };
        for p in PROGRAMS.iter().chain([&XARGS, &find]) {
            assert!(!p.examples.is_empty(), "{}: no examples", p.name);
            for (cmd, want) in p.examples {
                let v = policy.classify(&ToolCall::new(
                    "bash",
                    serde_json::json!({ "command": cmd }),
                ));
                if Tier::parse(want) != Some(v.tier) {
                    bad.push(format!(
                        "{cmd}: want {want}, got {} {} ({})",
                        v.tier, v.rule, v.reason
                    ));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// Every option named in `effects` is one the entry accepts; no short option is
    /// both a flag and value-taking; names are unique.
    #[test]
    fn entries_are_consistent() {
        for (i, p) in PROGRAMS.iter().chain([&XARGS]).enumerate() {
            assert!(
                PROGRAMS[..i].iter().all(|q| q.name != p.name),
                "{} twice",
                p.name
            );
            for c in p.flags.chars() {
                assert!(!p.short_values.contains(c), "{}: -{c} twice", p.name);
                assert!(!p.short_optional.contains(c), "{}: -{c} twice", p.name);
            }
            for c in p.short_values.chars() {
                assert!(!p.short_optional.contains(c), "{}: -{c} twice", p.name);
            }
            for (o, _) in p.effects {
                let known = match o.strip_prefix("--") {
                    Some(l) => p.long(l).is_ok_and(|(base, _)| base == l),
                    None => o
                        .strip_prefix('-')
                        .and_then(|c| c.chars().next())
                        .is_some_and(|c| {
                            p.flags.contains(c)
                                || p.short_values.contains(c)
                                || p.short_optional.contains(c)
                        }),
                };
                assert!(known, "{}: effect on unknown option {o}", p.name);
            }
        }
    }
}
