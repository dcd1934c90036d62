//! The durable permission marker (DESIGN §3): what a parked run leaves behind so that a
//! prompt can be rendered, and the run resumed, after a reload, in another tab or in
//! another process.
//!
//! Marker JSON, version 1 (`v: 1`):
//!
//! ```json
//! {"v":1,"run_id":"r-1","session_id":"s-1","owner":"alice","status":"awaiting_permission",
//!  "revision":1,"created_at":1000,"expires_at":86401000,
//!  "request":{"tool_call_ids":["call_1","call_2"],"tool":"bash","args":{"command":"rm -rf build"},
//!             "anchor":"…","tier":"ask","rule":"…","reason":"…"},
//!  "calls":[{"tool_call_id":"call_1","tool":"bash","args":{"command":"rm -rf build"},
//!            "anchor":"…","tier":"ask","rule":"…","reason":"…"},
//!           {"tool_call_id":"call_2","tool":"write","args":{"path":"/etc/hosts"},
//!            "anchor":"…","tier":"ask","rule":"…","reason":"…"}],
//!  "history":"<opaque resume state of the host>"}
//! ```
//!
//! **Extension of DESIGN §3:** `request` describes the *first* pending call and lists
//! every pending id in `tool_call_ids`; `calls` carries *every* pending call (with its
//! own tool, args, anchor, tier, rule, reason and optional `span`). A marker written
//! without `calls` (the bare DESIGN shape) is read when it has at most one id.
//! A park with no pending call writes the fallback marker: `tool_call_ids: []`,
//! `tool: "unknown"`, `args: {}`, `calls: []`.
//!
//! Decoding ([`Marker::decode`]) is a checking constructor: any byte string yields a
//! marker or an [`Error::BadMarker`] saying what was wrong — never a panic.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::{anchor, json_kind, ToolCall};
use crate::error::Error;
use crate::fields::{self, Fields};
use crate::status::RunStatus;
use crate::verdict::{Tier, Verdict};

/// The marker format this build writes and reads.
pub const MARKER_VERSION: u64 = 1;
/// Upper bound of an encoded marker (UTF-8 bytes). Larger markers are refused when
/// parking and rejected as corrupt when decoding (decided before parsing).
pub const MAX_MARKER_BYTES: usize = 1024 * 1024;
/// Upper bound of the host's opaque `history` (UTF-8 bytes), leaving room in
/// [`MAX_MARKER_BYTES`] for the calls and for JSON escaping.
pub const MAX_HISTORY_BYTES: usize = 512 * 1024;
/// Time to live of a marker when the park request names none: 24 hours.
pub const DEFAULT_MARKER_TTL_MS: u64 = 24 * 60 * 60 * 1000;
/// Longest allowed time to live of a marker: 7 days (no unbounded wait).
pub const MAX_MARKER_TTL_MS: u64 = 7 * 24 * 60 * 60 * 1000;
/// Longest run, session, owner or tool call id (bytes).
pub const MAX_ID_BYTES: usize = 256;
/// Longest question (UTF-8 bytes) a park may hold ([`crate::Verdict::question`]).
pub const MAX_QUESTION_BYTES: usize = 8 * 1024;
/// Longest answer (UTF-8 bytes) to a question.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024;
/// The tool name of the fallback marker written by a park with no pending call.
pub const FALLBACK_TOOL: &str = "unknown";
/// The rule id of the fallback marker.
pub const FALLBACK_RULE: &str = "toolgate.park.no-pending-call";

/// One pending tool call as the marker's `calls` entry holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The host's id of the call.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The exact arguments an approval lets run.
    pub args: Value,
    /// `anchor(tool, args)`: a decision must carry it.
    pub anchor: String,
    /// The classifier's tier (`ask`).
    pub tier: Tier,
    /// The rule that decided.
    pub rule: String,
    /// Why, for the person deciding.
    pub reason: String,
    /// Byte range in the shell command that decided the verdict, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
    /// Every deciding part's byte range: each simple command of the shell command whose
    /// tier is the call's (at most [`MAX_SPANS`], in order), for the prompt to mark.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<[usize; 2]>,
}

/// Most deciding parts a pending call marks ([`PendingCall::spans`]).
pub const MAX_SPANS: usize = 32;

