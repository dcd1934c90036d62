//! The pure half of exactly-once resume across processes (`resume_plan`): plan on a
//! snapshot, claim that exact record, commit by compare-and-swap. Two processes
//! sharing one store are simulated by two plans made before either commits; the claim
//! a browser makes in IndexedDB is a set of keys here.
#![cfg(test)]

use std::collections::HashSet;
use std::rc::Rc;

use serde_json::json;
use toolgate_core::resume_plan::{self, fingerprint, ClaimKey, SnapshotStore};
use toolgate_core::{
    anchor, Error, MarkerStore, MemoryStore, Park, ParkCall, ResumeDecision, RunStatus, Runs,
    Stored, Tier, ToolCall, Verdict,
};

const T0: u64 = 1_700_000_000_000;

fn rm_build() -> ParkCall {
    ParkCall {
        tool_call_id: "call_1".to_string(),
        call: ToolCall::new("bash", json!({"command": "rm -rf build"})),
        verdict: Verdict::new(Tier::Ask, "test.bash", "bash needs a look"),
    }
}

/// A store holding run `r-1` parked on one call, and the decision approving it.
fn parked(store: &Rc<dyn MarkerStore>) -> Vec<ResumeDecision> {
    let runs = Runs::new(store.clone());
    let call = rm_build();
    let anchor = anchor(&call.call.tool, &call.call.args);
    runs.park(
        Park {
            run_id: "r-1".to_string(),
            session_id: "s-1".to_string(),
            owner: "alice".to_string(),
            calls: vec![call],
            history: "H".to_string(),
            ttl_ms: None,
            parked_by: None,
        },
        T0,
    )
    .expect("park");
    vec![ResumeDecision::allow("call_1", anchor)]
}

fn store() -> Rc<dyn MarkerStore> {
    Rc::new(MemoryStore::new())
}

#[test]
fn a_plan_claims_the_exact_record_and_changes_nothing() {
    let store = store();
    let decisions = parked(&store);
    let before = store.get("r-1").unwrap().expect("record");
    let plan = resume_plan::plan(&store, "r-1", "alice", &decisions, T0 + 1, None).unwrap();
    let claim = plan
        .claim()
        .expect("a resume that would succeed has a claim");
    assert_eq!(
        claim,
        &ClaimKey::new("r-1", before.revision, fingerprint(&before.value))
    );
    assert!(claim.key.starts_with(&format!("r-1:{}:", before.revision)));
    // Dry: the record is as it was.
    assert_eq!(store.get("r-1").unwrap(), Some(before));
    let done = plan.commit("alice", &decisions, T0 + 2);
    assert!(!done.release_claim);
    let resumed = done.result.expect("resumed");
    assert_eq!(resumed.history, "H");
    let run = Runs::new(store.clone())
        .run("r-1", T0 + 3)
        .unwrap()
        .unwrap();
    assert_eq!(run.status, RunStatus::Running);
}

#[test]
fn of_two_processes_one_claim_wins_and_the_other_is_already_resumed() {
    let store = store();
    let decisions = parked(&store);
    // Both read the same record before either commits.
    let a = resume_plan::plan(&store, "r-1", "alice", &decisions, T0 + 1, None).unwrap();
    let b = resume_plan::plan(&store, "r-1", "alice", &decisions, T0 + 1, None).unwrap();
    let mut claims: HashSet<String> = HashSet::new();
    let ka = a.claim().cloned().expect("claim a");
    let kb = b.claim().cloned().expect("claim b");
    assert_eq!(ka, kb, "the same record, the same claim");
    assert!(claims.insert(ka.key), "a wins");
    assert!(
        !claims.insert(kb.key),
        "b loses: the host reports already_resumed"
    );
    assert!(a.commit("alice", &decisions, T0 + 2).result.is_ok());
    // Had b skipped the claim (no IndexedDB), its compare-and-swap still fails, and the
    // replay on its snapshot says what happened.
    let late = b.commit("alice", &decisions, T0 + 2);
    assert!(!late.release_claim);
    assert!(
        matches!(
            late.result,
            Err(Error::StoreConflict { .. } | Error::AlreadyResumed { .. })
        ),
        "{:?}",
        late.result
    );
    // A plan made now sees a running run: nothing to claim, and the replay's error.
    let again = resume_plan::plan(&store, "r-1", "alice", &decisions, T0 + 3, None).unwrap();
    assert!(again.claim().is_none());
    assert!(again.replay("alice", &decisions, T0 + 3).is_err());
}

#[test]
fn a_decision_that_would_fail_claims_nothing() {
    let store = store();
    let _ = parked(&store);
    let wrong = [ResumeDecision::allow("call_1", "not the anchor")];
    let plan = resume_plan::plan(&store, "r-1", "alice", &wrong, T0 + 1, None).unwrap();
    assert!(plan.claim().is_none(), "the person can decide again");
    assert!(plan.replay("alice", &wrong, T0 + 1).is_err());
    // Another owner's run is not found, and claims nothing either.
    let decisions = parked(&self::store());
    let plan = resume_plan::plan(&store, "r-1", "mallory", &decisions, T0 + 1, None).unwrap();
    assert!(plan.claim().is_none());
    assert!(matches!(
        plan.replay("mallory", &decisions, T0 + 1),
        Err(Error::RunNotFound { .. })
    ));
}

/// A store whose writes fail (full, broken): the commit asks for the claim back.
struct Broken(Rc<dyn MarkerStore>);

impl MarkerStore for Broken {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.0.get(key)
    }
    fn put_if_revision(&self, key: &str, _: Option<u64>, _: Stored) -> Result<(), Error> {
        Err(Error::QuotaExceeded {
            key: key.to_string(),
            bytes: 0,
        })
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        self.0.delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        self.0.keys()
    }
}

#[test]
fn a_failed_write_gives_the_claim_back_and_changes_nothing() {
    let inner = store();
    let decisions = parked(&inner);
    let before = inner.get("r-1").unwrap();
    let broken: Rc<dyn MarkerStore> = Rc::new(Broken(inner.clone()));
    let plan = resume_plan::plan(&broken, "r-1", "alice", &decisions, T0 + 1, None).unwrap();
    assert!(plan.claim().is_some());
    let done = plan.commit("alice", &decisions, T0 + 2);
    assert!(done.release_claim);
    assert!(done.result.is_err());
    assert_eq!(inner.get("r-1").unwrap(), before, "nothing cleared");
}

#[test]
fn a_dry_snapshot_keeps_exactly_one_write() {
    let inner = store();
    let _ = parked(&inner);
    let snap = inner.get("r-1").unwrap();
    let rev = snap.as_ref().map(|s| s.revision);
    let dry = SnapshotStore::new(inner.clone(), "r-1", snap.clone(), true);
    let record = Stored {
        value: "x".to_string(),
        revision: rev.unwrap_or(0) + 1,
    };
    // A write against another revision than the snapshot's conflicts.
    assert!(matches!(
        dry.put_if_revision("r-1", Some(999), record.clone()),
        Err(Error::StoreConflict { .. })
    ));
    dry.put_if_revision("r-1", rev, record.clone()).unwrap();
    assert_eq!(
        dry.get("r-1").unwrap(),
        snap,
        "dry reads stay on the snapshot"
    );
    assert_eq!(inner.get("r-1").unwrap(), snap, "dry writes nothing");
    dry.put_if_revision("r-1", rev, record).unwrap();
    assert_eq!(dry.take_write(), None, "two writes are not a plain resume");
}
