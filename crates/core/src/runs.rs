//! [`Runs`]: park, resume, fail, complete and list runs over any [`MarkerStore`].
//! This is what the wasm `Gate` calls (`gate.park`, `gate.run`, `gate.runs`,
//! `gate.resume`, `gate.failRun`).
//!
//! Guarantees:
//! - **Exactly-once resume.** Resume clears the marker by compare-and-swap on the
//!   store revision: of two concurrent resumes one wins, the other gets
//!   [`Error::AlreadyResumed`].
//! - **Never wedged.** Whoever reads a corrupt record (resume, `run`, `runs`, `fail`)
//!   turns it into a `failed` run whose `last_error` says what was wrong, clearing the
//!   marker; whoever reads an expired marker turns it into a `cancelled` run with
//!   `expired_at` set (a later resume with decisions reports [`Error::MarkerExpired`]).
//! - **Expiry is not a denial.** That cancelled run keeps the marker's history and says
//!   `expired` for each call; a resume with no decisions takes them, exactly once, so
//!   the agent can tell its model that nobody answered in time.
//! - **Owners are separate.** A run of another owner is [`Error::RunNotFound`].

use serde::Serialize;

use crate::error::Error;
use crate::marker::{
    AnyHistory, CallOutcome, CallResult, EditCheck, HistoryCheck, Marker, Park, ResumeDecision,
    MAX_MARKER_BYTES,
};
use crate::run::{Run, RunStatus, StopReason};
use crate::store::{MarkerStore, Stored};

/// How often a read-heal-write loop retries after losing a compare-and-swap.
const MAX_RETRIES: usize = 4;

/// What `park` returns: the parked run (with its marker) and the stop reason for the turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parked {
    /// The parked run, with its marker.
    pub run: Run,
    /// Always [`StopReason::Paused`]: end the turn, do not hang the stream.
    pub stop_reason: StopReason,
}

/// What a successful `resume` returns: one result per pending call (marker order)
/// and the host's history to continue from. The run is `running` again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resumed {
    /// The run's id.
    pub run_id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// One result per pending call, in marker order.
    pub results: Vec<CallResult>,
    /// The history parked with the run.
    pub history: String,
    /// The revision of the `running` record the resume wrote.
    pub revision: u64,
}

/// Runs over a store. Time is passed in (`now`, ms); nothing here reads a clock.
pub struct Runs<S> {
    store: S,
    check: Box<dyn HistoryCheck>,
    keep: bool,
    edits: Option<EditCheck>,
}

/// A record as read: valid, or made valid by healing it.
enum Loaded {
    Absent,
    Found(Run),
    /// The record was corrupt; this is the `failed` run that replaced it (or, when
    /// even that could not be written, the record was deleted).
    Healed {
        run: Run,
        reason: String,
    },
    /// The marker had expired; this is the `cancelled` run that replaced it.
    Expired(Run),
}

impl<S: MarkerStore> Runs<S> {
    /// Runs over `store`, accepting any history.
    pub fn new(store: S) -> Runs<S> {
        Runs {
            store,
            check: Box::new(AnyHistory),
            keep: false,
            edits: None,
        }
    }

    /// Takes approvals of edited calls, each classified again by `check` (the host's
    /// policy): an edit the policy denies is refused ([`Error::EditRefused`]) and
    /// nothing is decided. Without it, every edit is refused.
    pub fn with_edit_check(mut self, check: Option<EditCheck>) -> Runs<S> {
        self.edits = check;
        self
    }

    /// Keeps the history (and each call's arguments) of a marker a resume decided in the
    /// run's record, for the host to take once with a resume with no decisions: for a
    /// host whose agent is not the one that decides (a server: the person decides in the
    /// panel, the agent takes the outcome later).
    pub fn keeping_history(mut self) -> Runs<S> {
        self.keep = true;
        self
    }

    /// Sets the host's history check, run at park and at every decode.
    pub fn with_history_check(mut self, check: impl HistoryCheck + 'static) -> Runs<S> {
        self.check = Box::new(check);
        self
    }