impl PendingCall {
    /// True for a question ([`crate::Verdict::question`]): its `reason` is the
    /// question; it is answered or declined, never approved.
    pub fn is_question(&self) -> bool {
        self.rule == crate::verdict::QUESTION_RULE
    }
}

/// The marker's `request` object (DESIGN §3): the first pending call, all pending ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkerRequest {
    /// Every pending call's id.
    pub tool_call_ids: Vec<String>,
    /// The first pending call's tool.
    pub tool: String,
    /// Its arguments.
    pub args: Value,
    /// Its anchor.
    pub anchor: String,
    /// Its tier.
    pub tier: Tier,
    /// The rule that decided it.
    pub rule: String,
    /// Why.
    pub reason: String,
}

/// One call a host asks to park: its id, the call itself and the classifier's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParkCall {
    /// The host's id of the call (unique in the park).
    pub tool_call_id: String,
    #[serde(flatten)]
    /// The tool call (its `tool` and `args` inline in JSON).
    pub call: ToolCall,
    /// The classifier's verdict on it (`ask`: a `deny` cannot be parked).
    pub verdict: Verdict,
}

/// A request to park a run: `park(run_id, session_id, owner, calls, history)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Park {
    /// The run's id (unique per owner).
    pub run_id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// Whose run it is: other owners never see it.
    pub owner: String,
    #[serde(default)]
    /// The calls waiting for a person (none: a fallback marker that can only fail closed).
    pub calls: Vec<ParkCall>,
    /// The host's opaque resume state (e.g. the model message history).
    pub history: String,
    /// Time to live; [`DEFAULT_MARKER_TTL_MS`] when absent, at most [`MAX_MARKER_TTL_MS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who parks it (an agent's name the host trusts, e.g. a token's name): recorded in
    /// the marker, and when given, a run another agent parked cannot be parked again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked_by: Option<String>,
}

/// A checked, decoded permission marker. Its `status` is always `awaiting_permission`.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// The run's id.
    pub run_id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// Whose run it is.
    pub owner: String,
    /// The run's stored revision when the marker was written.
    pub revision: u64,
    /// When the run was parked (ms since the Unix epoch).
    pub created_at: u64,
    /// When the request expires unanswered (ms).
    pub expires_at: u64,
    /// Every pending call, in the order they were parked (may be empty: fallback).
    pub calls: Vec<PendingCall>,
    /// The host's opaque resume state, handed back on resume.
    pub history: String,
    /// Who parked it ([`Park::parked_by`]).
    pub parked_by: Option<String>,
}

/// The host's check of its own `history` string, run when parking and when decoding
/// (e.g. "parses as my message list"). A refusal makes the marker corrupt.
pub trait HistoryCheck {
    /// `Err(reason)` when the history is not usable.
    fn check(&self, history: &str) -> Result<(), String>;
}

impl<F: Fn(&str) -> Result<(), String>> HistoryCheck for F {
    fn check(&self, history: &str) -> Result<(), String> {
        self(history)
    }
}

/// Accepts every history (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct AnyHistory;

