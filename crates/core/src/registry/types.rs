//! The public types of the registry: decisions, outcomes, settled events, requests and their views, cleanup counts and the configuration.

use super::id::RequestId;
use crate::call::{Anchor, ToolCall};
use crate::status::Ended;
use crate::verdict::{Tier, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A person's answer to a permission prompt: the four kinds of permission options of
/// the Agent Client Protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run this call, this once.
    AllowOnce,
    /// Run it, and add the session allow rule `scope` (one of the request's offered
    /// [`Pending::scopes`], exactly as shown).
    AllowAlways {
        /// The session allow rule, exactly as offered.
        scope: String,
    },
    /// Refuse it, optionally telling the model why.
    Deny {
        #[serde(default)]
        /// What the model is told, if anything.
        message: Option<String>,
    },
    /// Refuse it and add the session deny rule `scope`.
    DenyAlways {
        /// The session deny rule (one of the request's offered scopes).
        scope: String,
        #[serde(default)]
        /// What the model is told, if anything.
        message: Option<String>,
    },
}

/// How an approval request ended. Only `Approved` lets the tool run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// A person (or an always-allow rule they added) approved it.
    Approved,
    /// A person said no, with their message if they gave one.
    Denied {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The person's message, if they gave one.
        message: Option<String>,
    },
    /// The deadline passed: nobody said no, yet it is not allowed.
    Expired,
    /// The session or run ended (cleanup, dispose, page unload).
    Cancelled,
}

impl Outcome {
    /// True only for `Approved`.
    pub fn allows_run(&self) -> bool {
        match self {
            Outcome::Approved => true,
            Outcome::Denied { .. } | Outcome::Expired | Outcome::Cancelled => false,
        }
    }
    pub(super) fn ended(&self) -> Ended {
        match self {
            Outcome::Approved => Ended::Approved,
            Outcome::Denied { .. } => Ended::Denied,
            Outcome::Expired => Ended::Expired,
            Outcome::Cancelled => Ended::Cancelled,
        }
    }
}

/// How a question ended: an answer, or nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum QuestionOutcome {
    /// The person answered.
    Answered {
        /// Their answer.
        answer: String,
    },
    /// The deadline passed unanswered.
    Expired,
    /// The session or run ended first.
    Cancelled,
}

impl QuestionOutcome {
    /// The answer text, if there is one.
    pub fn answer(&self) -> Option<&str> {
        match self {
            QuestionOutcome::Answered { answer } => Some(answer),
            QuestionOutcome::Expired | QuestionOutcome::Cancelled => None,
        }
    }
    pub(super) fn ended(&self) -> Ended {
        match self {
            QuestionOutcome::Answered { .. } => Ended::Answered,
            QuestionOutcome::Expired => Ended::Expired,
            QuestionOutcome::Cancelled => Ended::Cancelled,
        }
    }
}

/// One request that ended: the caller wakes exactly the one waiter for `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// An approval request ended.
    Approval {
        /// The request's id.
        id: RequestId,
        /// The host's tool-call id, when the request had one.
        tool_call_id: Option<String>,
        /// How it ended.
        outcome: Outcome,
    },
    /// A question ended.
    Question {
        /// The request's id.
        id: RequestId,
        /// How it ended.
        outcome: QuestionOutcome,
    },
}

impl Settled {
    /// The request's id.
    pub fn id(&self) -> RequestId {
        match self {
            Settled::Approval { id, .. } | Settled::Question { id, .. } => *id,
        }
    }
}

/// What a host hands to [`Registry::request`](crate::Registry::request): the call, the classifier's verdict, the
/// host's tool-call id (for in-flight slots) and the always-allow scopes the prompt
/// will offer (usually [`Policy::scopes`](crate::Policy::scopes)); `allow_always` accepts only one of these.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRequest {
    /// The tool call.
    pub call: ToolCall,
    /// The classifier's verdict on it.
    pub verdict: Verdict,
    /// The host's id of the call (an approved call reserves an in-flight slot under it).
    pub tool_call_id: Option<String>,
    /// The always-allow / always-deny scopes the prompt offers.
    pub scopes: Vec<String>,
}

