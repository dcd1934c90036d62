//! The Web Locks API (`navigator.locks`): run a step while holding a named lock that
//! every same-origin tab and worker shares. Bound by hand (through `Reflect`) so the
//! crate needs no unstable web-sys APIs, and so that its absence is just `None`.

use crate::error::GateError;
use crate::storage::describe;
use js_sys::{Function, Promise, Reflect};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use toolgate_core::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

/// `navigator.locks`, when this context has it (secure contexts of current browsers).
#[derive(Debug, Clone)]
pub(crate) struct Locks {
    manager: JsValue,
    request: Function,
}

impl Locks {
    /// `globalThis.navigator.locks`, or `None`.
    pub(crate) fn find() -> Option<Locks> {
        let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
        if navigator.is_undefined() || navigator.is_null() {
            return None;
        }
        let manager = Reflect::get(&navigator, &"locks".into()).ok()?;
        if manager.is_undefined() || manager.is_null() {
            return None;
        }
        let request = Reflect::get(&manager, &"request".into())
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        Some(Locks { manager, request })
    }

    /// Runs `step` while holding the exclusive lock `name`: waits for other holders
    /// (in any tab) to finish first. The lock is held until the future `step` returns
    /// has finished, across its awaits (the lock callback returns its Promise).
    pub(crate) async fn with<T, F>(
        &self,
        name: &str,
        step: impl FnOnce() -> F + 'static,
    ) -> Result<T, GateError>
    where
        T: 'static,
        F: Future<Output = T> + 'static,
    {
        let slot: Rc<RefCell<Option<T>>> = Rc::new(RefCell::new(None));
        let out = slot.clone();
        let callback: Closure<dyn FnMut(JsValue) -> JsValue> =
            Closure::once(move |_lock: JsValue| -> JsValue {
                // The lock is released when this Promise settles: after `step` is done.
                to_promise(async move {
                    let value = step().await;
                    *out.borrow_mut() = Some(value);
                    Ok(JsValue::UNDEFINED)
                })
                .into()
            });
        let failed = |e: JsValue| {
            GateError::Core(Error::StoreUnavailable {
                message: format!(
                    "navigator.locks.request(\"{name}\") failed: {}",
                    describe(&e)
                ),
            })
        };
        let promise = self
            .request
            .call2(
                &self.manager,
                &JsValue::from_str(name),
                callback.as_ref().unchecked_ref(),
            )
            .map_err(failed)?
            .dyn_into::<Promise>()
            .map_err(|_| failed("request() returned no Promise".into()))?;
        JsFuture::from(promise).await.map_err(failed)?;
        // The callback has run (the request resolves only after it and its Promise);
        // keep it alive until then, and free it now.
        drop(callback);
        let value = slot.borrow_mut().take();
        value.ok_or_else(|| failed("the lock was granted but the step did not run".into()))
    }
}

/// `future_to_promise` over one boxed future type: every caller shares one copy of its
/// machinery in the wasm (each distinct future type would instantiate it again).
pub(crate) fn to_promise(fut: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let fut: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(fut);
    future_to_promise(crate::poison::Guarded(fut))
}
