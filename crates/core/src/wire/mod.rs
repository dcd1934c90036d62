//! The wire shapes of parked runs: the camelCase JSON that the JavaScript API
//! (`gate.park` / `gate.run` / `gate.resume`) and the HTTP API (`toolgate-server`)
//! both speak, so a run looks the same wherever it is read. Views ([`RunView`],
//! [`ParkedView`], [`ResumedView`]) serialize core's types without copying them;
//! requests ([`ParkRequest`], [`ResumeRequest`]) are what callers send, refusing
//! unknown fields so that a misspelt one is an error rather than silently ignored.

use serde::{Deserialize, Deserializer, Serialize};

use crate::fields::{self, Fields, StrictValue};
use serde_json::Value;

use crate::call::ToolCall;
use crate::marker::{CallOutcome, CallResult, Choice, ParkCall, PendingCall, ResumeDecision};
use crate::run::{Run, RunStatus, StopReason};
use crate::runs::{Parked, Resumed};
use crate::verdict::{Tier, Verdict};

mod text;
pub use text::outcome_fields;

/// A request to park a run: `{runId, owner?, sessionId?, calls, history, ttlMs?}`.
#[derive(Debug, Clone)]
pub struct ParkRequest {
    /// Required by `gate.park`; the HTTP API takes it from the URL (and refuses a
    /// different one here).
    pub run_id: Option<String>,
    /// Must be the caller's owner when given.
    pub owner: Option<String>,
    /// Must be the caller's session when given (the browser's gate has one); the
    /// server takes it as the run's session.
    pub session_id: Option<String>,
    /// The calls to hold, each classified by the gate (never by the caller).
    pub calls: Vec<ParkCallRequest>,
    /// The host's conversation so far, kept with the marker and handed back on resume.
    pub history: String,
    /// How long the request may wait for a person (the gate's default when absent).
    pub ttl_ms: Option<u64>,
}

impl ParkRequest {
    /// The calls to park: each classified by `classify` (never by the caller), but a
    /// question, which is asked as it is ([`Verdict::question`]).
    pub fn park_calls(&self, mut classify: impl FnMut(&ToolCall) -> Verdict) -> Vec<ParkCall> {
        self.calls
            .iter()
            .map(|c| c.classified(&mut classify))
            .collect()
    }
}

impl ParkCallRequest {
    /// A call to park with no question.
    pub fn call(tool_call_id: impl Into<String>, call: ToolCall) -> ParkCallRequest {
        ParkCallRequest {
            tool_call_id: tool_call_id.into(),
            tool: call.tool,
            args: call.args,
            question: None,
        }
    }

    /// This call as parked: classified by `classify`, but a question, which is asked
    /// as it is ([`Verdict::question`]).
    pub fn classified(&self, classify: impl FnOnce(&ToolCall) -> Verdict) -> ParkCall {
        let call = ToolCall::new(self.tool.clone(), self.args.clone());
        ParkCall {
            tool_call_id: self.tool_call_id.clone(),
            verdict: match &self.question {
                Some(q) => Verdict::question(q.clone()),
                None => classify(&call),
            },
            call,
        }
    }
}

/// One call to park. No verdict is taken from the caller: the gate classifies it.
#[derive(Debug, Clone)]
pub struct ParkCallRequest {
    /// The host's id of the call (unique within the request).
    pub tool_call_id: String,
    /// The tool's name (`bash`, `write`, an MCP tool, …).
    pub tool: String,
    /// The tool's arguments, as the agent sent them.
    pub args: Value,
    /// A question for the person instead of a call to approve (e.g. the agent's
    /// `ask_user` call and its text): answered or declined, never approved; the tool
    /// never runs, the model gets the answer.
    pub question: Option<String>,
}

/// A request to resume: one decision per pending call.
#[derive(Debug, Clone)]
pub struct ResumeRequest {
    /// One decision per pending call.
    pub decisions: Vec<DecisionRequest>,
}

impl ResumeRequest {
    /// The decisions as core takes them; a decision other than `allow` / `deny` is an
    /// error naming it.
    pub fn into_decisions(self) -> Result<Vec<ResumeDecision>, String> {
        self.decisions
            .into_iter()
            .map(DecisionRequest::into_decision)
            .collect()
    }
}

