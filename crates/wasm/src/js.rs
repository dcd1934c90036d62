//! Encoding and decoding of JS values, the JS-facing shapes, and their TypeScript
//! declarations.

use crate::error::GateError;
use crate::gate::GateOptions;
use toolgate_core::json_text::{Obj, WriteJson};
use toolgate_core::{Anchor, Decision, PendingQuestion, PendingRef, RequestId, Verdict};
use wasm_bindgen::prelude::*;

/// Rust → JS: JSON text parsed by the engine (`JSON.parse`): plain objects, numbers for
/// integers, an absent field where a value is skipped. The text is written by hand
/// (`WriteJson`, byte for byte what serde_json writes for the same value: the core's
/// and this crate's tests compare them), so no serializer is linked (issue 51).
pub(crate) fn to_js<T: WriteJson + ?Sized>(value: &T) -> Result<JsValue, GateError> {
    parse_json(&value.to_json())
}

/// A verdict to JavaScript: its JSON text (`Verdict::write_json`, one pass, byte for
/// byte serde_json's) parsed by the engine (`classifyWithFacts`; `classify` takes the
/// verdict's fields, read by the package's JavaScript).
pub(crate) fn verdict_to_js(verdict: &toolgate_core::Verdict) -> Result<JsValue, GateError> {
    let mut text = String::with_capacity(256);
    verdict.write_json(&mut text);
    parse_json(&text)
}

fn parse_json(text: &str) -> Result<JsValue, GateError> {
    js_sys::JSON::parse(text).map_err(|_| GateError::BadInput("cannot encode the result".into()))
}

/// JS → Rust: the JSON value of `JSON.stringify`'s text, read by the core's JSON reader
/// (`json_text::parse`: serde_json's values and errors; the one decoder of inputs and
/// records, each type then read from the value by hand, as the core reads its stored
/// records: no serde-derived decoder in this module). `what` names the argument in the
/// error. `undefined` reads as `null`; a value JSON cannot hold (a cycle, a `BigInt`) is
/// bad input, as is a string with a lone surrogate (JSON escapes it; the reader refuses
/// it, as serde_json does).
pub(crate) fn from_js(value: JsValue, what: &str) -> Result<serde_json::Value, GateError> {
    let text = js_sys::JSON::stringify(&value).map_err(|_| {
        GateError::BadInput(format!("{what}: not a JSON value (a cycle or a BigInt)"))
    })?;
    let text = text.as_string().unwrap_or_else(|| "null".to_string());
    toolgate_core::json_text::parse(&text).map_err(|e| {
        // The position is in the text JSON.stringify made, not the caller's.
        GateError::BadInput(format!("{what}: {}", e.message()))
    })
}

/// JS → Rust through [`from_js`]'s JSON value and a reader by hand (`ParkRequest::read`,
/// …); what the reader refuses is bad input naming `what`.
pub(crate) fn read_js<T>(
    value: JsValue,
    what: &str,
    read: impl FnOnce(serde_json::Value) -> Result<T, String>,
) -> Result<T, GateError> {
    read(from_js(value, what)?).map_err(|e| GateError::BadInput(format!("{what}: {e}")))
}

/// A JS object's fields, for the Gate's own option and input objects (read by hand: no
/// serde derive per type). Absent, `null` and `undefined` are the same: not given.
pub(crate) struct Fields<'w> {
    what: &'w str,
    map: toolgate_core::fields::Entries,
}

impl<'w> Fields<'w> {
    /// The object `value` is, or bad input naming `what`.
    pub fn of(value: JsValue, what: &'w str) -> Result<Fields<'w>, GateError> {
        match from_js(value, what)? {
            serde_json::Value::Object(map) => Ok(Fields {
                what,
                map: toolgate_core::fields::Entries::new(map),
            }),
            _ => Err(GateError::BadInput(format!("{what}: expected an object"))),
        }
    }

    fn bad(&self, key: &str, want: &str) -> GateError {
        GateError::BadInput(format!("{}: `{key}` must be {want}", self.what))
    }

    /// The field, taken out (`None` when absent or null).
    pub fn take(&mut self, key: &str) -> Option<serde_json::Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    pub fn string(&mut self, key: &str) -> Result<Option<String>, GateError> {
        match self.take(key) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.bad(key, "a string")),
        }
    }

    pub fn required(&mut self, key: &str) -> Result<String, GateError> {
        self.string(key)?
            .ok_or_else(|| GateError::BadInput(format!("{}: missing field `{key}`", self.what)))
    }

    pub fn u64(&mut self, key: &str) -> Result<Option<u64>, GateError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.bad(key, "a whole number, 0 or more")),
        }
    }

    pub fn bool(&mut self, key: &str) -> Result<Option<bool>, GateError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.bad(key, "true or false")),
        }
    }
}

