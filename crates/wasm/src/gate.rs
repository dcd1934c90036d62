//! `Gate`: one session's pending approvals and questions, driven by a real timer.
//!
//! The registry (toolgate-core) decides; this file only wires it to the browser: one
//! `setTimeout` (gloo-timers) armed for the earliest deadline, a `pagehide` listener
//! that cleans up, Promises for waiters, and change listeners. Every registry call
//! returns the requests it settled, and each one wakes exactly one waiter.

mod park;

use crate::clock::now_ms;
use crate::error::{into_error, GateError};
use crate::ids::CryptoIds;
use crate::js::{from_js, to_js, CheckJs, GateOptionsJs, PendingJs, QuestionJs, RespondJs};
use crate::oneshot::{self, Sender};
use crate::policy::Policy;
use crate::storage::LocalStore;
use gloo_timers::callback::Timeout;
use park::RunsPart;
pub use park::{ChangeSource, RunsChange, RunsSubscription};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};
use toolgate_core::registry::IdBuildHasher;
use toolgate_core::{
    CleanupCounts, Decision, MarkerStore, NewRequest, Outcome, Pending, PendingQuestion,
    QuestionOutcome, Registry, RegistryConfig, RequestId, Settled, Tier, ToolCall, Verdict,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Default timeout of a check: 2 minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// Options of a [`Gate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOptions {
    pub session_id: String,
    pub timeout_ms: u64,
    pub registry: RegistryConfig,
    /// Whose runs this gate parks, sees and resumes; `None`: the session id.
    pub owner: Option<String>,
    /// Resume under a Web Lock where `navigator.locks` exists (default true). The
    /// revision compare-and-swap guards every resume either way.
    pub locks: bool,
}

impl GateOptions {
    pub fn new(session_id: impl Into<String>) -> GateOptions {
        GateOptions {
            session_id: session_id.into(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            registry: RegistryConfig::default(),
            owner: None,
            locks: true,
        }
    }
}

/// How a check ended, with the verdict that sent it where it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckOutcome {
    #[serde(flatten)]
    pub outcome: Outcome,
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// A check in progress: resolves to its [`CheckOutcome`]. A waiter whose gate is
/// freed unanswered resolves as cancelled, never approved.
#[must_use = "a check does nothing unless awaited"]
pub struct CheckFuture {
    id: Option<RequestId>,
    verdict: Verdict,
    tool_call_id: Option<String>,
    rx: oneshot::Receiver<Outcome>,
}

impl CheckFuture {
    /// The pending request's id (`None` when the verdict was `auto` or `deny`).
    pub fn id(&self) -> Option<RequestId> {
        self.id
    }
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }
}

impl Future for CheckFuture {
    type Output = CheckOutcome;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CheckOutcome> {
        let this = &mut *self;
        Pin::new(&mut this.rx).poll(cx).map(|o| CheckOutcome {
            outcome: o.unwrap_or(Outcome::Cancelled),
            verdict: this.verdict.clone(),
            id: this.id,
            tool_call_id: this.tool_call_id.clone(),
        })
    }
}

enum Waiter {
    Approval(Sender<Outcome>),
    Question(Sender<QuestionOutcome>),
}

enum Listener {
    Js(js_sys::Function),
    Rust(Rc<dyn Fn()>),
}

impl Listener {
    fn call(&self) {
        match self {
            // A throwing listener must not break the gate: its exception is dropped.
            Listener::Js(f) => {
                let _ = f.call0(&JsValue::NULL);
            }
            Listener::Rust(f) => f(),
        }
    }
}

struct State {
    registry: Registry,
    waiters: HashMap<RequestId, Waiter, IdBuildHasher>,
    /// The one armed timer and the deadline it is for.
    timer: Option<(u64, Timeout)>,
    listeners: Vec<(u32, Rc<Listener>)>,
    next_listener: u32,
    pagehide: Option<Closure<dyn FnMut()>>,
    disposed: bool,
}

struct Inner {
    policy: Rc<toolgate_core::Policy>,
    timeout_ms: u64,
    state: RefCell<State>,
    /// Parked runs: store, owner, locks, change channel (see `park.rs`).
    runs: RunsPart,
}

