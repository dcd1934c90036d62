//! The JavaScript entry points of the panel's bundle (the demo's, which also exports
//! toolgate-wasm's `Gate` and `Policy`, and the package's `toolgate/element`):
//! - `mountApprovalSource(element, source, onResumed)`: the prompts over runs a
//!   JavaScript object reads and resumes (what `<toolgate-approval>` calls,
//!   `web/element/element.js`: a gate of the main entry through its `gateRunSource`, or
//!   `toolgate/http`'s server source; `js_source`);
//! - `mountApprovalPanel(id, options, onResumed)`: the demo's whole panel (prompts, run
//!   list, playground) through a gate of its own over the same store.

use std::rc::Rc;
use std::sync::atomic::Ordering;

use leptos::prelude::*;
#[cfg(feature = "demo")]
use toolgate_wasm::{into_error, resumed_to_js, GateError};
use wasm_bindgen::prelude::*;

#[cfg(feature = "element")]
use crate::components::approvals::Approvals;
#[cfg(feature = "demo")]
use crate::source::BrowserSource;
use crate::source::{Decided, RunSource};
use crate::use_run_poll::POLLS;

/// The module's panic guard: toolgate-wasm's in the demo (it covers its `Policy` and
/// `Gate` too), the panel's own in the element.
#[cfg(not(feature = "demo"))]
use crate::poison;
#[cfg(feature = "demo")]
use toolgate_wasm::poison;

/// A `bad_input` error, as toolgate's other errors are.
#[cfg(feature = "element")]
fn bad_input(message: String) -> JsValue {
    #[cfg(feature = "demo")]
    return into_error(GateError::BadInput(message));
    #[cfg(not(feature = "demo"))]
    return poison::error("bad_input", &format!("bad input: {message}"));
}

/// A mounted panel. `dispose()` unmounts it (its gate, intervals, listeners and
/// channels are cleaned up with it).
#[wasm_bindgen]
pub struct PanelHandle {
    handle: Option<leptos::mount::UnmountHandle<leptos::tachys::view::any_view::AnyViewState>>,
}

#[wasm_bindgen]
impl PanelHandle {
    /// Polls done by this page so far.
    #[wasm_bindgen(getter)]
    pub fn polls(&self) -> f64 {
        POLLS.load(Ordering::Relaxed) as f64
    }

    pub fn dispose(&mut self) {
        self.handle.take();
    }
}

/// The prefix of the `localStorage` keys toolgate's `LocalStore` keeps runs under (one
/// key per run), so the page need not spell it out.
#[cfg(feature = "demo")]
#[wasm_bindgen(js_name = runKeyPrefix)]
pub fn run_key_prefix() -> String {
    toolgate_wasm::KEY_PREFIX.to_string()
}

/// `options[name]` as a string; `None` when absent.
#[cfg(feature = "demo")]
fn string_option(options: &JsValue, name: &str) -> Result<Option<String>, JsValue> {
    let v = js_sys::Reflect::get(options, &JsValue::from_str(name)).map_err(|_| {
        into_error(GateError::BadInput(
            "mountApprovalPanel: options must be an object".to_string(),
        ))
    })?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string().map(Some).ok_or_else(|| {
        into_error(GateError::BadInput(format!(
            "mountApprovalPanel: options.{name} must be a string"
        )))
    })
}

/// `onResumed` as the panel calls it: with what `gate.resume` resolves with (or what a
/// JavaScript source's `resume` did). A throwing host callback must not break the panel.
fn resumed_callback(on_resumed: js_sys::Function) -> Rc<dyn Fn(Decided)> {
    Rc::new(move |d: Decided| {
        let value = match d {
            #[cfg(feature = "demo")]
            Decided::Resumed(r) => resumed_to_js(&r),
            // Only toolgate-wasm's gate (the demo's) resumes in this module.
            #[cfg(not(feature = "demo"))]
            Decided::Resumed(_) => Err(JsValue::NULL),
            Decided::Js(v) => Ok(v),
        };
        if let Ok(v) = value {
            let _ = on_resumed.call1(&JsValue::NULL, &v);
        }
    })
}

