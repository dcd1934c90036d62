//! A person's decision for one pending call of a marker ([`ResumeDecision`], its
//! [`Choice`]) and what came of it ([`CallOutcome`], [`CallResult`]): allow (maybe
//! edited, maybe with a scope), deny, or, for a question, answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A person's decision for one pending call, as `resume` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeDecision {
    /// The pending call this decides.
    pub tool_call_id: String,
    /// The pending call's anchor, as the prompt showed it.
    pub anchor: String,
    #[serde(flatten)]
    /// Allow or deny (`decision` inline in JSON).
    pub choice: Choice,
}

/// `{"decision":"allow","scope":…}` or `{"decision":"deny","message":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Choice {
    /// Run the call. `scope` is carried to the host untouched (an "always allow" scope
    /// is the registry's business, not the marker's).
    Allow {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The scope the person chose, for the host.
        scope: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The arguments as the person edited them: the call that runs instead of the
        /// parked one, once the host's policy has classified it again
        /// ([`crate::marker::EditCheck`]); approved once, never with a scope.
        args: Option<Value>,
        /// The grant that approved it, when a host's grant decided rather than a
        /// person (set by hosts, never read from a request).
        #[serde(skip)]
        grant: Option<String>,
    },
    /// Do not run it; the model gets `User refused permission: <message>`.
    Deny {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// What the model is told, if anything.
        message: Option<String>,
    },
    /// The person's answer to a question (only a question takes one): the model gets
    /// it as the tool's result; nothing runs.
    Answer {
        /// The answer (non-empty, at most [`crate::marker::MAX_ANSWER_BYTES`]).
        answer: String,
    },
}

impl ResumeDecision {
    /// Allow once.
    pub fn allow(tool_call_id: impl Into<String>, anchor: impl Into<String>) -> ResumeDecision {
        ResumeDecision {
            tool_call_id: tool_call_id.into(),
            anchor: anchor.into(),
            choice: Choice::Allow {
                scope: None,
                args: None,
                grant: None,
            },
        }
    }

    /// Allow once, with the arguments the person edited.
    pub fn allow_edited(
        tool_call_id: impl Into<String>,
        anchor: impl Into<String>,
        args: Value,
    ) -> ResumeDecision {
        ResumeDecision {
            tool_call_id: tool_call_id.into(),
            anchor: anchor.into(),
            choice: Choice::Allow {
                scope: None,
                args: Some(args),
                grant: None,
            },
        }
    }

    /// Answer a question.
    pub fn answer(
        tool_call_id: impl Into<String>,
        anchor: impl Into<String>,
        answer: impl Into<String>,
    ) -> ResumeDecision {
        ResumeDecision {
            tool_call_id: tool_call_id.into(),
            anchor: anchor.into(),
            choice: Choice::Answer {
                answer: answer.into(),
            },
        }
    }

    /// Deny, with the person's message (may be empty).
    pub fn deny(
        tool_call_id: impl Into<String>,
        anchor: impl Into<String>,
        message: impl Into<String>,
    ) -> ResumeDecision {
        ResumeDecision {
            tool_call_id: tool_call_id.into(),
            anchor: anchor.into(),
            choice: Choice::Deny {
                message: Some(message.into()),
            },
        }
    }
}

/// What happened to one pending call at resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum CallOutcome {
    /// Run the call (with exactly the args the marker holds).
    Approved {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The scope the person chose, for the host.
        scope: Option<String>,
    },
    /// A person said no. Not a failed run: the model receives [`refusal_text`].
    Denied {
        /// The person's message (may be empty).
        message: String,
    },
    /// Nobody answered before the marker expired: not approved, and not a person's no.
    /// The model receives [`EXPIRED_TEXT`].
    Expired,
    /// A person answered a question: the model receives the answer; nothing runs.
    Answered {
        /// The answer.
        answer: String,
    },
}

/// The tool result of a call whose permission request expired.
pub const EXPIRED_TEXT: &str = "Not approved: nobody answered the permission request in time.";

impl CallOutcome {
    /// True only for `Approved`: the only outcome that lets the tool run.
    pub fn is_approved(&self) -> bool {
        match self {
            CallOutcome::Approved { .. } => true,
            CallOutcome::Denied { .. } | CallOutcome::Expired | CallOutcome::Answered { .. } => {
                false
            }
        }
    }

    /// The tool result text the model receives instead of running the tool, if any.
    pub fn tool_result_text(&self) -> Option<String> {
        match self {
            CallOutcome::Approved { .. } => None,
            CallOutcome::Denied { message } => Some(refusal_text(message)),
            CallOutcome::Expired => Some(EXPIRED_TEXT.to_string()),
            CallOutcome::Answered { answer } => Some(answer.clone()),
        }
    }
}

/// The tool result a denial becomes for the model: `User refused permission: <message>`,
/// or `User refused permission.` when the message is empty or blank.
pub fn refusal_text(message: &str) -> String {
    let message = message.trim();
    if message.is_empty() {
        "User refused permission.".to_string()
    } else {
        format!("User refused permission: {message}")
    }
}

/// The outcome for one pending call, with the exact call the marker held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallResult {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments to run with: the marker's, or the person's edit of them (the only
    /// ones an approval lets run).
    pub args: Value,
    #[serde(flatten)]
    /// What happened to it (`outcome` inline in JSON).
    pub outcome: CallOutcome,
    /// The marker's arguments, when the person approved an edit of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_from: Option<Value>,
    /// The grant that approved it, when a grant did (not a person).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
}
