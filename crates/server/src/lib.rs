//! toolgate-server: parked runs on the agent's server. An HTTP API (axum) over core
//! [`Runs`](toolgate_core::Runs) and the SQL store (`toolgate-store`: SQLite by default,
//! PostgreSQL for several replicas):
//!
//! | method and path | who | what |
//! | --- | --- | --- |
//! | `POST /v1/runs/{id}/park` | agent | park a run: its calls are classified here and put in one marker; 201 |
//! | `GET /v1/runs[?status=…&limit=N&cursor=ID]` | agent, approver | a page of the token owner's runs (an agent's: its own); `ETag` / `If-None-Match` → 304 |
//! | `GET /v1/runs/{id}` | agent, approver | one run as `gate.run(id)` shows it, with `parkedBy`; 404 for another owner's (or, to an agent, another agent's) |
//! | `POST /v1/runs/{id}/decisions` | approver | `{revision?, decisions: [{toolCallId, anchor, decision, message?, scope?, ttlMs?, singleUse?, args?}]}` → the results; exactly once; a `scope` gives a grant ([`grants`]); a loser's 409 names who decided first; a stale revision is 409 `stale` |
//! | `GET /v1/audit?since=MS&limit=N` | approver | the owner's audit records (each request's end, once) |
//! | `GET /v1/grants[?all=true]` | approver | the owner's grants ("always allow" kept: what each matches, its session, expiry, uses, `state`) |
//! | `DELETE /v1/grants/{id}` | approver | revokes a grant: it approves nothing more |
//! | `POST /v1/agent/runs` | both | starts the reference agent (`--demo-agent` only) |
//! | `GET /v1/me` | both | the token's name, owner and roles |
//! | `POST /v1/classify` | agent | each call's verdict (with `[sandbox] agents = true`, `sandbox` and the command that runs it contained), nothing stored |
//! | `GET /`, `GET /{file}` | anyone | the approval panel (`--panel DIR`: [`panel`]) |
//!
//! Every request carries `Authorization: Bearer <token>`; tokens (hashed) come from the
//! config file or `TOOLGATE_TOKENS` ([`config`]). Errors are `{"error": {"code",
//! "message"}}` ([`error`]).

#![deny(missing_docs)]
pub mod agent;
pub mod api;
pub mod auth;
pub mod body;
pub mod config;
pub mod error;
pub mod grants;
pub mod guard;
pub mod limits;
pub mod panel;
pub mod serve;
pub mod webhook;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use toolgate_core::Policy;
use toolgate_store::SqlStore;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::TimeoutLayer;

use crate::config::Token;
use crate::error::ApiError;

/// The largest request body, bytes (a marker's history is at most 512 KiB of text; JSON
/// escaping can grow it).
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The runs' store.
    pub store: Arc<SqlStore>,
    /// The policy calls are classified with.
    pub policy: Arc<Policy>,
    /// The configured tokens (their digests).
    pub tokens: Arc<[Token]>,
    /// Where "a run waits" messages go (none: nowhere).
    pub webhook: Option<webhook::Webhook>,
    /// The last list answer per (owner, status filter): lets an unchanged poll be
    /// answered 304 from the store's change counter alone.
    pub polls: Arc<api::PollCache>,
    /// The reference agent is on (`--demo-agent`): `POST /v1/agent/runs` starts it, and
    /// decisions on its runs continue them in the background.
    pub demo_agent: bool,
    /// The directory the approval panel is served from (none: no panel).
    pub panel: Option<std::path::PathBuf>,
    /// The limits and what requests have taken of them.
    pub guard: Arc<limits::Guard>,
    /// The agents run `sandbox` verdicts contained (`[sandbox] agents = true`): the
    /// policy `POST /v1/classify` and the reference agent use then, and the binary.
    pub sandbox: Option<config::Sandbox>,
}

impl AppState {
    /// The policy agents' calls are judged with before they run: the server's, for a
    /// host that contains calls when `[sandbox]` says the agents do. (Parking always
    /// uses the server's own: a parked call waits for a person whatever it is.)
    pub fn agent_policy(&self) -> Arc<Policy> {
        match &self.sandbox {
            Some(s) => s.policy.clone(),
            None => self.policy.clone(),
        }
    }
}

/// The API's routes with their layers: body limit, a panic in a handler answered 500
/// (never a dropped connection), the request timeout (408), the [`guard`] (one of each
/// single-valued header, the per-address rate, the body deadline), and CORS for
/// `cors_origins` (none: no CORS headers, same origin only).
pub fn router(state: AppState, cors_origins: &[String]) -> Result<Router, String> {
    let mut app = Router::new()
        .route("/v1/runs", get(api::list))
        .route("/v1/runs/{id}", get(api::get_run))
        .route("/v1/runs/{id}/park", post(api::park))
        .route("/v1/runs/{id}/decisions", post(api::decide))
        .route("/v1/runs/{id}/resume", post(api::take))
        .route("/v1/runs/{id}/cancel", post(api::cancel))
        .route("/v1/runs/{id}/complete", post(api::complete))
        .route("/v1/audit", get(api::audit))
        .route("/v1/grants", get(grants::list))
        .route("/v1/grants/{id}", axum::routing::delete(grants::revoke))
        .route("/v1/agent/runs", post(api::start_agent))
        .route("/v1/me", get(api::me))
        .route("/v1/classify", post(api::classify))
        .route("/healthz", get(|| async { "ok" }))
        .route("/", get(panel::index))
        .route("/{file}", get(panel::file))
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(|_panic| {
            ApiError::internal("the server failed on this request; nothing was changed by it")
                .into_response()
        }))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            state.guard.limits.request_timeout(),
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::guard,
        ))
        .with_state(state);
    if !cors_origins.is_empty() {
        let origins = cors_origins
            .iter()
            .map(|o| HeaderValue::from_str(o).map_err(|e| format!("CORS origin `{o}`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        app = app.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins))
                .allow_methods([Method::GET, Method::POST, Method::DELETE])
                .allow_headers([AUTHORIZATION, CONTENT_TYPE, IF_NONE_MATCH])
                .expose_headers([ETAG])
                .max_age(Duration::from_secs(600)),
        );
    }
    Ok(app)
}