/// Mounts the prompts of `source` into `element`.
#[cfg(feature = "element")]
fn mount_prompts(
    element: web_sys::HtmlElement,
    source: Rc<dyn RunSource>,
    on_resumed: js_sys::Function,
) -> PanelHandle {
    let resumed = resumed_callback(on_resumed);
    let handle = leptos::mount::mount_to(element, move || {
        let source = StoredValue::new_local(source);
        let on_resumed = StoredValue::new_local(resumed);
        view! { <Approvals source on_resumed /> }.into_any()
    });
    PanelHandle {
        handle: Some(handle),
    }
}

/// Test-only (`panic-probe`): panics in the element's module, as a bug would.
#[cfg(all(feature = "panic-probe", not(feature = "demo")))]
#[wasm_bindgen(js_name = __toolgatePanelPanicProbe)]
pub fn panel_panic_probe() {
    poison::install();
    panic!("TOOLGATE_PANEL_PANIC_PROBE");
}

/// Mounts the approval prompts into `element` over the runs `source` reads and resumes:
/// an object with `runs()` (a promise of `{runs}` as `GET /v1/runs` answers, its JSON
/// text, or `null` for "unchanged") and `resume(runId, decisions)` (a promise of what
/// `onResumed` then receives; a rejection with `{code, message, decidedBy?}` is shown
/// and decides nothing). An object without those methods is refused with `bad_input`.
#[cfg(feature = "element")]
#[wasm_bindgen(js_name = mountApprovalSource)]
pub fn mount_approval_source(
    element: web_sys::HtmlElement,
    source: JsValue,
    on_resumed: js_sys::Function,
) -> Result<PanelHandle, JsValue> {
    #[cfg(not(feature = "demo"))]
    poison::install();
    poison::check()?;
    let source = crate::js_source::JsSource::new(source)
        .map_err(|e| bad_input(format!("mountApprovalSource: {e}")))?;
    Ok(mount_prompts(element, Rc::new(source), on_resumed))
}

/// Mounts the approval panel into the element with id `elementId`.
/// `options`: `{owner, policyToml, sessionId?}` — the panel shows and resumes `owner`'s
/// runs (as `new Gate(policy, {sessionId, owner})` sees them); `policyToml` gives the
/// "always allow" scopes and seeds the playground. `onResumed(resumed)` is called with
/// what `gate.resume` resolves with (`{runId, sessionId, results, history, revision}`)
/// after this page resumes a run.
#[cfg(feature = "demo")]
#[wasm_bindgen(js_name = mountApprovalPanel)]
pub fn mount_approval_panel(
    element_id: &str,
    options: JsValue,
    on_resumed: js_sys::Function,
) -> Result<PanelHandle, JsValue> {
    poison::check()?;
    let missing = |what: &str| {
        into_error(GateError::BadInput(format!(
            "mountApprovalPanel: options.{what} is required"
        )))
    };
    let owner = string_option(&options, "owner")?.ok_or_else(|| missing("owner"))?;
    let toml = string_option(&options, "policyToml")?.ok_or_else(|| missing("policyToml"))?;
    let session_id = string_option(&options, "sessionId")?.unwrap_or_else(|| owner.clone());
    let policy = toolgate_wasm::Policy::from_core(
        toolgate_core::Policy::from_toml(&toml).map_err(into_error)?,
    );
    let element = document()
        .get_element_by_id(element_id)
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        .ok_or_else(|| {
            into_error(GateError::BadInput(format!(
                "mountApprovalPanel: no HTML element #{element_id}"
            )))
        })?;
    let mut gate_options = toolgate_wasm::GateOptions::new(session_id);
    gate_options.owner = Some(owner);
    let gate = toolgate_wasm::Gate::create(&policy, gate_options).map_err(into_error)?;
    let source: Rc<dyn RunSource> = Rc::new(BrowserSource::new(gate, policy));
    let resumed = resumed_callback(on_resumed);
    let handle = leptos::mount::mount_to(element, move || {
        let source = StoredValue::new_local(source);
        let on_resumed = StoredValue::new_local(resumed);
        view! { <crate::components::app::App source on_resumed policy_toml=toml /> }.into_any()
    });
    Ok(PanelHandle {
        handle: Some(handle),
    })
}
