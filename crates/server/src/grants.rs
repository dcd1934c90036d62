//! Grants on the server: a person's "always allow" kept as a record that only narrows
//! (core's [`Grant`] in the store's `toolgate_grants`).
//!
//! - A decision `{decision: "allow", scope, ttlMs?, singleUse?}` gives a grant: the
//!   scope must be one the parked call offers under the server's policy, checked before
//!   anything is decided (422 `grant_refused`, nothing decided); the grant is stored once
//!   the decision stands, and the audit record of the call names it.
//! - A park whose every call is asked and covered by a live grant of the same owner and
//!   session is decided at once by those grants (each use counted only while the grant
//!   is live; a race lost to a revoke or a single use leaves the run for a person); the
//!   audit names the grant.
//! - `GET /v1/grants[?all=true]` lists the owner's grants (live ones unless `all`), each
//!   with `state`; `DELETE /v1/grants/{id}` revokes one.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toolgate_core::grant::{give_for_decisions, granted_decision, plan_park};
use toolgate_core::{
    Grant, GrantRequest, GrantState, Park, Parked, PendingCall, Policy, ResumeDecision, Run, Runs,
    Tier, ToolCall,
};
use toolgate_store::{GrantFilter, SqlStore};

use crate::api::{blocking, json, now_ms};
use crate::auth::Caller;
use crate::config::{hex, Role};
use crate::error::ApiError;
use crate::AppState;

/// A new grant id: `g-` and 24 hex digits of a digest of where it comes from, the time
/// and a counter (unique per server process and owner; not a secret).
fn new_id(owner: &str, run_id: &str, tool_call_id: &str, now: u64) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = Sha256::digest(format!(
        "{owner}\n{run_id}\n{tool_call_id}\n{now}\n{n}\n{}",
        std::process::id()
    ));
    format!("g-{}", hex(d.get(..12).unwrap_or_default()))
}

/// The grants a decision's scoped approvals ask for (core's [`give_for_decisions`] with
/// this server's ids); nothing stored yet.
pub(crate) fn to_give(
    policy: &Policy,
    run: &Run,
    decisions: &mut [ResumeDecision],
    asked: &[Option<GrantRequest>],
    by: &str,
    now: u64,
) -> Result<Vec<Grant>, ApiError> {
    let Some(marker) = run.marker.as_ref() else {
        return Ok(Vec::new());
    };
    let mut id = |c: &PendingCall| new_id(&run.owner, &run.run_id, &c.tool_call_id, now);
    Ok(give_for_decisions(
        policy,
        marker,
        decisions,
        asked,
        Some(by),
        &mut id,
        now,
    )?)
}

/// Refuses (422 `grant_refused`, before anything is decided) `more` new grants for
/// `run`'s session when it would then hold more than core's bound of live grants.
pub(crate) fn check_room(
    store: &SqlStore,
    run: &Run,
    more: usize,
    now: u64,
) -> Result<(), ApiError> {
    if more == 0 {
        return Ok(());
    }
    let live = store
        .grants(&run.owner, GrantFilter::Session(&run.session_id), now)?
        .len();
    if live + more > toolgate_core::grant::MAX_GRANTS_PER_SESSION {
        return Err(toolgate_core::Error::GrantRefused {
            reason: format!(
                "this session holds {live} live grants (at most {}); revoke some first",
                toolgate_core::grant::MAX_GRANTS_PER_SESSION
            ),
        }
        .into());
    }
    Ok(())
}

/// Parks a run; when live grants of its session cover every call, they decide it at
/// once (a person who decided first, or a grant that ended meanwhile, leaves it be).
pub(crate) fn park(
    store: &SqlStore,
    policy: &Policy,
    owner: &str,
    park: Park,
    now: u64,
) -> Result<Parked, ApiError> {
    let runs = Runs::new(store.owner(owner)).keeping_history();
    let mut parked = runs.park(park.clone(), now)?;
    // The run is parked: from here on a failure leaves it for a person (logged), never
    // an error for a park that stands.
    let decided = match granted(store, policy, &park, now) {
        Ok(Some((decisions, by))) => runs
            .resume_by(&park.run_id, owner, &decisions, now, Some(&by))
            .is_ok(),
        Ok(None) => false,
        Err(e) => {
            eprintln!(
                "toolgate-server: run {}: grants not consulted, the run waits for a person: {}",
                park.run_id, e.message
            );
            false
        }
    };
    if decided {
        match runs.run_of(&park.run_id, owner, now) {
            Ok(Some(run)) => parked.run = run,
            Ok(None) => {}
            Err(e) => eprintln!(
                "toolgate-server: run {}: decided by grants, not read back: {e}",
                park.run_id
            ),
        }
    }
    Ok(parked)
}

