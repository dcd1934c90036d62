//! Park and resume on `Gate` (DESIGN §3): `gate.park`, `gate.run`, `gate.runs`,
//! `gate.resume`, `gate.failRun`, `gate.onRunsChange`, over toolgate-core's `Runs`
//! and a [`MarkerStore`] (`localStorage` by default).
//!
//! - **Exactly-once resume.** Where `navigator.locks` exists (and the `locks` option
//!   is not `false`), the whole resume runs inside the Web Lock `toolgate:run:<runId>`.
//!   In it: read the record once (the snapshot); run core's resume on the snapshot
//!   *dry* (would it succeed? no effect); if so, claim `<runId>:<revision>:<fingerprint>`
//!   in IndexedDB (`claims.rs`), atomic across processes (the plan is core's
//!   `resume_plan`, tested natively); only the claimer runs core's
//!   resume for real, on the same snapshot, which clears the marker by compare-and-swap
//!   on the store revision (defence in depth). A lost claim is `already_resumed`.
//!   Invalid decisions claim nothing (the person can decide again). Without IndexedDB
//!   the claim is skipped: exactly once within one renderer process
//!   ([`ResumeGuarantee::SameProcess`]).
//! - **Change notification.** Every park / resume / failRun is posted on the
//!   `BroadcastChannel("toolgate")` and given to this gate's `onRunsChange` listeners;
//!   other gates of the same owner hear it as `source: "remote"` once the write it
//!   announces is readable there (a note that overtook its `localStorage` write waits
//!   for the `storage` event, at most [`NOTE_WAIT_MS`]). Polling stays the source of
//!   truth.
//! - **Owners.** A gate sees only its owner's runs (default owner: the session id).

use super::Gate;
use crate::channel::{Channel, StorageEvents, CHANNEL_NAME};
use crate::claims::{Claimed, Claims, ResumeGuarantee};
use crate::clock::now_ms;
use crate::error::{into_error, GateError};
use crate::js::{from_js, to_js};
use crate::js_runs::{ParkJs, ParkedJs, ResumeJs, ResumedJs, RunJs};
use crate::locks::{to_promise, Locks};
use crate::storage::{storage_key, KEY_PREFIX};
use gloo_timers::callback::Timeout;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::{Rc, Weak};
use toolgate_core::resume_plan;
use toolgate_core::{
    Error, MarkerStore, Park, ParkCall, Parked, ResumeDecision, Resumed, Run, RunStatus, Runs,
    ToolCall,
};
use wasm_bindgen::prelude::*;

/// Where a [`RunsChange`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeSource {
    /// This gate made the change.
    Local,
    /// Another gate of this origin did (another tab, worker, or `Gate` in this page).
    Remote,
}

/// A run of this gate's owner changed: refresh it (`Gate::get_run`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunsChange {
    pub run_id: String,
    pub status: RunStatus,
    pub revision: u64,
    pub source: ChangeSource,
    /// The record was deleted (`forgetRun` / `pruneRuns`); `status` and `revision` are
    /// its last.
    #[serde(skip_serializing_if = "is_false")]
    pub gone: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What goes over the BroadcastChannel.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Note {
    #[serde(rename = "type")]
    kind: String,
    run_id: String,
    owner: String,
    status: RunStatus,
    revision: u64,
    #[serde(default, skip_serializing_if = "is_false")]
    gone: bool,
}

const NOTE_TYPE: &str = "toolgate.run";

enum RunsListener {
    Js(js_sys::Function),
    Rust(Rc<dyn Fn(&RunsChange)>),
}

#[derive(Default)]
struct Notify {
    listeners: Vec<(u32, Rc<RunsListener>)>,
    next: u32,
    channel: Option<Channel>,
    /// Notes heard before this context can read the write they announce (Chromium
    /// propagates `localStorage` writes to other renderer processes asynchronously, and
    /// a BroadcastChannel message can overtake them), by run id, each with the timer
    /// that delivers it anyway after [`NOTE_WAIT_MS`].
    waiting: HashMap<String, (RunsChange, Timeout)>,
    /// Resolves `waiting` notes as soon as their write arrives here.
    storage_events: Option<StorageEvents>,
}

/// How long a note waits for its write to become visible before it is delivered
/// anyway (a store that is not `localStorage` never fires `storage` events).
const NOTE_WAIT_MS: u32 = 1_000;

