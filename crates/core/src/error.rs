//! The one error type of toolgate-core.

use crate::status::{Ended, RunStatus};

/// Everything that can go wrong in toolgate-core, with the context a user needs to act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A policy file that does not parse or has a bad value.
    #[error("policy line {line}: {message}")]
    Policy { line: usize, message: String },
    /// A rule string (`Bash(npm test:*)`, `Read(**/.env)`, …) that cannot be compiled.
    #[error("bad rule `{rule}`: {message}")]
    Rule { rule: String, message: String },

    // ---- runs and permission markers (DESIGN §3) ----
    /// A stored marker or run record that cannot be trusted: bad JSON, truncated,
    /// unknown version, missing field, wrong type, tampered anchor, history refused by
    /// the host's check, oversize. Returned by the checking constructors
    /// (`Marker::decode`, `Run::decode`); `Runs` turns it into [`Error::MarkerCorrupt`].
    #[error("bad marker: {reason}")]
    BadMarker { reason: String },
    /// The marker of a run was corrupt; the run is now `failed` with this reason as its
    /// `last_error`, and the marker has been cleared.
    #[error("the permission marker of run `{run_id}` is corrupt; the run has failed: {reason}")]
    MarkerCorrupt { run_id: String, reason: String },
    /// The permission request expired before anyone decided: nothing was resumed
    /// (nobody said no, yet nothing is allowed). The run is `cancelled`.
    #[error(
        "the permission request of run `{run_id}` expired at {expires_at} ms; nothing was resumed"
    )]
    MarkerExpired { run_id: String, expires_at: u64 },
    /// No such run — or a run of another owner (owners never see each other's runs).
    #[error("run `{run_id}` not found")]
    RunNotFound { run_id: String },
    /// The run id is in use by another owner; pick another id.
    #[error("run id `{run_id}` is taken by another owner")]
    RunIdTaken { run_id: String },
    /// Another resume (another tab, another process) won the race for this marker.
    #[error("run `{run_id}` was already resumed")]
    AlreadyResumed { run_id: String },
    /// Resume of a run that has no pending permission request.
    #[error("run `{run_id}` is {status}, not awaiting permission{}", paren(.why))]
    NotAwaitingPermission {
        run_id: String,
        status: RunStatus,
        /// The run's `last_error`, when it has one.
        why: Option<String>,
    },
    /// `forget` of a run that is still running or parked.
    #[error("run `{run_id}` is {status}; only a finished run can be forgotten")]
    RunStillActive { run_id: String, status: RunStatus },
    /// A run state change that the state machine does not allow.
    #[error("run `{run_id}`: illegal transition {from} -> {to}")]
    IllegalTransition {
        run_id: String,
        from: RunStatus,
        to: RunStatus,
    },
    /// A park request that cannot become a marker (empty or duplicate tool call id,
    /// a `deny` call, a bad time to live, …).
    #[error("cannot park run `{run_id}`: {reason}")]
    BadPark { run_id: String, reason: String },
    /// The host's history is over [`crate::marker::MAX_HISTORY_BYTES`].
    #[error("history of {bytes} bytes is over the limit of {limit} bytes")]
    HistoryTooLarge { bytes: usize, limit: usize },
    /// The encoded marker is over [`crate::marker::MAX_MARKER_BYTES`].
    #[error("marker of {bytes} bytes is over the limit of {limit} bytes")]
    MarkerTooLarge { bytes: usize, limit: usize },
    /// The host's history check refused the history it asked to park.
    #[error("history refused by the host's check: {reason}")]
    HistoryRejected { reason: String },
    /// A decision names a tool call id that the marker does not hold.
    #[error("run `{run_id}`: no pending tool call `{tool_call_id}`")]
    UnknownToolCall {
        run_id: String,
        tool_call_id: String,
    },
    /// Two decisions for the same tool call id.
    #[error("run `{run_id}`: tool call `{tool_call_id}` is decided more than once")]
    DuplicateDecision {
        run_id: String,
        tool_call_id: String,
    },
    /// Pending tool calls left without a decision (every one must be decided).
    #[error("run `{run_id}`: no decision for tool call(s) {}", .tool_call_ids.join(", "))]
    MissingDecision {
        run_id: String,
        tool_call_ids: Vec<String>,
    },
    /// A decision whose anchor is not the pending call's: it was made for other arguments.
    #[error("run `{run_id}`: the decision for `{tool_call_id}` carries anchor {got}, but the pending call's anchor is {expected}")]
    ResumeAnchorMismatch {
        run_id: String,
        tool_call_id: String,
        expected: String,
        got: String,
    },

    // ---- marker stores ----
    /// Compare-and-swap lost: the stored revision is not the expected one.
    #[error("store conflict on `{key}`: expected revision {}, found {}", rev(.expected), rev(.found))]
    StoreConflict {
        key: String,
        expected: Option<u64>,
        found: Option<u64>,
    },
    /// The store is full; nothing was written and the previous value is untouched.
    #[error("storage quota exceeded writing {bytes} bytes for `{key}`; nothing was written")]
    QuotaExceeded { key: String, bytes: usize },
    /// The store cannot be used at all (storage disabled, access denied, …).
    #[error("storage unavailable: {message}")]
    StoreUnavailable { message: String },

    // ---- pending requests (registry) ----
    /// No pending or recently ended request has this id (never silently ignored).
    #[error("unknown request id `{id}`")]
    UnknownId { id: String },
    /// The request already ended; the first terminal event won.
    #[error("already resolved: {ended}")]
    AlreadyResolved { id: String, ended: Ended },
    /// The decision's anchor is not the request's: it would approve other arguments.
    #[error("anchor mismatch: the decision is for other arguments than request `{id}`")]
    AnchorMismatch { id: String },
    /// An approval of a call on the built-in hard-deny list, which nothing overrides.
    #[error("hard deny ({rule}): {reason}; no approval can override it")]
    HardDeny { rule: String, reason: String },
    /// An always-allow / always-deny scope that the prompt did not offer.
    #[error("scope `{scope}` was not offered for this request (offered: {offered:?})")]
    ScopeNotOffered { scope: String, offered: Vec<String> },
    /// An answer to a question sent to an approval, or the other way round.
    #[error("request `{id}` is {is}, not {wanted}")]
    WrongKind {
        id: String,
        is: &'static str,
        wanted: &'static str,
    },
    /// The id source failed or repeated itself; no request was made.
    #[error("no request id: {message}")]
    IdSource { message: String },
}

