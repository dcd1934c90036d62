//! Failing closed when the element's module panics (it is built with `panic = "abort"`,
//! so a panic cannot be caught, and may leave the panel's state half-updated). The panic
//! hook marks the module poisoned and says so on the console; from then on no decision
//! leaves it (a run source's `resume`, `settle` and `revokeGrant` are not called, and
//! mounting throws), each refusal an `Error` with `.code` `internal_error`. Nothing is
//! approved by a panic: an approval needs the gate's or the server's `resume` to be
//! called and to finish. (The demo's module links toolgate-wasm, whose own guard covers
//! its `Policy` and `Gate` too.)

use std::cell::RefCell;
use wasm_bindgen::JsValue;

thread_local! {
    /// The message of the panic that poisoned the module.
    static POISONED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the panic hook (once; later calls do nothing).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(on_panic)));
}

fn on_panic(info: &std::panic::PanicHookInfo<'_>) {
    let message = info.to_string();
    POISONED.with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            p.get_or_insert_with(|| message.clone());
        }
    });
    web_sys::console::error_1(&JsValue::from_str(&format!(
        "toolgate: internal error in the approval panel; it decides nothing more (code internal_error): {message}"
    )));
    // Unwinds the WebAssembly frames up to the JavaScript caller (no Rust code runs on
    // the way, so nothing half-updated is touched again).
    wasm_bindgen::throw_val(error("internal_error", &message));
}

/// `Err(internal_error)` once the module is poisoned.
pub fn check() -> Result<(), JsValue> {
    match POISONED.with(|p| p.try_borrow().map(|p| p.clone())) {
        Ok(None) => Ok(()),
        Ok(Some(message)) => Err(error("internal_error", &message)),
        Err(_) => Err(error("internal_error", "a panic is being handled")),
    }
}

/// A JavaScript `Error` with `.code`, as toolgate's errors are.
pub fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    // Setting a property on a fresh Error cannot fail; if it did, the message still
    // says what went wrong.
    let _ = js_sys::Reflect::set(&e, &JsValue::from_str("code"), &JsValue::from_str(code));
    e.into()
}