/// What a mutation leaves to do once the state borrow is released: wake waiters,
/// then tell listeners. (Listeners may call back into the gate.)
#[derive(Default)]
struct Effects {
    wake: Vec<(Waiter, Settled)>,
    listeners: Vec<Rc<Listener>>,
}

impl Effects {
    fn run(self) {
        for (waiter, settled) in self.wake {
            match (waiter, settled) {
                (Waiter::Approval(tx), Settled::Approval { outcome, .. }) => tx.send(outcome),
                (Waiter::Question(tx), Settled::Question { outcome, .. }) => tx.send(outcome),
                // A kind mismatch cannot happen (ids are unique); dropping the sender
                // resolves the waiter as cancelled, never approved.
                (Waiter::Approval(_), Settled::Question { .. })
                | (Waiter::Question(_), Settled::Approval { .. }) => {}
            }
        }
        for l in self.listeners {
            l.call();
        }
    }
}

/// One session's gate. JS: `new Gate(policy, {sessionId, timeoutMs})`.
#[wasm_bindgen]
pub struct Gate {
    inner: Rc<Inner>,
}

impl Inner {
    /// Takes the waiters of `settled`, re-arms the timer, and (if `changed`) collects
    /// the listeners to notify.
    fn finish(self: &Rc<Self>, st: &mut State, settled: Vec<Settled>, changed: bool) -> Effects {
        let mut fx = Effects::default();
        let changed = changed || !settled.is_empty();
        for s in settled {
            if let Some(w) = st.waiters.remove(&s.id()) {
                fx.wake.push((w, s));
            }
        }
        self.rearm(st);
        if changed {
            fx.listeners = st.listeners.iter().map(|(_, l)| l.clone()).collect();
        }
        fx
    }

    /// Keeps exactly one timer armed for the earliest deadline (none when nothing is
    /// pending). A timer armed for a deadline that is no longer the earliest is left to
    /// fire and re-arm, which saves a clear+set on every answer.
    fn rearm(self: &Rc<Self>, st: &mut State) {
        let next = st.registry.next_deadline();
        let armed = st.timer.as_ref().map(|(d, _)| *d);
        match (next, armed) {
            (None, Some(_)) => st.timer = None,
            (Some(n), None) => st.timer = Some((n, self.arm(n))),
            (Some(n), Some(a)) if n < a => st.timer = Some((n, self.arm(n))),
            (Some(_), Some(_)) | (None, None) => {}
        }
    }

    fn arm(self: &Rc<Self>, deadline: u64) -> Timeout {
        let delay = deadline.saturating_sub(now_ms()).min(i32::MAX as u64) as u32;
        let weak: Weak<Inner> = Rc::downgrade(self);
        Timeout::new(delay, move || {
            if let Some(inner) = weak.upgrade() {
                inner.on_timer();
            }
        })
    }

    fn on_timer(self: &Rc<Self>) {
        let (fx, fired) = {
            let mut st = self.state.borrow_mut();
            let fired = st.timer.take();
            let settled = st.registry.expire_due(now_ms());
            (self.finish(&mut st, settled, false), fired)
        };
        drop(fired);
        fx.run();
    }

    fn with<T>(
        self: &Rc<Self>,
        f: impl FnOnce(&mut State) -> Result<(T, Vec<Settled>, bool), GateError>,
    ) -> Result<T, GateError> {
        let (value, fx) = {
            let mut st = self.state.borrow_mut();
            let (value, settled, changed) = f(&mut st)?;
            (value, self.finish(&mut st, settled, changed))
        };
        fx.run();
        Ok(value)
    }

    fn teardown(&self, notify: bool) -> CleanupCounts {
        let (counts, wake, listeners, timer, pagehide) = {
            let mut st = self.state.borrow_mut();
            let c = st.registry.cleanup(now_ms());
            let mut wake = Vec::with_capacity(c.settled.len());
            for s in c.settled {
                if let Some(w) = st.waiters.remove(&s.id()) {
                    wake.push((w, s));
                }
            }
            let listeners: Vec<Rc<Listener>> = if notify {
                st.listeners.iter().map(|(_, l)| l.clone()).collect()
            } else {
                Vec::new()
            };
            st.disposed = true;
            st.listeners.clear();
            let waiters = std::mem::take(&mut st.waiters);
            drop(waiters); // any stray waiter resolves as cancelled
            (
                c.counts,
                wake,
                listeners,
                st.timer.take(),
                st.pagehide.take(),
            )
        };
        drop(timer);
        self.runs.close();
        if let Some(cb) = pagehide {
            if let Some(w) = web_sys::window() {
                let _ =
                    w.remove_event_listener_with_callback("pagehide", cb.as_ref().unchecked_ref());
            }
        }
        Effects { wake, listeners }.run();
        counts
    }
}

