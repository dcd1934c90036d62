//! Encoding and decoding of JS values, the JS-facing shapes, and their TypeScript
//! declarations.

use crate::error::GateError;
use crate::gate::GateOptions;
use serde::de::DeserializeOwned;
use serde::Serialize;
use toolgate_core::{Anchor, Decision, PendingQuestion, PendingRef, RequestId, Verdict};
use wasm_bindgen::prelude::*;

/// Rust → JS: JSON text parsed by the engine (`JSON.parse`): plain objects, numbers for
/// integers, an absent field where a value is skipped. One encoder, serde_json's, serves
/// values to JavaScript and records to storage alike (issue 51: one serde path).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, GateError> {
    let text = serde_json::to_string(value)
        .map_err(|_| GateError::BadInput("cannot encode the result".into()))?;
    js_sys::JSON::parse(&text).map_err(|_| GateError::BadInput("cannot encode the result".into()))
}

/// JS → Rust through `JSON.stringify` and serde_json, the one decoder of inputs and
/// records; `what` names the argument in the error. `undefined` reads as `null`; a value
/// JSON cannot hold (a cycle, a `BigInt`) is bad input, as is a string with a lone
/// surrogate (JSON escapes it; serde_json refuses it).
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, GateError> {
    let text = js_sys::JSON::stringify(&value).map_err(|_| {
        GateError::BadInput(format!("{what}: not a JSON value (a cycle or a BigInt)"))
    })?;
    let text = text.as_string().unwrap_or_else(|| "null".to_string());
    // Text → `Value` → `T`: the path the core's records take (`Run::decode`,
    // `Marker::decode`), so each type has one deserializer, serde_json's `Value` one.
    serde_json::from_str::<serde_json::Value>(&text)
        .and_then(serde_json::from_value)
        .map_err(|e| {
            // serde_json's position is in the text JSON.stringify made, not the caller's.
            let e = e.to_string();
            let e = e.split(" at line ").next().unwrap_or_default();
            GateError::BadInput(format!("{what}: {e}"))
        })
}

/// A pending request as JS sees it (the registry's compact record, decoded).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PendingJs<'a> {
    id: RequestId,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    tool: &'a str,
    args: serde_json::Value,
    verdict: Verdict,
    anchor: Anchor,
    scopes: Vec<String>,
    created_ms: u64,
    deadline_ms: u64,
}

