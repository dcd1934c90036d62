//! The commands windows call (`invoke("plugin:toolgate|NAME", args)`): argument
//! decoding (a malformed argument is `bad_input` naming it) and the JSON shapes the
//! browser's `Gate` and the toolgate server answer with. Database work runs on the
//! blocking pool; a write emits `toolgate://changed`.

use serde::Serialize;
use serde_json::Value;
use tauri::{AppHandle, Runtime, Webview};
use toolgate_core::wire::{ParkRequest, ParkedView, ResumeRequest, ResumedView, RunView};
use toolgate_core::{Run, ToolCall};

use crate::error::{Error, Result};
use crate::gate::{now_ms, CheckOptions, Checked, PendingRequest, Response};
use crate::{blocking, ToolgateExt};

/// Decodes argument `what` of command `cmd`.
fn arg<T: serde::de::DeserializeOwned>(cmd: &str, what: &str, value: Value) -> Result<T> {
    serde_json::from_value(value).map_err(|e| Error::bad_input(&format!("{cmd}: {what}"), e))
}

/// `{tool, args}`: a call must name its tool.
fn call_arg(cmd: &str, value: Value) -> Result<ToolCall> {
    ToolCall::from_value(&value).map_err(|e| Error::bad_input(&format!("{cmd}: call"), e))
}

/// The session a window's request names: its label's, or `LABEL:NAME` for a name it
/// gives (a name already of that form stays as it is). Only the app's Rust side names
/// any session.
pub(crate) fn window_session(label: &str, given: Option<String>) -> String {
    match given {
        None => label.to_string(),
        Some(g) if g == label || g.strip_prefix(label).is_some_and(|r| r.starts_with(':')) => g,
        Some(g) => format!("{label}:{g}"),
    }
}

fn to_json(value: &impl Serialize) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::Internal(format!("encoding: {e}")))
}

/// A run as `gate.run(id)` shows it, without the agent's history (a prompt needs none;
/// the agent takes it with `take`); a check's pending calls carry the `scopes` its
/// "always" answers may add.
fn run_json<R: Runtime>(app: &AppHandle<R>, run: &Run) -> Result<Value> {
    let mut value = to_json(&RunView::from(run))?;
    if let Some(marker) = value.get_mut("marker").and_then(Value::as_object_mut) {
        marker.remove("history");
    }
    let gate = app.toolgate();
    if let Some(calls) = value
        .get_mut("marker")
        .and_then(|m| m.get_mut("calls"))
        .and_then(Value::as_array_mut)
    {
        for call in calls {
            let tool = call.get("tool").and_then(Value::as_str).unwrap_or_default();
            let args = call.get("args").cloned().unwrap_or(Value::Null);
            let scopes = gate.inner().scopes_of(run, tool, &args);
            if !scopes.is_empty() {
                if let Some(obj) = call.as_object_mut() {
                    obj.insert("scopes".into(), to_json(&scopes)?);
                }
            }
        }
    }
    Ok(value)
}

/// `classify({call: {tool, args}})` → the verdict (with file-system facts).
#[tauri::command]
pub(crate) async fn classify<R: Runtime>(app: AppHandle<R>, call: Value) -> Result<Value> {
    let call = call_arg("classify", call)?;
    let gate = app.toolgate().clone();
    let verdict = blocking(move || Ok(gate.classify(&call))).await?;
    to_json(&verdict)
}

/// `check({call, sessionId?, timeoutMs?, toolCallId?})` → `{outcome, verdict, id?,
/// toolCallId?}` once decided; a window's checks belong to its label's session, or to
/// `LABEL:NAME` when it names `NAME` ([`window_session`]): a window never reaches
/// another window's "always" rules.
#[tauri::command]
pub(crate) async fn check<R: Runtime>(
    app: AppHandle<R>,
    webview: Webview<R>,
    call: Value,
    session_id: Option<Value>,
    timeout_ms: Option<Value>,
    tool_call_id: Option<Value>,
) -> Result<Checked> {
    let call = call_arg("check", call)?;
    let options = CheckOptions {
        session_id: Some(window_session(
            webview.label(),
            session_id
                .map(|v| arg::<String>("check", "sessionId", v))
                .transpose()?,
        )),
        timeout_ms: timeout_ms
            .map(|v| arg("check", "timeoutMs", v))
            .transpose()?,
        tool_call_id: tool_call_id
            .map(|v| arg("check", "toolCallId", v))
            .transpose()?,
    };
    app.toolgate().clone().check_with(call, options).await
}

