//! The JavaScript entry points of the demo bundle: `mountApprovalPanel(...)` and
//! `RunStore` (park / run / runs / resume / complete / failRun over `localStorage`, for
//! the demo's agent). The bundle also exports toolgate-wasm's `Gate` and `Policy`.

use std::rc::Rc;
use std::sync::atomic::Ordering;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use toolgate_core::{Park, ParkCall, Policy, ResumeDecision, Resumed, ToolCall, Verdict};
use wasm_bindgen::prelude::*;

use crate::components::app::App;
use crate::local_store::{clear_all, notify_changed, now_ms, shared_runs, with_lock};
use crate::source::{BrowserSource, RunSource};
use crate::use_run_poll::POLLS;

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value
        .serialize(&ser)
        .map_err(|e| error("bad_input", &format!("cannot encode: {e}")))
}

fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| error("bad_input", &format!("{what}: {e}")))
}

fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = js_sys::Reflect::set(&e, &JsValue::from_str("code"), &JsValue::from_str(code));
    e.into()
}

fn core_error(e: toolgate_core::Error) -> JsValue {
    error(e.code(), &e.to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MountOptions {
    owner: String,
    policy_toml: String,
}

/// A mounted panel. `dispose()` unmounts it (intervals, listeners and channels are
/// cleaned up with it).
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

/// Mounts the approval panel into the element with id `elementId`.
/// `options`: `{owner, policyToml}`; `onResumed(resumed)` is called with
/// `{run_id, session_id, results, history, revision}` after this page resumes a run.
#[wasm_bindgen(js_name = mountApprovalPanel)]
pub fn mount_approval_panel(
    element_id: &str,
    options: JsValue,
    on_resumed: js_sys::Function,
) -> Result<PanelHandle, JsValue> {
    let o: MountOptions = from_js(options, "mountApprovalPanel options")?;
    let policy = Policy::from_toml(&o.policy_toml).map_err(core_error)?;
    let element = document()
        .get_element_by_id(element_id)
        .ok_or_else(|| error("bad_input", &format!("no element #{element_id}")))?;
    let element: web_sys::HtmlElement = wasm_bindgen::JsCast::dyn_into(element).map_err(|_| {
        error(
            "bad_input",
            &format!("#{element_id} is not an HTML element"),
        )
    })?;
    let source: Rc<dyn RunSource> = Rc::new(BrowserSource::new(o.owner, Rc::new(policy)));
    let resumed: Rc<dyn Fn(Resumed)> = Rc::new(move |r: Resumed| {
        if let Ok(v) = to_js(&r) {
            // A throwing host callback must not break the panel.
            let _ = on_resumed.call1(&JsValue::NULL, &v);
        }
    });
    let toml = o.policy_toml;
    let handle = leptos::mount::mount_to(element, move || {
        let source = StoredValue::new_local(source);
        let on_resumed = StoredValue::new_local(resumed);
        view! { <App source on_resumed policy_toml=toml /> }.into_any()
    });
    Ok(PanelHandle {
        handle: Some(handle),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ParkCallJs {
    tool_call_id: String,
    tool: String,
    #[serde(default)]
    args: serde_json::Value,
    verdict: Verdict,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ParkJs {
    run_id: String,
    session_id: String,
    #[serde(default)]
    calls: Vec<ParkCallJs>,
    history: String,
    #[serde(default)]
    ttl_ms: Option<u64>,
}

#[derive(Deserialize)]
struct ResumeJs {
    decisions: Vec<ResumeDecision>,
}

/// Runs of one owner in `localStorage` (interim twin of the coming `gate.park` API).
#[wasm_bindgen]
pub struct RunStore {
    owner: String,
}

#[wasm_bindgen]
impl RunStore {
    #[wasm_bindgen(constructor)]
    pub fn new(owner: String) -> RunStore {
        RunStore { owner }
    }

    /// Parks a run: `{runId, sessionId, calls: [{toolCallId, tool, args, verdict}],
    /// history, ttlMs?}` → `{run, stop_reason: "paused"}`.
    pub fn park(&self, park: JsValue) -> Result<JsValue, JsValue> {
        let p: ParkJs = from_js(park, "park(request)")?;
        let park = Park {
            run_id: p.run_id,
            session_id: p.session_id,
            owner: self.owner.clone(),
            calls: p
                .calls
                .into_iter()
                .map(|c| ParkCall {
                    tool_call_id: c.tool_call_id,
                    call: ToolCall::new(c.tool, c.args),
                    verdict: c.verdict,
                })
                .collect(),
            history: p.history,
            ttl_ms: p.ttl_ms,
        };
        let id = park.run_id.clone();
        let parked = shared_runs().park(park, now_ms()).map_err(core_error)?;
        notify_changed(&id);
        to_js(&parked)
    }

    /// Starts a `running` run.
    pub fn start(&self, run_id: &str, session_id: &str) -> Result<JsValue, JsValue> {
        let run = shared_runs()
            .start(run_id, session_id, &self.owner, now_ms())
            .map_err(core_error)?;
        notify_changed(run_id);
        to_js(&run)
    }

    /// The run (with its marker while parked), or `null`.
    pub fn run(&self, run_id: &str) -> Result<JsValue, JsValue> {
        let run = shared_runs().run(run_id, now_ms()).map_err(core_error)?;
        to_js(&run.filter(|r| r.owner == self.owner || r.owner.is_empty()))
    }

    /// Every run of this owner.
    pub fn runs(&self) -> Result<JsValue, JsValue> {
        let runs: Vec<_> = shared_runs()
            .runs(now_ms())
            .map_err(core_error)?
            .into_iter()
            .filter(|r| r.owner == self.owner)
            .collect();
        to_js(&runs)
    }

    /// Resumes with `{decisions: [{tool_call_id, anchor, decision, scope?|message?}]}`
    /// under a cross-tab lock; rejects with `.code === "already_resumed"` for a loser.
    pub async fn resume(&self, run_id: String, decisions: JsValue) -> Result<JsValue, JsValue> {
        let r: ResumeJs = from_js(decisions, "resume(runId, {decisions})")?;
        let owner = self.owner.clone();
        let id = run_id.clone();
        let got = with_lock(&format!("toolgate-run:{run_id}"), move || {
            shared_runs().resume(&id, &owner, &r.decisions, now_ms())
        })
        .await
        .ok_or_else(|| error("lost", "the resume was lost"))?;
        notify_changed(&run_id);
        to_js(&got.map_err(core_error)?)
    }

    pub fn complete(&self, run_id: &str) -> Result<JsValue, JsValue> {
        let run = shared_runs()
            .complete(run_id, &self.owner, now_ms())
            .map_err(core_error)?;
        notify_changed(run_id);
        to_js(&run)
    }

    #[wasm_bindgen(js_name = failRun)]
    pub fn fail_run(&self, run_id: &str, why: &str) -> Result<JsValue, JsValue> {
        let run = shared_runs()
            .fail(run_id, &self.owner, why, now_ms())
            .map_err(core_error)?;
        notify_changed(run_id);
        to_js(&run)
    }

    /// Removes every run record (the demo's reset).
    pub fn clear(&self) -> Result<(), JsValue> {
        clear_all().map_err(core_error)?;
        notify_changed("*");
        Ok(())
    }
}