/// The park / resume half of a gate's inner state.
pub(super) struct RunsPart {
    runs: Runs<Rc<dyn MarkerStore>>,
    session_id: String,
    owner: String,
    locks: Option<Locks>,
    /// Cross-process resume claims (IndexedDB), when there is IndexedDB.
    claims: Rc<Claims>,
    notify: Rc<RefCell<Notify>>,
}

impl RunsPart {
    pub(super) fn new(
        store: Rc<dyn MarkerStore>,
        session_id: String,
        owner: String,
        use_locks: bool,
    ) -> RunsPart {
        let notify = Rc::new(RefCell::new(Notify::default()));
        let weak = Rc::downgrade(&notify);
        let me = owner.clone();
        let heard_store = store.clone();
        let channel = Channel::open(CHANNEL_NAME, move |data| {
            let Ok(note) = from_js::<Note>(data, "message") else {
                return; // not ours
            };
            if note.kind != NOTE_TYPE || note.owner != me {
                return;
            }
            heard(
                &weak,
                &*heard_store,
                RunsChange {
                    run_id: note.run_id,
                    status: note.status,
                    revision: note.revision,
                    source: ChangeSource::Remote,
                    gone: note.gone,
                },
            );
        });
        let weak = Rc::downgrade(&notify);
        let arrived_store = store.clone();
        let storage_events = StorageEvents::listen(move |key| {
            let run_id = match &key {
                Some(key) => match key.strip_prefix(KEY_PREFIX) {
                    Some(run_id) => Some(run_id),
                    None => return, // not ours
                },
                None => None, // localStorage.clear(): every waiting note
            };
            arrived(&weak, &*arrived_store, run_id);
        });
        {
            let mut n = notify.borrow_mut();
            n.channel = channel;
            n.storage_events = storage_events;
        }
        RunsPart {
            runs: Runs::new(store),
            session_id,
            owner,
            locks: if use_locks { Locks::find() } else { None },
            claims: Claims::new(),
            notify,
        }
    }

    /// Tells the other gates (channel) and this gate's listeners that a run changed.
    fn emit(&self, run_id: &str, status: RunStatus, revision: u64) {
        self.emit_note(run_id, status, revision, false);
    }

    /// [`RunsPart::emit`] for a deleted record.
    fn emit_gone(&self, run: &Run) {
        self.emit_note(&run.run_id, run.status, run.revision, true);
    }

    fn emit_note(&self, run_id: &str, status: RunStatus, revision: u64, gone: bool) {
        let note = Note {
            kind: NOTE_TYPE.to_string(),
            run_id: run_id.to_string(),
            owner: self.owner.clone(),
            status,
            revision,
            gone,
        };
        if let Some(channel) = &self.notify.borrow().channel {
            if let Ok(message) = to_js(&note) {
                channel.post(&message);
            }
        }
        deliver(
            &Rc::downgrade(&self.notify),
            &RunsChange {
                run_id: note.run_id,
                status: note.status,
                revision: note.revision,
                source: ChangeSource::Local,
                gone,
            },
        );
    }

    fn add_listener(&self, l: RunsListener) -> u32 {
        let mut n = self.notify.borrow_mut();
        n.next = n.next.wrapping_add(1);
        let id = n.next;
        n.listeners.push((id, Rc::new(l)));
        id
    }

    /// Closes the channel and the claims database, drops every listener (dispose).
    pub(super) fn close(&self) {
        let (channel, waiting, storage_events) = {
            let mut n = self.notify.borrow_mut();
            n.listeners.clear();
            (
                n.channel.take(),
                std::mem::take(&mut n.waiting),
                n.storage_events.take(),
            )
        };
        drop((channel, waiting, storage_events));
        self.claims.close();
    }
}

/// True once this context reads run `change.run_id` at `change.revision` or later. A
/// store that cannot be read counts as caught up: the listeners' poll reports the error.
fn visible(store: &dyn MarkerStore, change: &RunsChange) -> bool {
    match store.get(&change.run_id) {
        // A deletion is visible once the record is gone (or was written anew since).
        Ok(Some(stored)) if change.gone => stored.revision > change.revision,
        Ok(Some(stored)) => stored.revision >= change.revision,
        Ok(None) => change.gone,
        Err(_) => true,
    }
}