    /// The underlying store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Records a new `running` run (optional: `park` creates the run when absent).
    pub fn start(
        &self,
        run_id: &str,
        session_id: &str,
        owner: &str,
        now: u64,
    ) -> Result<Run, Error> {
        match self.load(run_id, now)? {
            Loaded::Absent => {
                let run = Run::started(run_id, session_id, owner, now);
                self.write(None, &run)?;
                Ok(run)
            }
            Loaded::Found(run) | Loaded::Expired(run) | Loaded::Healed { run, .. } => {
                if !owned_by(&run, owner) {
                    return Err(Error::RunIdTaken {
                        run_id: run_id.to_string(),
                    });
                }
                Err(Error::IllegalTransition {
                    run_id: run_id.to_string(),
                    from: run.status,
                    to: RunStatus::Running,
                })
            }
        }
    }

    /// Parks a run: writes its permission marker (several calls in one marker, the
    /// fallback marker for none) and returns stop reason `paused`. The run may be new
    /// or `running`. A full store is [`Error::QuotaExceeded`] and nothing changes.
    pub fn park(&self, park: Park, now: u64) -> Result<Parked, Error> {
        let expected = match self.load(&park.run_id, now)? {
            Loaded::Absent => None,
            Loaded::Found(run) | Loaded::Expired(run) | Loaded::Healed { run, .. } => {
                if !owned_by(&run, &park.owner) {
                    return Err(Error::RunIdTaken {
                        run_id: park.run_id,
                    });
                }
                // Another agent's run: only the agent that parked it parks it again (it
                // would otherwise choose the history the real agent resumes from).
                if let (Some(mine), Some(theirs)) = (&park.parked_by, &run.parked_by) {
                    if mine != theirs {
                        return Err(Error::RunIdTaken {
                            run_id: park.run_id,
                        });
                    }
                }
                if !run.status.can_become(RunStatus::AwaitingPermission) {
                    return Err(Error::IllegalTransition {
                        run_id: park.run_id,
                        from: run.status,
                        to: RunStatus::AwaitingPermission,
                    });
                }
                if run.session_id != park.session_id {
                    return Err(Error::BadPark {
                        run_id: park.run_id,
                        reason: format!(
                            "session_id `{}` is not the run's session `{}`",
                            park.session_id, run.session_id
                        ),
                    });
                }
                Some(run.revision)
            }
        };
        let revision = next(expected);
        let marker = Marker::park(&park, &*self.check, revision, now)?;
        let run = Run::parked(marker);
        self.write(expected, &run)?;
        Ok(Parked {
            run,
            stop_reason: StopReason::Paused,
        })
    }

    /// A run and, while it awaits permission, its marker (for rendering the prompt).
    /// `None` when absent. Heals a corrupt record (→ `failed`) and an expired marker
    /// (→ `cancelled`) on the way.
    pub fn run(&self, run_id: &str, now: u64) -> Result<Option<Run>, Error> {
        Ok(match self.load(run_id, now)? {
            Loaded::Absent => None,
            Loaded::Found(run) | Loaded::Expired(run) | Loaded::Healed { run, .. } => Some(run),
        })
    }

    /// Every run in the store, by run id, healing as [`Runs::run`] does.
    pub fn runs(&self, now: u64) -> Result<Vec<Run>, Error> {
        let entries = self.store.entries()?;
        let sorted = crate::store::sort_by_text(entries, |(k, _)| k.clone(), false);
        self.runs_from(sorted, now)
    }

    /// The runs of entries the host read itself (a page of a listing), in the order
    /// given, healing as [`Runs::run`] does.
    pub fn runs_from(&self, entries: Vec<(String, Stored)>, now: u64) -> Result<Vec<Run>, Error> {
        let mut out = Vec::with_capacity(entries.len());
        for (key, stored) in entries {
            match self.load_from(&key, Some(stored), now)? {
                Loaded::Absent => {}
                Loaded::Found(run) | Loaded::Expired(run) | Loaded::Healed { run, .. } => {
                    out.push(run)
                }
            }
        }
        Ok(out)
    }

    /// [`Runs::run`] as `owner` sees it: a run of another owner is `None`.
    pub fn run_of(&self, run_id: &str, owner: &str, now: u64) -> Result<Option<Run>, Error> {
        Ok(self.run(run_id, now)?.filter(|run| owned_by(run, owner)))
    }