fn rev(r: &Option<u64>) -> String {
    match r {
        Some(r) => r.to_string(),
        None => "none (absent)".to_string(),
    }
}

fn paren(why: &Option<String>) -> String {
    match why {
        Some(w) => format!(" ({w})"),
        None => String::new(),
    }
}

impl Error {
    /// A stable machine-readable code (`unknown_id`, `already_resolved`, …), e.g. the
    /// `.code` of the JavaScript `Error`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Policy { .. } => "policy",
            Error::Rule { .. } => "bad_rule",
            Error::UnknownId { .. } => "unknown_id",
            Error::AlreadyResolved { .. } => "already_resolved",
            Error::AnchorMismatch { .. } => "anchor_mismatch",
            Error::HardDeny { .. } => "hard_deny",
            Error::ScopeNotOffered { .. } => "scope_not_offered",
            Error::WrongKind { .. } => "wrong_kind",
            Error::IdSource { .. } => "id_source",
            Error::BadMarker { .. } => "bad_marker",
            Error::MarkerCorrupt { .. } => "marker_corrupt",
            Error::MarkerExpired { .. } => "expired",
            Error::RunNotFound { .. } => "not_found",
            Error::RunIdTaken { .. } => "run_id_taken",
            Error::AlreadyResumed { .. } => "already_resumed",
            Error::NotAwaitingPermission { .. } => "not_awaiting_permission",
            Error::RunStillActive { .. } => "run_still_active",
            Error::IllegalTransition { .. } => "illegal_transition",
            Error::BadPark { .. } => "bad_park",
            Error::HistoryTooLarge { .. } => "history_too_large",
            Error::MarkerTooLarge { .. } => "marker_too_large",
            Error::HistoryRejected { .. } => "history_rejected",
            Error::UnknownToolCall { .. } => "unknown_tool_call",
            Error::DuplicateDecision { .. } => "duplicate_decision",
            Error::MissingDecision { .. } => "missing_decision",
            Error::ResumeAnchorMismatch { .. } => "anchor_mismatch",
            Error::StoreConflict { .. } => "store_conflict",
            Error::QuotaExceeded { .. } => "quota_exceeded",
            Error::StoreUnavailable { .. } => "store_unavailable",
        }
    }
}
