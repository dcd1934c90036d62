//! Builds the policy a run uses: the policy file (or the built-in policy), then the
//! workspace and home directories — a flag wins over the file, the file over the
//! defaults (the current directory and `$HOME`).

use crate::error::CliError;
use clap::builder::NonEmptyStringValueParser;
use std::path::{Component, Path, PathBuf};
use toolgate_core::Policy;

/// Where the policy comes from and what overrides it: the options every command that
/// judges calls shares.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct PolicyOpts {
    /// A policy file (TOML); default: the built-in policy
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Claude Code settings (repeatable): their permission rules are added to the
    /// policy's, with Claude Code's meaning
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// The workspace directory (default: the policy's, else the current directory)
    #[arg(long, value_name = "DIR", value_parser = NonEmptyStringValueParser::new())]
    pub workspace: Option<String>,
    /// The home directory (default: the policy's, else $HOME)
    #[arg(long, value_name = "DIR", value_parser = NonEmptyStringValueParser::new())]
    pub home: Option<String>,
    /// File-system facts (symbolic links, the trees recursive reads walk) from this
    /// machine: `Some(true)` with `--fs`, `Some(false)` with `--no-fs`, `None` for the
    /// default ([`PolicyOpts::fs_for`]). Set by the commands that take those flags.
    #[arg(skip)]
    pub fs: Option<bool>,
}

impl PolicyOpts {
    /// Whether to look the file system up for `policy`: as `--fs` / `--no-fs` say, else
    /// when `default_on` (the hook) or when the policy's workspace is a directory on this
    /// machine (the calls are then this machine's: a planted link is followed).
    pub fn fs_for(&self, policy: &toolgate_core::Policy, default_on: bool) -> bool {
        self.fs
            .unwrap_or_else(|| default_on || std::path::Path::new(policy.workspace()).is_dir())
    }
}

/// `--sandbox`: answer for a host that runs `sandbox` verdicts contained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
pub struct SandboxFlag {
    /// Answer for a host that runs `sandbox` verdicts inside `toolgate sandbox`: a
    /// shell command that asks only because it runs code is `sandbox` (unless the
    /// policy says sandbox = "off"); without it such a command asks
    #[arg(long)]
    pub sandbox: bool,
}

/// `--fs` / `--no-fs`: look paths up on this machine, or judge them as written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
pub struct FsFlags {
    /// Look paths up on this machine: a path through a symbolic link is judged as the
    /// file it names, and a recursive read whose trees hold no secret file is read-only
    #[arg(long, overrides_with = "no_fs")]
    pub fs: bool,
    /// Judge paths as written (recursive reads ask)
    #[arg(long, overrides_with = "fs")]
    pub no_fs: bool,
}

impl FsFlags {
    /// `Some(true)`, `Some(false)`, or `None` when neither flag was given.
    pub fn value(self) -> Option<bool> {
        match (self.fs, self.no_fs) {
            (true, _) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        }
    }
}

/// What the process environment supplies: the current directory and `$HOME`.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub cwd: Option<PathBuf>,
    pub home: Option<String>,
}

impl Env {
    pub fn from_process() -> Env {
        Env {
            cwd: std::env::current_dir().ok(),
            home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
        }
    }
}

/// Loads the policy `opts` describes.
pub fn policy(opts: &PolicyOpts, env: &Env) -> Result<Policy, CliError> {
    let (policy, file_keys) = match &opts.policy {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| CliError::PolicyRead {
                path: path.clone(),
                source,
            })?;
            let policy = Policy::from_toml(&text).map_err(|source| CliError::Policy {
                path: path.clone(),
                source,
            })?;
            (policy, top_level_keys(&text))
        }
        None => (Policy::defaults("/", "/"), FileKeys::default()),
    };

    let workspace = match (&opts.workspace, file_keys.workspace) {
        (Some(dir), _) => Some(absolute(dir, env, "--workspace")?),
        (None, true) => None,
        (None, false) => Some(cwd_string(env)?),
    };
    let home = match (&opts.home, file_keys.home) {
        (Some(dir), _) => Some(absolute(dir, env, "--home")?),
        (None, true) => None,
        (None, false) => Some(env.home.clone().ok_or_else(|| {
            CliError::Environment("HOME is not set: pass --home DIR".to_string())
        })?),
    };
    let policy = match workspace {
        Some(w) => policy.with_workspace(&w),
        None => policy,
    };
    let policy = match home {
        Some(h) => policy.with_home(&h),
        None => policy,
    };
    if opts.settings.is_empty() {
        return Ok(policy);
    }
    // Claude Code's permission rules, added to the policy's (`--settings`).
    let imported = crate::claude_settings::read(&opts.settings)?;
    for note in &imported.notes {
        eprintln!("toolgate: note: {note}");
    }
    policy
        .with_rules(&imported.allow, &imported.ask, &imported.deny)
        .map_err(|e| CliError::Environment(format!("--settings: {e}")))
}

