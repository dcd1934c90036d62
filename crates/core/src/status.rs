//! The two leaf enums other modules name in their errors: where a run is
//! ([`RunStatus`]) and how a held request ended ([`Ended`]). They import nothing from
//! the crate, so `error.rs` can name them without a cycle.

use serde::{Deserialize, Serialize};

/// Where a run is (DESIGN §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The agent loop is working (or was resumed and continues).
    Running,
    /// Parked: a permission marker waits for a human decision.
    AwaitingPermission,
    /// Finished normally. Terminal.
    Completed,
    /// Ended by an error (e.g. a corrupt marker); see `last_error`. Terminal.
    Failed,
    /// Ended by the session/user, or by an expired permission request. Terminal.
    Cancelled,
}

impl RunStatus {
    /// Every status, for tables.
    pub const ALL: [RunStatus; 5] = [
        RunStatus::Running,
        RunStatus::AwaitingPermission,
        RunStatus::Completed,
        RunStatus::Failed,
        RunStatus::Cancelled,
    ];

    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::AwaitingPermission => "awaiting_permission",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }

    /// Parses a snake_case name.
    pub fn parse(s: &str) -> Option<RunStatus> {
        RunStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// `completed`, `failed` and `cancelled` never change again.
    pub fn is_terminal(self) -> bool {
        match self {
            RunStatus::Running | RunStatus::AwaitingPermission => false,
            RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled => true,
        }
    }

    /// The legal transitions:
    /// `running -> awaiting_permission | completed | failed | cancelled` and
    /// `awaiting_permission -> running (resume) | failed | cancelled`. Nothing leaves a
    /// terminal state, and no state becomes itself.
    pub fn can_become(self, to: RunStatus) -> bool {
        match (self, to) {
            (RunStatus::Running, RunStatus::AwaitingPermission)
            | (RunStatus::Running, RunStatus::Completed)
            | (RunStatus::Running, RunStatus::Failed)
            | (RunStatus::Running, RunStatus::Cancelled)
            | (RunStatus::AwaitingPermission, RunStatus::Running)
            | (RunStatus::AwaitingPermission, RunStatus::Failed)
            | (RunStatus::AwaitingPermission, RunStatus::Cancelled) => true,
            // Everything else, spelled out so that a new status forces a look here.
            (
                RunStatus::Running
                | RunStatus::AwaitingPermission
                | RunStatus::Completed
                | RunStatus::Failed
                | RunStatus::Cancelled,
                RunStatus::Running
                | RunStatus::AwaitingPermission
                | RunStatus::Completed
                | RunStatus::Failed
                | RunStatus::Cancelled,
            ) => false,
        }
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an ended request ended, as named in `already resolved: …` errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ended {
    /// A person approved.
    Approved,
    /// A person said no.
    Denied,
    /// Nobody answered in time.
    Expired,
    /// The session or run ended first.
    Cancelled,
    /// A question was answered.
    Answered,
}

impl Ended {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Approved => "approved",
            Ended::Denied => "denied",
            Ended::Expired => "expired",
            Ended::Cancelled => "cancelled",
            Ended::Answered => "answered",
        }
    }
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