/// A note from another gate: delivered now if its write is visible here, else held
/// until the write arrives (`storage` event) or [`NOTE_WAIT_MS`] pass.
fn heard(notify: &Weak<RefCell<Notify>>, store: &dyn MarkerStore, change: RunsChange) {
    if visible(store, &change) {
        deliver(notify, &change);
        return;
    }
    let Some(n) = notify.upgrade() else {
        return;
    };
    let weak = notify.clone();
    let run_id = change.run_id.clone();
    let revision = change.revision;
    let timer = Timeout::new(NOTE_WAIT_MS, move || {
        let due = weak.upgrade().and_then(|n| {
            let mut n = n.try_borrow_mut().ok()?;
            match n.waiting.get(&run_id) {
                Some((c, _)) if c.revision == revision => n.waiting.remove(&run_id),
                _ => None,
            }
        });
        if let Some((change, timer)) = due {
            drop(timer); // this very timeout, already fired
            deliver(&weak, &change);
        }
    });
    if let Ok(mut n) = n.try_borrow_mut() {
        let newer = n
            .waiting
            .get(&change.run_id)
            .is_some_and(|(c, _)| c.revision > change.revision);
        if !newer {
            n.waiting.insert(change.run_id.clone(), (change, timer));
        }
    };
}

/// A `storage` event for `run_id` (`None`: every key): delivers the notes now visible.
fn arrived(notify: &Weak<RefCell<Notify>>, store: &dyn MarkerStore, run_id: Option<&str>) {
    let Some(n) = notify.upgrade() else {
        return;
    };
    let mut due = Vec::new();
    if let Ok(mut n) = n.try_borrow_mut() {
        let ids: Vec<String> = match run_id {
            Some(id) => vec![id.to_string()],
            None => n.waiting.keys().cloned().collect(),
        };
        for id in ids {
            if n.waiting.get(&id).is_some_and(|(c, _)| visible(store, c)) {
                due.extend(n.waiting.remove(&id));
            }
        }
    }
    for (change, timer) in due {
        drop(timer);
        deliver(notify, &change);
    }
}

/// Calls every listener, outside the borrow (a listener may call back into the gate).
fn deliver(notify: &Weak<RefCell<Notify>>, change: &RunsChange) {
    let Some(notify) = notify.upgrade() else {
        return;
    };
    let listeners: Vec<Rc<RunsListener>> = match notify.try_borrow() {
        Ok(n) => n.listeners.iter().map(|(_, l)| l.clone()).collect(),
        Err(_) => return,
    };
    if listeners.is_empty() {
        return;
    }
    let js = to_js(change).ok();
    for l in listeners {
        match &*l {
            // A throwing listener must not break the gate: its exception is dropped.
            RunsListener::Js(f) => {
                if let Some(js) = &js {
                    let _ = f.call1(&JsValue::NULL, js);
                }
            }
            RunsListener::Rust(f) => f(change),
        }
    }
}

fn remove_listener(notify: &Weak<RefCell<Notify>>, id: u32) {
    if let Some(n) = notify.upgrade() {
        if let Ok(mut n) = n.try_borrow_mut() {
            n.listeners.retain(|(i, _)| *i != id);
        }
    }
}

/// A runs-change subscription; unsubscribes on drop.
#[must_use = "dropping the subscription unsubscribes"]
pub struct RunsSubscription {
    notify: Weak<RefCell<Notify>>,
    id: u32,
}

impl Drop for RunsSubscription {
    fn drop(&mut self) {
        remove_listener(&self.notify, self.id);
    }
}

/// Rust-side API (the Leptos UI calls these; the JS methods below wrap them).
impl Gate {
    /// The owner whose runs this gate sees.
    pub fn owner(&self) -> &str {
        &self.inner.runs.owner
    }

    /// True when resume takes a Web Lock (the `locks` option and `navigator.locks`).
    pub fn uses_locks(&self) -> bool {
        self.inner.runs.locks.is_some()
    }

    fn check_open(&self) -> Result<(), GateError> {
        if self.inner.state.borrow().disposed {
            return Err(GateError::Disposed);
        }
        Ok(())
    }

