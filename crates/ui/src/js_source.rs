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
//! And, for a source that keeps a policy and grants in the page (`gateRunSource(gate)`
//! of `toolgate/element`, over a `Gate` of the main entry), each optional:
//! - `classify(call)`: the verdict (`{tier, rule, reason}`) its policy gives `{tool,
//!   args}`, shown for a person's edit before it is approved;
//! - `grants()`: the live grants (`[{id, rule, matches, expiresAt, singleUse}]`), which
//!   the panel lists, and `revokeGrant(id)`: a promise of whether there was one;
//! - `settle(runId)`: a promise of what `onResumed` receives when the grants decided
//!   every call of the parked run, or `null`.
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
    decisions_json, views_from_json, Decided, GrantItem, LocalFuture, RunSource, SourceError, Watch,
};
use toolgate_core::{Tier, ToolCall, Verdict};

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

/// `Err(internal_error)` once the module panicked: no decision leaves it then.
fn guard() -> Result<(), SourceError> {
    #[cfg(feature = "demo")]
    let checked = toolgate_wasm::poison::check();
    #[cfg(not(feature = "demo"))]
    let checked = crate::poison::check();
    checked.map_err(error_of)
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
        if let Err(e) = guard() {
            return Box::pin(std::future::ready(Err(e)));
        }
        let text = toolgate_core::json_text::WriteJson::to_json(&decisions_json(&decisions));
        let decisions = JSON::parse(&text).unwrap_or(JsValue::UNDEFINED);
        let answer = self.call("resume", &[JsValue::from_str(run_id), decisions]);
        Box::pin(async move { Ok(Decided::Js(answer.await?)) })
    }

    fn classify(&self, call: &ToolCall) -> Option<Verdict> {
        let classify = method(&self.object, "classify").ok()?;
        let args = JSON::parse(&toolgate_core::json_text::WriteJson::to_json(&call.args)).ok()?;
        let object = js_sys::Object::new();
        Reflect::set(
            &object,
            &JsValue::from_str("tool"),
            &JsValue::from_str(&call.tool),
        )
        .ok()?;
        Reflect::set(&object, &JsValue::from_str("args"), &args).ok()?;
        let verdict = classify.call1(&self.object, &object).ok()?;
        let tier = Tier::parse(&string_field(&verdict, "tier")?)?;
        Some(Verdict::new(
            tier,
            string_field(&verdict, "rule")?,
            string_field(&verdict, "reason")?,
        ))
    }

    fn settle(&self, run_id: &str) -> Option<LocalFuture<Result<Option<Decided>, SourceError>>> {
        method(&self.object, "settle").ok()?;
        if let Err(e) = guard() {
            return Some(Box::pin(std::future::ready(Err(e))));
        }
        let answer = self.call("settle", &[JsValue::from_str(run_id)]);
        Some(Box::pin(async move {
            let value = answer.await?;
            Ok((!value.is_null() && !value.is_undefined()).then_some(Decided::Js(value)))
        }))
    }

    fn grants(&self) -> Option<Vec<GrantItem>> {
        let grants = method(&self.object, "grants").ok()?;
        // A listing that fails or is not an array shows none (grants only narrow what
        // asks; listing them decides nothing).
        let list = grants
            .call0(&self.object)
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Array>().ok());
        Some(list.map_or_else(Vec::new, |list| {
            list.iter()
                .filter_map(|g| {
                    Some(GrantItem {
                        id: string_field(&g, "id")?,
                        rule: string_field(&g, "rule")?,
                        matches: string_field(&g, "matches").unwrap_or_default(),
                        expires_at: Reflect::get(&g, &JsValue::from_str("expiresAt"))
                            .ok()?
                            .as_f64()
                            .filter(|n| *n >= 0.0)? as u64,
                        single_use: Reflect::get(&g, &JsValue::from_str("singleUse"))
                            .ok()
                            .and_then(|b| b.as_bool())
                            .unwrap_or(false),
                    })
                })
                .collect()
        }))
    }

    fn revoke_grant(&self, id: &str) -> LocalFuture<Result<bool, SourceError>> {
        if let Err(e) = guard() {
            return Box::pin(std::future::ready(Err(e)));
        }
        let answer = self.call("revokeGrant", &[JsValue::from_str(id)]);
        Box::pin(async move { Ok(answer.await?.as_bool() == Some(true)) })
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
