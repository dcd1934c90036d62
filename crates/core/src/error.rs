//! The one error type of toolgate-core.

use crate::status::{Ended, RunStatus};

/// Everything that can go wrong in toolgate-core, with the context a user needs to act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A policy file that does not parse or has a bad value.
    #[error("policy line {line}: {message}")]
    Policy {
        /// The line of the policy file (1-based).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A rule string (`Bash(npm test:*)`, `Read(**/.env)`, …) that cannot be compiled.
    #[error("bad rule `{rule}`: {message}")]
    Rule {
        /// The rule as written.
        rule: String,
        /// Why it does not compile.
        message: String,
    },

    // ---- runs and permission markers (DESIGN §3) ----
    /// A stored marker or run record that cannot be trusted: bad JSON, truncated,
    /// unknown version, missing field, wrong type, tampered anchor, history refused by
    /// the host's check, oversize. Returned by the checking constructors
    /// (`Marker::decode`, `Run::decode`); `Runs` turns it into [`Error::MarkerCorrupt`].
    #[error("bad marker: {reason}")]
    BadMarker {
        /// Why, in words for a person.
        reason: String,
    },
    /// The marker of a run was corrupt; the run is now `failed` with this reason as its
    /// `last_error`, and the marker has been cleared.
    #[error("the permission marker of run `{run_id}` is corrupt; the run has failed: {reason}")]
    MarkerCorrupt {
        /// The run's id.
        run_id: String,
        /// Why, in words for a person.
        reason: String,
    },
    /// The permission request expired before anyone decided: nothing was resumed
    /// (nobody said no, yet nothing is allowed). The run is `cancelled`.
    #[error(
        "the permission request of run `{run_id}` expired at {expires_at} ms; nothing was resumed"
    )]
    MarkerExpired {
        /// The run's id.
        run_id: String,
        /// When the request expired (ms since the Unix epoch).
        expires_at: u64,
    },
    /// No such run — or a run of another owner (owners never see each other's runs).
    #[error("run `{run_id}` not found")]
    RunNotFound {
        /// The run's id.
        run_id: String,
    },
    /// The run id is in use by another owner; pick another id.
    #[error("run id `{run_id}` is taken by another owner")]
    RunIdTaken {
        /// The run's id.
        run_id: String,
    },
    /// Another resume (another tab, another process) won the race for this marker.
    #[error("run `{run_id}` was already resumed")]
    AlreadyResumed {
        /// The run's id.
        run_id: String,
    },
    /// Resume of a run that has no pending permission request.
    #[error("run `{run_id}` is {status}, not awaiting permission{}", paren(.why))]
    NotAwaitingPermission {
        /// The run's id.
        run_id: String,
        /// The run's status now.
        status: RunStatus,
        /// The run's `last_error`, when it has one.
        why: Option<String>,
    },
    /// `forget` of a run that is still running or parked.
    #[error("run `{run_id}` is {status}; only a finished run can be forgotten")]
    RunStillActive {
        /// The run's id.
        run_id: String,
        /// The run's status now.
        status: RunStatus,
    },
    /// A run state change that the state machine does not allow.
    #[error("run `{run_id}`: illegal transition {from} -> {to}")]
    IllegalTransition {
        /// The run's id.
        run_id: String,
        /// The status the run is in.
        from: RunStatus,
        /// The status the change asked for.
        to: RunStatus,
    },
    /// A park request that cannot become a marker (empty or duplicate tool call id,
    /// a `deny` call, a bad time to live, …).
    #[error("cannot park run `{run_id}`: {reason}")]
    BadPark {
        /// The run's id.
        run_id: String,
        /// Why, in words for a person.
        reason: String,
    },
    /// The host's history is over [`crate::marker::MAX_HISTORY_BYTES`].
    #[error("history of {bytes} bytes is over the limit of {limit} bytes")]
    HistoryTooLarge {
        /// The history's size.
        bytes: usize,
        /// The most a history may be.
        limit: usize,
    },
    /// The encoded marker is over [`crate::marker::MAX_MARKER_BYTES`].
    #[error("marker of {bytes} bytes is over the limit of {limit} bytes")]
    MarkerTooLarge {
        /// The encoded marker's size.
        bytes: usize,
        /// The most a marker may be.
        limit: usize,
    },
    /// The host's history check refused the history it asked to park.
    #[error("history refused by the host's check: {reason}")]
    HistoryRejected {
        /// Why, in words for a person.
        reason: String,
    },
    /// A decision names a tool call id that the marker does not hold.
    #[error("run `{run_id}`: no pending tool call `{tool_call_id}`")]
    UnknownToolCall {
        /// The run's id.
        run_id: String,
        /// The tool call id the decision names.
        tool_call_id: String,
    },
    /// Two decisions for the same tool call id.
    #[error("run `{run_id}`: tool call `{tool_call_id}` is decided more than once")]
    DuplicateDecision {
        /// The run's id.
        run_id: String,
        /// The tool call id the decision names.
        tool_call_id: String,
    },
    /// Pending tool calls left without a decision (every one must be decided).
    #[error("run `{run_id}`: no decision for tool call(s) {}", .tool_call_ids.join(", "))]
    MissingDecision {
        /// The run's id.
        run_id: String,
        /// The pending calls nobody decided.
        tool_call_ids: Vec<String>,
    },
    /// A decision whose anchor is not the pending call's: it was made for other arguments.
    #[error("run `{run_id}`: the decision for `{tool_call_id}` carries anchor {got}, but the pending call's anchor is {expected}")]
    ResumeAnchorMismatch {
        /// The run's id.
        run_id: String,
        /// The tool call id the decision names.
        tool_call_id: String,
        /// The pending call's anchor.
        expected: String,
        /// The anchor the decision carries.
        got: String,
    },
    /// An approval with edited arguments that cannot stand (the policy denies the
    /// edited call, the host takes no edits, …); nothing was decided.
    #[error("run `{run_id}`: the edit of `{tool_call_id}` is refused: {reason}")]
    EditRefused {
        /// The run's id.
        run_id: String,
        /// The tool call id the decision names.
        tool_call_id: String,
        /// Why.
        reason: String,
    },
    /// An answer that cannot stand: an answer to a call that is not a question, an
    /// approval of a question, an empty answer or one over the bound; nothing was
    /// decided.
    #[error("run `{run_id}`: `{tool_call_id}`: {reason}")]
    AnswerRefused {
        /// The run's id.
        run_id: String,
        /// The tool call id the decision names.
        tool_call_id: String,
        /// Why.
        reason: String,
    },
    /// A grant that cannot be given (a rule the call did not offer, a TTL out of range,
    /// a call that is not asked) or a grant record that cannot be trusted.
    #[error("grant refused: {reason}")]
    GrantRefused {
        /// Why.
        reason: String,
    },

    // ---- marker stores ----
    /// Compare-and-swap lost: the stored revision is not the expected one.
    #[error("store conflict on `{key}`: expected revision {}, found {}", rev(.expected), rev(.found))]
    StoreConflict {
        /// The store key written.
        key: String,
        /// The revision the writer expected (`None`: the key absent).
        expected: Option<u64>,
        /// The revision stored (`None`: the key absent).
        found: Option<u64>,
    },
    /// The store is full; nothing was written and the previous value is untouched.
    #[error("storage quota exceeded writing {bytes} bytes for `{key}`; nothing was written")]
    QuotaExceeded {
        /// The store key written.
        key: String,
        /// The size of the value that did not fit.
        bytes: usize,
    },
    /// The store cannot be used at all (storage disabled, access denied, …).
    #[error("storage unavailable: {message}")]
    StoreUnavailable {
        /// The store's own words.
        message: String,
    },

    // ---- pending requests (registry) ----
    /// No pending or recently ended request has this id (never silently ignored).
    #[error("unknown request id `{id}`")]
    UnknownId {
        /// The request's id.
        id: String,
    },
    /// The request already ended; the first terminal event won.
    #[error("already resolved: {ended}")]
    AlreadyResolved {
        /// The request's id.
        id: String,
        /// How it ended.
        ended: Ended,
    },
    /// The decision's anchor is not the request's: it would approve other arguments.
    #[error("anchor mismatch: the decision is for other arguments than request `{id}`")]
    AnchorMismatch {
        /// The request's id.
        id: String,
    },
    /// An approval of a call on the built-in hard-deny list, which nothing overrides.
    #[error("hard deny ({rule}): {reason}; no approval can override it")]
    HardDeny {
        /// The hard-deny rule that matched.
        rule: String,
        /// Why, in words for a person.
        reason: String,
    },
    /// An always-allow / always-deny scope that the prompt did not offer.
    #[error(
        "scope `{scope}` was not offered for this request (offered: {})",
        quoted_list(offered)
    )]
    ScopeNotOffered {
        /// The scope the answer asked for.
        scope: String,
        /// The scopes the prompt offered.
        offered: Vec<String>,
    },
    /// An answer to a question sent to an approval, or the other way round.
    #[error("request `{id}` is {is}, not {wanted}")]
    WrongKind {
        /// The request's id.
        id: String,
        /// What the request is (`approval` or `question`).
        is: &'static str,
        /// What the answer was for.
        wanted: &'static str,
    },
    /// The id source failed or repeated itself; no request was made.
    #[error("no request id: {message}")]
    IdSource {
        /// What the id source said.
        message: String,
    },
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
            Error::EditRefused { .. } => "edit_refused",
            Error::GrantRefused { .. } => "grant_refused",
            Error::AnswerRefused { .. } => "answer_refused",
            Error::StoreConflict { .. } => "store_conflict",
            Error::QuotaExceeded { .. } => "quota_exceeded",
            Error::StoreUnavailable { .. } => "store_unavailable",
        }
    }
}
/// `s` in double quotes for a message, as `{:?}` would show plain ASCII text: `"` and
/// `\\` escaped, `\\n \\r \\t` as such, and every other character outside printable
/// ASCII as `\\u{…}` (so untrusted text cannot bring control characters, terminal
/// escapes or bidirectional overrides into a message). Not `{:?}` itself: str's
/// `Debug` links the Unicode printable tables into the WebAssembly (~1 KB gzipped).
pub fn quoted(s: &str) -> Quoted<'_> {
    Quoted(s)
}

