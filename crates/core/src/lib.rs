//! toolgate-core: the pure heart of toolgate. Classifies AI agents' tool calls
//! (`auto` / `ask` / `deny`) by parsing shell commands, holds pending approvals,
//! and parks / resumes runs through durable permission markers.
//! No wasm, no I/O, no wall clock: time and randomness are passed in.

pub mod call;
pub mod error;
pub mod glob;
pub mod paths;
pub mod policy;
pub mod rules;
pub mod shell;
pub mod url;
pub mod verdict;

pub use call::{anchor, canonical_json, Family, ToolCall};
pub use error::Error;
pub use policy::{Policy, Rule, SessionRules};
pub use verdict::{Part, Tier, Verdict};
