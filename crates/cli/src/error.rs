//! The one error type of the `toolgate` command, and its exit statuses.

use std::path::PathBuf;

/// Everything that stops a `toolgate` run, with what the user needs to fix it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A bad command line; the message says what was wrong.
    #[error("{0}\n(see `toolgate --help`)")]
    Usage(String),
    /// A policy file that cannot be read.
    #[error("cannot read policy file {}: {source}", path.display())]
    PolicyRead {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A policy file that does not parse; the core error names the line.
    #[error("{}: {source}", path.display())]
    Policy {
        path: PathBuf,
        source: toolgate_core::Error,
    },
    /// The workspace or home directory could not be worked out.
    #[error("{0}")]
    Environment(String),
    /// The runs database, or a run's state, refused (`toolgate runs`, `decide`).
    #[error("{0}")]
    Runs(String),
    /// Reading input or writing output failed.
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

impl CliError {
    /// The process exit status: 2 for what the user must fix in the command line or
    /// the policy, 1 for I/O failures.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_)
            | CliError::PolicyRead { .. }
            | CliError::Policy { .. }
            | CliError::Environment(_) => 2,
            CliError::Io { .. } | CliError::Runs(_) => 1,
        }
    }

    /// True when the reader of our output went away (`toolgate classify | head`):
    /// not an error worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }

    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CliError {
        let what = what.into();
        move |source| CliError::Io { what, source }
    }
}