impl HistoryCheck for AnyHistory {
    fn check(&self, _history: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Accepts a history that is well-formed JSON (hosts that store a message list).
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonHistory;

impl HistoryCheck for JsonHistory {
    fn check(&self, history: &str) -> Result<(), String> {
        serde_json::from_str::<serde::de::IgnoredAny>(history)
            .map(|_| ())
            .map_err(|e| format!("history is not JSON: {e}"))
    }
}

pub use crate::decision::{
    refusal_text, CallOutcome, CallResult, Choice, ResumeDecision, EXPIRED_TEXT,
};

/// The host's policy, asked about an edited call before a person's approval of it can
/// stand: a call the policy denies is never approved, edited or not.
pub type EditCheck = std::rc::Rc<dyn Fn(&ToolCall) -> Verdict>;

/// Upper bound of an edit's arguments (UTF-8 bytes of their JSON).
pub const MAX_EDIT_BYTES: usize = 64 * 1024;

impl Marker {
    /// Builds the marker of a park request at `now` with the given store `revision`.
    /// Several calls go into one marker; no call gives the fallback marker.
    pub fn park(
        park: &Park,
        check: &dyn HistoryCheck,
        revision: u64,
        now: u64,
    ) -> Result<Marker, Error> {
        let bad = |reason: String| Error::BadPark {
            run_id: park.run_id.clone(),
            reason,
        };
        if park.history.len() > MAX_HISTORY_BYTES {
            return Err(Error::HistoryTooLarge {
                bytes: park.history.len(),
                limit: MAX_HISTORY_BYTES,
            });
        }
        let ttl = park.ttl_ms.unwrap_or(DEFAULT_MARKER_TTL_MS);
        if ttl == 0 || ttl > MAX_MARKER_TTL_MS {
            return Err(bad(format!(
                "ttl_ms {ttl} is out of range (1..={MAX_MARKER_TTL_MS})"
            )));
        }
        check
            .check(&park.history)
            .map_err(|reason| Error::HistoryRejected { reason })?;
        let calls = park
            .calls
            .iter()
            .map(|c| PendingCall {
                tool_call_id: c.tool_call_id.clone(),
                tool: c.call.tool.clone(),
                args: c.call.args.clone(),
                anchor: c.call.anchor(),
                tier: c.verdict.tier,
                rule: c.verdict.rule.to_string(),
                reason: c.verdict.reason.to_string(),
                span: c.verdict.span,
                spans: c
                    .verdict
                    .parts
                    .iter()
                    .filter(|p| p.tier == c.verdict.tier)
                    .filter_map(|p| p.span)
                    .take(MAX_SPANS)
                    .collect(),
            })
            .collect();
        let marker = Marker {
            run_id: park.run_id.clone(),
            session_id: park.session_id.clone(),
            owner: park.owner.clone(),
            revision,
            created_at: now,
            expires_at: now.saturating_add(ttl),
            calls,
            history: park.history.clone(),
            parked_by: park.parked_by.clone(),
        };
        marker.check().map_err(bad)?;
        Ok(marker)
    }

    /// The DESIGN §3 `request` object: the first pending call (or the fallback) and
    /// every pending id.
    pub fn request(&self) -> MarkerRequest {
        let tool_call_ids = self.calls.iter().map(|c| c.tool_call_id.clone()).collect();
        match self.calls.first() {
            Some(first) => MarkerRequest {
                tool_call_ids,
                tool: first.tool.clone(),
                args: first.args.clone(),
                anchor: first.anchor.clone(),
                tier: first.tier,
                rule: first.rule.clone(),
                reason: first.reason.clone(),
            },
            None => fallback_request(),
        }
    }

    /// True once `now` reaches `expires_at`: the marker resumes nothing.
    pub fn is_expired(&self, now: u64) -> bool {
        now >= self.expires_at
    }

    /// The marker JSON, refused when over [`MAX_MARKER_BYTES`].
    pub fn encode(&self) -> Result<String, Error> {
        // The text `Serialize` writes, by hand (`wire::text`; no serializer in the
        // WebAssembly build).
        bounded(crate::json_text::WriteJson::to_json(self))
    }

    /// Decodes and checks a marker, accepting any history.
    pub fn decode(text: &str) -> Result<Marker, Error> {
        Marker::decode_with(text, &AnyHistory)
    }

    /// Decodes and checks a marker; `check` is the host's history check.
    pub fn decode_with(text: &str, check: &dyn HistoryCheck) -> Result<Marker, Error> {
        let bad = |reason: String| Error::BadMarker { reason };
        let object = parse_object(text).map_err(bad)?;
        let status = status_of(&object).map_err(bad)?;
        match status {
            RunStatus::AwaitingPermission => {
                Marker::from_object(object, check).map_err(|reason| Error::BadMarker { reason })
            }
            RunStatus::Running
            | RunStatus::Completed
            | RunStatus::Failed
            | RunStatus::Cancelled => Err(Error::BadMarker {
                reason: format!("status is `{status}`; a marker is `awaiting_permission`"),
            }),
        }
    }

    /// Decodes the fields of a version-checked object whose status is awaiting.
    pub(crate) fn from_object(
        object: Map<String, Value>,
        check: &dyn HistoryCheck,
    ) -> Result<Marker, String> {
        let raw = MarkerIn::read(object)?;
        let calls = match raw.calls {
            Some(calls) => calls,
            None => match raw.request.tool_call_ids.as_slice() {
                [] => Vec::new(),
                [id] => vec![PendingCall {
                    tool_call_id: id.clone(),
                    tool: raw.request.tool.clone(),
                    args: raw.request.args.clone(),
                    anchor: raw.request.anchor.clone(),
                    tier: raw.request.tier,
                    rule: raw.request.rule.clone(),
                    reason: raw.request.reason.clone(),
                    span: None,
                    spans: Vec::new(),
                }],
                ids => {
                    return Err(format!(
                        "request lists {} tool_call_ids but the marker has no `calls`",
                        ids.len()
                    ))
                }
            },
        };
        if raw.request.anchor != anchor(&raw.request.tool, &raw.request.args) {
            return Err(format!(
                "tampered: request anchor {} does not match its tool `{}` and args",
                raw.request.anchor, raw.request.tool
            ));
        }
        let marker = Marker {
            run_id: raw.run_id,
            session_id: raw.session_id,
            owner: raw.owner,
            revision: raw.revision,
            created_at: raw.created_at,
            expires_at: raw.expires_at,
            calls,
            history: raw.history,
            parked_by: raw.parked_by,
        };
        marker.check()?;
        let request = marker.request();
        // `request` is derived from `calls`; anything else is an edited marker. The
        // fallback request is compared by ids only (its text is informational).
        let consistent = if marker.calls.is_empty() {
            raw.request.tool_call_ids.is_empty()
        } else {
            raw.request == request
        };
        if !consistent {
            return Err(format!(
                "tampered: request (ids {}, tool `{}`, anchor {}) does not describe the pending calls (ids {}, first tool `{}`, anchor {})",
                crate::error::quoted_list(&raw.request.tool_call_ids),
                raw.request.tool,
                raw.request.anchor,
                crate::error::quoted_list(&request.tool_call_ids),
                request.tool,
                request.anchor
            ));
        }
        check
            .check(&marker.history)
            .map_err(|reason| format!("history refused by the host's check: {reason}"))?;
        Ok(marker)
    }

    /// The invariants of a marker, shared by park and decode; `Err` says which failed.
    fn check(&self) -> Result<(), String> {
        check_id("run_id", &self.run_id)?;
        check_id("session_id", &self.session_id)?;
        check_id("owner", &self.owner)?;
        if self.revision == 0 {
            return Err("revision is 0; revisions start at 1".to_string());
        }
        if self.expires_at < self.created_at {
            return Err(format!(
                "expires_at {} is before created_at {}",
                self.expires_at, self.created_at
            ));
        }
        if self.history.len() > MAX_HISTORY_BYTES {
            return Err(format!(
                "history of {} bytes is over the limit of {MAX_HISTORY_BYTES} bytes",
                self.history.len()
            ));
        }
        for (i, call) in self.calls.iter().enumerate() {
            check_id("tool_call_id", &call.tool_call_id)?;
            if self
                .calls
                .get(..i)
                .unwrap_or_default()
                .iter()
                .any(|c| c.tool_call_id == call.tool_call_id)
            {
                return Err(format!(
                    "tool call id `{}` appears twice",
                    call.tool_call_id
                ));
            }
            match call.tier {
                Tier::Auto | Tier::Sandbox | Tier::Ask => {}
                Tier::Deny => {
                    return Err(format!(
                    "tool call `{}` is denied by rule `{}`; a denied call is refused, never asked",
                    call.tool_call_id, call.rule
                ))
                }
            }
            if call.is_question()
                && (call.tier != Tier::Ask
                    || call.reason.trim().is_empty()
                    || call.reason.len() > MAX_QUESTION_BYTES)
            {
                return Err(format!(
                    "question `{}` is empty, over {MAX_QUESTION_BYTES} bytes or not asked",
                    call.tool_call_id
                ));
            }
            if call.anchor != anchor(&call.tool, &call.args) {
                return Err(format!(
                    "tampered: anchor of tool call `{}` does not match its tool `{}` and args",
                    call.tool_call_id, call.tool
                ));
            }
        }
        Ok(())
    }

    /// Checks the decisions against the pending calls: each anchor matches, every
    /// pending id is decided exactly once, no unknown id. Returns one result per
    /// pending call, in marker order.
    pub fn resolve(
        &self,
        decisions: &[ResumeDecision],
        edits: Option<&EditCheck>,
    ) -> Result<Vec<CallResult>, Error> {
        let mut chosen: Vec<Option<&Choice>> = vec![None; self.calls.len()];
        for d in decisions {
            let Some(i) = self
                .calls
                .iter()
                .position(|c| c.tool_call_id == d.tool_call_id)
            else {
                return Err(Error::UnknownToolCall {
                    run_id: self.run_id.clone(),
                    tool_call_id: d.tool_call_id.clone(),
                });
            };
            let (Some(call), Some(slot)) = (self.calls.get(i), chosen.get_mut(i)) else {
                return Err(Error::UnknownToolCall {
                    run_id: self.run_id.clone(),
                    tool_call_id: d.tool_call_id.clone(),
                });
            };
            if slot.is_some() {
                return Err(Error::DuplicateDecision {
                    run_id: self.run_id.clone(),
                    tool_call_id: d.tool_call_id.clone(),
                });
            }
            if d.anchor != call.anchor {
                return Err(Error::ResumeAnchorMismatch {
                    run_id: self.run_id.clone(),
                    tool_call_id: d.tool_call_id.clone(),
                    expected: call.anchor.clone(),
                    got: d.anchor.clone(),
                });
            }
            if let Choice::Allow {
                scope,
                args: Some(edited),
                ..
            } = &d.choice
            {
                self.check_edit(call, scope.is_some(), edited, edits)?;
            }
            self.check_answer(call, &d.choice)?;
            *slot = Some(&d.choice);
        }
        let missing: Vec<String> = self
            .calls
            .iter()
            .zip(&chosen)
            .filter(|(_, c)| c.is_none())
            .map(|(call, _)| call.tool_call_id.clone())
            .collect();
        if !missing.is_empty() {
            return Err(Error::MissingDecision {
                run_id: self.run_id.clone(),
                tool_call_ids: missing,
            });
        }
        Ok(self
            .calls
            .iter()
            .zip(chosen)
            .filter_map(|(call, choice)| {
                let mut edited_from = None;
                let mut by_grant = None;
                let mut args = call.args.clone();
                let outcome = match choice? {
                    Choice::Allow {
                        scope,
                        args: edited,
                        grant,
                    } => {
                        by_grant.clone_from(grant);
                        if let Some(edited) = edited {
                            edited_from = Some(std::mem::replace(&mut args, edited.clone()));
                        }
                        CallOutcome::Approved {
                            scope: scope.clone(),
                        }
                    }
                    Choice::Deny { message } => CallOutcome::Denied {
                        message: message.clone().unwrap_or_default(),
                    },
                    Choice::Answer { answer } => CallOutcome::Answered {
                        answer: answer.clone(),
                    },
                };
                Some(CallResult {
                    tool_call_id: call.tool_call_id.clone(),
                    tool: call.tool.clone(),
                    args,
                    outcome,
                    edited_from,
                    grant: by_grant,
                })
            })
            .collect())
    }

    /// A question is answered or declined, never approved; only a question is
    /// answered, with a non-empty answer within [`MAX_ANSWER_BYTES`].
    fn check_answer(&self, call: &PendingCall, choice: &Choice) -> Result<(), Error> {
        let why = match (call.is_question(), choice) {
            (true, Choice::Allow { .. }) => "a question is answered, never approved",
            (false, Choice::Answer { .. }) => "only a question is answered",
            (true, Choice::Answer { answer }) if answer.trim().is_empty() => "the answer is empty",
            (true, Choice::Answer { answer }) if answer.len() > MAX_ANSWER_BYTES => {
                "the answer is over 16 KiB"
            }
            _ => return Ok(()),
        };
        Err(Error::AnswerRefused {
            run_id: self.run_id.clone(),
            tool_call_id: call.tool_call_id.clone(),
            reason: why.to_string(),
        })
    }

    /// Whether a person's approval of `edited` instead of `call`'s arguments can stand:
    /// arguments of the same shape (an object for an object), within [`MAX_EDIT_BYTES`],
    /// approved once, and not denied by the host's policy (a host with no [`EditCheck`]
    /// takes no edit).
    fn check_edit(
        &self,
        call: &PendingCall,
        scoped: bool,
        edited: &Value,
        edits: Option<&EditCheck>,
    ) -> Result<(), Error> {
        let why = match edits {
            None => "this host does not take edited calls".into(),
            Some(_) if scoped => "an edited call is approved once, without a scope".into(),
            Some(_) if edited.is_object() != call.args.is_object() => {
                "the edit is not the same kind of arguments".into()
            }
            Some(_) if crate::json_text::WriteJson::to_json(edited).len() > MAX_EDIT_BYTES => {
                "the edit is over 64 KiB".into()
            }
            Some(check) => {
                let verdict = check(&ToolCall::new(call.tool.clone(), edited.clone()));
                if verdict.tier != Tier::Deny {
                    return Ok(());
                }
                format!(
                    "the policy denies the edited call ({}): {}",
                    verdict.rule, verdict.reason
                )
            }
        };
        Err(Error::EditRefused {
            run_id: self.run_id.clone(),
            tool_call_id: call.tool_call_id.clone(),
            reason: why,
        })
    }
}

impl Serialize for Marker {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        MarkerOut {
            v: MARKER_VERSION,
            run_id: &self.run_id,
            session_id: &self.session_id,
            owner: &self.owner,
            status: RunStatus::AwaitingPermission,
            revision: self.revision,
            created_at: self.created_at,
            expires_at: self.expires_at,
            request: self.request(),
            calls: &self.calls,
            history: &self.history,
            parked_by: self.parked_by.as_deref(),
        }
        .serialize(serializer)
    }
}

/// The request of the fallback marker (a park with no pending call).
fn fallback_request() -> MarkerRequest {
    let args = Value::Object(Map::new());
    MarkerRequest {
        tool_call_ids: Vec::new(),
        tool: FALLBACK_TOOL.to_string(),
        anchor: anchor(FALLBACK_TOOL, &args),
        args,
        tier: Tier::Ask,
        rule: FALLBACK_RULE.to_string(),
        reason: "the run was parked with no pending tool call".to_string(),
    }
}

fn check_id(field: &str, id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err(format!("{field} is empty"));
    }
    if id.len() > MAX_ID_BYTES {
        return Err(format!(
            "{field} is {} bytes, over the limit of {MAX_ID_BYTES}",
            id.len()
        ));
    }
    Ok(())
}

