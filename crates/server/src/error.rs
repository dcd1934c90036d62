//! The API's errors: a status and `{"error": {"code", "message"}}` with a stable code.
//! Core's errors map by kind: unknown or another owner's run → 404 `not_found`; a
//! decision that lost or no longer fits the run → 409 (`already_resumed`,
//! `anchor_mismatch`, `stale`, `expired`, `marker_corrupt`); an edited call that cannot
//! be approved → 422 `edit_refused` (a question approved, or not answered → 422
//! `answer_refused`); bad input → 400; too large
//! → 413; the database → 503. An error never changes anything (core writes once, last).

use axum::http::header::{RETRY_AFTER, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use toolgate_core::Error;

/// An error answer: its HTTP status and `{error: {code, message}}`.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable code (`bad_input`, `not_found`, `stale`, …).
    pub code: &'static str,
    /// What went wrong, in words.
    pub message: String,
    /// Who decided first (409 `already_resumed`), when the run says.
    pub decided_by: Option<String>,
    /// When to try again (429): sent as `Retry-After`, whole seconds rounded up.
    pub retry_after: Option<std::time::Duration>,
}

impl ApiError {
    /// An error with this status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            decided_by: None,
            retry_after: None,
        }
    }
    /// 429 `rate_limited` (or another code), to be tried again after `wait`.
    pub fn too_many(
        code: &'static str,
        message: impl Into<String>,
        wait: std::time::Duration,
    ) -> ApiError {
        ApiError {
            retry_after: Some(wait),
            ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, code, message)
        }
    }
    /// The same error with another code.
    pub fn with_code(mut self, code: &'static str) -> ApiError {
        self.code = code;
        self
    }
    /// 400 `bad_input`.
    pub fn bad_input(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_input", message)
    }
    /// 401 `unauthorized`.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
    /// 403 `forbidden`.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }
    /// 404 `not_found` for the run `run_id`.
    pub fn not_found(run_id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("run `{run_id}` not found"),
        )
    }
    /// 500 `internal_error`.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", message)
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        let message = e.to_string();
        let (status, code) = match &e {
            Error::RunNotFound { .. } => (StatusCode::NOT_FOUND, "not_found"),
            Error::AlreadyResumed { .. } => (StatusCode::CONFLICT, "already_resumed"),
            Error::ResumeAnchorMismatch { .. } | Error::AnchorMismatch { .. } => {
                (StatusCode::CONFLICT, "anchor_mismatch")
            }
            Error::NotAwaitingPermission { .. }
            | Error::StoreConflict { .. }
            | Error::UnknownToolCall { .. } => (StatusCode::CONFLICT, "stale"),
            Error::MarkerExpired { .. } => (StatusCode::CONFLICT, "expired"),
            Error::MarkerCorrupt { .. } => (StatusCode::CONFLICT, "marker_corrupt"),
            // A person's edit the policy denies (or cannot take), a grant that cannot be
            // given, an approval of a question: nothing was decided.
            Error::EditRefused { .. }
            | Error::GrantRefused { .. }
            | Error::AnswerRefused { .. } => (StatusCode::UNPROCESSABLE_ENTITY, e.code()),
            Error::RunIdTaken { .. } => (StatusCode::CONFLICT, "run_id_taken"),
            Error::IllegalTransition { .. } | Error::RunStillActive { .. } => {
                (StatusCode::CONFLICT, e.code())
            }
            Error::HistoryTooLarge { .. }
            | Error::MarkerTooLarge { .. }
            | Error::QuotaExceeded { .. } => (StatusCode::PAYLOAD_TOO_LARGE, e.code()),
            Error::StoreUnavailable { .. } => (StatusCode::SERVICE_UNAVAILABLE, e.code()),
            _ => (StatusCode::BAD_REQUEST, e.code()),
        };
        ApiError {
            status,
            code,
            message,
            decided_by: None,
            retry_after: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = match &self.decided_by {
            Some(by) => {
                json!({ "error": { "code": self.code, "message": self.message, "decidedBy": by } })
            }
            None => json!({ "error": { "code": self.code, "message": self.message } }),
        };
        let mut res = (self.status, Json(body)).into_response();
        if let Some(wait) = self.retry_after {
            let secs = wait.as_millis().div_ceil(1000).max(1);
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                res.headers_mut().insert(RETRY_AFTER, v);
            }
        }
        if self.status == StatusCode::UNAUTHORIZED {
            res.headers_mut().insert(
                WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"toolgate\""),
            );
        }
        res
    }
}
