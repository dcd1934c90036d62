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

use super::notify::{arrived, deliver, heard, Note, Notify, RunsListener, NOTE_TYPE};
use super::*;
use crate::channel::{Channel, CHANNEL_NAME};
use crate::claims::{Claimed, Claims, ResumeGuarantee};
use crate::clock::now_ms;
use crate::error::GateError;
use crate::js::to_js;
use crate::locks::Locks;
use crate::storage::{storage_key, KEY_PREFIX};
use crate::storage_events::StorageEvents;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use toolgate_core::resume_plan;
use toolgate_core::wire::ParkCallRequest;
use toolgate_core::{
    CallOutcome, EditCheck, Error, MarkerStore, Park, Parked, ResumeDecision, Resumed, Run,
    RunStatus, Runs, ToolCall,
};

/// The park / resume half of a gate's inner state.
pub(super) struct RunsPart {
    pub(super) runs: Runs<Rc<dyn MarkerStore>>,
    pub(super) session_id: String,
    pub(super) owner: String,
    pub(super) locks: Option<Locks>,
    /// Cross-process resume claims (IndexedDB), when there is IndexedDB.
    pub(super) claims: Rc<Claims>,
    pub(super) notify: Rc<RefCell<Notify>>,
    /// The gate's policy, classifying a person's edit of a parked call again.
    pub(super) edits: EditCheck,
}

impl RunsPart {
    pub(super) fn new(
        store: Rc<dyn MarkerStore>,
        session_id: String,
        owner: String,
        use_locks: bool,
        policy: Rc<toolgate_core::Policy>,
    ) -> RunsPart {
        let edits: EditCheck = Rc::new(move |call: &ToolCall| policy.classify(call));
        let notify = Rc::new(RefCell::new(Notify::default()));
        let weak = Rc::downgrade(&notify);
        let me = owner.clone();
        let heard_store = store.clone();
        let channel = Channel::open(CHANNEL_NAME, move |data| {
            let Some(note) = Note::read(data) else {
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
            runs: Runs::new(store).with_edit_check(Some(edits.clone())),
            session_id,
            owner,
            locks: if use_locks { Locks::find() } else { None },
            claims: Claims::new(),
            notify,
            edits,
        }
    }

    /// Tells the other gates (channel) and this gate's listeners that a run changed.
    pub(super) fn emit(&self, run_id: &str, status: RunStatus, revision: u64) {
        self.emit_note(run_id, status, revision, false);
    }

    /// [`RunsPart::emit`] for a deleted record.
    pub(super) fn emit_gone(&self, run: &Run) {
        self.emit_note(&run.run_id, run.status, run.revision, true);
    }

    pub(super) fn emit_note(&self, run_id: &str, status: RunStatus, revision: u64, gone: bool) {
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

    pub(super) fn add_listener(&self, l: RunsListener) -> u32 {
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

/// Rust-side API (the Leptos UI calls these; the JS methods below wrap them).
impl Gate {
    /// The owner whose runs this gate sees.
    pub fn owner(&self) -> &str {
        &self.inner.runs.owner
    }

    /// The policy this gate classifies with (shared, not copied).
    pub fn policy(&self) -> Policy {
        Policy::from_shared(self.inner.policy.clone())
    }

    /// True when resume takes a Web Lock (the `locks` option and `navigator.locks`).
    pub fn uses_locks(&self) -> bool {
        self.inner.runs.locks.is_some()
    }

    pub(super) fn check_open(&self) -> Result<(), GateError> {
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
        calls: Vec<ParkCallRequest>,
        history: String,
        ttl_ms: Option<u64>,
    ) -> Result<Parked, GateError> {
        let calls = {
            let st = self.inner.state.borrow();
            if st.disposed {
                return Err(GateError::Disposed);
            }
            calls
                .iter()
                .map(|c| c.classified(|call| st.registry.classify(&self.inner.policy, call)))
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
                parked_by: None,
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
    // A take (no decisions) of a marker that expired unread is two writes (cancel, then
    // take), which the plan does not claim: it is replayed for real, under this run's
    // Web Lock where there is one, and by compare-and-swap.
    let resumed = if claims_on {
        resume_claimed(part, run_id, decisions, now).await?
    } else {
        part.runs.resume(run_id, &part.owner, decisions, now)?
    };
    // A take leaves the run cancelled; any other resume makes it running.
    let status = match resumed.results.first().map(|r| &r.outcome) {
        Some(CallOutcome::Expired) => RunStatus::Cancelled,
        _ => RunStatus::Running,
    };
    part.emit(run_id, status, resumed.revision);
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
    let plan = resume_plan::plan(
        part.runs.store(),
        run_id,
        &part.owner,
        decisions,
        now,
        Some(part.edits.clone()),
    )?;
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