/// A stored document's text, refused over [`MAX_MARKER_BYTES`].
pub(crate) fn bounded(text: String) -> Result<String, Error> {
    if text.len() > MAX_MARKER_BYTES {
        return Err(Error::MarkerTooLarge {
            bytes: text.len(),
            limit: MAX_MARKER_BYTES,
        });
    }
    Ok(text)
}

/// Parses a stored document into a JSON object of a known version. Bounded in size
/// before parsing; truncation is named as such.
pub(crate) fn parse_object(text: &str) -> Result<Map<String, Value>, String> {
    if text.len() > MAX_MARKER_BYTES {
        return Err(format!(
            "{} bytes, over the limit of {MAX_MARKER_BYTES} bytes",
            text.len()
        ));
    }
    let value: Value = crate::json_text::parse(text).map_err(|e| {
        if e.is_eof() {
            format!("truncated: {e}")
        } else {
            format!("not JSON: {e}")
        }
    })?;
    let Value::Object(object) = value else {
        return Err(format!(
            "expected a JSON object, found {}",
            json_kind(&value)
        ));
    };
    match object.get("v") {
        None => Err("missing field `v` (the marker version)".to_string()),
        Some(Value::Number(n)) if n.as_u64() == Some(MARKER_VERSION) => Ok(object),
        // `Value`'s `Display` would link serde_json's serializer (pretty and compact):
        // the same text, written by hand.
        Some(other) => Err(format!(
            "unknown version v={} (this build reads v={MARKER_VERSION})",
            crate::json_text::WriteJson::to_json(other)
        )),
    }
}