impl NewRequest {
    /// A request for `call` with its `verdict`, no tool-call id and no scopes.
    pub fn new(call: ToolCall, verdict: Verdict) -> NewRequest {
        NewRequest {
            call,
            verdict,
            tool_call_id: None,
            scopes: Vec::new(),
        }
    }
    /// With the host's id of the call (an approved call reserves an in-flight slot
    /// under it).
    pub fn tool_call_id(mut self, id: impl Into<String>) -> NewRequest {
        self.tool_call_id = Some(id.into());
        self
    }
    /// With the always-allow / always-deny scopes the prompt offers.
    pub fn scopes(mut self, scopes: Vec<String>) -> NewRequest {
        self.scopes = scopes;
        self
    }
}

/// A pending approval request: a snapshot, decoded from what the registry holds (see
/// [`PendingRef`]; [`PendingRef::to_pending`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    /// The request's id.
    pub id: RequestId,
    /// The host's id of the call, when it gave one.
    pub tool_call_id: Option<String>,
    /// The tool call a decision would approve.
    pub call: ToolCall,
    /// The classifier's verdict on it.
    pub verdict: Verdict,
    /// The anchor of `call` (`Display`/`Serialize` give the 64-hex-digit text of
    /// [`ToolCall::anchor`]); a decision must carry it.
    pub anchor: Anchor,
    /// The always-allow / always-deny scopes a prompt may offer, narrowest first.
    pub scopes: Vec<String>,
    /// When it was made (ms, the host's clock).
    pub created_ms: u64,
    /// When it expires unanswered (ms).
    pub deadline_ms: u64,
}

/// A pending approval request, as the registry holds it.
///
/// The registry keeps every pending request's tool name, canonical args JSON, verdict
/// and offered scopes back to back in one text log, in creation order; the host's
/// `Value` tree, verdict strings and scope list are dropped when the request is made.
/// So a pending request costs no heap block of its own (one for a tool-call id), and
/// cleanup frees the log at once instead of every request's pieces. The call, verdict
/// and scopes are decoded when asked for, which only listings and always-rules do.
#[derive(Debug, Clone, Copy)]
pub struct PendingRef<'a> {
    /// The request's id.
    pub id: RequestId,
    /// The host's id of the call, when it gave one.
    pub tool_call_id: Option<&'a str>,
    /// The anchor of the call; a decision must carry it.
    pub anchor: Anchor,
    /// When it was made (ms, the host's clock).
    pub created_ms: u64,
    /// When it expires unanswered (ms).
    pub deadline_ms: u64,
    pub(super) tier: Tier,
    pub(super) hard_deny: bool,
    /// This request's text: tool, canonical args, verdict JSON, scopes JSON array.
    pub(super) text: &'a [u8],
    /// Where the tool, the args and the verdict end in `text`.
    pub(super) ends: [usize; 3],
}

impl<'a> PendingRef<'a> {
    pub(super) fn part(&self, from: usize, to: usize) -> &'a str {
        let bytes = self.text.get(from..to).unwrap_or_default();
        // The registry wrote UTF-8 only.
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The tool name.
    pub fn tool(&self) -> &'a str {
        self.part(0, self.ends[0])
    }

    /// The canonical JSON of the args (what the anchor hashes after the tool name).
    pub fn args_json(&self) -> &'a str {
        self.part(self.ends[0], self.ends[1])
    }

    /// The args, decoded. (JSON nested deeper than the reader's limit of 128 levels,
    /// serde_json's, decodes as `null`.)
    pub fn args(&self) -> Value {
        crate::json_text::parse(self.args_json()).unwrap_or(Value::Null)
    }

    /// The call, decoded.
    pub fn call(&self) -> ToolCall {
        ToolCall::new(self.tool(), self.args())
    }

    /// The classifier's verdict, decoded.
    pub fn verdict(&self) -> Verdict {
        let json = self.part(self.ends[1], self.ends[2]);
        let value = crate::json_text::parse(json).map_err(|e| e.to_string());
        value.and_then(Verdict::read).unwrap_or_else(|e| {
            // Cannot happen (the registry wrote it); fail closed if it ever does.
            Verdict::new(
                Tier::Deny,
                "internal.pending-verdict",
                format!("the stored verdict does not decode: {e}"),
            )
        })
    }

    /// The verdict's tier, without decoding it.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// [`Verdict::is_hard_deny`] of the verdict, without decoding it.
    pub fn is_hard_deny(&self) -> bool {
        self.hard_deny
    }

    /// The always-allow / always-deny scopes a prompt may offer, narrowest first.
    pub fn scopes(&self) -> Vec<String> {
        let json = self.part(self.ends[2], self.text.len());
        crate::json_text::parse(json)
            .ok()
            .and_then(|v| crate::fields::array(v, crate::fields::string).ok())
            .unwrap_or_default()
    }

    /// Everything, decoded into an owned [`Pending`].
    pub fn to_pending(&self) -> Pending {
        Pending {
            id: self.id,
            tool_call_id: self.tool_call_id.map(str::to_string),
            call: self.call(),
            verdict: self.verdict(),
            anchor: self.anchor,
            scopes: self.scopes(),
            created_ms: self.created_ms,
            deadline_ms: self.deadline_ms,
        }
    }
}