    /// Parks run `run_id` with `calls` (`(tool_call_id, call)`, classified here with
    /// the policy and this session's rules) and the host's `history`. The turn ends
    /// with stop reason `paused`. A full store is `quota_exceeded` and nothing changes.
    pub fn park_run(
        &self,
        run_id: &str,
        calls: Vec<(String, ToolCall)>,
        history: String,
        ttl_ms: Option<u64>,
    ) -> Result<Parked, GateError> {
        let calls = {
            let st = self.inner.state.borrow();
            if st.disposed {
                return Err(GateError::Disposed);
            }
            calls
                .into_iter()
                .map(|(tool_call_id, call)| ParkCall {
                    verdict: st.registry.classify(&self.inner.policy, &call),
                    tool_call_id,
                    call,
                })
                .collect()
        };
        let part = &self.inner.runs;
        let parked = part.runs.park(
            Park {
                run_id: run_id.to_string(),
                session_id: part.session_id.clone(),
                owner: part.owner.clone(),
                calls,
                history,
                ttl_ms,
            },
            now_ms(),
        )?;
        part.emit(&parked.run.run_id, parked.run.status, parked.run.revision);
        Ok(parked)
    }

    /// Run `run_id` (with its marker while it awaits permission); `None` when there is
    /// none for this owner. A corrupt record comes back `failed` with `last_error`.
    pub fn get_run(&self, run_id: &str) -> Result<Option<Run>, GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        Ok(part.runs.run_of(run_id, &part.owner, now_ms())?)
    }

    /// This owner's runs, by run id.
    pub fn list_runs(&self) -> Result<Vec<Run>, GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        Ok(part.runs.runs_of(&part.owner, now_ms())?)
    }

    /// Resumes a parked run with one decision per pending call. Exactly once across
    /// tabs and processes (see [`Gate::resume_guarantee`]): the loser of a race gets
    /// `already_resumed`.
    pub fn resume_run(
        &self,
        run_id: &str,
        decisions: Vec<ResumeDecision>,
    ) -> impl Future<Output = Result<Resumed, GateError>> + 'static {
        let inner = self.inner.clone();
        let run_id = run_id.to_string();
        async move {
            let locks = inner.runs.locks.clone();
            let lock_name = storage_key(&run_id);
            let step = move || async move { resume_locked(&inner, &run_id, &decisions).await };
            match locks {
                Some(locks) => locks.with(&lock_name, step).await?,
                None => step().await,
            }
        }
    }

    /// Which exactly-once guarantee `resume` gives, as far as is known now:
    /// `SameProcess` once IndexedDB is known to be missing or unusable here (before the
    /// first resume that is only the synchronous check for `indexedDB`); await
    /// [`Gate::resume_guarantee_ready`] for the settled answer.
    pub fn resume_guarantee(&self) -> ResumeGuarantee {
        self.inner.runs.claims.guarantee()
    }

    /// Opens the claims database if needed, then says which guarantee `resume` gives.
    pub fn resume_guarantee_ready(&self) -> impl Future<Output = ResumeGuarantee> + 'static {
        let claims = self.inner.runs.claims.clone();
        async move { claims.ready().await }
    }

    /// Why resume is only same-process here (no `indexedDB`, or it failed to open).
    pub fn resume_guarantee_reason(&self) -> Option<String> {
        self.inner.runs.claims.unavailable_reason()
    }

    /// Deletes up to 500 resume claims old enough that the markers they guarded have
    /// expired everywhere (older than the longest marker TTL plus a minute); returns
    /// how many. Resume also does this on its own, now and then.
    pub fn prune_resume_claims(&self) -> impl Future<Output = Result<u32, GateError>> + 'static {
        let claims = self.inner.runs.claims.clone();
        async move { claims.prune(now_ms()).await }
    }

    /// Fails run `run_id` with `why` (`failed`, marker cleared).
    pub fn fail_run(&self, run_id: &str, why: &str) -> Result<Run, GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        let run = part.runs.fail(run_id, &part.owner, why, now_ms())?;
        part.emit(&run.run_id, run.status, run.revision);
        Ok(run)
    }

    /// Records a new `running` run `run_id` of this gate's session (optional: `park`
    /// creates the run when absent), so that it is listed before its first park.
    pub fn start_run(&self, run_id: &str) -> Result<Run, GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        let run = part
            .runs
            .start(run_id, &part.session_id, &part.owner, now_ms())?;
        part.emit(&run.run_id, run.status, run.revision);
        Ok(run)
    }

    /// Marks the `running` run `run_id` `completed` (the host finished it).
    pub fn complete_run(&self, run_id: &str) -> Result<Run, GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        let run = part.runs.complete(run_id, &part.owner, now_ms())?;
        part.emit(&run.run_id, run.status, run.revision);
        Ok(run)
    }

    /// Deletes the record of finished run `run_id` (`completed`, `failed`, `cancelled`).
    /// A run still `running` or awaiting permission is `run_still_active`.
    pub fn forget_run(&self, run_id: &str) -> Result<(), GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        let now = now_ms();
        let run =
            part.runs
                .run_of(run_id, &part.owner, now)?
                .ok_or_else(|| Error::RunNotFound {
                    run_id: run_id.to_string(),
                })?;
        part.runs.forget(run_id, &part.owner, now)?;
        part.emit_gone(&run);
        Ok(())
    }

    /// Deletes this owner's finished runs whose status last changed `older_than_ms` or
    /// more ago; returns them. Active runs are never touched.
    pub fn prune_runs(&self, older_than_ms: u64) -> Result<Vec<Run>, GateError> {
        self.check_open()?;
        let part = &self.inner.runs;
        let pruned = part.runs.prune(&part.owner, older_than_ms, now_ms())?;
        for run in &pruned {
            part.emit_gone(run);
        }
        Ok(pruned)
    }

    /// Calls `f` for every park / resume / failRun of this owner's runs, here or in
    /// another gate of this origin. Dropping the subscription unsubscribes.
    pub fn subscribe_runs(&self, f: impl Fn(&RunsChange) + 'static) -> RunsSubscription {
        let notify = Rc::downgrade(&self.inner.runs.notify);
        let id = match self.check_open() {
            Ok(()) => self.inner.runs.add_listener(RunsListener::Rust(Rc::new(f))),
            Err(_) => u32::MAX,
        };
        RunsSubscription { notify, id }
    }
}

