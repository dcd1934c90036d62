//! The read-only programs, one table entry each: every option the program accepts,
//! whether it takes a value, and what it does beyond printing (opens a file named by
//! its value, writes, runs, recurses), and what its operands are. An option that is not
//! in the entry asks: a program may grow an option that writes.
//!
//! The option lists follow each program's `--help` (GNU coreutils 9, grep 3, diffutils
//! 3, file 5, tree 2). Long options may be abbreviated to any unambiguous prefix, as
//! `getopt_long` accepts; an ambiguous prefix makes the program refuse to run, and is
//! treated as unknown here.

use crate::needle::HasChar;
use crate::shell::Word;
use std::sync::OnceLock;

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
    /// The program's name as invoked (its basename).
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
    pub longs: Longs,
    /// Options with an effect: `-x` or `--long` (full name), and the effect.
    pub effects: &'static [(&'static str, Effect)],
    /// What its operands are (files read, a pattern, …).
    pub operands: Operands,
    /// Accepts `-NUM` (`head -5`, `grep -3`).
    pub digits: bool,
    /// Commands with the tier the built-in policy gives them: checked by a test.
    pub examples: Examples,
}

/// An entry's examples, `examples![("tac log.txt", "auto"), …]`: commands and the tier
/// the built-in policy gives each, checked by the unit test `examples_hold`. Only test
/// builds keep them; elsewhere an entry's examples are [`NoExamples`], so the example
/// text (about 7 KB) is not shipped in the wasm.
#[cfg(test)]
pub type Examples = &'static [(&'static str, &'static str)];
/// An entry's examples outside test builds: none are kept.
#[cfg(not(test))]
pub type Examples = NoExamples;

/// The examples of an entry outside test builds: nothing.
#[derive(Debug, Clone, Copy)]
pub struct NoExamples;

#[cfg(test)]
macro_rules! examples {
    ($($example:expr),* $(,)?) => { &[$($example),*] };
}
#[cfg(not(test))]
macro_rules! examples {
    ($($example:expr),* $(,)?) => {
        $crate::builtin::programs::NoExamples
    };
}

/// A program's long options as one string, each followed by a space (`longs!["all",
/// "color[=]"]` is `"all color[=] "`): a table entry costs its characters, not a pointer
/// and a length beside them (the tables hold some 650 of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Longs(pub &'static str);

impl Longs {
    /// Each long option, in order.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        self.0.split_terminator(' ')
    }
}

macro_rules! longs {
    ($($long:literal),* $(,)?) => {
        $crate::builtin::programs::Longs(concat!($($long, " "),*))
    };
}

/// The long options of the coreutils `*sum` programs (`sum_longs!["length="]` adds one).
macro_rules! sum_longs {
    ($($extra:literal),*) => {
        longs![
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
            $($extra),*
        ]
    };
}

pub(super) const HELP: &[&str] = &["help", "version"];

mod files;
mod git;
mod kind;
mod runners;
mod system;
mod text;

#[doc(hidden)]
pub mod spellings;

pub use git::{GitFileOption, GIT_FILE_OPTIONS};
pub use kind::{kind, Kind, KINDS, KIND_EXAMPLES};
pub use runners::{find_primary, FIND_EXAMPLES, FIND_PRIMARIES, XARGS};

/// The tables of read-only programs, by family.
const TABLES: &[&[Program]] = &[text::PROGRAMS, files::PROGRAMS, system::PROGRAMS];

/// Every read-only program of the tables.
pub fn programs() -> impl Iterator<Item = &'static Program> {
    TABLES.iter().flat_map(|t| t.iter())
}

/// The table entry of a program (`egrep`/`fgrep` are `grep`).
pub fn lookup(name: &str) -> Option<&'static Program> {
    let name = match name {
        "egrep" | "fgrep" => "grep",
        n => n,
    };
    named(name).and_then(|n| n.entry)
}

/// The kind [`KINDS`] gives `name`, if it names one.
fn named_kind(name: &str) -> Option<Kind> {
    named(name).and_then(|n| n.kind)
}

/// What the tables say of one name.
struct Named {
    name: &'static str,
    kind: Option<Kind>,
    entry: Option<&'static Program>,
}

