//! `JsonBody<T>`: a JSON request body with the API's own errors instead of axum's plain
//! text: not `application/json` → 415 `unsupported_media_type`; over the limit → 413
//! `body_too_large`; not JSON, or nested deeper than serde_json's limit (128) → 400
//! `bad_json`; a body not all there within the body timeout → 408 `body_timeout`;
//! unknown fields, missing fields and wrong types → 400 `bad_input` naming
//! the field.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON request body, read within the body deadline and size limit; a bad one is a 400 with the reason.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<JsonBody<T>, ApiError> {
        let json = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be JSON (Content-Type: application/json)",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    format!("the body is over the limit of {} bytes", crate::BODY_LIMIT),
                )
            } else if crate::guard::is_timeout(&e) {
                ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "body_timeout",
                    "the body did not arrive in time; nothing was changed",
                )
            } else {
                ApiError::bad_input(format!("cannot read the body: {e}"))
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| match e.classify() {
                serde_json::error::Category::Data => ApiError::bad_input(e.to_string()),
                serde_json::error::Category::Io
                | serde_json::error::Category::Syntax
                | serde_json::error::Category::Eof => {
                    ApiError::new(StatusCode::BAD_REQUEST, "bad_json", e.to_string())
                }
            })
    }
}
