//! toolgate-core: the pure heart of toolgate. Classifies AI agents' tool calls
//! (`auto` / `ask` / `deny`) by parsing shell commands, holds pending approvals,
//! and parks / resumes runs through durable permission markers.
//! No wasm, no I/O, no wall clock: time and randomness are passed in.

pub mod call;
pub mod error;
pub mod policy;
pub mod registry;
pub mod verdict;

pub use call::{anchor, canonical_json, Family, ToolCall};
pub use error::Error;
pub use policy::{Policy, SessionRules};
pub use registry::{
    Cleanup, CleanupCounts, Decision, Ended, IdSource, NewRequest, Outcome, Pending,
    PendingQuestion, QuestionOutcome, Registry, RegistryConfig, RequestId, Requested, Settled,
    Slot,
};
pub use verdict::{Part, Tier, Verdict};
