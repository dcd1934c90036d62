//! The approval panel, served from a directory (`--panel DIR`, `panel = "DIR"`,
//! `TOOLGATE_PANEL_DIR`): `scripts/build-panel` assembles one (a sign-in page, the
//! `toolgate/element` bundle and `toolgate/http`). Only files directly in the directory
//! are served, by name (letters, digits, `.`, `_`, `-`; no path, no hidden file), with a
//! content type from a short list of extensions; anything else is the API's JSON 404.
//! The pages get a Content-Security-Policy that allows this origin's scripts and
//! WebAssembly and nothing inline.

use std::path::{Path, PathBuf};

use axum::extract::{Path as UrlPath, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::AppState;

/// The panel's pages may run this origin's scripts and WebAssembly, talk to this origin,
/// and nothing else; no framing.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

fn content_type(name: &str) -> Option<&'static str> {
    let (_, ext) = name.rsplit_once('.')?;
    Some(match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => return None,
    })
}

/// A file name the panel may serve: one path segment, no hidden file.
fn servable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

async fn serve(dir: Option<&Path>, name: &str) -> Result<Response, ApiError> {
    let missing = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint");
    let Some(dir) = dir else {
        if name == "index.html" {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                "no panel is served here: start the server with --panel DIR (./scripts/build-panel makes one)",
            ));
        }
        return Err(missing());
    };
    let Some(kind) = content_type(name).filter(|_| servable(name)) else {
        return Err(missing());
    };
    let path: PathBuf = dir.join(name);
    let body = match tokio::fs::read(&path).await {
        Ok(body) => body,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing()),
        Err(e) => {
            return Err(ApiError::internal(format!(
                "the panel's file {name} cannot be read: {e}"
            )))
        }
    };
    let mut res = (StatusCode::OK, body).into_response();
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(
        HeaderName::from_static("referrer-policy"),
        HeaderValue::from_static("no-referrer"),
    );
    if kind.starts_with("text/html") {
        headers.insert(
            HeaderName::from_static("content-security-policy"),
            HeaderValue::from_static(CSP),
        );
    }
    Ok(res)
}

/// `GET /`: the panel's `index.html`.
pub async fn index(State(state): State<AppState>) -> Result<Response, ApiError> {
    serve(state.panel.as_deref(), "index.html").await
}

/// `GET /{file}`: a file of the panel.
pub async fn file(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, ApiError> {
    serve(state.panel.as_deref(), &name).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_with_known_types() {
        for ok in [
            "index.html",
            "element.js",
            "toolgate_ui_bg.wasm",
            "approval.css",
        ] {
            assert!(servable(ok) && content_type(ok).is_some(), "{ok}");
        }
        for bad in [
            "",
            ".env",
            "..",
            "../etc/passwd",
            "a/b.js",
            "a\\b.js",
            "x%2e%2e.js",
            "index.html\0",
            "é.js",
        ] {
            assert!(!servable(bad), "{bad:?}");
        }
        for untyped in ["toolgate.db", "config.toml", "Makefile", "index.php"] {
            assert_eq!(content_type(untyped), None, "{untyped}");
        }
    }
}
