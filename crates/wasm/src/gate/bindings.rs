//! The JavaScript API: the class `Gate` is [`JsGate`], one `#[wasm_bindgen]` impl over a
//! Rust [`Gate`] whose methods decode their arguments, call the Rust API (approvals.rs,
//! runs.rs) and encode the result. Each operation has one Rust method and one binding,
//! named for their callers (`fail_run` here is `failRun` in JS and returns the run as
//! a JS object; `Gate::fail_run` returns a `Run`).

use super::approvals::remove_listener;
use super::notify::{remove_runs_listener, RunsListener};
use super::*;
use crate::clock::now_ms;
use crate::error::{into_error, GateError};
use crate::js::{read_js, to_js, AskJs, CheckJs, GateOptionsJs, PendingJs, QuestionJs, RespondJs};
use crate::js_runs::{park_parts, ParkJs, ResumeJs};
use std::rc::Rc;
use toolgate_core::wire::{ParkedView, ResumedView, RunView};
use toolgate_core::ToolCall;
use wasm_bindgen::prelude::*;

// The JavaScript class `Gate`: a Rust `Gate` seen from JS. Rust code can use it as the
// `Gate` it holds (it dereferences to it). Its doc comment is the class's JSDoc.
/// One session's gate. JS: `new Gate(policy, {sessionId, timeoutMs})`.
#[wasm_bindgen(js_name = Gate)]
pub struct JsGate {
    pub(super) gate: Gate,
}

impl From<Gate> for JsGate {
    fn from(gate: Gate) -> JsGate {
        JsGate { gate }
    }
}

impl JsGate {
    /// The Rust [`Gate`] (its methods are also reachable through `Deref`, but the
    /// bindings' names shadow those they share: `fail_run`, `owner`, …).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }
}

impl std::ops::Deref for JsGate {
    type Target = Gate;

    fn deref(&self) -> &Gate {
        &self.gate
    }
}