    /// The runs `owner` may see (its own, and failed runs whose owner was unreadable),
    /// by run id, healing as [`Runs::run`] does. What `gate.runs()` lists.
    pub fn runs_of(&self, owner: &str, now: u64) -> Result<Vec<Run>, Error> {
        let mut runs = self.runs(now)?;
        runs.retain(|run| owned_by(run, owner));
        Ok(runs)
    }

    /// Resumes a parked run with one decision per pending call. Checks the owner (a
    /// run of another owner is not found), expiry, each decision's anchor, that every
    /// pending id is decided exactly once and no unknown id is given; then clears the
    /// marker by compare-and-swap (the run is `running`) and returns the outcomes and
    /// the history. Invalid decisions change nothing (the person can decide again).
    pub fn resume(
        &self,
        run_id: &str,
        owner: &str,
        decisions: &[ResumeDecision],
        now: u64,
    ) -> Result<Resumed, Error> {
        self.resume_by(run_id, owner, decisions, now, None)
    }

    /// [`Runs::resume`], recording who decided (`by`: a name the host trusts, e.g. the
    /// token's name) in the run's [`RunDecision`](crate::run::RunDecision).
    pub fn resume_by(
        &self,
        run_id: &str,
        owner: &str,
        decisions: &[ResumeDecision],
        now: u64,
        by: Option<&str>,
    ) -> Result<Resumed, Error> {
        self.resume_seen(run_id, owner, decisions, now, by, None)
    }

    /// [`Runs::resume_by`] for a prompt shown at run revision `seen`: when the run has
    /// moved on to another marker since (re-parked, even with the same call), the
    /// decision is refused ([`Error::StoreConflict`]) and nothing changes.
    pub fn resume_seen(
        &self,
        run_id: &str,
        owner: &str,
        decisions: &[ResumeDecision],
        now: u64,
        by: Option<&str>,
        seen: Option<u64>,
    ) -> Result<Resumed, Error> {
        let run = match self.load(run_id, now)? {
            Loaded::Absent => return Err(not_found(run_id)),
            Loaded::Found(run) => run,
            Loaded::Healed { run, reason } => {
                return Err(if owned_by(&run, owner) {
                    Error::MarkerCorrupt {
                        run_id: run_id.to_string(),
                        reason,
                    }
                } else {
                    not_found(run_id)
                })
            }
            Loaded::Expired(run) => run,
        };
        if !owned_by(&run, owner) {
            return Err(not_found(run_id));
        }
        if let Some(seen) = seen.filter(|s| *s != run.revision && run.marker.is_some()) {
            return Err(Error::StoreConflict {
                key: run_id.to_string(),
                expected: Some(seen),
                found: Some(run.revision),
            });
        }
        let read = run.revision;
        // `next` is the record to write, `history` what the host continues from.
        let mut run = run;
        let (next, results, history) = match run.marker.take() {
            Some(marker) => {
                let results = marker.resolve(decisions, self.edits.as_ref())?;
                let mut running = run.settle(RunStatus::Running, now, None)?;
                running.resumed_at = Some(now);
                running.decision = Some(crate::run::RunDecision {
                    decided_by: by.map(str::to_string),
                    calls: decided_calls(&results, &marker.calls, self.keep),
                });
                if self.keep {
                    running.history = Some(marker.history.clone());
                }
                (running, results, marker.history)
            }
            // A resume with no decisions takes what was kept for the host, once: the
            // history of a marker that expired (each call `expired`; the run stays
            // cancelled, now with `resumed_at`), or, where runs keep it, of a marker a
            // person decided (each call as decided, with its arguments).
            None if decisions.is_empty()
                && run.decision.is_some()
                && (run.status == RunStatus::Running
                    || (run.status == RunStatus::Cancelled && run.expired_at.is_some())) =>
            {
                let mut taken = run;
                let Some(history) = taken.history.take() else {
                    return Err(if taken.resumed_at.is_some() {
                        Error::AlreadyResumed {
                            run_id: run_id.to_string(),
                        }
                    } else {
                        not_awaiting(taken)
                    });
                };
                let mut results = Vec::new();
                if let Some(d) = &taken.decision {
                    for c in &d.calls {
                        // Only a decided approval with its arguments runs; anything else
                        // approves nothing.
                        let outcome = match (c.outcome.as_str(), &c.args) {
                            ("approved", Some(_)) => CallOutcome::Approved {
                                scope: c.scope.clone(),
                            },
                            ("denied", _) => CallOutcome::Denied {
                                message: c.message.clone().unwrap_or_default(),
                            },
                            ("answered", _) => match &c.answer {
                                Some(answer) => CallOutcome::Answered {
                                    answer: answer.clone(),
                                },
                                None => CallOutcome::Expired,
                            },
                            _ => CallOutcome::Expired,
                        };
                        results.push(CallResult {
                            tool_call_id: c.tool_call_id.clone(),
                            tool: c.tool.clone(),
                            args: c.args.clone().unwrap_or(serde_json::Value::Null),
                            outcome,
                            edited_from: c.edited_from.clone(),
                            grant: c.grant.clone(),
                        });
                    }
                }
                taken.revision = read.saturating_add(1);
                taken.updated_at = now;
                taken.resumed_at.get_or_insert(now);
                (taken, results, history)
            }
            None => return Err(not_awaiting(run)),
        };
        match self.write(Some(read), &next) {
            Ok(()) => {}
            Err(Error::StoreConflict { .. }) => {
                // Someone else changed the run between our read and our write: say what.
                return Err(match self.load(run_id, now)? {
                    Loaded::Absent => not_found(run_id),
                    Loaded::Found(now_run) | Loaded::Expired(now_run) => match now_run.status {
                        RunStatus::AwaitingPermission => Error::AlreadyResumed {
                            run_id: run_id.to_string(),
                        },
                        RunStatus::Running
                        | RunStatus::Completed
                        | RunStatus::Failed
                        | RunStatus::Cancelled => not_awaiting(now_run),
                    },
                    Loaded::Healed { reason, .. } => Error::MarkerCorrupt {
                        run_id: run_id.to_string(),
                        reason,
                    },
                });
            }
            Err(other) => return Err(other),
        }
        Ok(Resumed {
            run_id: next.run_id,
            session_id: next.session_id,
            results,
            history,
            revision: next.revision,
        })
    }