/// Which of `workspace` / `home` the policy file sets itself.
#[derive(Debug, Default, PartialEq, Eq)]
struct FileKeys {
    workspace: bool,
    home: bool,
}

fn top_level_keys(text: &str) -> FileKeys {
    match basic_toml::from_str::<serde_json::Value>(text) {
        Ok(v) => FileKeys {
            workspace: v.get("workspace").is_some(),
            home: v.get("home").is_some(),
        },
        Err(_) => FileKeys::default(),
    }
}

fn cwd_string(env: &Env) -> Result<String, CliError> {
    let cwd = env.cwd.as_ref().ok_or_else(|| {
        CliError::Environment("cannot read the current directory: pass --workspace DIR".into())
    })?;
    cwd.to_str().map(str::to_string).ok_or_else(|| {
        CliError::Environment(format!(
            "the current directory {} is not UTF-8: pass --workspace DIR",
            cwd.display()
        ))
    })
}

/// `dir` made absolute against the current directory, with `.` and `..` folded
/// lexically (the classifier never touches the file system; neither do we).
fn absolute(dir: &str, env: &Env, flag: &str) -> Result<String, CliError> {
    let joined = if Path::new(dir).is_absolute() {
        PathBuf::from(dir)
    } else {
        PathBuf::from(cwd_string(env).map_err(|_| {
            CliError::Environment(format!(
                "{flag} {dir} is relative and the current directory is unknown"
            ))
        })?)
        .join(dir)
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out.to_str()
        .map(str::to_string)
        .ok_or_else(|| CliError::Environment(format!("{flag} {dir} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            cwd: Some("/home/dev/app".into()),
            home: Some("/home/dev".into()),
        }
    }

    #[test]
    fn defaults_are_the_current_directory_and_home() {
        let p = policy(&PolicyOpts::default(), &env()).unwrap();
        assert_eq!((p.workspace(), p.home()), ("/home/dev/app", "/home/dev"));
    }

    #[test]
    fn flags_are_made_absolute_and_folded() {
        let opts = PolicyOpts {
            policy: None,
            workspace: Some("../other/./x/..".into()),
            home: Some("/root/../home/me/".into()),
            ..PolicyOpts::default()
        };
        let p = policy(&opts, &env()).unwrap();
        assert_eq!((p.workspace(), p.home()), ("/home/dev/other", "/home/me"));
    }

    #[test]
    fn missing_home_is_an_error_not_a_guess() {
        let e = Env {
            home: None,
            ..env()
        };
        let err = policy(&PolicyOpts::default(), &e).unwrap_err();
        assert!(err.to_string().contains("--home"), "{err}");
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn detects_keys_the_file_sets() {
        let keys = top_level_keys("workspace = \"/w\"\ndefault = \"ask\"\n[rules]\nhome = 1\n");
        assert_eq!(
            keys,
            FileKeys {
                workspace: true,
                home: false
            }
        );
    }

    #[test]
    fn unreadable_policy_file_names_the_file() {
        let opts = PolicyOpts {
            policy: Some("/nonexistent/toolgate-policy.toml".into()),
            ..PolicyOpts::default()
        };
        let err = policy(&opts, &env()).unwrap_err();
        assert!(
            err.to_string()
                .contains("/nonexistent/toolgate-policy.toml"),
            "{err}"
        );
        assert_eq!(err.exit_code(), 2);
    }
}