/// [`quoted`]'s `Display`.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(&'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write;
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                ' '..='~' => f.write_char(c)?,
                _ => write!(f, "\\u{{{:x}}}", u32::from(c))?,
            }
        }
        f.write_char('"')
    }
}

/// A list of strings as `{:?}` shows plain ASCII ones, `["a", "b"]`, each [`quoted`].
pub fn quoted_list(items: &[String]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&quoted(s).to_string());
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::{quoted, quoted_list};

    #[test]
    fn quoted_is_debug_for_plain_ascii_and_escapes_the_rest() {
        for s in [
            "",
            "auto",
            "a b",
            "say \"hi\"",
            "a\\b",
            "tab\there",
            "l1\nl2\r",
            "~!@#$%^&*()",
        ] {
            assert_eq!(quoted(s).to_string(), format!("{s:?}"), "{s:?}");
        }
        assert_eq!(quoted("\u{1b}[31m").to_string(), "\"\\u{1b}[31m\"");
        assert_eq!(
            quoted("Publish \u{202E}now").to_string(),
            "\"Publish \\u{202e}now\""
        );
        assert_eq!(
            quoted("caf\u{e9} \u{7f}").to_string(),
            "\"caf\\u{e9} \\u{7f}\""
        );
        assert_eq!(quoted_list(&[]), "[]");
        let ids = vec!["call_1".to_string(), "x\"y".to_string()];
        assert_eq!(quoted_list(&ids), format!("{ids:?}"));
    }

    proptest::proptest! {
        /// Whatever the text, the quoted form is printable ASCII only (no control
        /// character, escape sequence or bidirectional override reaches a message).
        #[test]
        fn quoted_text_is_printable_ascii(s in "\\PC*|[\u{0}-\u{1f}\u{7f}-\u{a0}\u{202a}-\u{202e}]{0,8}") {
            let q = quoted(&s).to_string();
            proptest::prop_assert!(q.bytes().all(|b| (b' '..=b'~').contains(&b)), "{:?}", q);
        }
    }
}