/// `pending({sessionId?})` → the pending checks, oldest first.
#[tauri::command]
pub(crate) async fn pending<R: Runtime>(
    app: AppHandle<R>,
    session_id: Option<String>,
) -> Result<Vec<PendingRequest>> {
    let gate = app.toolgate().clone();
    blocking(move || gate.pending(session_id.as_deref())).await
}

/// `respond({id, response: {decision, anchor, scope?, message?}})` → how many checks
/// it settled.
#[tauri::command]
pub(crate) async fn respond<R: Runtime>(
    app: AppHandle<R>,
    id: String,
    response: Value,
) -> Result<u32> {
    let response: Response = arg("respond", "response", response)?;
    let gate = app.toolgate().clone();
    blocking(move || gate.respond(&id, response)).await?;
    Ok(1)
}

/// `park({request: {runId, calls, history, sessionId?, ttlMs?}})` → `{run, stopReason}`.
#[tauri::command]
pub(crate) async fn park<R: Runtime>(app: AppHandle<R>, request: Value) -> Result<Value> {
    let req: ParkRequest = arg("park", "request", request)?;
    let run_id = req
        .run_id
        .clone()
        .ok_or_else(|| Error::BadInput("park: request.runId is required".into()))?;
    let gate = app.toolgate().clone();
    if req.owner.as_ref().is_some_and(|o| o != gate.owner()) {
        return Err(Error::BadInput(format!(
            "park: owner: the app's runs belong to `{}`",
            gate.owner()
        )));
    }
    let parked = blocking(move || {
        let parked = gate.inner().park(
            run_id.clone(),
            req.session_id,
            req.calls,
            req.history,
            req.ttl_ms,
            now_ms(),
        );
        gate.changed(&run_id);
        parked
    })
    .await?;
    to_json(&ParkedView::from(&parked))
}

/// `runs()` → `{runs: [run, …]}` as the toolgate server's `GET /v1/runs` answers.
#[tauri::command]
pub(crate) async fn runs<R: Runtime>(app: AppHandle<R>) -> Result<Value> {
    let gate = app.toolgate().clone();
    let runs = blocking(move || gate.runs()).await?;
    let runs = runs
        .iter()
        .map(|r| run_json(&app, r))
        .collect::<Result<Vec<_>>>()?;
    Ok(serde_json::json!({ "runs": runs }))
}

/// `run({runId})` → the run, or `null`.
#[tauri::command]
pub(crate) async fn run<R: Runtime>(app: AppHandle<R>, run_id: String) -> Result<Value> {
    let gate = app.toolgate().clone();
    let run = blocking(move || gate.run(&run_id)).await?;
    match run {
        Some(run) => run_json(&app, &run),
        None => Ok(Value::Null),
    }
}

/// `resume({runId, request?: {decisions}})` → `{runId, sessionId, results, history,
/// revision}`. No decisions: takes what a person decided, once.
#[tauri::command]
pub(crate) async fn resume<R: Runtime>(
    app: AppHandle<R>,
    run_id: String,
    request: Option<Value>,
) -> Result<Value> {
    let decisions = match request {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => arg::<ResumeRequest>("resume", "request", v)?
            .into_decisions()
            .map_err(|e| Error::bad_input("resume: request", e))?,
    };
    let gate = app.toolgate().clone();
    let resumed = blocking(move || gate.resume(&run_id, &decisions)).await?;
    to_json(&ResumedView::from(&resumed))
}

/// `take({runId})` → what a person decided for the run's last marker (or what expiry
/// left), with the history the agent parked, once (`already_resumed` after);
/// `awaiting_permission` while nobody has decided.
#[tauri::command]
pub(crate) async fn take<R: Runtime>(app: AppHandle<R>, run_id: String) -> Result<Value> {
    let gate = app.toolgate().clone();
    let taken = blocking(move || gate.take(&run_id)).await?;
    to_json(&ResumedView::from(&taken))
}

/// `cleanup({sessionId?})` → `{approvals, questions, slots}`: the window's session's
/// pending checks (every session's with `sessionId: "*"`) end `cancelled`.
#[tauri::command]
pub(crate) async fn cleanup<R: Runtime>(
    app: AppHandle<R>,
    webview: Webview<R>,
    session_id: Option<String>,
) -> Result<Value> {
    let session = match session_id {
        Some(all) if all == "*" => all,
        given => window_session(webview.label(), given),
    };
    let gate = app.toolgate().clone();
    let counts =
        blocking(move || gate.cleanup(Some(session.as_str()).filter(|s| *s != "*"))).await?;
    to_json(&counts)
}