/// The resume itself, inside the run's Web Lock (when there is one).
async fn resume_locked(
    inner: &Rc<super::Inner>,
    run_id: &str,
    decisions: &[ResumeDecision],
) -> Result<Resumed, GateError> {
    let part = &inner.runs;
    // Open the claims database first (a no-op once open): the snapshot below must not
    // wait on it.
    let claims_on = part.claims.connection().await?.is_some();
    if inner.state.borrow().disposed {
        return Err(GateError::Disposed);
    }
    let now = now_ms();
    let resumed = if claims_on {
        resume_claimed(part, run_id, decisions, now).await?
    } else {
        part.runs.resume(run_id, &part.owner, decisions, now)?
    };
    part.emit(run_id, RunStatus::Running, resumed.revision);
    Ok(resumed)
}

/// Core's resume plan (`toolgate_core::resume_plan`): snapshot and dry resume, then
/// the IndexedDB claim on that exact record, then the dry run's one write, for real.
async fn resume_claimed(
    part: &RunsPart,
    run_id: &str,
    decisions: &[ResumeDecision],
    now: u64,
) -> Result<Resumed, GateError> {
    let plan = resume_plan::plan(part.runs.store(), run_id, &part.owner, decisions, now)?;
    let Some(claim) = plan.claim().cloned() else {
        return Ok(plan.replay(&part.owner, decisions, now)?);
    };
    match part.claims.claim(&claim, now).await? {
        Claimed::Won | Claimed::Skipped => {}
        Claimed::Lost => {
            return Err(GateError::Core(Error::AlreadyResumed {
                run_id: run_id.to_string(),
            }))
        }
    }
    let committed = plan.commit(&part.owner, decisions, now);
    if committed.release_claim {
        let _ = part.claims.release(&claim).await;
    }
    Ok(committed.result?)
}