/// `{toolCallId, anchor, decision: "allow" | "deny", scope?, message?}`.
#[derive(Debug, Clone)]
pub struct DecisionRequest {
    /// The pending call this decides.
    pub tool_call_id: String,
    /// The pending call's anchor, as the prompt showed it: a decision binds to those exact arguments.
    pub anchor: String,
    /// `allow` or `deny`.
    pub decision: String,
    /// For a denial: what the model is told.
    pub message: Option<String>,
    /// For `answer` (a question): the person's answer.
    pub answer: Option<String>,
    /// For an approval: the scope offered by the prompt (`once` when absent).
    pub scope: Option<String>,
    /// For an approval: the arguments as the person edited them (classified again
    /// before the approval stands; approved once).
    pub args: Option<Value>,
    /// For an approval with a scope that a host keeps as a grant: its lifetime, ms.
    pub ttl_ms: Option<u64>,
    /// For an approval with a scope that a host keeps as a grant: one later call only.
    pub single_use: bool,
}

impl DecisionRequest {
    /// The grant this approval asks a host to keep: its scope, lifetime and use.
    pub fn grant_request(&self) -> Option<crate::grant::GrantRequest> {
        match (self.decision.as_str(), &self.scope) {
            ("allow", Some(rule)) => Some(crate::grant::GrantRequest {
                rule: rule.clone(),
                ttl_ms: self.ttl_ms,
                single_use: self.single_use,
            }),
            _ => None,
        }
    }

    /// `allow` / `deny` → the core decision; anything else names what was expected.
    pub fn into_decision(self) -> Result<ResumeDecision, String> {
        let choice = match self.decision.as_str() {
            "allow" => Choice::Allow {
                scope: self.scope,
                args: self.args,
                grant: None,
            },
            "deny" => Choice::Deny {
                message: self.message,
            },
            "answer" => Choice::Answer {
                answer: self.answer.unwrap_or_default(),
            },
            other => {
                return Err(format!(
                    "decision `{other}` for `{}`: expected \"allow\", \"deny\" or \"answer\"",
                    self.tool_call_id
                ))
            }
        };
        Ok(ResumeDecision {
            tool_call_id: self.tool_call_id,
            anchor: self.anchor,
            choice,
        })
    }
}

/// The wire requests' `Deserialize` (a request body): the value, refusing a key that
/// appears twice ([`StrictValue`]), then its fields by hand.
macro_rules! deserialize_by_hand {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let StrictValue(value) = StrictValue::deserialize(d)?;
                <$t>::read(value).map_err(serde::de::Error::custom)
            }
        }
    )*};
}
deserialize_by_hand!(ParkRequest, ParkCallRequest, ResumeRequest, DecisionRequest);

impl ParkRequest {
    /// The request from its JSON value, field by field; unknown fields are refused.
    pub fn read(value: Value) -> Result<ParkRequest, String> {
        let mut f = Fields::of(value, "struct ParkRequest")?;
        let req = ParkRequest {
            run_id: f.opt_string("runId")?,
            owner: f.opt_string("owner")?,
            session_id: f.opt_string("sessionId")?,
            calls: match f.take("calls") {
                None => Vec::new(),
                Some(v) => fields::array(v, ParkCallRequest::read)?,
            },
            history: f.string("history")?,
            ttl_ms: f.opt_u64("ttlMs")?,
        };
        f.deny_unknown(&["runId", "owner", "sessionId", "calls", "history", "ttlMs"])?;
        Ok(req)
    }
}

impl ParkCallRequest {
    /// One call of a [`ParkRequest`], field by field; unknown fields are refused.
    pub fn read(value: Value) -> Result<ParkCallRequest, String> {
        let mut f = Fields::of(value, "struct ParkCallRequest")?;
        let call = ParkCallRequest {
            tool_call_id: f.string("toolCallId")?,
            tool: f.string("tool")?,
            args: f.take("args").unwrap_or(Value::Null),
            question: f.opt_string("question")?,
        };
        f.deny_unknown(&["toolCallId", "tool", "args", "question"])?;
        Ok(call)
    }
}

