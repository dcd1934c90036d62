//! `xargs`'s options and `find`'s expression: the programs that run others, read for
//! what they open and what they run.

use super::{Effect, Operands, Program};

/// `xargs`'s options (not a read-only program: it runs the command after them, which is
/// classified on its own). Read for the file `-a` names.
pub const XARGS: Program = Program {
    name: "xargs",
    flags: "0prtx",
    short_values: "adEILnPs",
    short_optional: "eil",
    longs: longs![
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
    examples: examples![
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
        if let [x, y] = b {
            if b"aBcm".contains(x) && b"aBcmt".contains(y) {
                return Some(1);
            }
        }
    }
    FIND_PRIMARIES
        .iter()
        .find(|(name, _)| *name == t)
        .map(|(_, n)| *n)
}