#[wasm_bindgen]
impl Gate {
    /// Parks a run: `{run, stopReason: "paused"}`. Throws with `.code`:
    /// `quota_exceeded`, `history_too_large`, `marker_too_large`, `bad_park` (e.g. a
    /// call the policy denies), `illegal_transition`, `run_id_taken`, `bad_input`, …
    #[wasm_bindgen(unchecked_return_type = "Parked")]
    pub fn park(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ParkRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let p: ParkJs = from_js(request, "park({runId, calls, history})").map_err(into_error)?;
        if let Some(owner) = p.owner.filter(|o| o != self.owner()) {
            return Err(into_error(GateError::BadInput(format!(
                "park: owner `{owner}` is not this gate's owner `{}` (make the Gate with {{owner}})",
                self.owner()
            ))));
        }
        let calls = p
            .calls
            .into_iter()
            .map(|c| (c.tool_call_id, ToolCall::new(c.tool, c.args)))
            .collect();
        let parked = self
            .park_run(&p.run_id, calls, p.history, p.ttl_ms)
            .map_err(into_error)?;
        to_js(&ParkedJs {
            run: RunJs::from(&parked.run),
            stop_reason: parked.stop_reason,
        })
        .map_err(into_error)
    }

    /// The run (status, and the marker while it awaits permission) or `null`.
    #[wasm_bindgen(unchecked_return_type = "Run | null")]
    pub fn run(&self, run_id: &str) -> Result<JsValue, JsValue> {
        match self.get_run(run_id).map_err(into_error)? {
            Some(run) => to_js(&RunJs::from(&run)).map_err(into_error),
            None => Ok(JsValue::NULL),
        }
    }

    /// This owner's runs, by run id.
    #[wasm_bindgen(unchecked_return_type = "Run[]")]
    pub fn runs(&self) -> Result<JsValue, JsValue> {
        let runs = self.list_runs().map_err(into_error)?;
        to_js(&runs.iter().map(RunJs::from).collect::<Vec<_>>()).map_err(into_error)
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
        let decisions = from_js::<ResumeJs>(request, "resume(runId, {decisions})").and_then(|r| {
            r.decisions
                .into_iter()
                .map(|d| {
                    d.choice()
                        .map(|(tool_call_id, anchor, choice)| ResumeDecision {
                            tool_call_id,
                            anchor,
                            choice,
                        })
                        .map_err(GateError::BadInput)
                })
                .collect::<Result<Vec<_>, _>>()
        });
        let decisions = match decisions {
            Ok(d) => d,
            Err(e) => return js_sys::Promise::reject(&into_error(e)),
        };
        let fut = self.resume_run(&run_id, decisions);
        to_promise(async move {
            let resumed = fut.await.map_err(into_error)?;
            to_js(&ResumedJs::from(&resumed)).map_err(into_error)
        })
    }

    /// Fails a run (`failed`, `lastError = why`, marker cleared); returns the run.
    #[wasm_bindgen(js_name = failRun, unchecked_return_type = "Run")]
    pub fn fail_run_js(&self, run_id: &str, why: &str) -> Result<JsValue, JsValue> {
        let run = self.fail_run(run_id, why).map_err(into_error)?;
        to_js(&RunJs::from(&run)).map_err(into_error)
    }

    /// Records a new `running` run (optional: `park` creates it); returns the run.
    /// Throws `run_id_taken` / `illegal_transition` when the id is in use.
    #[wasm_bindgen(js_name = startRun, unchecked_return_type = "Run")]
    pub fn start_run_js(&self, run_id: &str) -> Result<JsValue, JsValue> {
        let run = self.start_run(run_id).map_err(into_error)?;
        to_js(&RunJs::from(&run)).map_err(into_error)
    }

    /// Marks a `running` run `completed`; returns the run.
    #[wasm_bindgen(js_name = completeRun, unchecked_return_type = "Run")]
    pub fn complete_run_js(&self, run_id: &str) -> Result<JsValue, JsValue> {
        let run = self.complete_run(run_id).map_err(into_error)?;
        to_js(&RunJs::from(&run)).map_err(into_error)
    }

    /// Deletes the record of a finished run (`completed`, `failed`, `cancelled`); throws
    /// `run_still_active` for a run that is running or awaiting permission.
    #[wasm_bindgen(js_name = forgetRun)]
    pub fn forget_run_js(&self, run_id: &str) -> Result<(), JsValue> {
        self.forget_run(run_id).map_err(into_error)
    }