impl Drop for Inner {
    /// Freed without `dispose()`: still settle every waiter (as cancelled), cancel the
    /// timer and remove the `pagehide` listener.
    fn drop(&mut self) {
        if !self.state.borrow().disposed {
            self.teardown(false);
        }
    }
}

/// Rust-side API (also used by the JS methods below).
impl Gate {
    /// A gate for one session; parked runs live in `localStorage` (see `LocalStore`).
    pub fn create(policy: &Policy, options: GateOptions) -> Result<Gate, GateError> {
        Gate::create_with_store(policy, options, Rc::new(LocalStore::new()))
    }

    /// A gate whose parked runs live in `store` (e.g. a `MemoryStore` in tests).
    pub fn create_with_store(
        policy: &Policy,
        options: GateOptions,
        store: Rc<dyn MarkerStore>,
    ) -> Result<Gate, GateError> {
        let ids = CryptoIds::new()?;
        let owner = options.owner.unwrap_or_else(|| options.session_id.clone());
        let runs = RunsPart::new(store, options.session_id.clone(), owner, options.locks);
        let registry = Registry::new(options.session_id, options.registry, ids);
        let inner = Rc::new(Inner {
            policy: policy.shared(),
            timeout_ms: options.timeout_ms,
            runs,
            state: RefCell::new(State {
                registry,
                waiters: HashMap::default(),
                timer: None,
                listeners: Vec::new(),
                next_listener: 0,
                pagehide: None,
                disposed: false,
            }),
        });
        // `pagehide` (windows only; workers have no page) → cleanup.
        if let Some(window) = web_sys::window() {
            let weak = Rc::downgrade(&inner);
            let cb = Closure::<dyn FnMut()>::new(move || {
                if let Some(inner) = weak.upgrade() {
                    Gate { inner }.cleanup_counts();
                }
            });
            if window
                .add_event_listener_with_callback("pagehide", cb.as_ref().unchecked_ref())
                .is_ok()
            {
                inner.state.borrow_mut().pagehide = Some(cb);
            }
        }
        Ok(Gate { inner })
    }

    /// Classifies `call` (with this session's rules) and, if it is `ask`, holds it until
    /// a response, expiry or cleanup. `auto` and `deny` resolve at once.
    pub fn check_call(
        &self,
        call: ToolCall,
        tool_call_id: Option<String>,
    ) -> Result<CheckFuture, GateError> {
        self.check_call_with_facts(call, tool_call_id, &toolgate_core::facts::FsFacts::new())
    }

    /// [`Gate::check_call`] classifying with what the host found on its file system.
    pub fn check_call_with_facts(
        &self,
        call: ToolCall,
        tool_call_id: Option<String>,
        facts: &toolgate_core::facts::FsFacts,
    ) -> Result<CheckFuture, GateError> {
        let inner = &self.inner;
        inner.with(|st| {
            if st.disposed {
                return Err(GateError::Disposed);
            }
            let now = now_ms();
            let verdict = st.registry.classify_with_facts(&inner.policy, &call, facts);
            let (tx, rx) = oneshot::channel();
            let mut fut = CheckFuture {
                id: None,
                verdict,
                tool_call_id,
                rx,
            };
            match fut.verdict.tier {
                Tier::Auto => {
                    let swept = match &fut.tool_call_id {
                        Some(t) => st.registry.reserve_slot(t.clone(), call.anchor(), now),
                        None => Vec::new(),
                    };
                    tx.send(Outcome::Approved);
                    Ok((fut, swept, false))
                }
                Tier::Deny => {
                    tx.send(Outcome::Denied {
                        message: Some(fut.verdict.reason.to_string()),
                    });
                    Ok((fut, Vec::new(), false))
                }
                Tier::Ask => {
                    let scopes = inner.policy.scopes(&call);
                    let new = NewRequest {
                        call,
                        verdict: fut.verdict.clone(),
                        tool_call_id: fut.tool_call_id.clone(),
                        scopes,
                    };
                    let got = st.registry.request(new, inner.timeout_ms, now)?;
                    st.waiters.insert(got.id, Waiter::Approval(tx));
                    fut.id = Some(got.id);
                    Ok((fut, got.expired, true))
                }
            }
        })
    }