    /// Fails a run (`gate.failRun(runId, why)`): `failed` with `last_error = why`, the
    /// marker cleared. A corrupt record is failed already and returned as such.
    pub fn fail(&self, run_id: &str, owner: &str, why: &str, now: u64) -> Result<Run, Error> {
        self.settle(run_id, owner, RunStatus::Failed, Some(why.to_string()), now)
    }

    /// Marks a `running` run `completed`.
    pub fn complete(&self, run_id: &str, owner: &str, now: u64) -> Result<Run, Error> {
        self.settle(run_id, owner, RunStatus::Completed, None, now)
    }

    /// Cancels a running or parked run (the session ended, the user moved on); a
    /// pending marker is cleared and resumes nothing.
    pub fn cancel(&self, run_id: &str, owner: &str, why: &str, now: u64) -> Result<Run, Error> {
        self.settle(
            run_id,
            owner,
            RunStatus::Cancelled,
            Some(why.to_string()),
            now,
        )
    }

    /// Deletes the record of a finished (`completed`, `failed`, `cancelled`) run.
    pub fn forget(&self, run_id: &str, owner: &str, now: u64) -> Result<(), Error> {
        let run = match self.load(run_id, now)? {
            Loaded::Absent => return Err(not_found(run_id)),
            Loaded::Found(run) | Loaded::Expired(run) | Loaded::Healed { run, .. } => run,
        };
        if !owned_by(&run, owner) {
            return Err(not_found(run_id));
        }
        if !run.status.is_terminal() {
            return Err(Error::RunStillActive {
                run_id: run_id.to_string(),
                status: run.status,
            });
        }
        self.store.delete_if_revision(run_id, run.revision)
    }

