//! The JS-facing shapes of park / run / resume (camelCase views of toolgate-core's
//! `Run`, `Marker`, `Resumed`) and their TypeScript declarations.

use crate::error::GateError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolgate_core::marker::PendingCall;
use toolgate_core::{
    CallOutcome, CallResult, Choice, ResumeDecision, Resumed, Run, RunStatus, Tier, ToolCall,
};

/// `gate.park({runId, owner?, calls, history, ttlMs?})` input.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ParkJs {
    pub run_id: String,
    #[serde(default)]
    pub owner: Option<String>,
    #[serde(default)]
    pub calls: Vec<ParkCallJs>,
    pub history: String,
    #[serde(default)]
    pub ttl_ms: Option<u64>,
}

/// What `Gate::park_run` takes: run id, calls, history, time to live.
pub(crate) type ParkParts = (String, Vec<(String, ToolCall)>, String, Option<u64>);

impl ParkJs {
    /// The request for a gate of `owner`: a request naming another owner is refused.
    pub fn into_parts(self, owner: &str) -> Result<ParkParts, GateError> {
        if let Some(other) = self.owner.filter(|o| o != owner) {
            return Err(GateError::BadInput(format!(
                "park: owner `{other}` is not this gate's owner `{owner}` (make the Gate with {{owner}})"
            )));
        }
        let calls = self
            .calls
            .into_iter()
            .map(|c| (c.tool_call_id, ToolCall::new(c.tool, c.args)))
            .collect();
        Ok((self.run_id, calls, self.history, self.ttl_ms))
    }
}

/// One call to park: the gate classifies it (no verdict is taken from the caller).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ParkCallJs {
    pub tool_call_id: String,
    pub tool: String,
    #[serde(default)]
    pub args: Value,
}

/// `gate.resume(runId, {decisions})` input.
#[derive(Deserialize)]
pub(crate) struct ResumeJs {
    pub decisions: Vec<DecisionJs>,
}