/// A pending request as JS sees it (the registry's compact record, decoded).
#[derive(serde::Serialize)]
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

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct QuestionJs<'a> {
    id: RequestId,
    question: &'a str,
    created_ms: u64,
    deadline_ms: u64,
}

impl WriteJson for PendingJs<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.field("id", &self.id)
            .opt_str("toolCallId", self.tool_call_id)
            .str("tool", self.tool)
            .field("args", &self.args)
            .field("verdict", &self.verdict)
            .field("anchor", &self.anchor)
            .field("scopes", &self.scopes)
            .u64("createdMs", self.created_ms)
            .u64("deadlineMs", self.deadline_ms)
            .end();
    }
}

impl WriteJson for QuestionJs<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.field("id", &self.id)
            .str("question", self.question)
            .u64("createdMs", self.created_ms)
            .u64("deadlineMs", self.deadline_ms)
            .end();
    }
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
pub(crate) struct CheckJs {
    pub tool: String,
    pub args: serde_json::Value,
    pub tool_call_id: Option<String>,
    /// What the host found on its file system for this call (`Policy.fsNeeds`).
    pub facts: Option<FactsJs>,
}

impl CheckJs {
    pub fn decode(value: JsValue) -> Result<CheckJs, GateError> {
        let mut f = Fields::of(value, "check({tool, args, toolCallId, facts})")?;
        Ok(CheckJs {
            tool: f.required("tool")?,
            args: f.take("args").unwrap_or_default(),
            tool_call_id: f.string("toolCallId")?,
            facts: f.take("facts").map(FactsJs::from_value).transpose()?,
        })
    }
}

/// `gate.respond(id, ...)` input.
pub(crate) struct RespondJs {
    pub decision: String,
    pub anchor: String,
    pub scope: Option<String>,
    pub message: Option<String>,
}

impl RespondJs {
    pub fn decode(value: JsValue) -> Result<RespondJs, GateError> {
        let mut f = Fields::of(value, "respond(id, {decision, anchor})")?;
        Ok(RespondJs {
            decision: f.required("decision")?,
            anchor: f.required("anchor")?,
            scope: f.string("scope")?,
            message: f.string("message")?,
        })
    }

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
#[derive(Default)]
pub(crate) struct AskJs {
    pub timeout_ms: Option<u64>,
}

impl AskJs {
    /// The options, absent, `null` or `undefined` being the defaults.
    pub fn decode(options: Option<JsValue>) -> Result<AskJs, GateError> {
        match options {
            Some(o) if !o.is_null() && !o.is_undefined() => {
                let mut f = Fields::of(o, "ask(question, {timeoutMs})")?;
                Ok(AskJs {
                    timeout_ms: f.u64("timeoutMs")?,
                })
            }
            Some(_) | None => Ok(AskJs::default()),
        }
    }
}

/// `new Gate(policy, ...)` options.
pub(crate) struct GateOptionsJs {
    pub session_id: String,
    pub timeout_ms: Option<u64>,
    pub max_timeout_ms: Option<u64>,
    pub owner: Option<String>,
    pub locks: Option<bool>,
}

impl GateOptionsJs {
    pub fn decode(value: JsValue) -> Result<GateOptionsJs, GateError> {
        let mut f = Fields::of(value, "new Gate(policy, {sessionId, timeoutMs})")?;
        Ok(GateOptionsJs {
            session_id: f.required("sessionId")?,
            timeout_ms: f.u64("timeoutMs")?,
            max_timeout_ms: f.u64("maxTimeoutMs")?,
            owner: f.string("owner")?,
            locks: f.bool("locks")?,
        })
    }

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
/// `{link: target}`, and walked trees with every file the program would open. A field
/// it does not know is an error (a misspelt one must not pass for none).
#[derive(Default)]
pub(crate) struct FactsJs {
    pub links: Vec<(String, String)>,
    pub trees: Vec<TreeFactsJs>,
}

pub(crate) struct TreeFactsJs {
    pub root: String,
    pub hidden: bool,
    pub ignore: bool,
    pub files: Vec<String>,
}

impl FactsJs {
    const WHAT: &'static str = "facts ({links, trees})";

    pub(crate) fn decode(value: JsValue, what: &str) -> Result<FactsJs, GateError> {
        let value = from_js(value, what)?;
        FactsJs::from_value(value)
    }

