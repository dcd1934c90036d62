//! Every program the tables name, with every option its entry lists, as the words a
//! caller may write: the input of the table-walking test (`tests/table_walk.rs`) and of
//! the `table_commands` fuzz target. Not used by the classifier itself (the shipped wasm
//! links none of it).
//!
//! The tables describe options for the option scanner; the walker and the rules of
//! their own (`find`, `git`, the wrappers) read the same words by other code, and a
//! spelling one of them did not expect (`find -D` with no value) must not panic it.

use super::{programs, Program, FIND_PRIMARIES, KINDS, XARGS};

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// A flag.
    Nothing,
    /// A value, attached or in the next word.
    Value,
    /// An optional value, only attached.
    Optional,
    /// The next `n` words (`find -newer F`, `jq --arg NAME VALUE`).
    Words(u8),
    /// Not known (a program of the kind table, whose options no table lists): every
    /// reading is tried.
    Unknown,
}

/// One option as written: `-n`, `--lines`, `-maxdepth`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionSpelling {
    pub text: String,
    pub takes: Takes,
}

/// A program and the options to try with it.
#[derive(Debug, Clone)]
pub struct TableProgram {
    /// The words before the options (`git log`, `busybox ls`, `find .`).
    pub prefix: Vec<&'static str>,
    pub options: Vec<OptionSpelling>,
}

/// The options of a kind-table program: no table lists them, so every short letter,
/// digit and a few long names common to such programs are tried.
fn generic_options() -> Vec<OptionSpelling> {
    let mut out: Vec<OptionSpelling> = ('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .map(|c| OptionSpelling {
            text: format!("-{c}"),
            takes: Takes::Unknown,
        })
        .collect();
    for long in [
        "--help",
        "--version",
        "--",
        "--unset",
        "--chdir",
        "--signal",
        "--kill-after",
        "--split-string",
        "--ignore-environment",
        "--null",
        "--arg",
        "--command",
        "--init-file",
        "--rcfile",
        "--login",
    ] {
        out.push(OptionSpelling {
            text: long.to_string(),
            takes: Takes::Unknown,
        });
    }
    out
}

/// The options of a read-only table entry, each short and long one.
fn entry_options(p: &Program) -> Vec<OptionSpelling> {
    let mut out = Vec::new();
    let mut short = |chars: &str, takes: Takes| {
        for c in chars.chars() {
            out.push(OptionSpelling {
                text: format!("-{c}"),
                takes,
            });
        }
    };
    short(p.flags, Takes::Nothing);
    short(p.short_values, Takes::Value);
    short(p.short_optional, Takes::Optional);
    for long in p.longs.iter() {
        let (name, takes) = if let Some(n) = long.strip_suffix("==") {
            (n, Takes::Words(2))
        } else if let Some(n) = long.strip_suffix("[=]") {
            (n, Takes::Optional)
        } else if let Some(n) = long.strip_suffix('=') {
            (n, Takes::Value)
        } else {
            (long, Takes::Nothing)
        };
        out.push(OptionSpelling {
            text: format!("--{name}"),
            takes,
        });
    }
    if p.digits {
        out.push(OptionSpelling {
            text: "-5".to_string(),
            takes: Takes::Nothing,
        });
    }
    out
}

/// `git`'s read-only subcommands and `git add`, whose words `builtin/git.rs` reads.
pub const GIT_SUBCOMMANDS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "ls-files",
    "rev-parse",
    "grep",
    "branch",
    "add",
];

/// Every program of the read-only tables, `xargs`, `find`'s expression, every name of
/// the kind table and git's subcommands, each with its options.
pub fn table_programs() -> Vec<TableProgram> {
    let mut out: Vec<TableProgram> = programs()
        .chain(std::iter::once(&XARGS))
        .map(|p| TableProgram {
            prefix: vec![p.name],
            options: entry_options(p),
        })
        .collect();
    let find: Vec<OptionSpelling> = FIND_PRIMARIES
        .iter()
        .map(|(name, n)| OptionSpelling {
            text: (*name).to_string(),
            takes: if *n == 0 {
                Takes::Nothing
            } else {
                Takes::Words(*n)
            },
        })
        .chain(
            ["-H", "-L", "-P", "-D", "-O", "-O3"]
                .iter()
                .map(|t| OptionSpelling {
                    text: (*t).to_string(),
                    takes: Takes::Unknown,
                }),
        )
        .collect();
    out.push(TableProgram {
        prefix: vec!["find"],
        options: find.clone(),
    });
    out.push(TableProgram {
        prefix: vec!["find", "."],
        options: find,
    });
    for (name, _) in KINDS {
        out.push(TableProgram {
            prefix: vec![name],
            options: generic_options(),
        });
    }
    for sub in GIT_SUBCOMMANDS {
        let mut options = generic_options();
        for o in super::GIT_FILE_OPTIONS {
            let spellings = o.long.map(|l| format!("--{l}")).into_iter();
            for text in spellings.chain(o.short.map(|c| format!("-{c}"))) {
                options.push(OptionSpelling {
                    text,
                    takes: Takes::Value,
                });
            }
        }
        out.push(TableProgram {
            prefix: vec!["git", sub],
            options,
        });
    }
    out
}

/// Values tried where an option takes one: a number, a plain name, a secret name, a
/// path outside the workspace, a dash, and nothing.
pub const VALUES: &[&str] = &["1", "x", ".env", "/etc/passwd", "-", ""];

/// The commands the table-walking test classifies for one option: the option last with
/// no value, with a value, attached, after `--`, followed by `-`, and followed by an
/// operand.
pub fn commands_for(prefix: &[&str], opt: &OptionSpelling) -> Vec<String> {
    let head = prefix.join(" ");
    let o = &opt.text;
    let mut out = vec![
        format!("{head} {o}"),
        format!("{head} -- {o}"),
        format!("{head} {o} -"),
        format!("{head} {o} -- -"),
        format!("{head} {o} file.txt"),
        format!("{head} {o} ls -la"),
    ];
    if opt.takes != Takes::Nothing {
        for v in VALUES {
            let q = if v.is_empty() { "''" } else { v };
            out.push(format!("{head} {o} {q}"));
            out.push(format!("{head} {o} {q} file.txt"));
            if o.starts_with("--") {
                out.push(format!("{head} {o}={v}"));
            } else {
                out.push(format!("{head} {o}{v}"));
            }
        }
        if let Takes::Words(n) = opt.takes {
            let words = vec!["x"; usize::from(n) + 1].join(" ");
            out.push(format!("{head} {o} {words}"));
        }
    }
    out
}
