//! Bearer tokens: `Authorization: Bearer <token>` → the [`Caller`]. The presented token
//! is hashed and compared with every configured digest in constant time (no early exit,
//! no length leak: digests are all 32 bytes). Neither the token nor its digest is logged.

use std::time::Instant;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

use crate::config::{digest, Role, Token};
use crate::error::ApiError;
use crate::serve::peer;
use crate::AppState;

/// Who is calling: the token's name, owner and roles.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The token's name.
    pub name: String,
    /// The owner whose runs the token reaches.
    pub owner: String,
    /// What the token may do.
    pub roles: Vec<Role>,
}

impl Caller {
    /// Refuses (403 `forbidden`) a caller without `role`.
    pub fn require(&self, role: Role) -> Result<(), ApiError> {
        if self.roles.contains(&role) {
            return Ok(());
        }
        let what = match role {
            Role::Agent => "park runs (role agent)",
            Role::Approver => "decide (role approver)",
        };
        Err(ApiError::forbidden(format!(
            "token `{}` may not {what}",
            self.name
        )))
    }
}

fn eq32(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token whose digest matches `presented`'s, looking at every one.
pub fn authenticate<'t>(tokens: &'t [Token], presented: &str) -> Option<&'t Token> {
    let d = digest(presented);
    let mut found = None;
    for t in tokens {
        if eq32(&t.sha256, &d) {
            found = Some(t);
        }
    }
    found
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, ApiError> {
        let ip = peer(&parts.extensions);
        let now = Instant::now();
        if let Some(wait) = ip.and_then(|ip| state.guard.failures.blocked(ip, now)) {
            return Err(ApiError::too_many(
                "too_many_failures",
                "too many failed sign-ins from this address; try again after Retry-After seconds",
                wait,
            ));
        }
        let fail = |e: ApiError| {
            if let Some(ip) = ip {
                state.guard.failures.record(ip, now);
            }
            e
        };
        let Some(value) = parts.headers.get(AUTHORIZATION) else {
            // No token is not a guess: not counted as a failure.
            return Err(ApiError::unauthorized(
                "an Authorization: Bearer <token> header is required",
            ));
        };
        let presented = value
            .to_str()
            .ok()
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                fail(ApiError::unauthorized(
                    "the Authorization header must be `Bearer <token>`",
                ))
            })?;
        let token = authenticate(&state.tokens, presented)
            .ok_or_else(|| fail(ApiError::unauthorized("unknown token")))?;
        if let Err(wait) = state.guard.per_token.take(&token.name, now) {
            return Err(ApiError::too_many(
                "rate_limited",
                format!(
                    "too many requests with token `{}`; try again after Retry-After seconds",
                    token.name
                ),
                wait,
            ));
        }
        Ok(Caller {
            name: token.name.clone(),
            owner: token.owner.clone(),
            roles: token.roles.clone(),
        })
    }
}