/// Serialized as [`Pending`] is.
impl Serialize for PendingRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_pending().serialize(s)
    }
}

/// A pending free-text question to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingQuestion {
    /// The question's id.
    pub id: RequestId,
    /// The text shown to the person.
    pub question: String,
    /// When it was asked (ms, the host's clock).
    pub created_ms: u64,
    /// When it expires unanswered (ms).
    pub deadline_ms: u64,
}

/// A reserved in-flight tool-call slot: the call was approved (or auto) and the host
/// has not yet reported it finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// The host's id of the running call.
    pub tool_call_id: String,
    /// The anchor of the call that runs (hex).
    pub anchor: String,
    /// The approval request that granted it; `None` for an `auto` call.
    pub request_id: Option<RequestId>,
    /// When the slot was reserved (ms).
    pub reserved_ms: u64,
}

/// The answer of [`Registry::request`](crate::Registry::request) / [`Registry::ask`](crate::Registry::ask).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "`expired` holds requests the growth-path sweep ended; wake their waiters"]
pub struct Requested {
    /// The new request's id.
    pub id: RequestId,
    /// The effective deadline (the timeout is clamped to [`RegistryConfig::max_timeout_ms`]).
    pub deadline_ms: u64,
    /// Requests that the expiry sweep on this growth path ended.
    pub expired: Vec<Settled>,
}

/// How many entries a cleanup resolved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CleanupCounts {
    /// Approval requests cancelled.
    pub approvals: usize,
    /// Questions cancelled.
    pub questions: usize,
    /// In-flight slots released.
    pub slots: usize,
}

/// The answer of [`Registry::cleanup`](crate::Registry::cleanup) / [`Registry::cleanup_stale`](crate::Registry::cleanup_stale).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "`settled` holds the requests that were force-resolved; wake their waiters"]
pub struct Cleanup {
    /// How many of each.
    pub counts: CleanupCounts,
    /// Each request that ended, to wake its waiter.
    pub settled: Vec<Settled>,
}

/// Limits of a registry. All durations in milliseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryConfig {
    /// Longest allowed timeout. Longer (or unbounded) timeouts are clamped to it, not
    /// rejected: a host asking for "forever" gets the maximum. Default 30 minutes;
    /// longer waits are what park/resume markers are for.
    pub max_timeout_ms: u64,
    /// The growth-path sweep (expiry, slot and tombstone TTLs) runs at most once per
    /// this interval. Default 1 s.
    pub sweep_interval_ms: u64,
    /// An in-flight slot not claimed within this time is dropped. Default 10 minutes.
    pub slot_ttl_ms: u64,
    /// How long an ended id is remembered, so that a late answer gets
    /// `already resolved: …` rather than `unknown request id`. Default 10 minutes.
    pub ended_ttl_ms: u64,
    /// At most this many ended ids are remembered (oldest forgotten first). Default 4096.
    pub ended_cap: usize,
}

impl Default for RegistryConfig {
    fn default() -> RegistryConfig {
        RegistryConfig {
            max_timeout_ms: 30 * 60 * 1000,
            sweep_interval_ms: 1000,
            slot_ttl_ms: 10 * 60 * 1000,
            ended_ttl_ms: 10 * 60 * 1000,
            ended_cap: 4096,
        }
    }
}