    /// Deletes `owner`'s finished runs (`completed`, `failed`, `cancelled`) whose status
    /// last changed `older_than_ms` or more before `now`, and returns them (by run id).
    /// Runs that are `running` or awaiting permission are never touched, nor are other
    /// owners' runs. A record that changes while this runs (a lost compare-and-swap)
    /// is left for the next pass. Reading heals corrupt records and expired markers as
    /// [`Runs::run`] does; a run healed now has changed now, so it stays this pass.
    pub fn prune(&self, owner: &str, older_than_ms: u64, now: u64) -> Result<Vec<Run>, Error> {
        let mut pruned = Vec::new();
        for run in self.runs_of(owner, now)? {
            let old_enough = run.updated_at.saturating_add(older_than_ms) <= now;
            if !run.status.is_terminal() || !old_enough {
                continue;
            }
            match self.store.delete_if_revision(&run.run_id, run.revision) {
                Ok(()) => pruned.push(run),
                Err(Error::StoreConflict { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(pruned)
    }

    fn settle(
        &self,
        run_id: &str,
        owner: &str,
        to: RunStatus,
        why: Option<String>,
        now: u64,
    ) -> Result<Run, Error> {
        let run = match self.load(run_id, now)? {
            Loaded::Absent => return Err(not_found(run_id)),
            Loaded::Healed { run, .. } if to == RunStatus::Failed => {
                return if owned_by(&run, owner) {
                    Ok(run)
                } else {
                    Err(not_found(run_id))
                }
            }
            Loaded::Found(run) | Loaded::Expired(run) | Loaded::Healed { run, .. } => run,
        };
        if !owned_by(&run, owner) {
            return Err(not_found(run_id));
        }
        let settled = run.settle(to, now, why)?;
        self.write(Some(run.revision), &settled)?;
        Ok(settled)
    }

    /// Encodes `run` and writes it if the store still holds revision `expected`.
    fn write(&self, expected: Option<u64>, run: &Run) -> Result<(), Error> {
        let value = run.encode()?;
        self.store.put_if_revision(
            &run.run_id,
            expected,
            Stored {
                revision: run.revision,
                value,
            },
        )
    }

    /// Reads and decodes a record; heals corrupt records and expired markers.
    fn load(&self, run_id: &str, now: u64) -> Result<Loaded, Error> {
        self.load_from(run_id, None, now)
    }

    /// [`Runs::load`] starting from `first`, a value just read (by a listing); later
    /// attempts (after a lost compare-and-swap) read again.
    fn load_from(&self, run_id: &str, first: Option<Stored>, now: u64) -> Result<Loaded, Error> {
        let mut last_conflict = None;
        let mut first = first;
        for _ in 0..MAX_RETRIES {
            let stored = match first.take() {
                Some(stored) => stored,
                None => match self.store.get(run_id)? {
                    Some(stored) => stored,
                    None => return Ok(Loaded::Absent),
                },
            };
            let outcome = match decode_stored(run_id, &stored, &*self.check) {
                Ok(run) => match &run.marker {
                    Some(marker) if marker.is_expired(now) => {
                        let expires_at = marker.expires_at;
                        let mut cancelled = run.settle(
                            RunStatus::Cancelled,
                            now,
                            Some(format!(
                                "the permission request expired at {expires_at} ms before anyone decided"
                            )),
                        )?;
                        cancelled.expired_at = Some(expires_at);
                        let mut calls = Vec::new();
                        for c in &marker.calls {
                            calls.push(decided(c, "expired", None, None));
                        }
                        cancelled.decision = Some(crate::run::RunDecision {
                            decided_by: None,
                            calls,
                        });
                        cancelled.history = Some(marker.history.clone());
                        self.write(Some(stored.revision), &cancelled)
                            .map(|()| Loaded::Expired(cancelled))
                    }
                    Some(_) | None => return Ok(Loaded::Found(run)),
                },
                Err(reason) => self.heal(run_id, &stored, reason, now),
            };
            match outcome {
                Err(conflict @ Error::StoreConflict { .. }) => last_conflict = Some(conflict),
                other => return other,
            }
        }
        Err(last_conflict.unwrap_or_else(|| not_found(run_id)))
    }

    /// Replaces a corrupt record with a `failed` run saying why. If even that cannot
    /// be written (a full store), deletes the record: never wedged.
    fn heal(
        &self,
        run_id: &str,
        stored: &Stored,
        reason: String,
        now: u64,
    ) -> Result<Loaded, Error> {
        let (session_id, owner) = salvage(&stored.value);
        let failed = Run {
            run_id: run_id.to_string(),
            session_id,
            owner,
            status: RunStatus::Failed,
            revision: stored.revision.saturating_add(1),
            updated_at: now,
            last_error: Some(format!("corrupt permission marker: {reason}")),
            resumed_at: None,
            expired_at: None,
            decision: None,
            history: None,
            marker: None,
            parked_by: None,
        };
        match self.write(Some(stored.revision), &failed) {
            Ok(()) => {}
            Err(conflict @ Error::StoreConflict { .. }) => return Err(conflict),
            Err(_) => self.store.delete_if_revision(run_id, stored.revision)?,
        }
        Ok(Loaded::Healed {
            run: failed,
            reason,
        })
    }
}

/// The calls of a [`RunDecision`](crate::run::RunDecision): each result with the
/// pending call it decided (with its arguments where runs keep them).
fn decided_calls(
    results: &[CallResult],
    calls: &[crate::marker::PendingCall],
    keep: bool,
) -> Vec<crate::run::DecidedCall> {
    results
        .iter()
        .zip(calls)
        .map(|(r, c)| {
            let (outcome, scope, message) = match &r.outcome {
                CallOutcome::Approved { scope } => ("approved", scope.clone(), None),
                CallOutcome::Denied { message } => ("denied", None, Some(message.clone())),
                CallOutcome::Expired => ("expired", None, None),
                CallOutcome::Answered { .. } => ("answered", None, None),
            };
            let mut d = decided(c, outcome, scope, message);
            if let CallOutcome::Answered { answer } = &r.outcome {
                d.answer = Some(answer.clone());
            }
            d.args = keep.then(|| r.args.clone());
            d.edited_from = r.edited_from.clone();
            d.grant = r.grant.clone();
            d
        })
        .collect()
}

/// One call of a [`RunDecision`](crate::run::RunDecision).
fn decided(
    call: &crate::marker::PendingCall,
    outcome: &str,
    scope: Option<String>,
    message: Option<String>,
) -> crate::run::DecidedCall {
    crate::run::DecidedCall {
        tool_call_id: call.tool_call_id.clone(),
        tool: call.tool.clone(),
        anchor: call.anchor.clone(),
        outcome: outcome.to_string(),
        scope,
        message,
        args: None,
        edited_from: None,
        answer: None,
        grant: None,
    }
}

/// Decodes a stored value and checks it against its key and store revision.
fn decode_stored(run_id: &str, stored: &Stored, check: &dyn HistoryCheck) -> Result<Run, String> {
    let run = match Run::decode(&stored.value, check) {
        Ok(run) => run,
        Err(Error::BadMarker { reason }) => return Err(reason),
        Err(other) => return Err(other.to_string()),
    };
    if run.run_id != run_id {
        return Err(format!(
            "the record under `{run_id}` names run `{}`",
            run.run_id
        ));
    }
    if run.revision != stored.revision {
        return Err(format!(
            "revision {} does not match the store's revision {}",
            run.revision, stored.revision
        ));
    }
    Ok(run)
}

/// The session and owner of a corrupt record, when they can still be read.
fn salvage(value: &str) -> (String, String) {
    if value.len() > MAX_MARKER_BYTES {
        return (String::new(), String::new());
    }
    let Ok(serde_json::Value::Object(object)) = crate::json_text::parse(value) else {
        return (String::new(), String::new());
    };
    let field = |name: &str| match object.get(name) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(_) | None => String::new(),
    };
    (field("session_id"), field("owner"))
}

/// An empty owner is a run failed from a corrupt record whose owner was unreadable:
/// anyone may see that it failed.
fn owned_by(run: &Run, owner: &str) -> bool {
    run.is_owned_by(owner)
}

fn not_found(run_id: &str) -> Error {
    Error::RunNotFound {
        run_id: run_id.to_string(),
    }
}

/// The error for resuming a run that holds no marker, as specific as the record allows.
fn not_awaiting(run: Run) -> Error {
    if let (RunStatus::Running, Some(_)) = (run.status, run.resumed_at) {
        return Error::AlreadyResumed { run_id: run.run_id };
    }
    if let (RunStatus::Cancelled, Some(expires_at)) = (run.status, run.expired_at) {
        return Error::MarkerExpired {
            run_id: run.run_id,
            expires_at,
        };
    }
    Error::NotAwaitingPermission {
        run_id: run.run_id,
        status: run.status,
        why: run.last_error,
    }
}

fn next(revision: Option<u64>) -> u64 {
    revision.map_or(1, |r| r.saturating_add(1))
}
