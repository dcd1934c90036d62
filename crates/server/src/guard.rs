//! What every request passes before a handler: one of each single-valued header, and the
//! per-address rate ([`limits`](crate::limits)). The per-token rate and sign-in
//! failures are checked where the token is read ([`auth`](crate::auth)).

use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, HOST, ORIGIN};
use axum::http::{HeaderMap, HeaderName};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tower_http::timeout::{DeadlineBody, TimeoutError};

use crate::error::ApiError;
use crate::serve::peer;
use crate::AppState;

/// Headers a request may carry once: two of them mean two parties disagree on who is
/// asking or what the body is (an approver's and an agent's `Authorization`), and
/// servers and proxies differ on which one wins.
const SINGLE: [HeaderName; 6] = [
    AUTHORIZATION,
    CONTENT_TYPE,
    CONTENT_LENGTH,
    HOST,
    ORIGIN,
    COOKIE,
];

/// The first single-valued header that appears more than once.
pub fn duplicate(headers: &HeaderMap) -> Option<&'static str> {
    SINGLE
        .iter()
        .find(|name| headers.get_all(*name).iter().nth(1).is_some())
        .map(HeaderName::as_str)
        .map(|n| match n {
            "authorization" => "Authorization",
            "content-type" => "Content-Type",
            "content-length" => "Content-Length",
            "host" => "Host",
            "origin" => "Origin",
            _ => "Cookie",
        })
}

/// The middleware: 400 `duplicate_header`, 429 `rate_limited`, else on to the handler.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(name) = duplicate(req.headers()) {
        return ApiError::bad_input(format!(
            "the request carries more than one {name} header; send one"
        ))
        .with_code("duplicate_header")
        .into_response();
    }
    if let Some(ip) = peer(req.extensions()) {
        if let Err(wait) = state.guard.per_address.take(&ip, Instant::now()) {
            return ApiError::too_many(
                "rate_limited",
                "too many requests from this address; try again after Retry-After seconds",
                wait,
            )
            .into_response();
        }
    }
    // The whole body within the deadline (not a byte at a time: a slow sender that
    // keeps trickling is cut too).
    let deadline = state.guard.limits.body_timeout();
    let req = req.map(|body| Body::new(DeadlineBody::new(deadline, body)));
    next.run(req).await
}

/// Whether a body error is the deadline's.
pub fn is_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if err.is::<TimeoutError>() {
            return true;
        }
        cur = err.source();
    }
    false
}
