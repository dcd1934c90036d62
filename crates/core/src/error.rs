//! The one error type of toolgate-core.

use crate::registry::Ended;

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
        }
    }
}