/// Buckets of the name index: a power of two, a few names each.
const BUCKETS: usize = 64;

/// A name's bucket: its length and first and last bytes (names are short, and not
/// chosen to collide; a collision costs a compare, never a wrong entry).
fn bucket(name: &str) -> usize {
    let b = name.as_bytes();
    let (first, last) = (
        b.first().copied().unwrap_or(0),
        b.last().copied().unwrap_or(0),
    );
    (usize::from(first) * 31 + usize::from(last) * 7 + b.len()) % BUCKETS
}

fn named(name: &str) -> Option<&'static Named> {
    index().get(bucket(name))?.iter().find(|n| n.name == name)
}

/// Every name of the tables and of [`KINDS`] by bucket, built once: one small scan per
/// lookup, for both.
fn index() -> &'static [Vec<Named>; BUCKETS] {
    static INDEX: OnceLock<[Vec<Named>; BUCKETS]> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: [Vec<Named>; BUCKETS] = std::array::from_fn(|_| Vec::new());
        fn slot<'a>(
            index: &'a mut [Vec<Named>; BUCKETS],
            name: &'static str,
        ) -> Option<&'a mut Named> {
            let list = index.get_mut(bucket(name))?;
            match list.iter().position(|n| n.name == name) {
                Some(at) => list.get_mut(at),
                None => {
                    list.push(Named {
                        name,
                        kind: None,
                        entry: None,
                    });
                    list.last_mut()
                }
            }
        }
        for p in programs() {
            if let Some(n) = slot(&mut index, p.name) {
                n.entry = Some(p);
            }
        }
        for (name, kind) in KINDS {
            if let Some(n) = slot(&mut index, name) {
                n.kind = Some(*kind);
            }
        }
        index
    })
}

/// An option as the table names it: `-x` or `--long` (full name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// `-x`.
    Short(char),
    /// `--long` (its full name).
    Long(&'static str),
}

