//! The one error type of toolgate-wasm and its mapping to a JavaScript `Error`.

use wasm_bindgen::JsValue;

/// Everything the JS API can refuse, with a stable `code` for programs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GateError {
    /// An error of toolgate-core (`unknown_id`, `already_resolved`, `anchor_mismatch`, …).
    #[error(transparent)]
    Core(#[from] toolgate_core::Error),
    /// A JS argument of the wrong shape; names the argument and what was expected.
    #[error("bad input: {0}")]
    BadInput(String),
    /// The gate was disposed; it takes no new requests.
    #[error("this gate was disposed")]
    Disposed,
    /// No `crypto.getRandomValues` here: ids could not be unguessable.
    #[error("no secure random source (crypto.getRandomValues): {0}")]
    NoCrypto(String),
    /// `Policy.fromToml` on the Gate's module alone: the policy reader module reads
    /// policy files, and the npm package's entries load it.
    #[error("Policy.fromToml needs the policy reader (toolgate_policy_bg.wasm), which the toolgate package loads: in a browser, `await loadPolicyReader()` once first")]
    NoPolicyReader,
    /// The core panicked (a bug): the module refuses every later call ([`crate::poison`]).
    #[error("toolgate internal error (a bug; every later call is refused): {0}")]
    Internal(String),
}

impl GateError {
    /// The `.code` of the JS `Error`: core's codes, plus `bad_input`, `disposed`,
    /// `no_crypto`, `no_policy_reader`, `internal_error`.
    pub fn code(&self) -> &'static str {
        match self {
            GateError::Core(e) => e.code(),
            GateError::BadInput(_) => "bad_input",
            GateError::Disposed => "disposed",
            GateError::NoCrypto(_) => "no_crypto",
            GateError::NoPolicyReader => "no_policy_reader",
            GateError::Internal(_) => "internal_error",
        }
    }
}

/// The one way errors cross into JavaScript: an `Error` whose `message` is the
/// sentence and whose `code` is [`GateError::code`].
pub fn into_error(e: impl Into<GateError>) -> JsValue {
    let e = e.into();
    let js = js_sys::Error::new(&e.to_string());
    // Setting a property on a fresh Error object cannot fail; if it ever did, the
    // message still says what went wrong.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(e.code()),
    );
    js.into()
}