/// The `status` of a version-checked object.
pub(crate) fn status_of(object: &Map<String, Value>) -> Result<RunStatus, String> {
    match object.get("status") {
        None => Err("missing field `status`".to_string()),
        Some(Value::String(s)) => {
            RunStatus::parse(s).ok_or_else(|| format!("unknown status `{s}`"))
        }
        Some(other) => Err(format!(
            "field `status`: expected a string, found {}",
            json_kind(other)
        )),
    }
}

/// The stored shape, read side (version and status already checked).
struct MarkerIn {
    run_id: String,
    session_id: String,
    owner: String,
    revision: u64,
    created_at: u64,
    expires_at: u64,
    request: MarkerRequest,
    calls: Option<Vec<PendingCall>>,
    history: String,
    parked_by: Option<String>,
}

impl MarkerIn {
    /// The fields by hand (no serde-derived decoder where markers are read in the
    /// WebAssembly build); unknown fields are ignored, as the derived decoder does.
    fn read(object: Map<String, Value>) -> Result<MarkerIn, String> {
        let mut f = Fields::new(object);
        Ok(MarkerIn {
            run_id: f.string("run_id")?,
            session_id: f.string("session_id")?,
            owner: f.string("owner")?,
            revision: f.u64("revision")?,
            created_at: f.u64("created_at")?,
            expires_at: f.u64("expires_at")?,
            request: MarkerRequest::read(f.value("request")?)?,
            calls: f.opt("calls", |v| fields::array(v, PendingCall::read))?,
            history: f.string("history")?,
            parked_by: f.opt_string("parked_by")?,
        })
    }
}