impl ResumeJs {
    pub fn into_decisions(self) -> Result<Vec<ResumeDecision>, GateError> {
        self.decisions
            .into_iter()
            .map(|d| {
                d.choice()
                    .map(|(tool_call_id, anchor, choice)| ResumeDecision {
                        tool_call_id,
                        anchor,
                        choice,
                    })
                    .map_err(GateError::BadInput)
            })
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DecisionJs {
    pub tool_call_id: String,
    pub anchor: String,
    pub decision: String,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

impl DecisionJs {
    /// `allow` / `deny` → the core choice; anything else names what was expected.
    pub(crate) fn choice(self) -> Result<(String, String, Choice), String> {
        let choice = match self.decision.as_str() {
            "allow" => Choice::Allow { scope: self.scope },
            "deny" => Choice::Deny {
                message: self.message,
            },
            other => {
                return Err(format!(
                    "decision `{other}` for `{}`: expected \"allow\" or \"deny\"",
                    self.tool_call_id
                ))
            }
        };
        Ok((self.tool_call_id, self.anchor, choice))
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunJs<'a> {
    run_id: &'a str,
    session_id: &'a str,
    owner: &'a str,
    status: RunStatus,
    revision: u64,
    updated_at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resumed_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expired_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    marker: Option<MarkerJs<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MarkerJs<'a> {
    created_at: u64,
    expires_at: u64,
    calls: Vec<PendingCallJs<'a>>,
    history: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PendingCallJs<'a> {
    tool_call_id: &'a str,
    tool: &'a str,
    args: &'a Value,
    anchor: &'a str,
    tier: Tier,
    rule: &'a str,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    span: Option<[usize; 2]>,
}

impl<'a> From<&'a PendingCall> for PendingCallJs<'a> {
    fn from(c: &'a PendingCall) -> PendingCallJs<'a> {
        PendingCallJs {
            tool_call_id: &c.tool_call_id,
            tool: &c.tool,
            args: &c.args,
            anchor: &c.anchor,
            tier: c.tier,
            rule: &c.rule,
            reason: &c.reason,
            span: c.span,
        }
    }
}

impl<'a> From<&'a Run> for RunJs<'a> {
    fn from(r: &'a Run) -> RunJs<'a> {
        RunJs {
            run_id: &r.run_id,
            session_id: &r.session_id,
            owner: &r.owner,
            status: r.status,
            revision: r.revision,
            updated_at: r.updated_at,
            last_error: r.last_error.as_deref(),
            resumed_at: r.resumed_at,
            expired_at: r.expired_at,
            marker: r.marker.as_ref().map(|m| MarkerJs {
                created_at: m.created_at,
                expires_at: m.expires_at,
                calls: m.calls.iter().map(PendingCallJs::from).collect(),
                history: &m.history,
            }),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ParkedJs<'a> {
    pub run: RunJs<'a>,
    pub stop_reason: toolgate_core::StopReason,
}

impl<'a> From<&'a toolgate_core::Parked> for ParkedJs<'a> {
    fn from(parked: &'a toolgate_core::Parked) -> ParkedJs<'a> {
        ParkedJs {
            run: RunJs::from(&parked.run),
            stop_reason: parked.stop_reason,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResumedJs<'a> {
    run_id: &'a str,
    session_id: &'a str,
    results: Vec<CallResultJs<'a>>,
    history: &'a str,
    revision: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallResultJs<'a> {
    tool_call_id: &'a str,
    tool: &'a str,
    args: &'a Value,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    /// What the model receives instead of running the tool (denials only).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_result: Option<String>,
}

impl<'a> From<&'a CallResult> for CallResultJs<'a> {
    fn from(r: &'a CallResult) -> CallResultJs<'a> {
        let (outcome, scope, message) = match &r.outcome {
            CallOutcome::Approved { scope } => ("approved", scope.as_deref(), None),
            CallOutcome::Denied { message } => ("denied", None, Some(message.as_str())),
        };
        CallResultJs {
            tool_call_id: &r.tool_call_id,
            tool: &r.tool,
            args: &r.args,
            outcome,
            scope,
            message,
            tool_result: r.outcome.tool_result_text(),
        }
    }
}

/// `resumed` as `gate.resume` resolves with it (for Rust callers that resume through
/// [`crate::Gate::resume_run`] and hand the result to JavaScript).
pub fn resumed_to_js(resumed: &Resumed) -> Result<wasm_bindgen::JsValue, GateError> {
    crate::js::to_js(&ResumedJs::from(resumed))
}

impl<'a> From<&'a Resumed> for ResumedJs<'a> {
    fn from(r: &'a Resumed) -> ResumedJs<'a> {
        ResumedJs {
            run_id: &r.run_id,
            session_id: &r.session_id,
            results: r.results.iter().map(CallResultJs::from).collect(),
            history: &r.history,
            revision: r.revision,
        }
    }
}

#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const TS_RUN_TYPES: &'static str = r#"
/** Where a run is. Only `awaiting_permission` carries a marker. */
export type RunStatus = "running" | "awaiting_permission" | "completed" | "failed" | "cancelled";

/** A tool call to park. The gate classifies it with its policy (and session rules);
 * a call the policy denies cannot be parked (`bad_park`). */
export interface ParkCall {
  toolCallId: string;
  tool: string;
  args?: unknown;
}

export interface ParkRequest {
  runId: string;
  /** Must be this gate's owner when given (the default). */
  owner?: string;
  /** Several calls go in one marker; none writes the fallback marker (`tool: "unknown"`). */
  calls: ParkCall[];
  /** Opaque resume state of the host (e.g. JSON of the message history), at most 512 KiB. */
  history: string;
  /** Time to live of the marker, ms (default 24 h, at most 7 days). */
  ttlMs?: number;
}

/** One pending call of a marker: render the prompt from this. */
export interface ParkedCall {
  toolCallId: string;
  tool: string;
  args: unknown;
  /** Echo it in the decision: a decision cannot approve other arguments. */
  anchor: string;
  tier: Tier;
  rule: string;
  reason: string;
  span?: [number, number];
}

/** The permission marker of a parked run (a camelCase view of the stored document). */
export interface PermissionMarker {
  createdAt: number;
  expiresAt: number;
  calls: ParkedCall[];
  history: string;
}

export interface Run {
  runId: string;
  sessionId: string;
  owner: string;
  status: RunStatus;
  /** Store revision (compare-and-swap token); grows with every change. */
  revision: number;
  updatedAt: number;
  /** Why the run failed or was cancelled (e.g. `corrupt permission marker: …`). */
  lastError?: string;
  resumedAt?: number;
  expiredAt?: number;
  /** Present exactly when `status` is `awaiting_permission`. */
  marker?: PermissionMarker;
}

export interface Parked {
  run: Run;
  /** End the turn here; resume later with `gate.resume`. */
  stopReason: "paused";
}

/** One decision per pending call; every pending call must be decided, once. */
export type ResumeDecision =
  | { toolCallId: string; anchor: string; decision: "allow"; scope?: string }
  | { toolCallId: string; anchor: string; decision: "deny"; message?: string };

export interface ResumeRequest {
  decisions: ResumeDecision[];
}

/** Per pending call, in marker order. Run an approved call with exactly these args;
 * give the model `toolResult` for a denied one (a clean tool error, not a failed run). */
export type ResumedCall =
  | { toolCallId: string; tool: string; args: unknown; outcome: "approved"; scope?: string }
  | { toolCallId: string; tool: string; args: unknown; outcome: "denied"; message: string;
      /** `User refused permission: <message>` (or `User refused permission.`). */
      toolResult: string };

export interface Resumed {
  runId: string;
  sessionId: string;
  results: ResumedCall[];
  /** The history given to `park`, to continue from. The run is `running` again. */
  history: string;
  revision: number;
}

/** How strongly `gate.resume` is exactly once (`gate.resumeGuarantee`):
 * - `"indexeddb"`: across every tab, worker and renderer process of the origin. Inside
 *   the run's Web Lock, resume claims the exact stored record (`<runId>:<revision>:<hash>`)
 *   in IndexedDB `toolgate`/`claims` — an atomic `add` — before it clears the marker by
 *   compare-and-swap; a lost claim rejects with `.code === "already_resumed"`.
 * - `"same-process"`: IndexedDB is missing or cannot be opened here (some private modes,
 *   opaque origins): Web Lock + `localStorage` compare-and-swap only, exactly once within
 *   one renderer process; a tab in another process could still read a marker another
 *   process already cleared and resume it again. */
export type ResumeGuarantee = "indexeddb" | "same-process";

/** A park / resume / failRun of this owner's runs: `local` from this gate, `remote` from
 * another gate of the same origin (another tab, worker or Gate) via BroadcastChannel.
 * A hint to refresh now; `gate.run(id)` / `gate.runs()` stay the source of truth. */
export interface RunsChange {
  runId: string;
  status: RunStatus;
  revision: number;
  source: "local" | "remote";
  /** Present when the record was deleted (`forgetRun` / `pruneRuns`). */
  gone?: true;
}
"#;
