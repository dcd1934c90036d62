//! Failing closed when the core panics. WebAssembly is built with `panic = "abort"`,
//! so a panic cannot be caught: without this module it is a bare
//! `RuntimeError: unreachable`, a promise that never settles, and an instance whose
//! `RefCell`s may be left borrowed mid-update.
//!
//! Instead the panic hook ([`install`]):
//! 1. marks the module *poisoned*: from then on every `Policy` and `Gate` method throws
//!    (or rejects with) an `Error` whose `.code` is `internal_error`, without running
//!    any of the state the panic may have left half-updated; timers, storage events
//!    and channel messages do nothing;
//! 2. writes the panic message to `console.error`;
//! 3. rejects every promise of this module still in flight (a `check` waiting for its
//!    human, a `resume`) with that `Error`: none of them can resolve `approved` later;
//! 4. throws that `Error` out of the call that panicked: a synchronous method throws
//!    it; the promise methods run their synchronous part inside a `Promise` executor
//!    ([`promise`]), so they reject with it.
//!
//! Nothing is approved by a panic: an approval needs a call to finish normally. The
//! stored runs are untouched (a new page loads them into a new module).

use crate::error::{into_error, GateError};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The message of the panic that poisoned the module.
    static POISONED: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The reject functions of this module's promises that have not settled.
    static IN_FLIGHT: RefCell<Vec<(u64, js_sys::Function)>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
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
        "toolgate: internal error, every later call is refused (code internal_error): {message}"
    )));
    let error = into_error(GateError::Internal(message));
    let pending = IN_FLIGHT.with(|f| f.try_borrow_mut().map(|mut f| std::mem::take(&mut *f)));
    for (_, reject) in pending.unwrap_or_default() {
        let _ = reject.call1(&JsValue::UNDEFINED, &error);
    }
    // Unwinds the WebAssembly frames up to the JavaScript caller (no Rust code runs
    // on the way, so nothing half-updated is touched again).
    wasm_bindgen::throw_val(error);
}

/// Whether a panic poisoned the module.
pub fn poisoned() -> bool {
    POISONED.with(|p| p.try_borrow().map_or(true, |p| p.is_some()))
}

/// `Err(internal_error)` once the module is poisoned: the first line of every binding.
pub fn check() -> Result<(), JsValue> {
    match POISONED.with(|p| p.try_borrow().map(|p| p.clone())) {
        Ok(None) => Ok(()),
        Ok(Some(message)) => Err(into_error(GateError::Internal(message))),
        Err(_) => Err(into_error(GateError::Internal(
            "a panic is being handled".to_string(),
        ))),
    }
}

/// A promise for an asynchronous method: `start` (the synchronous part: decoding, the
/// classification, registering a pending request) runs inside the `Promise` executor,
/// so a panic in it rejects the promise instead of throwing past it; the future it
/// returns runs afterwards, and the promise is registered as in flight until it
/// settles, so a panic anywhere rejects it.
pub fn promise<'a, F>(start: impl FnOnce() -> Result<F, JsValue> + 'a) -> js_sys::Promise
where
    F: Future<Output = Result<JsValue, JsValue>> + 'static,
{
    promise_boxed(Box::new(move || {
        start().map(|fut| -> BoxFuture { Box::pin(fut) })
    }))
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// [`promise`] over one boxed type: every caller shares one copy of this machinery in
/// the wasm.
fn promise_boxed<'a>(
    start: Box<dyn FnOnce() -> Result<BoxFuture, JsValue> + 'a>,
) -> js_sys::Promise {
    let mut start = Some(start);
    js_sys::Promise::new(&mut |resolve: js_sys::Function, reject: js_sys::Function| {
        if let Err(e) = check() {
            let _ = reject.call1(&JsValue::UNDEFINED, &e);
            return;
        }
        let Some(start) = start.take() else {
            return;
        };
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            id
        });
        IN_FLIGHT.with(|f| f.borrow_mut().push((id, reject.clone())));
        let fut = match start() {
            Ok(fut) => fut,
            Err(e) => {
                forget(id);
                let _ = reject.call1(&JsValue::UNDEFINED, &e);
                return;
            }
        };
        wasm_bindgen_futures::spawn_local(async move {
            let result = Guarded(fut).await;
            // Settled by a panic already (it took the reject function): nothing to do.
            if !forget(id) {
                return;
            }
            let _ = match result {
                Ok(v) => resolve.call1(&JsValue::UNDEFINED, &v),
                Err(e) => reject.call1(&JsValue::UNDEFINED, &e),
            };
        });
    })
}

/// Removes promise `id` from the in-flight list; false when a panic already took it.
fn forget(id: u64) -> bool {
    IN_FLIGHT.with(|f| {
        let mut f = f.borrow_mut();
        let at = f.iter().position(|(k, _)| *k == id);
        at.map(|at| f.swap_remove(at)).is_some()
    })
}

/// A future that is never polled again once the module is poisoned: the Rust code
/// after its next await (writing a claim, committing a resume) does not run over
/// state a panic may have left half-updated. Its promise was rejected by the panic.
pub struct Guarded<F>(pub F);

impl<F: Future + Unpin> Future for Guarded<F> {
    type Output = F::Output;
    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        if poisoned() {
            return std::task::Poll::Pending;
        }
        Pin::new(&mut self.0).poll(cx)
    }
}

/// The test-only `panic-probe` feature: `__toolgatePanicProbe()` panics inside the
/// module, outside any classification, to show a panic in a callback or a plain call
/// fails closed too.
#[cfg(feature = "panic-probe")]
#[wasm_bindgen(js_name = __toolgatePanicProbe)]
#[allow(clippy::panic)] // the point of the test-only feature
pub fn panic_probe() {
    install();
    panic!("panic-probe: __toolgatePanicProbe was called");
}