impl ResumeRequest {
    /// The request from its JSON value, field by field; unknown fields are refused.
    pub fn read(value: Value) -> Result<ResumeRequest, String> {
        let mut f = Fields::of(value, "struct ResumeRequest")?;
        let decisions = fields::array(f.value("decisions")?, DecisionRequest::read)?;
        f.deny_unknown(&["decisions"])?;
        Ok(ResumeRequest { decisions })
    }
}

impl DecisionRequest {
    /// One decision, field by field; unknown fields are refused.
    pub fn read(value: Value) -> Result<DecisionRequest, String> {
        let mut f = Fields::of(value, "struct DecisionRequest")?;
        let d = DecisionRequest {
            tool_call_id: f.string("toolCallId")?,
            anchor: f.string("anchor")?,
            decision: f.string("decision")?,
            message: f.opt_string("message")?,
            answer: f.opt_string("answer")?,
            scope: f.opt_string("scope")?,
            args: f.opt("args", Ok)?,
            ttl_ms: f.opt_u64("ttlMs")?,
            single_use: f.bool_or_false("singleUse")?,
        };
        f.deny_unknown(&[
            "toolCallId",
            "anchor",
            "decision",
            "message",
            "answer",
            "scope",
            "args",
            "ttlMs",
            "singleUse",
        ])?;
        Ok(d)
    }
}

/// A run as callers see it (`gate.run(id)`, `GET /v1/runs/{id}`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunView<'a> {
    /// The run's id.
    pub run_id: &'a str,
    /// The session the run belongs to.
    pub session_id: &'a str,
    /// The owner of the run.
    pub owner: &'a str,
    /// Where the run is in its lifecycle.
    pub status: RunStatus,
    /// The stored revision; it grows with every change.
    pub revision: u64,
    /// When it last changed (ms since the Unix epoch).
    pub updated_at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the run failed or was cancelled, when it did.
    pub last_error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// When a decision resumed it (ms).
    pub resumed_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// When its request expired unanswered (ms).
    pub expired_at: Option<u64>,
    /// What the last resume decided, and who (`{decidedBy?, calls: [{toolCallId, tool,
    /// anchor, outcome, scope?, message?}]}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The permission marker, while the run awaits permission.
    pub marker: Option<MarkerView<'a>>,
}

/// A run's [`RunDecision`](crate::run::RunDecision), camelCase.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Who decided, when the host said.
    pub decided_by: Option<&'a str>,
    /// Each decided call.
    pub calls: Vec<DecidedCallView<'a>>,
}

/// One call of a [`DecisionView`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecidedCallView<'a> {
    /// The call's id.
    pub tool_call_id: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// The anchor the decision was bound to.
    pub anchor: &'a str,
    /// `approved`, `denied`, `expired` or `answered`.
    pub outcome: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The scope of an approval.
    pub scope: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The message of a denial.
    pub message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// A question's answer.
    pub answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The parked arguments, when the person approved an edit of them.
    pub edited_from: Option<&'a Value>,
}

/// The permission marker of a parked run.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkerView<'a> {
    /// When the run was parked (ms since the Unix epoch).
    pub created_at: u64,
    /// When the request expires unanswered (ms).
    pub expires_at: u64,
    /// The calls waiting for a decision.
    pub calls: Vec<PendingCallView<'a>>,
    /// The host's history, handed back on resume.
    pub history: &'a str,
}

/// One pending call of a marker: a prompt renders from this.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingCallView<'a> {
    /// The call's id.
    pub tool_call_id: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// The exact arguments a decision approves.
    pub args: &'a Value,
    /// The hash that binds a decision to these arguments.
    pub anchor: &'a str,
    /// The gate's verdict (`ask` for a parked call).
    pub tier: Tier,
    /// The rule that decided.
    pub rule: &'a str,
    /// Why, for the person deciding.
    pub reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The part of the command the reason is about (byte range), when there is one.
    pub span: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    /// Every deciding part's byte range (the marker's `spans`).
    pub spans: &'a [[usize; 2]],
}