/// The decisions live grants make for `park` ([`plan_park`]), each use counted in the
/// store only while the grant is live (a grant revoked, expired or used up since the
/// listing leaves the run for a person; uses counted before stay counted), with who
/// gave the first grant; `None`: a person decides.
pub(crate) fn granted(
    store: &SqlStore,
    policy: &Policy,
    park: &Park,
    now: u64,
) -> Result<Option<(Vec<ResumeDecision>, String)>, ApiError> {
    let live = store.grants(&park.owner, GrantFilter::Session(&park.session_id), now)?;
    let Some(plan) = plan_park(&live, policy, park, now) else {
        return Ok(None);
    };
    let mut decisions = Vec::with_capacity(plan.len());
    for (c, g) in park.calls.iter().zip(&plan) {
        if !store.use_grant(&park.owner, &g.id, now)? {
            return Ok(None);
        }
        decisions.push(granted_decision(c, &g.id));
    }
    let by = plan
        .first()
        .and_then(|g| g.by.clone())
        .unwrap_or_else(|| "grant".to_string());
    Ok(Some((decisions, by)))
}

/// Adds to each asked call of `run`'s marker in `view` the scopes `policy` offers
/// (`scopes`) and what each would match (`scopeMatches`).
pub(crate) fn offer_scopes(policy: &Policy, run: &Run, view: &mut serde_json::Value) {
    let (Some(marker), Some(calls)) = (
        run.marker.as_ref(),
        view.pointer_mut("/marker/calls")
            .and_then(serde_json::Value::as_array_mut),
    ) else {
        return;
    };
    for (c, shown) in marker.calls.iter().zip(calls) {
        if c.tier != Tier::Ask || c.is_question() {
            continue;
        }
        let scopes = policy.scopes(&ToolCall::new(c.tool.clone(), c.args.clone()));
        if scopes.is_empty() {
            continue;
        }
        let matches: Vec<String> = scopes
            .iter()
            .map(|s| {
                toolgate_core::Rule::parse(s, "/", "/")
                    .map(|r| r.describe())
                    .unwrap_or_default()
            })
            .collect();
        if let Some(obj) = shown.as_object_mut() {
            obj.insert("scopes".into(), serde_json::json!(scopes));
            obj.insert("scopeMatches".into(), serde_json::json!(matches));
        }
    }
}

/// `GET /v1/grants`'s query.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantsQuery {
    all: Option<bool>,
}

/// A grant as listed: the record and whether it still covers anything.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GrantView {
    #[serde(flatten)]
    grant: Grant,
    state: GrantState,
}

/// `GET /v1/grants[?all=true]` (role approver): the owner's grants, oldest first, live
/// ones unless `all`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    query: Result<Query<GrantsQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    caller.require(Role::Approver)?;
    let Query(query) = query.map_err(|e| ApiError::bad_input(e.body_text()))?;
    let filter = if query.all.unwrap_or(false) {
        GrantFilter::All
    } else {
        GrantFilter::Live
    };
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let now = now_ms();
    let grants = blocking(move || Ok(store.grants(&owner, filter, now)?)).await?;
    let views: Vec<GrantView> = grants
        .into_iter()
        .map(|g| GrantView {
            state: g.state(now),
            grant: g,
        })
        .collect();
    json(StatusCode::OK, &serde_json::json!({ "grants": views }))
}

/// `DELETE /v1/grants/{id}` (role approver): revokes the owner's grant; 200 with the
/// grant as it now is; 404 for none; a grant revoked before stays revoked (200).
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.require(Role::Approver)?;
    let store = state.store.clone();
    let owner = caller.owner.clone();
    let gid = id.clone();
    let now = now_ms();
    let grant = blocking(move || {
        store.revoke_grant(&owner, &gid, now)?;
        Ok(store.grant(&owner, &gid)?)
    })
    .await?;
    match grant {
        Some(g) => {
            eprintln!("toolgate-server: grant {id} revoked by `{}`", caller.name);
            json(
                StatusCode::OK,
                &GrantView {
                    state: g.state(now),
                    grant: g,
                },
            )
        }
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "grant `{}` not found",
                id.chars().take(80).collect::<String>()
            ),
        )),
    }
}