impl MarkerRequest {
    /// A stored `request`, by hand (as the stored marker is read: unknown fields ignored).
    pub(crate) fn read(value: Value) -> Result<MarkerRequest, String> {
        let mut f = Fields::of(value, "struct MarkerRequest")?;
        Ok(MarkerRequest {
            tool_call_ids: fields::array(f.value("tool_call_ids")?, fields::string)?,
            tool: f.string("tool")?,
            args: f.value("args")?,
            anchor: f.string("anchor")?,
            tier: Tier::read(f.value("tier")?)?,
            rule: f.string("rule")?,
            reason: f.string("reason")?,
        })
    }
}

impl PendingCall {
    /// A stored `calls` entry, by hand (as the stored marker is read: unknown fields ignored).
    pub fn read(value: Value) -> Result<PendingCall, String> {
        let mut f = Fields::of(value, "struct PendingCall")?;
        Ok(PendingCall {
            tool_call_id: f.string("tool_call_id")?,
            tool: f.string("tool")?,
            args: f.value("args")?,
            anchor: f.string("anchor")?,
            tier: Tier::read(f.value("tier")?)?,
            rule: f.string("rule")?,
            reason: f.string("reason")?,
            span: f.opt("span", fields::span)?,
            spans: match f.take("spans") {
                None => Vec::new(),
                Some(v) => fields::array(v, fields::span)?,
            },
        })
    }
}

