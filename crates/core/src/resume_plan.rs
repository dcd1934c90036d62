//! Exactly-once resume across processes, its pure half: plan → claim → commit.
//!
//! [`Runs::resume`] clears a marker by compare-and-swap on the store revision, which
//! is exactly once for one store. Hosts whose store is shared by processes that cannot
//! lock it (browser tabs sharing `localStorage`) add a claim the host makes atomically
//! elsewhere (the wasm gate: an IndexedDB record) on the exact record being resumed:
//!
//! 1. [`plan`] reads the record once (the snapshot) and runs core's resume on it *dry*
//!    ([`SnapshotStore`]): would it succeed, and what one write would it make? No
//!    effect on the store.
//! 2. If it would succeed, the host claims [`ResumePlan::claim`], the key
//!    `<runId>:<revision>:<fingerprint>` of that exact record; a lost claim is
//!    [`Error::AlreadyResumed`]. A decision that would fail claims nothing.
//! 3. [`ResumePlan::commit`] makes the planned write by compare-and-swap. If the record
//!    moved on meanwhile, core's resume replayed on the snapshot says what happened;
//!    if the write itself failed, [`Committed::release_claim`] tells the host to give
//!    the claim back.
//!
//! Time is passed in; nothing here does I/O of its own.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::Error;
use crate::marker::{EditCheck, ResumeDecision};
use crate::runs::{Resumed, Runs};
use crate::store::{MarkerStore, Stored};

/// The claim of one stored record: `<runId>:<revision>:<fingerprint>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimKey {
    /// `<runId>:<revision>:<fingerprint>`.
    pub key: String,
    /// The run claimed.
    pub run_id: String,
    /// The record's revision claimed.
    pub revision: u64,
}

impl ClaimKey {
    /// The claim of `run_id` at `revision` with the record's fingerprint.
    pub fn new(run_id: &str, revision: u64, fingerprint: u64) -> ClaimKey {
        ClaimKey {
            key: format!("{run_id}:{revision}:{fingerprint:016x}"),
            run_id: run_id.to_string(),
            revision,
        }
    }
}

