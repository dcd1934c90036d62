//! The one error type of toolgate-core.

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
}
