//! The handlers of `/v1/runs…`: thin glue from HTTP to core `Runs` over the SQL store.
//! Store calls are blocking (one SQL statement or a few) and run on tokio's blocking
//! pool; time is read here and passed to core.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::header::{CACHE_CONTROL, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toolgate_core::wire::{
    DecisionRequest, ParkRequest, ParkedView, ResumeRequest, ResumedView, RunView,
};
use toolgate_core::{Park, Run, RunStatus, Runs};

use crate::auth::Caller;
use crate::body::JsonBody;
use crate::config::{hex, Role};
use crate::error::ApiError;
use crate::AppState;

/// Milliseconds since the epoch: the time every host gives core (one clock for all).
pub use toolgate_store::now_ms;

/// Runs `f` on the blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("the store task failed: {e}")))?
}

/// Run ids: 1 to 128 of `A-Z a-z 0-9 _ . : -`.
fn check_id(id: &str) -> Result<(), ApiError> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_input(
            "a run id is 1 to 128 characters of A-Z a-z 0-9 _ . : -",
        ))
    }
}

/// A JSON response with a strong `ETag` (a digest of the body); `If-None-Match` with it
/// → 304 and no body.
fn cached(headers: &HeaderMap, value: &impl Serialize) -> Result<Response, ApiError> {
    let body =
        serde_json::to_vec(value).map_err(|e| ApiError::internal(format!("encoding: {e}")))?;
    let digest = Sha256::digest(&body);
    let etag = format!("\"{}\"", hex(digest.get(..16).unwrap_or_default()));
    if if_none_match(headers, &etag) {
        return not_modified(&etag);
    }
    let etag_value =
        HeaderValue::from_str(&etag).map_err(|e| ApiError::internal(format!("etag: {e}")))?;
    let no_cache = HeaderValue::from_static("no-cache");
    Ok((
        StatusCode::OK,
        [
            (ETAG, etag_value),
            (CACHE_CONTROL, no_cache),
            (
                axum::http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
        ],
        body,
    )
        .into_response())
}

pub(crate) fn json(status: StatusCode, value: &impl Serialize) -> Result<Response, ApiError> {
    let body =
        serde_json::to_vec(value).map_err(|e| ApiError::internal(format!("encoding: {e}")))?;
    Ok((
        status,
        [(
            axum::http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}

/// `POST /v1/runs/{id}/park` (role agent): the calls are classified with the server's
/// policy and parked in one marker; 201 `{run, stopReason: "paused"}`.
pub async fn park(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<ParkRequest>,
) -> Result<Response, ApiError> {
    caller.require(Role::Agent)?;
    check_id(&id)?;
    if req.run_id.as_ref().is_some_and(|r| *r != id) {
        return Err(ApiError::bad_input(
            "runId in the body is not the run id of the URL",
        ));
    }
    if req.owner.as_ref().is_some_and(|o| *o != caller.owner) {
        return Err(ApiError::bad_input(format!(
            "owner: the token's owner is `{}`",
            caller.owner
        )));
    }
    let owned = state.store.clone();
    let owner = caller.owner.clone();
    let cap = state.guard.limits.max_waiting_runs_per_owner;
    let waiting = blocking(move || Ok(owned.owner(&owner).waiting()?)).await?;
    if waiting >= cap {
        return Err(ApiError::too_many(
            "too_many_waiting",
            format!("{waiting} runs of this owner already wait for a person (the limit is {cap}); decide or cancel some first"),
            std::time::Duration::from_secs(60),
        ));
    }
    let calls = req.park_calls(|call| state.policy.classify(call));
    let park = Park {
        session_id: req.session_id.clone().unwrap_or_else(|| id.clone()),
        run_id: id,
        owner: caller.owner.clone(),
        calls,
        history: req.history,
        ttl_ms: req.ttl_ms,
        parked_by: Some(caller.name.clone()),
    };
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let policy = state.policy.clone();
    let parked =
        blocking(move || crate::grants::park(&store, &policy, &owner, park, now_ms())).await?;
    if let Some(hook) = state
        .webhook
        .as_ref()
        .filter(|_| parked.run.status == RunStatus::AwaitingPermission)
    {
        hook.notify(&parked.run);
    }
    let mut view = to_value(&ParkedView::from(&parked))?;
    if let Some(run) = view.get_mut("run") {
        *run = shown(&state.policy, &caller, &parked.run)?;
    }
    json(StatusCode::CREATED, &view)
}

/// `GET /v1/runs`'s query: `status`, `limit` (1–500), `cursor`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    status: Option<String>,
    limit: Option<String>,
    cursor: Option<String>,
}

/// Runs per page: the default and the most.
pub const PAGE: usize = 100;
/// The most runs a page holds (`limit`).
pub const MAX_PAGE: usize = 500;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunList {
    runs: Vec<serde_json::Value>,
    /// Where the next page starts (`?cursor=`), when there may be one.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// Whether `caller` may see `run`: an approver sees every run of its owner; an agent
/// (a token without the approver role) the runs it parked, and runs no agent is named
/// on (parked before agents were recorded).
pub fn sees(caller: &Caller, run: &Run) -> bool {
    caller.roles.contains(&Role::Approver)
        || run.parked_by.as_deref().is_none_or(|by| by == caller.name)
}

/// A run as `caller` sees it: [`RunView`] with `parkedBy`, and the marker's history
/// only for the agent that parked it and the owner's approvers (another agent must not
/// read it, nor choose it: see [`sees`]). For an approver each asked call carries the
/// "always allow" scopes `policy` offers for it (`scopes`, narrowest first) and what
/// each would match (`scopeMatches`): a grant is shown before it is given.
pub fn shown(
    policy: &toolgate_core::Policy,
    caller: &Caller,
    run: &Run,
) -> Result<serde_json::Value, ApiError> {
    let mut v = to_value(&RunView::from(run))?;
    if caller.roles.contains(&Role::Approver) {
        crate::grants::offer_scopes(policy, run, &mut v);
    }
    if let (Some(by), Some(obj)) = (&run.parked_by, v.as_object_mut()) {
        obj.insert(
            "parkedBy".to_string(),
            serde_json::Value::String(by.clone()),
        );
    }
    let parker = run.parked_by.as_deref() == Some(caller.name.as_str());
    if !parker && !caller.roles.contains(&Role::Approver) {
        if let Some(marker) = v
            .get_mut("marker")
            .and_then(serde_json::Value::as_object_mut)
        {
            marker.remove("history");
        }
    }
    Ok(v)
}

fn to_value(v: &impl Serialize) -> Result<serde_json::Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::internal(format!("encoding: {e}")))
}

/// `?limit=`: 1 to [`MAX_PAGE`], default [`PAGE`].
fn page_size(limit: Option<&str>) -> Result<usize, ApiError> {
    match limit {
        None => Ok(PAGE),
        Some(l) => l
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_PAGE).contains(n))
            .ok_or_else(|| ApiError::bad_input(format!("limit `{}`: 1 to {MAX_PAGE}", clip(l)))),
    }
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// `GET /v1/runs[?status=…&limit=N&cursor=ID]`: a page of the runs the caller sees, by
/// run id; `nextCursor` starts the next.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_input(e.body_text()))?;
    let status: Option<RunStatus> = match query.status {
        None => None,
        Some(s) => Some(
            serde_json::from_value(serde_json::Value::String(s.clone())).map_err(|_| {
                ApiError::bad_input(format!(
                    "status `{s}`: one of running, awaiting_permission, completed, failed, cancelled"
                ))
            })?,
        ),
    };
    let limit = page_size(query.limit.as_deref())?;
    if let Some(c) = &query.cursor {
        check_id(c).map_err(|_| {
            ApiError::bad_input("cursor: a run id (the nextCursor of the last page)")
        })?;
    }
    let agent_only = (!caller.roles.contains(&Role::Approver)).then(|| caller.name.clone());
    let key = PollKey {
        owner: caller.owner.clone(),
        status,
        agent: agent_only.clone(),
        limit,
        cursor: query.cursor.clone(),
    };
    let store = state.store.clone();
    let changes = blocking(move || Ok(store.changes()?)).await?;
    // Nothing written since the answer this client holds, and no marker in it has
    // expired since: 304 without listing.
    if let Some(etag) = state.polls.fresh(&key, changes, now_ms()) {
        if if_none_match(&headers, &etag) {
            return not_modified(&etag);
        }
    }
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let cursor = query.cursor.clone();
    let (runs, full) = blocking(move || {
        let owned = store.owner(&owner);
        let filter = toolgate_store::PageFilter {
            status: status.map(RunStatus::as_str),
            parked_by: agent_only.as_deref(),
        };
        let page = owned.page(cursor.as_deref(), limit, filter)?;
        let full = page.len() == limit;
        let runs = Runs::new(owned).runs_from(page, now_ms())?;
        Ok((runs, full))
    })
    .await?;
    let next_cursor = if full {
        runs.last().map(|r| r.run_id.clone())
    } else {
        None
    };
    let shown = runs
        .iter()
        .filter(|r| {
            status.is_none_or(|s| r.status == s) && r.is_owned_by(&caller.owner) && sees(&caller, r)
        })
        .map(|r| shown(&state.policy, &caller, r))
        .collect::<Result<Vec<_>, _>>()?;
    let valid_until = runs
        .iter()
        .filter_map(|r| r.marker.as_ref().map(|m| m.expires_at))
        .min()
        .unwrap_or(u64::MAX);
    let response = cached(
        &headers,
        &RunList {
            runs: shown,
            next_cursor,
        },
    )?;
    if let Some(etag) = response.headers().get(ETAG).and_then(|v| v.to_str().ok()) {
        // `changes` was read before listing: a write during it makes the next poll
        // list again rather than trust a stale answer.
        state
            .polls
            .remember(key, changes, valid_until, etag.to_string());
    }
    Ok(response)
}

/// What a list answer depends on: the owner, the filters, the page.
#[derive(Clone, PartialEq, Eq, Hash)]
struct PollKey {
    owner: String,
    status: Option<RunStatus>,
    agent: Option<String>,
    limit: usize,
    cursor: Option<String>,
}

/// The last list answers, per (owner, status filter): the change counter they were
/// computed at, until when they hold (the earliest marker expiry in them), their ETag.
#[derive(Default)]
pub struct PollCache {
    entries: std::sync::Mutex<std::collections::HashMap<PollKey, (u64, u64, String)>>,
}

/// At most this many (owner, filter) answers are kept; past it the cache starts over.
const POLL_CACHE_ENTRIES: usize = 10_000;

impl PollCache {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<PollKey, (u64, u64, String)>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The ETag of the answer for `key` if it is still what listing would give.
    fn fresh(&self, key: &PollKey, changes: u64, now: u64) -> Option<String> {
        self.lock()
            .get(key)
            .filter(|(at, until, _)| *at == changes && now < *until)
            .map(|(_, _, etag)| etag.clone())
    }

    fn remember(&self, key: PollKey, changes: u64, until: u64, etag: String) {
        let mut map = self.lock();
        if map.len() >= POLL_CACHE_ENTRIES && !map.contains_key(&key) {
            map.clear();
        }
        map.insert(key, (changes, until, etag));
    }
}

fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == etag || t == "*" || t.strip_prefix("W/") == Some(etag))
}