    /// Deletes this owner's finished runs whose status last changed `olderThanMs` or
    /// more ago (0: every finished run); returns how many. Records of finished runs stay
    /// in `localStorage` until forgotten or pruned.
    #[wasm_bindgen(js_name = pruneRuns)]
    pub fn prune_runs_js(&self, older_than_ms: f64) -> Result<u32, JsValue> {
        if older_than_ms.is_nan() || older_than_ms < 0.0 {
            return Err(into_error(GateError::BadInput(
                "pruneRuns(olderThanMs): a number >= 0".to_string(),
            )));
        }
        let pruned = self.prune_runs(older_than_ms as u64).map_err(into_error)?;
        Ok(u32::try_from(pruned.len()).unwrap_or(u32::MAX))
    }

    /// Calls `listener(change)` after every park / resume / failRun of this owner's
    /// runs, here or in another tab; returns the function that unsubscribes.
    #[wasm_bindgen(js_name = onRunsChange, unchecked_return_type = "() => void")]
    pub fn on_runs_change(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(change: RunsChange) => void")]
        listener: js_sys::Function,
    ) -> JsValue {
        let notify = Rc::downgrade(&self.inner.runs.notify);
        let id = match self.check_open() {
            Ok(()) => self.inner.runs.add_listener(RunsListener::Js(listener)),
            Err(_) => u32::MAX,
        };
        // Holds only a weak reference: keeps nothing alive, a no-op after dispose.
        Closure::<dyn FnMut()>::new(move || remove_listener(&notify, id)).into_js_value()
    }

    /// Registered `onRunsChange` listeners.
    #[wasm_bindgen(getter, js_name = runsListenerCount)]
    pub fn runs_listener_count(&self) -> u32 {
        let n = self.inner.runs.notify.borrow().listeners.len();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The owner whose runs this gate sees (default: the session id).
    #[wasm_bindgen(getter, js_name = owner)]
    pub fn owner_js(&self) -> String {
        self.owner().to_string()
    }

    /// True when resume holds a Web Lock (`navigator.locks`) besides the CAS.
    #[wasm_bindgen(getter, js_name = usesLocks)]
    pub fn uses_locks_js(&self) -> bool {
        self.uses_locks()
    }

    /// True while the change channel (BroadcastChannel) is open: false after dispose.
    #[wasm_bindgen(getter, js_name = channelOpen)]
    pub fn channel_open(&self) -> bool {
        self.inner.runs.notify.borrow().channel.is_some()
    }

    /// `"indexeddb"`: resume is exactly once across every tab, worker and process of
    /// the origin (an IndexedDB claim); `"same-process"`: only within one renderer
    /// process (no IndexedDB here, or it failed to open). See `resumeGuaranteeReady()`.
    #[wasm_bindgen(getter, js_name = resumeGuarantee, unchecked_return_type = "ResumeGuarantee")]
    pub fn resume_guarantee_js(&self) -> String {
        self.resume_guarantee().as_str().to_string()
    }

    /// Why resume is only same-process here, or `undefined`.
    #[wasm_bindgen(getter, js_name = resumeGuaranteeReason)]
    pub fn resume_guarantee_reason_js(&self) -> Option<String> {
        self.resume_guarantee_reason()
    }

    /// Opens the claims database if needed; resolves to the guarantee `resume` gives.
    #[wasm_bindgen(js_name = resumeGuaranteeReady, unchecked_return_type = "Promise<ResumeGuarantee>")]
    pub fn resume_guarantee_ready_js(&self) -> js_sys::Promise {
        let fut = self.resume_guarantee_ready();
        to_promise(async move { Ok(JsValue::from_str(fut.await.as_str())) })
    }

    /// Deletes resume claims old enough to guard nothing (markers expired everywhere);
    /// resolves to how many. Resume also prunes on its own, now and then.
    #[wasm_bindgen(js_name = pruneResumeClaims, unchecked_return_type = "Promise<number>")]
    pub fn prune_resume_claims_js(&self) -> js_sys::Promise {
        let fut = self.prune_resume_claims();
        to_promise(async move {
            let n = fut.await.map_err(into_error)?;
            Ok(JsValue::from_f64(f64::from(n)))
        })
    }

    /// True while the IndexedDB connection of the resume claims is open (opened by the
    /// first resume; false after dispose).
    #[wasm_bindgen(getter, js_name = claimsOpen)]
    pub fn claims_open(&self) -> bool {
        self.inner.runs.claims.is_open()
    }
}