    /// Answers pending request `id` (its 32-hex-digit id). Returns how many requests
    /// this settled (more than one when an always-rule covers others).
    pub fn respond_to(
        &self,
        id: &str,
        decision: Decision,
        anchor: &str,
    ) -> Result<usize, GateError> {
        let id = parse_id(id)?;
        let inner = &self.inner;
        inner.with(|st| {
            let settled = st
                .registry
                .respond(id, decision, anchor, &inner.policy, now_ms())?;
            Ok((settled.len(), settled, true))
        })
    }

    /// Asks the user a free-text question; resolves to the answer or to nothing.
    pub fn ask_question(
        &self,
        question: String,
        timeout_ms: Option<u64>,
    ) -> Result<impl Future<Output = QuestionOutcome> + 'static, GateError> {
        let inner = &self.inner;
        let rx = inner.with(|st| {
            if st.disposed {
                return Err(GateError::Disposed);
            }
            let got =
                st.registry
                    .ask(question, timeout_ms.unwrap_or(inner.timeout_ms), now_ms())?;
            let (tx, rx) = oneshot::channel();
            st.waiters.insert(got.id, Waiter::Question(tx));
            Ok((rx, got.expired, true))
        })?;
        Ok(async move { rx.await.unwrap_or(QuestionOutcome::Cancelled) })
    }

    /// Answers question `id`.
    pub fn answer_question(&self, id: &str, text: String) -> Result<(), GateError> {
        let id = parse_id(id)?;
        self.inner.with(|st| {
            let settled = st.registry.answer(id, text, now_ms())?;
            Ok(((), settled, true))
        })
    }

    /// Cancels one pending request or question.
    pub fn cancel_request(&self, id: &str) -> Result<(), GateError> {
        let id = parse_id(id)?;
        self.inner.with(|st| {
            let settled = st.registry.cancel(id, now_ms())?;
            Ok(((), settled, true))
        })
    }

    /// Pending approvals, oldest first.
    pub fn pending_requests(&self) -> Vec<Pending> {
        let st = self.inner.state.borrow();
        st.registry
            .pending()
            .iter()
            .map(|p| p.to_pending())
            .collect()
    }

    /// Pending questions, oldest first.
    pub fn pending_questions(&self) -> Vec<PendingQuestion> {
        let st = self.inner.state.borrow();
        st.registry.questions().into_iter().cloned().collect()
    }

    /// Force-resolves everything pending (approvals → cancelled), returns the counts.
    /// The gate stays usable.
    pub fn cleanup_counts(&self) -> CleanupCounts {
        self.inner
            .with(|st| {
                let c = st.registry.cleanup(now_ms());
                Ok((c.counts, c.settled, false))
            })
            .unwrap_or_default()
    }

    /// Resolves, then removes, entries older than `max_age_ms` (as expired).
    pub fn cleanup_stale_counts(&self, max_age_ms: u64) -> CleanupCounts {
        self.inner
            .with(|st| {
                let c = st.registry.cleanup_stale(max_age_ms, now_ms());
                Ok((c.counts, c.settled, false))
            })
            .unwrap_or_default()
    }

    /// Calls `f` after every change (new request, settled request). Dropping the
    /// returned [`Subscription`] unsubscribes.
    pub fn subscribe(&self, f: impl Fn() + 'static) -> Subscription {
        let id = self.add_listener(Listener::Rust(Rc::new(f)));
        Subscription {
            gate: Rc::downgrade(&self.inner),
            id,
        }
    }

    fn add_listener(&self, l: Listener) -> u32 {
        let mut st = self.inner.state.borrow_mut();
        if st.disposed {
            return u32::MAX;
        }
        st.next_listener = st.next_listener.wrapping_add(1);
        let id = st.next_listener;
        st.listeners.push((id, Rc::new(l)));
        id
    }
}