impl<'a> From<&'a PendingCall> for PendingCallView<'a> {
    fn from(c: &'a PendingCall) -> PendingCallView<'a> {
        PendingCallView {
            tool_call_id: &c.tool_call_id,
            tool: &c.tool,
            args: &c.args,
            anchor: &c.anchor,
            tier: c.tier,
            rule: &c.rule,
            reason: &c.reason,
            span: c.span,
            spans: &c.spans,
        }
    }
}

impl<'a> From<&'a Run> for RunView<'a> {
    fn from(r: &'a Run) -> RunView<'a> {
        RunView {
            run_id: &r.run_id,
            session_id: &r.session_id,
            owner: &r.owner,
            status: r.status,
            revision: r.revision,
            updated_at: r.updated_at,
            last_error: r.last_error.as_deref(),
            resumed_at: r.resumed_at,
            expired_at: r.expired_at,
            decision: r.decision.as_ref().map(|d| DecisionView {
                decided_by: d.decided_by.as_deref(),
                calls: d
                    .calls
                    .iter()
                    .map(|c| DecidedCallView {
                        tool_call_id: &c.tool_call_id,
                        tool: &c.tool,
                        anchor: &c.anchor,
                        outcome: &c.outcome,
                        scope: c.scope.as_deref(),
                        message: c.message.as_deref(),
                        answer: c.answer.as_deref(),
                        edited_from: c.edited_from.as_ref(),
                    })
                    .collect(),
            }),
            marker: r.marker.as_ref().map(|m| MarkerView {
                created_at: m.created_at,
                expires_at: m.expires_at,
                calls: m.calls.iter().map(PendingCallView::from).collect(),
                history: &m.history,
            }),
        }
    }
}

/// What a park returns: the run and stop reason `paused`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParkedView<'a> {
    /// The parked run.
    pub run: RunView<'a>,
    /// Always `paused`: the turn ends here.
    pub stop_reason: StopReason,
}

impl<'a> From<&'a Parked> for ParkedView<'a> {
    fn from(parked: &'a Parked) -> ParkedView<'a> {
        ParkedView {
            run: RunView::from(&parked.run),
            stop_reason: parked.stop_reason,
        }
    }
}

/// What a resume returns: the outcome of each pending call and the history.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumedView<'a> {
    /// The run's id.
    pub run_id: &'a str,
    /// The session the run belongs to.
    pub session_id: &'a str,
    /// Each pending call's outcome.
    pub results: Vec<CallResultView<'a>>,
    /// The history parked with the run, to continue from.
    pub history: &'a str,
    /// The run's revision after the resume.
    pub revision: u64,
}

/// One call's outcome: `approved` (run exactly these args), `denied` or `expired` (give
/// the model `toolResult`; an expired call's `args` are null).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallResultView<'a> {
    /// The call's id.
    pub tool_call_id: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// The arguments to run it with when approved (null for an expired call).
    pub args: &'a Value,
    /// `approved`, `denied`, `expired` or `answered`.
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The scope of an approval.
    pub scope: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The person's message with a denial.
    pub message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The person's answer to a question (`answered`).
    pub answer: Option<&'a str>,
    /// What the model receives instead of running the tool (all but approvals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The parked arguments, when the person approved an edit of them (`args`).
    pub edited_from: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The grant that approved it (a person's earlier "always allow"), when one did.
    pub grant: Option<&'a str>,
}

impl<'a> From<&'a CallResult> for CallResultView<'a> {
    fn from(r: &'a CallResult) -> CallResultView<'a> {
        let (outcome, scope, message, answer) = match &r.outcome {
            CallOutcome::Approved { scope } => ("approved", scope.as_deref(), None, None),
            CallOutcome::Denied { message } => ("denied", None, Some(message.as_str()), None),
            CallOutcome::Expired => ("expired", None, None, None),
            CallOutcome::Answered { answer } => ("answered", None, None, Some(answer.as_str())),
        };
        CallResultView {
            tool_call_id: &r.tool_call_id,
            tool: &r.tool,
            args: &r.args,
            outcome,
            scope,
            message,
            answer,
            tool_result: r.outcome.tool_result_text(),
            edited_from: r.edited_from.as_ref(),
            grant: r.grant.as_deref(),
        }
    }
}

