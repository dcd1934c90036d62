//! A [`RunSource`] that a JavaScript object provides: the panel over runs that live
//! somewhere else (a toolgate server through `toolgate/http`, a desktop shell's
//! plugin). The object has two methods, and may have a third:
//! - `runs()`: a promise of `{runs: [run, …]}` as `GET /v1/runs` answers (each run as
//!   `gate.run(id)` shows it), or its JSON text, or `null` when nothing changed since
//!   the last answer (a 304);
//! - `resume(runId, decisions)`: `decisions` is `[{toolCallId, anchor, decision:
//!   "allow" | "deny", scope?, message?}]` (`POST /v1/runs/{id}/decisions`'s body); a
//!   promise of what the host's `onResumed` receives.
//!
//! - `watch(changed)` (optional): calls `changed()` whenever the runs may have changed
//!   (a Tauri plugin's event) and returns a function that stops it; the panel then
//!   polls at once instead of at its next tick.
//!
//! A rejection is an error shown on the panel, never a decision: its `code`
//! (`already_resumed`, `expired`, `anchor_mismatch`, …) says which, `message` the
//! sentence, and `decidedBy` who decided first.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, JSON};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::model::{CallView, Decision, RunView};
use crate::source::{
    decisions_json, views_from_json, Decided, LocalFuture, RunSource, SourceError, Watch,
};

pub struct JsSource {
    object: JsValue,
    /// The last runs read: what a `null` answer (nothing changed) stands for.
    last: Rc<RefCell<Vec<RunView>>>,
}

impl JsSource {
    /// `object` must have `runs` and `resume` methods.
    pub fn new(object: JsValue) -> Result<JsSource, String> {
        for name in ["runs", "resume"] {
            method(&object, name)?;
        }
        Ok(JsSource {
            object,
            last: Rc::default(),
        })
    }

    /// Calls `object[name](...args)` and awaits what it returns (a value or a promise).
    fn call(&self, name: &str, args: &[JsValue]) -> LocalFuture<Result<JsValue, SourceError>> {
        let called = method(&self.object, name)
            .map_err(SourceError::Other)
            .and_then(|f| {
                f.apply(&self.object, &args.iter().collect())
                    .map_err(error_of)
            });
        Box::pin(async move {
            let value = called?;
            JsFuture::from(Promise::resolve(&value))
                .await
                .map_err(error_of)
        })
    }
}

fn method(object: &JsValue, name: &str) -> Result<Function, String> {
    Reflect::get(object, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| format!("the run source has no `{name}` method"))
}

fn string_field(value: &JsValue, name: &str) -> Option<String> {
    Reflect::get(value, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_string())
}

/// A rejection as the panel shows it.
fn error_of(e: JsValue) -> SourceError {
    let message = string_field(&e, "message")
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the run source failed".to_string());
    let code = string_field(&e, "code").unwrap_or_default();
    match (code.as_str(), string_field(&e, "decidedBy")) {
        ("already_resumed", Some(by)) => SourceError::DecidedBy(by),
        (code, _) => SourceError::from_code(code, message),
    }
}

impl RunSource for JsSource {
    fn timed_grants(&self) -> bool {
        true
    }

    fn runs(&self, _now: u64) -> LocalFuture<Result<Vec<RunView>, SourceError>> {
        let answer = self.call("runs", &[]);
        let last = self.last.clone();
        Box::pin(async move {
            let value = answer.await?;
            if value.is_null() || value.is_undefined() {
                return Ok(last.borrow().clone());
            }
            let text = match value.as_string() {
                Some(text) => text,
                None => JSON::stringify(&value)
                    .ok()
                    .and_then(|s| s.as_string())
                    .ok_or_else(|| SourceError::Other("the runs are not JSON".to_string()))?,
            };
            let runs = views_from_json(&text).map_err(SourceError::Other)?;
            last.replace(runs.clone());
            Ok(runs)
        })
    }

    fn resume(
        &self,
        run_id: &str,
        decisions: Vec<(CallView, Decision)>,
        _now: u64,
    ) -> LocalFuture<Result<Decided, SourceError>> {
        // Written by hand (`WriteJson`): `Value`'s `Display` would link serde_json's
        // serializer into the element's module.
        let text = toolgate_core::json_text::WriteJson::to_json(&decisions_json(&decisions));
        let decisions = JSON::parse(&text).unwrap_or(JsValue::UNDEFINED);
        let answer = self.call("resume", &[JsValue::from_str(run_id), decisions]);
        Box::pin(async move { Ok(Decided::Js(answer.await?)) })
    }

    /// A JavaScript source is polled (3 s / 5 s, and after each decision), and at once
    /// when its optional `watch(changed)` says something changed.
    fn watch(&self, changed: Box<dyn Fn()>) -> Watch {
        let Ok(watch) = method(&self.object, "watch") else {
            return Box::new(());
        };
        let callback = Closure::<dyn Fn()>::new(changed);
        // A watch that throws or returns no function only loses the early polls.
        let stop = watch
            .call1(&self.object, callback.as_ref())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        Box::new(JsWatch {
            _callback: callback,
            stop,
        })
    }
}

/// A source's `watch`: stops it when the panel lets go.
struct JsWatch {
    _callback: Closure<dyn Fn()>,
    stop: Option<Function>,
}

impl Drop for JsWatch {
    fn drop(&mut self) {
        if let Some(stop) = &self.stop {
            let _ = stop.call0(&JsValue::NULL);
        }
    }
}
