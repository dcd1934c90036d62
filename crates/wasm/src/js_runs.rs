//! The JS-facing shapes of park / run / resume (camelCase views of toolgate-core's
//! `Run`, `Marker`, `Resumed`) and their TypeScript declarations.

use crate::error::GateError;
use toolgate_core::wire::ResumedView;
use toolgate_core::Resumed;

/// `gate.park({runId, owner?, sessionId?, calls, history, ttlMs?})` input: the shared
/// wire shape (unknown fields refused).
pub(crate) type ParkJs = toolgate_core::wire::ParkRequest;

/// What `Gate::park_run` takes: run id, calls, history, time to live.
pub(crate) type ParkParts = (
    String,
    Vec<toolgate_core::wire::ParkCallRequest>,
    String,
    Option<u64>,
);

/// The request for a gate of `owner` and `session`: one naming another owner or
/// session, or no run id, is refused.
pub(crate) fn park_parts(req: ParkJs, owner: &str, session: &str) -> Result<ParkParts, GateError> {
    if let Some(other) = req.owner.as_ref().filter(|o| *o != owner) {
        return Err(GateError::BadInput(format!(
            "park: owner `{other}` is not this gate's owner `{owner}` (make the Gate with {{owner}})"
        )));
    }
    if let Some(other) = req.session_id.as_ref().filter(|s| *s != session) {
        return Err(GateError::BadInput(format!(
            "park: sessionId `{other}` is not this gate's session `{session}`"
        )));
    }
    let Some(run_id) = req.run_id else {
        return Err(GateError::BadInput("park: runId is required".to_string()));
    };
    Ok((run_id, req.calls, req.history, req.ttl_ms))
}

/// `gate.resume(runId, {decisions})` input.
pub(crate) type ResumeJs = toolgate_core::wire::ResumeRequest;

/// `resumed` as `gate.resume` resolves with it (for Rust callers that resume through
/// [`crate::Gate::resume_run`] and hand the result to JavaScript).
pub fn resumed_to_js(resumed: &Resumed) -> Result<wasm_bindgen::JsValue, GateError> {
    crate::js::to_js(&ResumedView::from(resumed))
}

#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const TS_RUN_TYPES: &'static str = r#"
/** Where a run is. Only `awaiting_permission` carries a marker. */
export type RunStatus = "running" | "awaiting_permission" | "completed" | "failed" | "cancelled";

/** A tool call to park. The gate classifies it with its policy (and session rules);
 * a call the policy denies cannot be parked (`bad_park`). With `question`, it is a
 * question for the person instead (e.g. the agent's `ask_user` call): parked as asked
 * (rule `toolgate.question`, `reason` the question, at most 8 KiB), answered or
 * declined, never approved; its tool never runs, the model gets the answer. */
export interface ParkCall {
  toolCallId: string;
  tool: string;
  args?: unknown;
  question?: string;
}

export interface ParkRequest {
  runId: string;
  /** Must be this gate's owner when given (the default). */
  owner?: string;
  /** Must be this gate's session when given. */
  sessionId?: string;
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
  /** Every deciding part's byte range in the command (each simple command whose tier is
   * the call's), for a prompt to mark. */
  spans?: [number, number][];
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
  /** What the last resume decided (set with `resumedAt`): who, when the host named
   * them, and each call's outcome; for a run an expired marker cancelled, `expired` for
   * each of its calls. */
  decision?: RunDecision;
  /** Present exactly when `status` is `awaiting_permission`. */
  marker?: PermissionMarker;
}

export interface RunDecision {
  decidedBy?: string;
  calls: { toolCallId: string; tool: string; anchor: string;
           outcome: "approved" | "denied" | "expired" | "answered";
           scope?: string; message?: string; answer?: string;
           /** The parked call's args, when the person approved an edit of them. */
           editedFrom?: unknown }[];
}

export interface Parked {
  run: Run;
  /** End the turn here; resume later with `gate.resume`. */
  stopReason: "paused";
}

/** One decision per pending call; every pending call must be decided, once. An allow
 * with `args` approves the person's edit of the call instead (once, no scope): the
 * gate classifies it again and refuses one its policy denies (`edit_refused`). */
export type ResumeDecision =
  /** With `scope` (one the prompt offered), the gate also keeps it as a grant for this
   * session: `ttlMs` (default 1 h, at most 30 days), `singleUse` (the next matching
   * call only); refused with nothing decided (`grant_refused`) when the call does not
   * offer the scope, the lifetime is out of range or the session holds 256 live grants. */
  | { toolCallId: string; anchor: string; decision: "allow"; scope?: string; args?: unknown;
      ttlMs?: number; singleUse?: boolean }
  | { toolCallId: string; anchor: string; decision: "deny"; message?: string }
  /** Only a question (rule `toolgate.question`) is answered, and it is never allowed. */
  | { toolCallId: string; anchor: string; decision: "answer"; answer: string };

/** `decisions: []` on a run an expired marker cancelled takes that marker's history,
 * once, with each call `expired` (the run stays `cancelled`); a second take is
 * `already_resumed`. With decisions, an expired run is `expired`. */
export interface ResumeRequest {
  decisions: ResumeDecision[];
}

/** Per pending call, in marker order. Run an approved call with exactly these args;
 * give the model `toolResult` for a denied one (a clean tool error, not a failed run). */
export type ResumedCall =
  | { toolCallId: string; tool: string; args: unknown; outcome: "approved"; scope?: string;
      /** The parked args, when `args` is the person's edit of them. */
      editedFrom?: unknown;
      /** The grant that approved it, when a grant did (`settleWithGrants`). */
      grant?: string }
  | { toolCallId: string; tool: string; args: unknown; outcome: "denied"; message: string;
      /** `User refused permission: <message>` (or `User refused permission.`). */
      toolResult: string }
  | { toolCallId: string; tool: string; args: null; outcome: "expired";
      /** `Not approved: nobody answered the permission request in time.` */
      toolResult: string }
  | { toolCallId: string; tool: string; args: unknown; outcome: "answered"; answer: string;
      /** The answer: give it to the model as the tool's result; do not run the tool. */
      toolResult: string };

export interface Resumed {
  runId: string;
  sessionId: string;
  results: ResumedCall[];
  /** The history given to `park`, to continue from. The run is `running` again. */
  history: string;
  revision: number;
}

/** A person's "always allow" the gate keeps (`gate.grants()`): it lets later calls of
 * this owner's session that `rule` matches, and that the same rule asked for, run
 * without a prompt until it expires, is revoked or (single use) served once. It only
 * narrows: a call the policy denies stays denied. */
export interface Grant {
  id: string;
  owner: string;
  sessionId: string;
  /** The scope, e.g. `Bash(git push:*)`. */
  rule: string;
  /** What it matches, in words. */
  matches: string;
  /** The rule that asked for the call it was given on. */
  askedBy: string;
  createdAt: number;
  expiresAt: number;
  singleUse: boolean;
  used: number;
  revokedAt?: number;
  /** The run and call it was given on. */
  runId: string;
  toolCallId: string;
  state: "live" | "expired" | "revoked" | "used_up";
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
