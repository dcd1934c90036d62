//! The answer of the classifier: a tier, the rule that decided, a reason and where.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The rule of a question ([`Verdict::question`]): a pending call with it is answered,
/// never approved.
pub const QUESTION_RULE: &str = "toolgate.question";

/// How a tool call is treated. Ordered: the strictest wins (`Deny > Ask > Sandbox >
/// Auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Run it without asking.
    Auto,
    /// Run it now without asking, contained by `toolgate sandbox` (no network, writes
    /// only in the workspace, secrets withheld). Only a policy whose host runs such
    /// calls contained gives it ([`crate::Policy::with_sandbox_host`]); a host that
    /// cannot contain the call treats it as [`Tier::Ask`].
    Sandbox,
    /// A human must approve it first.
    Ask,
    /// Refuse it; the model receives an error and pivots.
    Deny,
}

impl Tier {
    /// The lowercase name used in JSON and in policy files.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Auto => "auto",
            Tier::Sandbox => "sandbox",
            Tier::Ask => "ask",
            Tier::Deny => "deny",
        }
    }

    /// Parses `auto`, `sandbox`, `ask` or `deny`.
    pub fn parse(s: &str) -> Option<Tier> {
        match s {
            "auto" => Some(Tier::Auto),
            "sandbox" => Some(Tier::Sandbox),
            "ask" => Some(Tier::Ask),
            "deny" => Some(Tier::Deny),
            _ => None,
        }
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One simple command of a shell command line, classified on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// The tier this part gets.
    pub tier: Tier,
    /// The source text of the simple command (a slice of the original string, or of
    /// the decoded nested script for `bash -c '…'`). Once the parts' texts together
    /// reach four times the command and 4 KiB (thousands of parts over one long span,
    /// as `eval "…"` nests), a part's text is its first 80 bytes (on a character
    /// boundary) and `…`.
    pub text: String,
    /// The rule that decided it.
    pub rule: Cow<'static, str>,
    /// Why.
    pub reason: Cow<'static, str>,
    /// Byte range in the original command string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
}

/// The classifier's answer for one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// `auto`, `ask` or `deny`.
    pub tier: Tier,
    /// Stable id of the deciding rule, e.g. `builtin.shell.priv-esc`, `user.allow[0]`.
    pub rule: Cow<'static, str>,
    /// One human sentence.
    pub reason: Cow<'static, str>,
    /// Byte range in the shell command that decided it, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
    /// Every simple command of a shell command, each with its own tier.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

impl Verdict {
    /// A verdict with no span and no parts.
    pub fn new(
        tier: Tier,
        rule: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Verdict {
        Verdict {
            tier,
            rule: rule.into(),
            reason: reason.into(),
            span: None,
            parts: Vec::new(),
        }
    }

    /// A question for the person (`question`, non-empty, at most
    /// [`crate::marker::MAX_QUESTION_BYTES`]) parked beside the calls waiting for
    /// approval: its rule is [`QUESTION_RULE`], its reason the question. It is answered
    /// (or declined), never approved: the tool it stands for never runs, the model gets
    /// the answer as its result.
    pub fn question(question: impl Into<Cow<'static, str>>) -> Verdict {
        Verdict::new(Tier::Ask, QUESTION_RULE, question)
    }

    /// True when this verdict comes from the built-in hard-deny list, which nothing
    /// (no allow rule, no human approval) may override.
    pub fn is_hard_deny(&self) -> bool {
        crate::rule_id::is_hard_deny(self.tier == Tier::Deny, &self.rule)
    }
}