/// FNV-1a (64 bit) of a stored record: with the run id and revision it names the exact
/// record a claim is for, so a run id whose record was deleted and parked again (same
/// revision, new content) is a new claim.
pub fn fingerprint(value: &str) -> u64 {
    value.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A resume planned on one snapshot of the record.
pub struct ResumePlan {
    store: Rc<dyn MarkerStore>,
    run_id: String,
    snapshot: Option<Stored>,
    /// The host's check of edited calls ([`Runs::with_edit_check`]).
    edits: Option<EditCheck>,
    /// The dry run's result, its one write (expected revision, record) and the claim.
    planned: Option<(Resumed, Option<u64>, Stored, ClaimKey)>,
}

/// What a commit came to.
#[derive(Debug)]
pub struct Committed {
    /// The resume's answer.
    pub result: Result<Resumed, Error>,
    /// The planned write failed without changing the record: give the claim back so
    /// the person can decide again.
    pub release_claim: bool,
}

/// Step 1: read the record once and run the resume on it dry; `edits` checks edited
/// calls as [`Runs::with_edit_check`] does.
pub fn plan(
    store: &Rc<dyn MarkerStore>,
    run_id: &str,
    owner: &str,
    decisions: &[ResumeDecision],
    now: u64,
    edits: Option<EditCheck>,
) -> Result<ResumePlan, Error> {
    let snapshot = store.get(run_id)?;
    let dry = Rc::new(SnapshotStore::new(
        store.clone(),
        run_id,
        snapshot.clone(),
        true,
    ));
    let planned = match (
        over(&dry, &edits).resume(run_id, owner, decisions, now),
        dry.take_write(),
        &snapshot,
    ) {
        (Ok(resumed), Some((expected, record)), Some(s)) => Some((
            resumed,
            expected,
            record,
            ClaimKey::new(run_id, s.revision, fingerprint(&s.value)),
        )),
        // It would fail: claim nothing. Replayed on the snapshot for real, it fails the
        // same way (and heals a corrupt or expired record).
        _ => None,
    };
    Ok(ResumePlan {
        store: store.clone(),
        run_id: run_id.to_string(),
        snapshot,
        edits,
        planned,
    })
}

/// `Runs` over a store view, as `Rc<dyn MarkerStore>`: the type the wasm gate already
/// instantiates, so its resume is not compiled twice.
fn over(s: &Rc<SnapshotStore>, edits: &Option<EditCheck>) -> Runs<Rc<dyn MarkerStore>> {
    Runs::new(s.clone() as Rc<dyn MarkerStore>).with_edit_check(edits.clone())
}

impl ResumePlan {
    /// Step 2: the claim to make, when the resume would succeed.
    pub fn claim(&self) -> Option<&ClaimKey> {
        self.planned.as_ref().map(|(_, _, _, claim)| claim)
    }

    /// Without a claim to make (or to skip): core's resume replayed on the snapshot,
    /// for real, for its exact error (or to heal a corrupt or expired record).
    pub fn replay(
        &self,
        owner: &str,
        decisions: &[ResumeDecision],
        now: u64,
    ) -> Result<Resumed, Error> {
        let live = Rc::new(SnapshotStore::new(
            self.store.clone(),
            &self.run_id,
            self.snapshot.clone(),
            false,
        ));
        over(&live, &self.edits).resume(&self.run_id, owner, decisions, now)
    }

    /// Step 3, once the claim is won (or there was none to make): the planned write,
    /// by compare-and-swap on the revision the snapshot had.
    pub fn commit(mut self, owner: &str, decisions: &[ResumeDecision], now: u64) -> Committed {
        let Some((resumed, expected, record, _)) = self.planned.take() else {
            return Committed {
                result: self.replay(owner, decisions, now),
                release_claim: false,
            };
        };
        match self.store.put_if_revision(&self.run_id, expected, record) {
            Ok(()) => Committed {
                result: Ok(resumed),
                release_claim: false,
            },
            // The record changed since the snapshot: the replay meets the same conflict
            // and says what happened. The claim stays: the record moved on, and a
            // process that still sees the old one must not win it.
            Err(Error::StoreConflict { .. }) => Committed {
                result: self.replay(owner, decisions, now),
                release_claim: false,
            },
            // The write itself failed (a full or broken store): nothing was cleared.
            Err(e) => Committed {
                result: Err(e),
                release_claim: true,
            },
        }
    }
}

/// A view of `inner` in which run `key` reads as `snapshot` (the record as one read
/// found it) until this view writes that key. `dry`: writes to `key` are
/// compare-and-swapped against the snapshot and kept aside ([`SnapshotStore::take_write`]),
/// not done: "would this resume succeed, and what would it write?", with no effect.
/// Live (not dry): writes go to `inner`, and reads of `key` switch to `inner` after the
/// first write; it replays a resume on the snapshot for its exact error, or heals a
/// corrupt or expired record for real.
pub struct SnapshotStore {
    inner: Rc<dyn MarkerStore>,
    key: String,
    snapshot: Option<Stored>,
    dry: bool,
    wrote: Cell<bool>,
    /// Dry: the last write to `key` (expected revision, record).
    write: RefCell<Option<(Option<u64>, Stored)>>,
}

impl SnapshotStore {
    /// A store over `inner` that reads `key` as `snapshot`; `dry` keeps writes in memory.
    pub fn new(
        inner: Rc<dyn MarkerStore>,
        key: &str,
        snapshot: Option<Stored>,
        dry: bool,
    ) -> SnapshotStore {
        SnapshotStore {
            inner,
            key: key.to_string(),
            snapshot,
            dry,
            wrote: Cell::new(false),
            write: RefCell::new(None),
        }
    }

    /// Dry: the write to `key` a run asked for, when it asked for exactly one.
    pub fn take_write(&self) -> Option<(Option<u64>, Stored)> {
        self.write.borrow_mut().take()
    }

    fn snapshot_conflict(&self, expected: Option<u64>) -> Result<(), Error> {
        let found = self.snapshot.as_ref().map(|s| s.revision);
        if found == expected {
            Ok(())
        } else {
            Err(Error::StoreConflict {
                key: self.key.clone(),
                expected,
                found,
            })
        }
    }
}

impl MarkerStore for SnapshotStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        if key == self.key && (self.dry || !self.wrote.get()) {
            return Ok(self.snapshot.clone());
        }
        self.inner.get(key)
    }

    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        if key != self.key {
            return self.inner.put_if_revision(key, expected, new);
        }
        if self.dry {
            self.snapshot_conflict(expected)?;
            let first = !self.wrote.replace(true);
            // More than one write is not a plain resume: keep none (never replayed).
            *self.write.borrow_mut() = first.then_some((expected, new));
            return Ok(());
        }
        self.wrote.set(true);
        self.inner.put_if_revision(key, expected, new)
    }

    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        if key != self.key {
            return self.inner.delete_if_revision(key, expected);
        }
        if self.dry {
            self.snapshot_conflict(Some(expected))?;
            self.wrote.set(true);
            *self.write.borrow_mut() = None;
            return Ok(());
        }
        self.wrote.set(true);
        self.inner.delete_if_revision(key, expected)
    }

    fn keys(&self) -> Result<Vec<String>, Error> {
        self.inner.keys()
    }
}