    pub(crate) fn from_value(value: serde_json::Value) -> Result<FactsJs, GateError> {
        use serde_json::Value;
        let bad = |m: &str| GateError::BadInput(format!("{}: {m}", FactsJs::WHAT));
        let Value::Object(map) = value else {
            return Err(bad("expected an object"));
        };
        let mut map = toolgate_core::fields::Entries::new(map);
        let mut facts = FactsJs::default();
        match map.remove("links") {
            None | Some(Value::Null) => {}
            Some(Value::Object(links)) => {
                for (link, target) in links {
                    let Value::String(target) = target else {
                        return Err(bad("each link's target must be a string"));
                    };
                    facts.links.push((link, target));
                }
            }
            Some(_) => return Err(bad("`links` must be an object of link: target")),
        }
        match map.remove("trees") {
            None | Some(Value::Null) => {}
            Some(Value::Array(trees)) => {
                for tree in trees {
                    let Value::Object(t) = tree else {
                        return Err(bad("each tree must be {root, hidden, ignore, files}"));
                    };
                    let mut t = toolgate_core::fields::Entries::new(t);
                    let mut field = |k: &str| {
                        t.remove(k)
                            .ok_or_else(|| bad(&format!("a tree's `{k}` is missing")))
                    };
                    let (root, hidden, ignore, files) = (
                        field("root")?,
                        field("hidden")?,
                        field("ignore")?,
                        field("files")?,
                    );
                    let (Value::String(root), Value::Bool(hidden), Value::Bool(ignore)) =
                        (root, hidden, ignore)
                    else {
                        return Err(bad("a tree's root is a string, hidden and ignore booleans"));
                    };
                    let Value::Array(files) = files else {
                        return Err(bad("a tree's `files` must be an array of strings"));
                    };
                    let files = files
                        .into_iter()
                        .map(|f| match f {
                            Value::String(f) => Ok(f),
                            _ => Err(bad("a tree's `files` must be an array of strings")),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    if let Some(k) = t.first_key() {
                        return Err(bad(&format!("unknown field `{k}` in a tree")));
                    }
                    facts.trees.push(TreeFactsJs {
                        root,
                        hidden,
                        ignore,
                        files,
                    });
                }
            }
            Some(_) => return Err(bad("`trees` must be an array")),
        }
        if let Some(k) = map.first_key() {
            return Err(bad(&format!("unknown field `{k}`")));
        }
        Ok(facts)
    }

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
pub(crate) struct DefaultsJs {
    pub workspace: String,
    pub home: String,
}

impl DefaultsJs {
    pub fn decode(value: JsValue) -> Result<DefaultsJs, GateError> {
        let mut f = Fields::of(value, "Policy.defaults({workspace, home})")?;
        Ok(DefaultsJs {
            workspace: f.required("workspace")?,
            home: f.required("home")?,
        })
    }
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

/**
 * `Policy.classify` and `classifyMany`, which the package's entries define (web/gate/
 * verdict.js: the call crosses as JSON text, the verdict comes back as fields).
 */
export interface Policy {
  /** Classifies `{tool, args}`; a malformed call is `ask`, never an exception. */
  classify(call: ToolCall): Verdict;
  /**
   * Classifies each call of an array, in order: one crossing into the module for all
   * of them (`classify` pays it per call). A malformed call is `ask`; a value that is
   * not an array throws `bad_input`.
   */
  classifyMany(calls: ToolCall[]): Verdict[];
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod text_tests {
    use super::*;
    use toolgate_core::{Policy, Tier, ToolCall};

    /// The pending requests and questions `gate.pending()` / `gate.questions()` hand
    /// out are the text their derives write, byte for byte.
    #[test]
    fn pending_and_questions_are_written_as_serde_writes_them() {
        let policy = Policy::defaults("/home/dev/app", "/home/dev");
        for (i, (tool, args)) in [
            (
                "bash",
                serde_json::json!({"command": "rm -rf build && echo \"x\"\n\u{1}"}),
            ),
            (
                "Read",
                serde_json::json!({"file_path": "/etc/shadow", "n": [1, -2, 2.5]}),
            ),
            ("WebFetch", serde_json::json!({"url": "http://10.0.0.1/é"})),
        ]
        .into_iter()
        .enumerate()
        {
            let call = ToolCall::new(tool, args.clone());
            let verdict = policy.classify(&call);
            assert_ne!(verdict.tier, Tier::Auto, "{tool}");
            let ids = [Some("call \"1\""), None];
            let pending = PendingJs {
                id: RequestId::from_u128(0xfeed_u128 << i),
                tool_call_id: ids.get(i % 2).copied().flatten(),
                tool,
                args,
                anchor: Anchor::new(tool, &call.args),
                scopes: policy.scopes(&call),
                verdict,
                created_ms: 1,
                deadline_ms: u64::MAX,
            };
            assert_eq!(pending.to_json(), serde_json::to_string(&pending).unwrap());
            let list = vec![pending];
            assert_eq!(list.to_json(), serde_json::to_string(&list).unwrap());
        }
        let question = QuestionJs {
            id: RequestId::from_u128(7),
            question: "Which \"branch\"?\n\u{7f}",
            created_ms: 0,
            deadline_ms: 60_000,
        };
        assert_eq!(
            question.to_json(),
            serde_json::to_string(&question).unwrap()
        );
    }
}