impl<'a> From<&'a Resumed> for ResumedView<'a> {
    fn from(r: &'a Resumed) -> ResumedView<'a> {
        ResumedView {
            run_id: &r.run_id,
            session_id: &r.session_id,
            results: r.results.iter().map(CallResultView::from).collect(),
            history: &r.history,
            revision: r.revision,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_refuse_unknown_fields_and_bad_decisions() {
        let park: Result<ParkRequest, _> =
            serde_json::from_str(r#"{"runId":"r","history":"","calls":[],"ttl":5}"#);
        assert!(park.is_err());
        let call: Result<ParkRequest, _> = serde_json::from_str(
            r#"{"runId":"r","history":"","calls":[{"toolCallId":"c","tool":"bash","verdict":"auto"}]}"#,
        );
        assert!(call.is_err(), "a caller cannot hand in a verdict");
        let resume: ResumeRequest = serde_json::from_str(
            r#"{"decisions":[{"toolCallId":"c","anchor":"a","decision":"maybe"}]}"#,
        )
        .unwrap();
        assert!(resume.into_decisions().unwrap_err().contains("maybe"));
    }

    #[test]
    fn requests_are_read_field_by_field() {
        let read = |text: &str| ParkRequest::read(serde_json::from_str(text).unwrap());
        // Defaults: no calls, no ttl; a call's absent args are null.
        let p = read(r#"{"history":"h","calls":[{"toolCallId":"c","tool":"bash"}]}"#).unwrap();
        assert_eq!((p.run_id, p.ttl_ms, p.history.as_str()), (None, None, "h"));
        assert_eq!(p.calls[0].args, Value::Null);
        assert_eq!(read(r#"{"history":"h"}"#).unwrap().calls.len(), 0);
        for (text, want) in [
            (r#"{"calls":[]}"#, "missing field `history`"),
            (
                r#"{"history":"h","ttl":5}"#,
                "unknown field `ttl`, expected one of `runId`, `owner`, `sessionId`, `calls`, `history`, `ttlMs`",
            ),
            (r#"{"history":"h","calls":null}"#, "invalid type: null, expected a sequence"),
            (r#"{"history":"h","ttlMs":-1}"#, "invalid value: integer `-1`, expected u64"),
            (r#"[]"#, "invalid type: sequence, expected struct ParkRequest"),
        ] {
            assert_eq!(read(text).unwrap_err(), want, "{text}");
        }
        let resume = |text: &str| ResumeRequest::read(serde_json::from_str(text).unwrap());
        assert_eq!(
            resume(r#"{"decisions":[],"revision":1}"#).unwrap_err(),
            "unknown field `revision`, expected `decisions`"
        );
        let d = resume(r#"{"decisions":[{"toolCallId":"c","anchor":"a","decision":"allow","args":null,"singleUse":true}]}"#)
            .unwrap();
        assert_eq!(
            (d.decisions[0].args.clone(), d.decisions[0].single_use),
            (None, true)
        );
    }

    #[test]
    fn a_request_body_with_a_key_twice_is_refused_at_any_depth() {
        for text in [
            r#"{"decisions":[{"toolCallId":"c","anchor":"a","decision":"deny","decision":"allow"}]}"#,
            r#"{"decisions":[],"decisions":[]}"#,
            r#"{"decisions":[{"toolCallId":"c","anchor":"a","decision":"allow","args":{"x":1,"x":2}}]}"#,
        ] {
            let e = serde_json::from_str::<ResumeRequest>(text).unwrap_err();
            assert!(e.to_string().starts_with("duplicate field"), "{text}: {e}");
        }
        let e = serde_json::from_str::<ParkRequest>(
            r#"{"history":"h","calls":[{"toolCallId":"c","tool":"bash","args":{"command":"ls","command":"rm -rf /"}}]}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("duplicate field `command`"),
            "{e}"
        );
    }
}
