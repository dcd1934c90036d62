//! toolgate-core: the pure heart of toolgate. Classifies AI agents' tool calls
//! (`auto` / `ask` / `deny`) by parsing shell commands, holds pending approvals,
//! and parks / resumes runs through durable permission markers.
//! No wasm, no I/O, no wall clock: time and randomness are passed in.

#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::string_slice,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

// Inputs for benchmarks and tests: its table lookups index with `% len`, never out
// of bounds.
#[cfg(feature = "adversarial")]
#[allow(clippy::indexing_slicing)]
pub mod adversarial;
pub mod budget;
pub mod builtin;
pub mod call;
#[cfg(feature = "sandbox-verdict")]
pub mod contained;
pub mod continuation;
pub mod decision;
pub mod edit;
pub mod error;
pub mod escapes;
pub mod facts;
pub mod fields;
pub mod glob;
pub mod grant;
pub mod json_text;
pub mod marker;
pub mod needle;
pub mod paths;
pub mod policy;
pub mod redact;
pub mod registry;
pub mod resume_plan;
pub mod rule_id;
pub mod run;
pub mod runs;
pub mod sed;
pub mod shapes;
pub mod shell;
pub mod status;
pub mod store;
pub mod toml_shape;
pub mod url;
pub mod verdict;
pub mod wire;

/// The marker input of the test-only `panic-probe` feature: a shell command holding it
/// makes the classifier panic, so the hosts' fail-closed boundaries (the CLI's
/// `builtin.internal-error`, the wasm bindings' `internal_error`) can be shown to hold.
/// The feature is off in every shipped build; without it the marker is plain text.
pub const PANIC_PROBE: &str = "TOOLGATE_PANIC_PROBE";

/// Panics when `cmd` holds [`PANIC_PROBE`] (the `panic-probe` feature only).
#[cfg(feature = "panic-probe")]
#[allow(clippy::panic)] // the point of the test-only feature
pub fn panic_probe(cmd: &str) {
    if cmd.contains(PANIC_PROBE) {
        panic!("panic-probe: the classifier was given the test-only marker input");
    }
}

pub use call::{anchor, canonical_json, Anchor, Family, ToolCall};
pub use error::Error;
pub use grant::{Grant, GrantBook, GrantOrigin, GrantRequest, GrantState};
pub use marker::{
    refusal_text, CallOutcome, CallResult, Choice, EditCheck, HistoryCheck, Marker, Park, ParkCall,
    PendingCall, ResumeDecision, EXPIRED_TEXT,
};
pub use policy::{Policy, Rule, SessionRules};
pub use registry::{
    Cleanup, CleanupCounts, Decision, Ended, IdSource, NewRequest, Outcome, Pending,
    PendingQuestion, PendingRef, QuestionOutcome, Registry, RegistryConfig, RequestId, Requested,
    Settled, Slot,
};
pub use run::{DecidedCall, Run, RunDecision, RunStatus, StopReason};
pub use runs::{Parked, Resumed, Runs};
pub use store::{MarkerStore, MemoryStore, Stored};
pub use verdict::{Part, Tier, Verdict, QUESTION_RULE};