#[wasm_bindgen(js_class = Gate)]
impl JsGate {
    /// `new Gate(policy, {sessionId, timeoutMs?, maxTimeoutMs?, owner?, locks?})`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        policy: &Policy,
        #[wasm_bindgen(unchecked_param_type = "GateOptions")] options: JsValue,
    ) -> Result<JsGate, JsValue> {
        crate::poison::install();
        crate::poison::check()?;
        let o = GateOptionsJs::decode(options).map_err(into_error)?;
        Gate::create(policy, o.into_options())
            .map(JsGate::from)
            .map_err(into_error)
    }

    /// Resolves with the outcome: at once for `auto` / `deny`, else after a response,
    /// the deadline or a cleanup. Rejects (code `bad_input`, `disposed`) on bad calls.
    #[wasm_bindgen(unchecked_return_type = "Promise<CheckOutcome>")]
    pub fn check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CheckCall")] call: JsValue,
    ) -> js_sys::Promise {
        crate::poison::promise(|| {
            let fut = CheckJs::decode(call)
                .and_then(|c| {
                    let facts = c
                        .facts
                        .map(crate::js::FactsJs::into_core)
                        .unwrap_or_default();
                    self.gate.check_call_with_facts(
                        ToolCall::new(c.tool, c.args),
                        c.tool_call_id,
                        &facts,
                    )
                })
                .map_err(into_error)?;
            Ok(async move { to_js(&fut.await).map_err(into_error) })
        })
    }

    /// Pending approvals, oldest first.
    #[wasm_bindgen(unchecked_return_type = "PendingRequest[]")]
    pub fn pending(&self) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let st = self.gate.inner.state.borrow();
        let list: Vec<PendingJs> = st
            .registry
            .pending()
            .into_iter()
            .map(PendingJs::from)
            .collect();
        to_js(&list).map_err(into_error)
    }

    /// Answers pending request `id`; throws an `Error` with `.code` (`unknown_id`,
    /// `already_resolved`, `anchor_mismatch`, `hard_deny`, `scope_not_offered`, …).
    /// Returns how many requests it settled.
    pub fn respond(
        &self,
        id: &str,
        #[wasm_bindgen(unchecked_param_type = "PendingResponse")] response: JsValue,
    ) -> Result<u32, JsValue> {
        crate::poison::check()?;
        let r = RespondJs::decode(response).map_err(into_error)?;
        let (decision, anchor) = r.into_decision().map_err(into_error)?;
        let n = self
            .gate
            .respond_to(id, decision, &anchor)
            .map_err(into_error)?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// Asks a free-text question; resolves to `{outcome: "answered", answer}` or to
    /// `{outcome: "expired" | "cancelled"}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<QuestionOutcome>")]
    pub fn ask(
        &self,
        question: String,
        #[wasm_bindgen(unchecked_optional_param_type = "AskOptions")] options: Option<JsValue>,
    ) -> js_sys::Promise {
        crate::poison::promise(|| {
            let fut = AskJs::decode(options)
                .and_then(|o| self.gate.ask_question(question, o.timeout_ms))
                .map_err(into_error)?;
            Ok(async move { to_js(&fut.await).map_err(into_error) })
        })
    }

    /// Pending questions, oldest first.
    #[wasm_bindgen(unchecked_return_type = "PendingQuestion[]")]
    pub fn questions(&self) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let st = self.gate.inner.state.borrow();
        let list: Vec<QuestionJs> = st
            .registry
            .questions()
            .into_iter()
            .map(QuestionJs::from)
            .collect();
        to_js(&list).map_err(into_error)
    }

    /// Answers question `id`; throws like `respond`.
    pub fn answer(&self, id: &str, text: String) -> Result<(), JsValue> {
        crate::poison::check()?;
        self.gate.answer_question(id, text).map_err(into_error)
    }

    /// Cancels one pending request or question (e.g. the agent run was aborted).
    pub fn cancel(&self, id: &str) -> Result<(), JsValue> {
        crate::poison::check()?;
        self.gate.cancel_request(id).map_err(into_error)
    }

    /// Denies every pending approval with `reason` (the user moved on) and drops every
    /// question. Returns how many it settled.
    #[wasm_bindgen(js_name = denyAllPending)]
    pub fn deny_all_pending(&self, reason: &str) -> Result<u32, JsValue> {
        crate::poison::check()?;
        Ok({
            self.gate
                .inner
                .with(|st| {
                    let s = st.registry.deny_all_pending(reason, now_ms());
                    Ok((u32::try_from(s.len()).unwrap_or(u32::MAX), s, false))
                })
                .unwrap_or(0)
        })
    }

    /// The host reports that tool call `toolCallId` finished. True if it had been
    /// approved (or was auto) in this session; false means it ran without a grant.
    #[wasm_bindgen(js_name = afterToolCall)]
    pub fn after_tool_call(&self, tool_call_id: &str) -> Result<bool, JsValue> {
        crate::poison::check()?;
        Ok({
            self.gate
                .inner
                .state
                .borrow_mut()
                .registry
                .claim_slot(tool_call_id)
                .is_some()
        })
    }

    /// Calls `listener` after every change; returns the function that unsubscribes.
    #[wasm_bindgen(js_name = onChange, unchecked_return_type = "() => void")]
    pub fn on_change(
        &self,
        #[wasm_bindgen(unchecked_param_type = "() => void")] listener: js_sys::Function,
    ) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        Ok({
            let id = self.gate.add_listener(Listener::Js(listener));
            let gate = Rc::downgrade(&self.gate.inner);
            // Owned by the JS GC (freed when the function is collected); holds only a weak
            // reference, so it keeps nothing alive and is a no-op after dispose.
            Closure::<dyn FnMut()>::new(move || remove_listener(&gate, id)).into_js_value()
        })
    }

    /// Force-resolves everything pending: checks → `cancelled` (never approved),
    /// questions → nothing. Returns the counts. The gate stays usable.
    #[wasm_bindgen(unchecked_return_type = "CleanupCounts")]
    pub fn cleanup(&self) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        to_js(&self.gate.cleanup_counts()).map_err(into_error)
    }

    /// Resolves (as expired), then removes, entries older than `maxAgeMs`.
    #[wasm_bindgen(js_name = cleanupStale, unchecked_return_type = "CleanupCounts")]
    pub fn cleanup_stale(&self, max_age_ms: f64) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        if !(max_age_ms.is_finite() && max_age_ms >= 0.0) {
            // No float in the message: formatting one would link core's float
            // printing (7.7 KB gzipped, scripts/wasm-size) for this message alone.
            return Err(into_error(GateError::BadInput(
                "cleanupStale(maxAgeMs): a finite number >= 0".to_string(),
            )));
        }
        to_js(&self.gate.cleanup_stale_counts(max_age_ms as u64)).map_err(into_error)
    }

    /// Pending approvals plus questions.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> Result<u32, JsValue> {
        crate::poison::check()?;
        Ok({
            let n = self.gate.inner.state.borrow().registry.size();
            u32::try_from(n).unwrap_or(u32::MAX)
        })
    }

    /// Armed timers (0 or 1): the leak guard for tests.
    #[wasm_bindgen(getter, js_name = pendingTimers)]
    pub fn pending_timers(&self) -> Result<u32, JsValue> {
        crate::poison::check()?;
        Ok(u32::from(self.gate.inner.state.borrow().timer.is_some()))
    }

    /// Registered change listeners.
    #[wasm_bindgen(getter, js_name = listenerCount)]
    pub fn listener_count(&self) -> Result<u32, JsValue> {
        crate::poison::check()?;
        Ok({
            let n = self.gate.inner.state.borrow().listeners.len();
            u32::try_from(n).unwrap_or(u32::MAX)
        })
    }

    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> Result<String, JsValue> {
        crate::poison::check()?;
        Ok({
            self.gate
                .inner
                .state
                .borrow()
                .registry
                .session_id()
                .to_string()
        })
    }

    #[wasm_bindgen(getter)]
    pub fn disposed(&self) -> Result<bool, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.inner.state.borrow().disposed)
    }

    /// Cleans up (every pending Promise settles as cancelled / no answer), cancels the
    /// timer, removes the `pagehide` listener and every change listener, closes the
    /// runs channel. Parked runs stay in the store. Idempotent.
    pub fn dispose(&self) -> Result<(), JsValue> {
        crate::poison::check()?;
        if !self.gate.inner.state.borrow().disposed {
            self.gate.inner.teardown(true);
        }
        Ok(())
    }

    /// Parks a run: `{run, stopReason: "paused"}`. Throws with `.code`:
    /// `quota_exceeded`, `history_too_large`, `marker_too_large`, `bad_park` (e.g. a
    /// call the policy denies), `illegal_transition`, `run_id_taken`, `bad_input`, …
    #[wasm_bindgen(unchecked_return_type = "Parked")]
    pub fn park(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ParkRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let p =
            read_js(request, "park({runId, calls, history})", ParkJs::read).map_err(into_error)?;
        let (run_id, calls, history, ttl_ms) =
            park_parts(p, self.gate.owner(), &self.gate.inner.runs.session_id)
                .map_err(into_error)?;
        let parked = self
            .park_run(&run_id, calls, history, ttl_ms)
            .map_err(into_error)?;
        to_js(&ParkedView::from(&parked)).map_err(into_error)
    }

    /// The run (status, and the marker while it awaits permission) or `null`.
    #[wasm_bindgen(unchecked_return_type = "Run | null")]
    pub fn run(&self, run_id: &str) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        match self.gate.get_run(run_id).map_err(into_error)? {
            Some(run) => to_js(&RunView::from(&run)).map_err(into_error),
            None => Ok(JsValue::NULL),
        }
    }

    /// This owner's runs, by run id.
    #[wasm_bindgen(unchecked_return_type = "Run[]")]
    pub fn runs(&self) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let runs = self.gate.list_runs().map_err(into_error)?;
        to_js(&runs.iter().map(RunView::from).collect::<Vec<_>>()).map_err(into_error)
    }

    /// Resumes a parked run, exactly once (see `resumeGuarantee`). Rejects with
    /// `.code`: `already_resumed` (another tab, process or gate won), `expired`,
    /// `not_found`, `anchor_mismatch`, `missing_decision`, `unknown_tool_call`,
    /// `duplicate_decision`, `marker_corrupt`, `not_awaiting_permission`,
    /// `store_unavailable` (e.g. the IndexedDB claim failed: nothing changed, retry),
    /// `bad_input`, …
    #[wasm_bindgen(unchecked_return_type = "Promise<Resumed>")]
    pub fn resume(
        &self,
        run_id: String,
        #[wasm_bindgen(unchecked_param_type = "ResumeRequest")] request: JsValue,
    ) -> js_sys::Promise {
        crate::poison::promise(|| {
            let req = read_js(request, "resume(runId, {decisions})", ResumeJs::read)
                .map_err(into_error)?;
            // An approval with a scope asks the gate to keep it as a grant.
            let asked = req.decisions.iter().map(|d| d.grant_request()).collect();
            let decisions = req
                .into_decisions()
                .map_err(|m| into_error(GateError::BadInput(m)))?;
            let fut = self.gate.resume_granting(&run_id, decisions, asked);
            Ok(async move {
                let resumed = fut.await.map_err(into_error)?;
                to_js(&ResumedView::from(&resumed)).map_err(into_error)
            })
        })
    }

    /// Fails a run (`failed`, `lastError = why`, marker cleared); returns the run.
    #[wasm_bindgen(js_name = failRun, unchecked_return_type = "Run")]
    pub fn fail_run(&self, run_id: &str, why: &str) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let run = self.gate.fail_run(run_id, why).map_err(into_error)?;
        to_js(&RunView::from(&run)).map_err(into_error)
    }

    /// Records a new `running` run (optional: `park` creates it); returns the run.
    /// Throws `run_id_taken` / `illegal_transition` when the id is in use.
    #[wasm_bindgen(js_name = startRun, unchecked_return_type = "Run")]
    pub fn start_run(&self, run_id: &str) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let run = self.gate.start_run(run_id).map_err(into_error)?;
        to_js(&RunView::from(&run)).map_err(into_error)
    }

    /// Marks a `running` run `completed`; returns the run.
    #[wasm_bindgen(js_name = completeRun, unchecked_return_type = "Run")]
    pub fn complete_run(&self, run_id: &str) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let run = self.gate.complete_run(run_id).map_err(into_error)?;
        to_js(&RunView::from(&run)).map_err(into_error)
    }

    /// Deletes the record of a finished run (`completed`, `failed`, `cancelled`); throws
    /// `run_still_active` for a run that is running or awaiting permission.
    #[wasm_bindgen(js_name = forgetRun)]
    pub fn forget_run(&self, run_id: &str) -> Result<(), JsValue> {
        crate::poison::check()?;
        self.gate.forget_run(run_id).map_err(into_error)
    }

    /// Deletes this owner's finished runs whose status last changed `olderThanMs` or
    /// more ago (0: every finished run); returns how many. Records of finished runs stay
    /// in `localStorage` until forgotten or pruned.
    #[wasm_bindgen(js_name = pruneRuns)]
    pub fn prune_runs(&self, older_than_ms: f64) -> Result<u32, JsValue> {
        crate::poison::check()?;
        if older_than_ms.is_nan() || older_than_ms < 0.0 {
            return Err(into_error(GateError::BadInput(
                "pruneRuns(olderThanMs): a number >= 0".to_string(),
            )));
        }
        let pruned = self
            .gate
            .prune_runs(older_than_ms as u64)
            .map_err(into_error)?;
        Ok(u32::try_from(pruned.len()).unwrap_or(u32::MAX))
    }

    /// Calls `listener(change)` after every park / resume / failRun of this owner's
    /// runs, here or in another tab; returns the function that unsubscribes.
    #[wasm_bindgen(js_name = onRunsChange, unchecked_return_type = "() => void")]
    pub fn on_runs_change(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(change: RunsChange) => void")]
        listener: js_sys::Function,
    ) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        Ok({
            let notify = Rc::downgrade(&self.gate.inner.runs.notify);
            let id = match self.gate.check_open() {
                Ok(()) => self
                    .gate
                    .inner
                    .runs
                    .add_listener(RunsListener::Js(listener)),
                Err(_) => u32::MAX,
            };
            // Holds only a weak reference: keeps nothing alive, a no-op after dispose.
            Closure::<dyn FnMut()>::new(move || remove_runs_listener(&notify, id)).into_js_value()
        })
    }

    /// Registered `onRunsChange` listeners.
    #[wasm_bindgen(getter, js_name = runsListenerCount)]
    pub fn runs_listener_count(&self) -> Result<u32, JsValue> {
        crate::poison::check()?;
        Ok({
            let n = self.gate.inner.runs.notify.borrow().listeners.len();
            u32::try_from(n).unwrap_or(u32::MAX)
        })
    }

    /// The policy this gate classifies with (the one it was made with): its scopes and
    /// verdicts are the ones the gate's prompts offer (`gateRunSource` of
    /// `toolgate/element` reads them so).
    #[wasm_bindgen(getter)]
    pub fn policy(&self) -> Result<Policy, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.policy())
    }

    /// The owner whose runs this gate sees (default: the session id).
    #[wasm_bindgen(getter, js_name = owner)]
    pub fn owner(&self) -> Result<String, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.owner().to_string())
    }

    /// True when resume holds a Web Lock (`navigator.locks`) besides the CAS.
    #[wasm_bindgen(getter, js_name = usesLocks)]
    pub fn uses_locks(&self) -> Result<bool, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.uses_locks())
    }

    /// True while the change channel (BroadcastChannel) is open: false after dispose.
    #[wasm_bindgen(getter, js_name = channelOpen)]
    pub fn channel_open(&self) -> Result<bool, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.inner.runs.notify.borrow().channel.is_some())
    }

    /// `"indexeddb"`: resume is exactly once across every tab, worker and process of
    /// the origin (an IndexedDB claim); `"same-process"`: only within one renderer
    /// process (no IndexedDB here, or it failed to open). See `resumeGuaranteeReady()`.
    #[wasm_bindgen(getter, js_name = resumeGuarantee, unchecked_return_type = "ResumeGuarantee")]
    pub fn resume_guarantee(&self) -> Result<String, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.resume_guarantee().as_str().to_string())
    }

    /// Why resume is only same-process here, or `undefined`.
    #[wasm_bindgen(getter, js_name = resumeGuaranteeReason)]
    pub fn resume_guarantee_reason(&self) -> Result<Option<String>, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.resume_guarantee_reason())
    }

    /// Opens the claims database if needed; resolves to the guarantee `resume` gives.
    #[wasm_bindgen(js_name = resumeGuaranteeReady, unchecked_return_type = "Promise<ResumeGuarantee>")]
    pub fn resume_guarantee_ready(&self) -> js_sys::Promise {
        crate::poison::promise(|| {
            let fut = self.gate.resume_guarantee_ready();
            Ok(async move { Ok(JsValue::from_str(fut.await.as_str())) })
        })
    }

    /// Deletes resume claims old enough to guard nothing (markers expired everywhere);
    /// resolves to how many. Resume also prunes on its own, now and then.
    #[wasm_bindgen(js_name = pruneResumeClaims, unchecked_return_type = "Promise<number>")]
    pub fn prune_resume_claims(&self) -> js_sys::Promise {
        crate::poison::promise(|| {
            let fut = self.gate.prune_resume_claims();
            Ok(async move {
                let n = fut.await.map_err(into_error)?;
                Ok(JsValue::from_f64(f64::from(n)))
            })
        })
    }

    /// True while the IndexedDB connection of the resume claims is open (opened by the
    /// first resume; false after dispose).
    #[wasm_bindgen(getter, js_name = claimsOpen)]
    pub fn claims_open(&self) -> Result<bool, JsValue> {
        crate::poison::check()?;
        Ok(self.gate.inner.runs.claims.is_open())
    }
}