fn not_modified(etag: &str) -> Result<Response, ApiError> {
    let etag_value =
        HeaderValue::from_str(etag).map_err(|e| ApiError::internal(format!("etag: {e}")))?;
    Ok((
        StatusCode::NOT_MODIFIED,
        [
            (ETAG, etag_value),
            (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
    )
        .into_response())
}

/// `GET /v1/runs/{id}`: the run as `gate.run(id)` shows it; 404 for another owner's.
pub async fn get_run(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    check_id(&id)?;
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let run_id = id.clone();
    let run =
        blocking(move || Ok(Runs::new(store.owner(&owner)).run_of(&run_id, &owner, now_ms())?))
            .await?;
    match run.filter(|r| sees(&caller, r)) {
        Some(run) => cached(&headers, &shown(&state.policy, &caller, &run)?),
        None => Err(ApiError::not_found(&id)),
    }
}

/// `{decisions, revision?}`: core's [`ResumeRequest`] with the run revision the prompt
/// was shown at (`revision` of `GET /v1/runs…`): a decision for a prompt the run has
/// moved on from (re-parked since, even with the same call) is 409 `stale`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecideRequest {
    decisions: Vec<DecisionRequest>,
    #[serde(default)]
    revision: Option<u64>,
}

/// `POST /v1/runs/{id}/decisions` (role approver): one decision per pending call;
/// exactly once: a second decision of the same marker is 409 `already_resumed`.
pub async fn decide(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<DecideRequest>,
) -> Result<Response, ApiError> {
    caller.require(Role::Approver)?;
    check_id(&id)?;
    let seen = req.revision;
    let asked: Vec<_> = req
        .decisions
        .iter()
        .map(DecisionRequest::grant_request)
        .collect();
    let mut decisions = ResumeRequest {
        decisions: req.decisions,
    }
    .into_decisions()
    .map_err(ApiError::bad_input)?;
    if decisions.is_empty() {
        return Err(ApiError::bad_input("decisions: at least one is required"));
    }
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let run_id = id.clone();
    let by = caller.name.clone();
    let policy = state.policy.clone();
    let grant_policy = state.policy.clone();
    let resumed = blocking(move || {
        // The agent takes the outcome later (`POST …/resume`): keep its history. A
        // person's edit of a call is classified again by the server's policy.
        let edits: toolgate_core::EditCheck =
            std::rc::Rc::new(move |call: &toolgate_core::ToolCall| policy.classify(call));
        let runs = Runs::new(store.owner(&owner))
            .keeping_history()
            .with_edit_check(Some(edits));
        // An "always allow" scope becomes a grant: checked before anything is decided,
        // stored once the decision stands.
        let now = now_ms();
        let mut give = Vec::new();
        if asked.iter().any(Option::is_some) {
            if let Some(run) = runs.run_of(&run_id, &owner, now)? {
                give =
                    crate::grants::to_give(&grant_policy, &run, &mut decisions, &asked, &by, now)?;
                crate::grants::check_room(&store, &run, give.len(), now)?;
            }
        }
        let err = match runs.resume_seen(&run_id, &owner, &decisions, now, Some(&by), seen) {
            Ok(resumed) => {
                // The decision stands: a grant that cannot be kept now (the session filled
                // up meanwhile, the store failed) is only not kept: later calls ask.
                for g in &give {
                    if let Err(e) = store.add_grant(g, now) {
                        eprintln!(
                            "toolgate-server: grant {} of run {run_id} not kept: {e}",
                            g.id
                        );
                    }
                }
                return Ok(resumed);
            }
            Err(e) => e,
        };
        // A decision for a call someone already decided (the run may have moved on to
        // a new marker, or finished): 409 already_resumed naming who, so the other
        // device shows "already decided by …". The audit trail knows, for the exact
        // call and arguments; anything else keeps its own error.
        let moved_on = matches!(
            err.code(),
            "already_resumed"
                | "unknown_tool_call"
                | "not_awaiting_permission"
                | "anchor_mismatch"
                // The prompt's revision is behind: decided by someone else meanwhile?
                | "store_conflict"
        );
        let first = decisions.first().filter(|_| moved_on).and_then(|d| {
            store
                .decided_by(&owner, &run_id, &d.tool_call_id, &d.anchor)
                .ok()
                .flatten()
        });
        match first {
            Some(first) => Err(ApiError {
                status: StatusCode::CONFLICT,
                code: "already_resumed",
                message: format!("already decided by `{first}`"),
                decided_by: Some(first),
                retry_after: None,
            }),
            None => Err(err.into()),
        }
    })
    .await?;
    eprintln!(
        "toolgate-server: run {id} resumed by `{}` (revision {})",
        caller.name, resumed.revision
    );
    if state.demo_agent {
        // The reference agent goes on in the background; the decision is answered now.
        let (store, policy, owner, resumed) = (
            state.store.clone(),
            state.agent_policy(),
            caller.owner.clone(),
            resumed.clone(),
        );
        tokio::task::spawn_blocking(move || {
            if let Some(Err(e)) = crate::agent::resume(&store, &policy, &owner, &resumed, &now_ms) {
                eprintln!(
                    "toolgate-server: the reference agent could not go on with run {}: {e}",
                    resumed.run_id
                );
            }
        });
    }
    json(StatusCode::OK, &ResumedView::from(&resumed))
}

/// `POST /v1/runs/{id}/resume` (role agent): what a person decided for the run's last
/// marker (each call's outcome, the decided arguments, the history the agent parked),
/// or, for a run whose marker expired, each call `expired` with the history: taken once
/// (a second take is 409 `already_resumed`). The agent goes on from `history`.
pub async fn take(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require(Role::Agent)?;
    check_id(&id)?;
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let run_id = id.clone();
    let who = caller.clone();
    let taken = blocking(move || {
        let runs = Runs::new(store.owner(&owner));
        // Only the agent that parked the run takes its outcome (and its history).
        match runs.run_of(&run_id, &owner, now_ms())? {
            Some(run) if sees(&who, &run) => {}
            _ => return Err(ApiError::not_found(&run_id)),
        }
        match runs.resume(&run_id, &owner, &[], now_ms()) {
            Ok(taken) => Ok(taken),
            // The marker still waits for a person: nothing to take yet.
            Err(toolgate_core::Error::MissingDecision { .. }) => Err(ApiError::new(
                StatusCode::CONFLICT,
                "awaiting_permission",
                "nobody has decided yet: poll GET /v1/runs/{id} until the run stops awaiting permission",
            )),
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    eprintln!(
        "toolgate-server: run {id} taken by `{}` (revision {})",
        caller.name, taken.revision
    );
    json(StatusCode::OK, &ResumedView::from(&taken))
}

/// `{reason}`: why the agent withdraws the run it parked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelRequest {
    reason: String,
}

/// The longest reason a cancel records.
const CANCEL_REASON_MAX: usize = 500;

/// `POST /v1/runs/{id}/cancel` (role agent; only the agent that parked the run): withdraws
/// a run that still waits for a person, because its host answered the call itself (a
/// person answered in the agent's own terminal) or the session ended. The run is
/// `cancelled` with the reason, its marker cleared, so nobody can decide or take it any
/// more; the audit records it (`cancelled`, the reason). A run that no longer waits
/// (decided, expired, finished) is 409 `not_awaiting_permission`: a decision made stands.
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<CancelRequest>,
) -> Result<Response, ApiError> {
    caller.require(Role::Agent)?;
    check_id(&id)?;
    let reason = req.reason.trim().to_string();
    if reason.is_empty() || reason.chars().count() > CANCEL_REASON_MAX {
        return Err(ApiError::bad_input(format!(
            "reason: 1 to {CANCEL_REASON_MAX} characters"
        )));
    }
    let cancelled = settle_own(
        &state,
        &caller,
        &id,
        (
            RunStatus::AwaitingPermission,
            "not_awaiting_permission",
            "a decision made stands",
        ),
        move |runs, run_id, owner| runs.cancel(run_id, owner, &reason, now_ms()),
    )
    .await?;
    eprintln!(
        "toolgate-server: run {id} cancelled by `{}` (revision {})",
        caller.name, cancelled.revision
    );
    json(StatusCode::OK, &shown(&state.policy, &caller, &cancelled)?)
}

/// `POST /v1/runs/{id}/complete` (role agent; only the agent that parked the run): the
/// agent ran what a person approved (taken with `resume`) and its turn ended, so the
/// `running` run is `completed`: an approval taken once is then spent for good. Any
/// other state is 409 `not_running`.
pub async fn complete(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require(Role::Agent)?;
    check_id(&id)?;
    let completed = settle_own(
        &state,
        &caller,
        &id,
        (
            RunStatus::Running,
            "not_running",
            "only a run whose decision was taken completes",
        ),
        |runs, run_id, owner| runs.complete(run_id, owner, now_ms()),
    )
    .await?;
    eprintln!(
        "toolgate-server: run {id} completed by `{}` (revision {})",
        caller.name, completed.revision
    );
    json(StatusCode::OK, &shown(&state.policy, &caller, &completed)?)
}

/// The agent that parked run `id` moves it on (`cancel`, `complete`) with `act`, only
/// from the status `from` (else 409 with `code` and `why`); another agent's run, or
/// one it does not see, is 404.
async fn settle_own(
    state: &AppState,
    caller: &Caller,
    id: &str,
    (from, code, why): (RunStatus, &'static str, &'static str),
    act: impl FnOnce(&Runs<toolgate_store::Owned<'_>>, &str, &str) -> Result<Run, toolgate_core::Error>
        + Send
        + 'static,
) -> Result<Run, ApiError> {
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let run_id = id.to_string();
    let who = caller.clone();
    blocking(move || {
        let runs = Runs::new(store.owner(&owner));
        match runs.run_of(&run_id, &owner, now_ms())? {
            Some(run)
                if sees(&who, &run) && run.parked_by.as_deref() == Some(who.name.as_str()) =>
            {
                if run.status != from {
                    return Err(ApiError::new(
                        StatusCode::CONFLICT,
                        code,
                        format!("the run is {}: {why}", run.status.as_str()),
                    ));
                }
            }
            _ => return Err(ApiError::not_found(&run_id)),
        }
        Ok(act(&runs, &run_id, &owner)?)
    })
    .await
}

/// `GET /v1/audit`'s query: `since` (ms), `limit`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    since: Option<u64>,
    limit: Option<usize>,
}

#[derive(Serialize)]
struct AuditList {
    records: Vec<toolgate_store::AuditRecord>,
}

/// The most records one audit request returns.
pub const AUDIT_PAGE: usize = 1000;

/// `GET /v1/audit?since=MS&limit=N` (role approver): the owner's audit records at or
/// after `since` (default 0), oldest first, at most `limit` (default and cap 1000);
/// page on with `since` = the last record's `at`.
pub async fn audit(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    query: Result<Query<AuditQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    caller.require(Role::Approver)?;
    let Query(query) = query.map_err(|e| ApiError::bad_input(e.body_text()))?;
    let since = query.since.unwrap_or(0);
    let limit = query.limit.unwrap_or(AUDIT_PAGE).clamp(1, AUDIT_PAGE);
    let store = state.store.clone();
    let owner = caller.owner;
    let records = blocking(move || Ok(store.audit(Some(&owner), since, limit)?)).await?;
    cached(&headers, &AuditList { records })
}

/// The most calls one `POST /v1/classify` request may hold.
pub const MAX_CLASSIFY_CALLS: usize = 64;

/// `POST /v1/classify`'s body: `{calls: [{toolCallId?, tool, args}]}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClassifyRequest {
    calls: Vec<ClassifyCall>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ClassifyCall {
    #[serde(default)]
    tool_call_id: Option<String>,
    tool: String,
    #[serde(default)]
    args: serde_json::Value,
}

/// One call's answer: the verdict, and for a `sandbox` verdict what runs it contained.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Classified {
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
    #[serde(flatten)]
    verdict: toolgate_core::Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    sandboxed: Option<toolgate_core::contained::Sandboxed>,
}

/// `POST /v1/classify` (role agent): each call's verdict under the server's policy,
/// nothing stored; 200 `{verdicts: [{toolCallId?, tier, rule, reason, span?, parts?,
/// sandboxed?}]}` in the calls' order. With `[sandbox] agents = true` a call that asks
/// only because it runs code is `sandbox`, with `sandboxed: {argv, command}`: what
/// the agent runs instead of the call's command (`toolgate sandbox … -- /bin/bash -c
/// -- COMMAND`); a `sandbox` verdict whose command cannot be rewritten is `ask`.
pub async fn classify(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(req): JsonBody<ClassifyRequest>,
) -> Result<Response, ApiError> {
    caller.require(Role::Agent)?;
    if req.calls.is_empty() || req.calls.len() > MAX_CLASSIFY_CALLS {
        return Err(ApiError::bad_input(format!(
            "calls: 1 to {MAX_CLASSIFY_CALLS} calls, {} given",
            req.calls.len()
        )));
    }
    let policy = state.agent_policy();
    let sandbox = state.sandbox.clone();
    let verdicts = blocking(move || {
        Ok(req
            .calls
            .into_iter()
            .map(|c| classified(&policy, sandbox.as_ref(), c))
            .collect::<Vec<_>>())
    })
    .await?;
    json(StatusCode::OK, &serde_json::json!({ "verdicts": verdicts }))
}

fn classified(
    policy: &toolgate_core::Policy,
    sandbox: Option<&crate::config::Sandbox>,
    c: ClassifyCall,
) -> Classified {
    let call = toolgate_core::ToolCall::new(c.tool, c.args);
    let mut verdict = policy.classify(&call);
    let sandboxed = sandbox
        .and_then(|s| toolgate_core::contained::sandboxed(&verdict, &call, policy, &s.toolgate));
    if verdict.tier == toolgate_core::Tier::Sandbox && sandboxed.is_none() {
        verdict.tier = toolgate_core::Tier::Ask;
        verdict.reason = format!(
            "{} (asked: its command cannot be rewritten to run in the sandbox)",
            verdict.reason
        )
        .into();
    }
    Classified {
        tool_call_id: c.tool_call_id,
        verdict,
        sandboxed,
    }
}

/// `GET /v1/me`: who the token is (`{name, owner, roles}`): the panel says who signed in.
pub async fn me(caller: Caller) -> Result<Response, ApiError> {
    json(
        StatusCode::OK,
        &serde_json::json!({ "name": caller.name, "owner": caller.owner, "roles": caller.roles }),
    )
}

/// `POST /v1/agent/runs` (either role; `--demo-agent` only): starts a run of the
/// reference agent for the token's owner; 201 `{runId, turn: "parked" | "completed"}`.
pub async fn start_agent(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Response, ApiError> {
    if !state.demo_agent {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "the reference agent is off (start the server with --demo-agent)",
        ));
    }
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let run_id = format!(
        "demo-{}-{}",
        now_ms(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let (store, policy, owner, id) = (
        state.store.clone(),
        state.agent_policy(),
        caller.owner,
        run_id.clone(),
    );
    let turn =
        blocking(move || Ok(crate::agent::start(&store, &policy, &id, &owner, &now_ms)?)).await?;
    let turn = match turn {
        crate::agent::Turn::Parked => "parked",
        crate::agent::Turn::Completed => "completed",
    };
    json(
        StatusCode::CREATED,
        &serde_json::json!({ "runId": run_id, "turn": turn }),
    )
}

/// Deletes the finished runs (completed, failed, cancelled) that ended `ttl_ms` or more
/// before `now`, for every owner that has some (reading heals expired markers and
/// unreadable rows on the way, so they go on a later pass); the audit trail keeps their
/// records; grants that ended as long ago go too. How many runs were deleted.
pub fn prune(store: &toolgate_store::SqlStore, ttl_ms: u64, now: u64) -> Result<usize, ApiError> {
    store.prune_ended_grants(now.saturating_sub(ttl_ms))?;
    let mut pruned = 0;
    for owner in store.owners_to_prune(now.saturating_sub(ttl_ms))? {
        pruned += Runs::new(store.owner(&owner))
            .prune(&owner, ttl_ms, now)?
            .len();
    }
    Ok(pruned)
}