impl Opt {
    /// Is this the option spelled `s` (`-x` or `--long`)?
    pub fn is(&self, s: &str) -> bool {
        // Byte comparisons: a `char` pattern encodes the character on every call.
        match self {
            Opt::Short(c) => {
                *c != '-'
                    && s.as_bytes().first() == Some(&b'-')
                    && s.get(1..).is_some_and(|r| r.chars().eq([*c]))
            }
            Opt::Long(l) => s.as_bytes().starts_with(b"--") && s.get(2..) == Some(*l),
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
    /// The option's canonical spelling.
    pub option: Opt,
    /// The word it is in.
    pub word: &'w Word,
    /// Its value and the word that holds it, if it takes one.
    pub value: Option<(&'w str, &'w Word)>,
}

/// The arguments read with a program's table entry.
#[derive(Debug, Default)]
pub struct Scan<'w> {
    /// The options that matter (an effect, or the pattern given by `-e`), in order.
    pub options: Vec<Found<'w>>,
    /// The operands, in order.
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
        let all = self.longs.iter().chain(HELP.iter().copied());
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
        while let Some(&w) = args.get(i) {
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
            let cluster = t.get(1..).unwrap_or_default();
            if self.digits && cluster.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            for (ci, c) in cluster.char_indices() {
                if self.short_optional.has_char(c) {
                    let rest = cluster.get(ci + c.len_utf8()..).unwrap_or_default();
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
                if self.short_values.has_char(c) {
                    let rest = cluster.get(ci + c.len_utf8()..).unwrap_or_default();
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
                if self.flags.has_char(c) {
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

    /// Classifies `cmd` as a bash call; a tier other than `want` goes into `bad`.
    fn check(policy: &Policy, cmd: &str, want: &str, bad: &mut Vec<String>) {
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

    /// Every table's long options read back as written: one string of names each
    /// followed by a space, none empty, none with a space of its own.
    #[test]
    fn long_options_are_stored_whole() {
        let mut n = 0;
        for p in programs().chain([&XARGS]) {
            assert!(
                p.longs.0.is_empty() || p.longs.0.ends_with(' '),
                "{}",
                p.name
            );
            for l in p.longs.iter() {
                assert!(
                    !l.is_empty() && !l.contains(char::is_whitespace),
                    "{}: {l:?}",
                    p.name
                );
                n += 1;
            }
        }
        assert!(n > 500, "only {n} long options");
        let sum = lookup("b2sum").map(|p| p.longs);
        assert_eq!(sum.map(|l| l.iter().last()), Some(Some("length=")));
        assert_eq!(
            longs!["a", "b[=]"].iter().collect::<Vec<_>>(),
            ["a", "b[=]"]
        );
    }

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
            longs: longs![],
            effects: &[],
            operands: Operands::Names,
            digits: false,
            examples: FIND_EXAMPLES,
        };
        let mut all: Vec<&Program> = programs().collect();
        all.extend([&XARGS, &find]);
        for p in all {
            assert!(!p.examples.is_empty(), "{}: no examples", p.name);
            for (cmd, want) in p.examples {
                check(&policy, cmd, want, &mut bad);
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// Every program of a kind gives the commands of [`KIND_EXAMPLES`] for that kind
    /// their tier, and every kind but the ones with rules of their own has examples.
    #[test]
    fn kind_examples_hold() {
        let policy = Policy::defaults("/home/dev/app", "/home/dev");
        let mut bad = Vec::new();
        for (name, k) in KINDS {
            for (_, cmd, want) in KIND_EXAMPLES.iter().filter(|(ek, _, _)| ek == k) {
                // `timeout` takes a duration before the command.
                let invoke = if *name == "timeout" {
                    "timeout 5"
                } else {
                    name
                };
                check(&policy, &cmd.replace("{}", invoke), want, &mut bad);
            }
            let own_rules = matches!(k, Kind::PowerVerb | Kind::OwnRule | Kind::Test);
            assert!(
                own_rules || KIND_EXAMPLES.iter().any(|(ek, _, _)| ek == k),
                "{name}: no examples for {k:?}"
            );
            assert_eq!(kind(name), *k, "{name}");
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
        // Interpreters by prefix, and names of no kind.
        for name in [
            "python3",
            "python3.12",
            "pypy3",
            "perl5.36",
            "ruby3.2",
            "php8",
        ] {
            assert_eq!(kind(name), Kind::Interpreter, "{name}");
        }
        assert_eq!(kind("mkfs.ext4"), Kind::OwnRule);
        for name in ["ls", "perlx", "rubyish", "", "tac"] {
            assert_eq!(kind(name), Kind::Other, "{name}");
        }
    }

    /// Every name is found, and no bucket of the index holds more than a few names
    /// (a lookup scans one bucket).
    #[test]
    fn the_name_index_stays_small_per_bucket() {
        for p in programs() {
            assert!(
                lookup(p.name).is_some_and(|q| std::ptr::eq(p, q)),
                "{}",
                p.name
            );
        }
        for (name, k) in KINDS {
            assert_eq!(named_kind(name), Some(*k), "{name}");
        }
        let most = index().iter().map(Vec::len).max().unwrap_or(0);
        assert!(most <= 8, "a bucket of {most} names: change `bucket`");
    }

    /// Every option named in `effects` is one the entry accepts; no short option is
    /// both a flag and value-taking; names are unique.
    #[test]
    fn entries_are_consistent() {
        let all: Vec<&Program> = programs().chain([&XARGS]).collect();
        for (i, p) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|q| q.name != p.name),
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

#[cfg(test)]
mod opt_is_tests {
    use super::Opt;

    proptest::proptest! {
        #[test]
        fn an_option_is_matched_as_its_spelling(s in "[-aé]{0,4}", c in "[-aé]", long in "[-aé]{0,3}") {
            let c = c.chars().next().unwrap_or('a');
            let short = s.strip_prefix('-').is_some_and(|r| !r.starts_with('-') && r.chars().eq([c]));
            proptest::prop_assert_eq!(Opt::Short(c).is(&s), short);
            let long: &'static str = Box::leak(long.into_boxed_str());
            proptest::prop_assert_eq!(Opt::Long(long).is(&s), s.strip_prefix("--") == Some(long));
        }
    }
}