impl<'a> From<PendingRef<'a>> for PendingJs<'a> {
    fn from(p: PendingRef<'a>) -> PendingJs<'a> {
        PendingJs {
            id: p.id,
            tool_call_id: p.tool_call_id,
            tool: p.tool(),
            args: p.args(),
            verdict: p.verdict(),
            anchor: p.anchor,
            scopes: p.scopes(),
            created_ms: p.created_ms,
            deadline_ms: p.deadline_ms,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct QuestionJs<'a> {
    id: RequestId,
    question: &'a str,
    created_ms: u64,
    deadline_ms: u64,
}

impl<'a> From<&'a PendingQuestion> for QuestionJs<'a> {
    fn from(q: &'a PendingQuestion) -> QuestionJs<'a> {
        QuestionJs {
            id: q.id,
            question: &q.question,
            created_ms: q.created_ms,
            deadline_ms: q.deadline_ms,
        }
    }
}

/// `gate.check(...)` input.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CheckJs {
    pub tool: String,
    #[serde(default)]
    pub args: serde_json::Value,
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// What the host found on its file system for this call (`Policy.fsNeeds`).
    #[serde(default)]
    pub facts: Option<FactsJs>,
}

/// `gate.respond(id, ...)` input.
#[derive(serde::Deserialize)]
pub(crate) struct RespondJs {
    pub decision: String,
    pub anchor: String,
    #[serde(default)]
    pub scope: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

impl RespondJs {
    /// The decision and the anchor it was shown with.
    pub fn into_decision(self) -> Result<(Decision, String), GateError> {
        let decision = match (self.decision.as_str(), self.scope) {
            ("allow_once", _) => Decision::AllowOnce,
            ("allow_always", Some(scope)) => Decision::AllowAlways { scope },
            ("deny", _) => Decision::Deny {
                message: self.message,
            },
            ("deny_always", Some(scope)) => Decision::DenyAlways {
                scope,
                message: self.message,
            },
            (other, _) => {
                return Err(GateError::BadInput(format!(
                    "decision `{other}`: expected allow_once, allow_always (with scope), deny or deny_always (with scope)"
                )))
            }
        };
        Ok((decision, self.anchor))
    }
}

/// `ask(question, {timeoutMs})` options.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AskJs {
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

impl AskJs {
    /// The options, absent, `null` or `undefined` being the defaults.
    pub fn decode(options: Option<JsValue>) -> Result<AskJs, GateError> {
        match options {
            Some(o) if !o.is_null() && !o.is_undefined() => {
                from_js::<AskJs>(o, "ask(question, {timeoutMs})")
            }
            Some(_) | None => Ok(AskJs::default()),
        }
    }
}

/// `new Gate(policy, ...)` options.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GateOptionsJs {
    pub session_id: String,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub max_timeout_ms: Option<u64>,
    #[serde(default)]
    pub owner: Option<String>,
    #[serde(default)]
    pub locks: Option<bool>,
}

impl GateOptionsJs {
    pub fn into_options(self) -> GateOptions {
        let mut opts = GateOptions::new(self.session_id);
        if let Some(t) = self.timeout_ms {
            opts.timeout_ms = t;
        }
        if let Some(m) = self.max_timeout_ms {
            opts.registry.max_timeout_ms = m;
        }
        opts.owner = self.owner;
        opts.locks = self.locks.unwrap_or(true);
        opts
    }
}

/// What a host with a file system found (`FsFacts` in TypeScript): symbolic links, as
/// `{link: target}`, and walked trees with every file the program would open.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct FactsJs {
    #[serde(default)]
    pub links: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub trees: Vec<TreeFactsJs>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TreeFactsJs {
    pub root: String,
    pub hidden: bool,
    pub ignore: bool,
    pub files: Vec<String>,
}

impl FactsJs {
    pub(crate) fn into_core(self) -> toolgate_core::facts::FsFacts {
        let mut f = toolgate_core::facts::FsFacts::new();
        for (link, target) in &self.links {
            f.add_link(link, target);
        }
        for t in self.trees {
            let tree = toolgate_core::facts::Tree {
                root: t.root,
                hidden: t.hidden,
                ignore: t.ignore,
            };
            f.add_tree(tree, t.files);
        }
        f
    }
}

/// `Policy.defaults(...)` options.
#[derive(serde::Deserialize)]
pub(crate) struct DefaultsJs {
    pub workspace: String,
    pub home: String,
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** `auto` runs, `ask` needs a human, `deny` is refused. */
export type Tier = "auto" | "ask" | "deny";

/** A tool call as the agent proposes it. */
export interface ToolCall {
  tool: string;
  args?: unknown;
  /** The host's id of this call (enables `afterToolCall`). */
  toolCallId?: string;
}

/** A call for `Gate.check`: with `facts`, it is classified as `Policy.classifyWithFacts` does. */
export interface CheckCall extends ToolCall {
  facts?: FsFacts;
}

export interface VerdictPart {
  tier: Tier;
  text: string;
  rule: string;
  reason: string;
  span?: [number, number];
}

/**
 * What a verdict depends on in the file system (`Policy.fsNeeds`): the absolute paths
 * it reads or writes (with `..` kept: the kernel takes it after a link), and the
 * trees its recursive reads walk.
 */
export interface FsNeeds {
  paths: string[];
  trees: FsTree[];
}

/** A tree a recursive read walks: `hidden` files are read; `ignore` files honoured. */
export interface FsTree {
  root: string;
  hidden: boolean;
  ignore: boolean;
}

/**
 * What a host with a file system found for an `FsNeeds`: every symbolic link along
 * each path and under each walked tree (`{"/w/out.txt": "/home/u/.bashrc"}`, the target
 * as `readlink` prints it), and for each walked tree every file the program would
 * open (listing more is safe, fewer is not). Without facts, paths are judged as
 * written and recursive reads ask.
 */
export interface FsFacts {
  links?: Record<string, string>;
  trees?: (FsTree & { files: string[] })[];
}

/** The classifier's answer. */
export interface Verdict {
  tier: Tier;
  /** Stable id of the deciding rule, e.g. `builtin.shell.priv-esc`. */
  rule: string;
  /** One human sentence. */
  reason: string;
  /** Byte range in the shell command that decided it. */
  span?: [number, number];
  parts?: VerdictPart[];
}

/** How a check ended. Only `approved` lets the tool run. */
export type CheckOutcome =
  | { outcome: "approved"; verdict: Verdict; id?: string; toolCallId?: string }
  | { outcome: "denied"; verdict: Verdict; message?: string; id?: string; toolCallId?: string }
  | { outcome: "expired"; verdict: Verdict; id: string; toolCallId?: string }
  | { outcome: "cancelled"; verdict: Verdict; id: string; toolCallId?: string };

/** How a question ended: an answer, or nothing. */
export type QuestionOutcome =
  | { outcome: "answered"; answer: string }
  | { outcome: "expired" }
  | { outcome: "cancelled" };

/** A decision on a pending request; `anchor` must be the request's. */
export type PendingResponse =
  | { decision: "allow_once"; anchor: string }
  | { decision: "allow_always"; anchor: string; scope: string }
  | { decision: "deny"; anchor: string; message?: string }
  | { decision: "deny_always"; anchor: string; scope: string; message?: string };

export interface PendingRequest {
  id: string;
  toolCallId?: string;
  tool: string;
  args: unknown;
  verdict: Verdict;
  anchor: string;
  /** The always-allow / always-deny scopes to offer, narrowest first, as rule strings. */
  scopes: string[];
  createdMs: number;
  deadlineMs: number;
}

export interface PendingQuestion {
  id: string;
  question: string;
  createdMs: number;
  deadlineMs: number;
}

export interface CleanupCounts {
  approvals: number;
  questions: number;
  slots: number;
}

export interface GateOptions {
  sessionId: string;
  /** Default timeout of a check, ms (default 120000). */
  timeoutMs?: number;
  /** Longer timeouts are clamped to this, ms (default 1800000). */
  maxTimeoutMs?: number;
  /** Whose parked runs this gate sees and resumes (default: `sessionId`). A run of
   * another owner is "not found". */
  owner?: string;
  /** Resume under a Web Lock (`navigator.locks`) where present (default true). The
   * revision compare-and-swap guards every resume either way. */
  locks?: boolean;
}

export interface PolicyDefaults {
  workspace: string;
  home: string;
}

export interface AskOptions {
  timeoutMs?: number;
}

/** A JS `Error` thrown (or rejected) by toolgate, with a stable `code`:
 * `unknown_id`, `already_resolved`, `anchor_mismatch`, `hard_deny`, `scope_not_offered`,
 * `wrong_kind`, `bad_rule`, `policy`, `id_source`, `bad_input`, `disposed`, `no_crypto`,
 * `internal_error` (a panic in the module: from then on every call fails so);
 * for parked runs: `already_resumed`, `expired`, `not_found`, `run_id_taken`,
 * `marker_corrupt`, `not_awaiting_permission`, `illegal_transition`, `bad_park`,
 * `history_too_large`, `marker_too_large`, `history_rejected`, `unknown_tool_call`,
 * `duplicate_decision`, `missing_decision`, `quota_exceeded`, `store_unavailable`,
 * `store_conflict`. */
export interface ToolgateError extends Error {
  code: string;
}
"#;
