//! `git`'s read-only subcommands: the options that open a file (read by `builtin/git.rs`).

/// An option of a read-only subcommand that opens the file its value names (from
/// `git SUB -h`, git 2.47): the subcommands, the long name (any unambiguous prefix,
/// `--name=V` or `--name V`), the short letter (`-SV`, `-S V`, anywhere in a cluster).
pub struct GitFileOption {
    /// The subcommands that have it.
    pub subs: &'static [&'static str],
    /// The long name, if any.
    pub long: Option<&'static str>,
    /// The short letter, if any.
    pub short: Option<char>,
}

/// Every option of git's read-only subcommands whose value is a file git opens. `-L`
/// of `log`/`show` names a file after its range (`-L1,5:.env`); `git grep -f` reads
/// patterns, but `git grep` asks anyway (a recursive read).
pub const GIT_FILE_OPTIONS: &[GitFileOption] = &[
    GitFileOption {
        subs: &["blame"],
        long: Some("contents"),
        short: None,
    },
    GitFileOption {
        subs: &["blame"],
        long: Some("ignore-revs-file"),
        short: None,
    },
    GitFileOption {
        subs: &["blame"],
        long: None,
        short: Some('S'),
    },
    GitFileOption {
        subs: &["ls-files"],
        long: Some("exclude-from"),
        short: Some('X'),
    },
    GitFileOption {
        subs: &["ls-files"],
        long: Some("exclude-per-directory"),
        short: None,
    },
    GitFileOption {
        subs: &["log", "show"],
        long: None,
        short: Some('L'),
    },
    GitFileOption {
        subs: &["rev-parse"],
        long: Some("resolve-git-dir"),
        short: None,
    },
    GitFileOption {
        subs: &["grep"],
        long: Some("file"),
        short: Some('f'),
    },
];