/// The stored shape, write side (borrowed: no copy of the history).
#[derive(Serialize)]
struct MarkerOut<'a> {
    v: u64,
    run_id: &'a str,
    session_id: &'a str,
    owner: &'a str,
    status: RunStatus,
    revision: u64,
    created_at: u64,
    expires_at: u64,
    request: MarkerRequest,
    calls: &'a [PendingCall],
    history: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parked_by: Option<&'a str>,
}

#[cfg(test)]
mod read_by_hand {
    use super::{MarkerRequest, PendingCall};
    use crate::fields::deep;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn pending() -> Value {
        json!({"tool_call_id": "c", "tool": "bash", "args": {"command": "ls"},
               "anchor": "a", "tier": "ask", "rule": "r", "reason": "why",
               "span": [0, 2], "spans": [[0, 2], [4, 5]]})
    }

    fn request() -> Value {
        json!({"tool_call_ids": ["c", "d"], "tool": "bash", "args": {"command": "ls"},
               "anchor": "a", "tier": "deny", "rule": "r", "reason": "why"})
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The readers by hand accept exactly what the derived decoders accept, alike.
        #[test]
        fn pending_call(v in deep(pending())) {
            prop_assert_eq!(
                PendingCall::read(v.clone()).ok(),
                serde_json::from_value::<PendingCall>(v).ok()
            );
        }

        #[test]
        fn marker_request(v in deep(request())) {
            prop_assert_eq!(
                MarkerRequest::read(v.clone()).ok(),
                serde_json::from_value::<MarkerRequest>(v).ok()
            );
        }
    }
}