fn remove_listener(gate: &Weak<Inner>, id: u32) {
    if let Some(inner) = gate.upgrade() {
        if let Ok(mut st) = inner.state.try_borrow_mut() {
            st.listeners.retain(|(i, _)| *i != id);
        }
    }
}

fn parse_id(id: &str) -> Result<RequestId, GateError> {
    RequestId::parse(id)
        .ok_or_else(|| GateError::Core(toolgate_core::Error::UnknownId { id: id.to_string() }))
}

/// A change subscription; unsubscribes on drop.
#[must_use = "dropping the subscription unsubscribes"]
pub struct Subscription {
    gate: Weak<Inner>,
    id: u32,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        remove_listener(&self.gate, self.id);
    }
}

#[wasm_bindgen]
impl Gate {
    /// `new Gate(policy, {sessionId, timeoutMs?, maxTimeoutMs?, owner?, locks?})`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        policy: &Policy,
        #[wasm_bindgen(unchecked_param_type = "GateOptions")] options: JsValue,
    ) -> Result<Gate, JsValue> {
        let o: GateOptionsJs =
            from_js(options, "new Gate(policy, {sessionId, timeoutMs})").map_err(into_error)?;
        let mut opts = GateOptions::new(o.session_id);
        if let Some(t) = o.timeout_ms {
            opts.timeout_ms = t;
        }
        if let Some(m) = o.max_timeout_ms {
            opts.registry.max_timeout_ms = m;
        }
        opts.owner = o.owner;
        opts.locks = o.locks.unwrap_or(true);
        Gate::create(policy, opts).map_err(into_error)
    }

    /// Resolves with the outcome: at once for `auto` / `deny`, else after a response,
    /// the deadline or a cleanup. Rejects (code `bad_input`, `disposed`) on bad calls.
    #[wasm_bindgen(unchecked_return_type = "Promise<CheckOutcome>")]
    pub fn check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CheckCall")] call: JsValue,
    ) -> js_sys::Promise {
        let fut =
            from_js::<CheckJs>(call, "check({tool, args, toolCallId, facts})").and_then(|c| {
                let facts = c
                    .facts
                    .map(crate::js::FactsJs::into_core)
                    .unwrap_or_default();
                self.check_call_with_facts(ToolCall::new(c.tool, c.args), c.tool_call_id, &facts)
            });
        match fut {
            Ok(fut) => wasm_bindgen_futures::future_to_promise(async move {
                to_js(&fut.await).map_err(into_error)
            }),
            Err(e) => js_sys::Promise::reject(&into_error(e)),
        }
    }

    /// Pending approvals, oldest first.
    #[wasm_bindgen(unchecked_return_type = "PendingRequest[]")]
    pub fn pending(&self) -> Result<JsValue, JsValue> {
        let st = self.inner.state.borrow();
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
        #[wasm_bindgen(unchecked_param_type = "Response")] response: JsValue,
    ) -> Result<u32, JsValue> {
        let r: RespondJs =
            from_js(response, "respond(id, {decision, anchor})").map_err(into_error)?;
        let decision = match (r.decision.as_str(), r.scope) {
            ("allow_once", _) => Decision::AllowOnce,
            ("allow_always", Some(scope)) => Decision::AllowAlways { scope },
            ("deny", _) => Decision::Deny { message: r.message },
            ("deny_always", Some(scope)) => Decision::DenyAlways {
                scope,
                message: r.message,
            },
            (other, _) => {
                return Err(into_error(GateError::BadInput(format!(
                    "decision `{other}`: expected allow_once, allow_always (with scope), deny or deny_always (with scope)"
                ))))
            }
        };
        let n = self
            .respond_to(id, decision, &r.anchor)
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
        #[derive(serde::Deserialize, Default)]
        #[serde(rename_all = "camelCase")]
        struct AskJs {
            #[serde(default)]
            timeout_ms: Option<u64>,
        }
        let opts = match options {
            Some(o) if !o.is_null() && !o.is_undefined() => {
                from_js::<AskJs>(o, "ask(question, {timeoutMs})")
            }
            Some(_) | None => Ok(AskJs::default()),
        };
        match opts.and_then(|o| self.ask_question(question, o.timeout_ms)) {
            Ok(fut) => wasm_bindgen_futures::future_to_promise(async move {
                to_js(&fut.await).map_err(into_error)
            }),
            Err(e) => js_sys::Promise::reject(&into_error(e)),
        }
    }

    /// Pending questions, oldest first.
    #[wasm_bindgen(unchecked_return_type = "PendingQuestion[]")]
    pub fn questions(&self) -> Result<JsValue, JsValue> {
        let st = self.inner.state.borrow();
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
        self.answer_question(id, text).map_err(into_error)
    }

    /// Cancels one pending request or question (e.g. the agent run was aborted).
    pub fn cancel(&self, id: &str) -> Result<(), JsValue> {
        self.cancel_request(id).map_err(into_error)
    }

    /// Denies every pending approval with `reason` (the user moved on) and drops every
    /// question. Returns how many it settled.
    #[wasm_bindgen(js_name = denyAllPending)]
    pub fn deny_all_pending(&self, reason: &str) -> u32 {
        self.inner
            .with(|st| {
                let s = st.registry.deny_all_pending(reason, now_ms());
                Ok((u32::try_from(s.len()).unwrap_or(u32::MAX), s, false))
            })
            .unwrap_or(0)
    }

    /// The host reports that tool call `toolCallId` finished. True if it had been
    /// approved (or was auto) in this session; false means it ran without a grant.
    #[wasm_bindgen(js_name = afterToolCall)]
    pub fn after_tool_call(&self, tool_call_id: &str) -> bool {
        self.inner
            .state
            .borrow_mut()
            .registry
            .claim_slot(tool_call_id)
            .is_some()
    }

    /// Calls `listener` after every change; returns the function that unsubscribes.
    #[wasm_bindgen(js_name = onChange, unchecked_return_type = "() => void")]
    pub fn on_change(
        &self,
        #[wasm_bindgen(unchecked_param_type = "() => void")] listener: js_sys::Function,
    ) -> JsValue {
        let id = self.add_listener(Listener::Js(listener));
        let gate = Rc::downgrade(&self.inner);
        // Owned by the JS GC (freed when the function is collected); holds only a weak
        // reference, so it keeps nothing alive and is a no-op after dispose.
        Closure::<dyn FnMut()>::new(move || remove_listener(&gate, id)).into_js_value()
    }

    /// Force-resolves everything pending: checks → `cancelled` (never approved),
    /// questions → nothing. Returns the counts. The gate stays usable.
    #[wasm_bindgen(unchecked_return_type = "CleanupCounts")]
    pub fn cleanup(&self) -> Result<JsValue, JsValue> {
        to_js(&self.cleanup_counts()).map_err(into_error)
    }

    /// Resolves (as expired), then removes, entries older than `maxAgeMs`.
    #[wasm_bindgen(js_name = cleanupStale, unchecked_return_type = "CleanupCounts")]
    pub fn cleanup_stale(&self, max_age_ms: f64) -> Result<JsValue, JsValue> {
        if !(max_age_ms.is_finite() && max_age_ms >= 0.0) {
            return Err(into_error(GateError::BadInput(format!(
                "cleanupStale(maxAgeMs): {max_age_ms} is not a non-negative number"
            ))));
        }
        to_js(&self.cleanup_stale_counts(max_age_ms as u64)).map_err(into_error)
    }

    /// Pending approvals plus questions.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        let n = self.inner.state.borrow().registry.size();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Armed timers (0 or 1): the leak guard for tests.
    #[wasm_bindgen(getter, js_name = pendingTimers)]
    pub fn pending_timers(&self) -> u32 {
        u32::from(self.inner.state.borrow().timer.is_some())
    }

    /// Registered change listeners.
    #[wasm_bindgen(getter, js_name = listenerCount)]
    pub fn listener_count(&self) -> u32 {
        let n = self.inner.state.borrow().listeners.len();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.inner.state.borrow().registry.session_id().to_string()
    }

    #[wasm_bindgen(getter)]
    pub fn disposed(&self) -> bool {
        self.inner.state.borrow().disposed
    }

    /// Cleans up (every pending Promise settles as cancelled / no answer), cancels the
    /// timer, removes the `pagehide` listener and every change listener, closes the
    /// runs channel. Parked runs stay in the store. Idempotent.
    pub fn dispose(&self) {
        if !self.inner.state.borrow().disposed {
            self.inner.teardown(true);
        }
    }
}
