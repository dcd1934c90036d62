//! Grants in the SQL stores (a real SQLite file; a real PostgreSQL server under
//! `scripts/with-postgres`): stored, listed, used only while live (a single-use grant
//! once, even from two connections racing), revoked, expired, pruned; and the audit
//! names the grant that approved a call.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Barrier};

use serde_json::json;
use toolgate_core::{
    Choice, Grant, GrantOrigin, GrantRequest, Park, ParkCall, Policy, ResumeDecision, Runs,
    ToolCall,
};
use toolgate_store::{open, GrantFilter, SqlStore, StoreOptions};

const T0: u64 = 1_700_000_000_000;

fn give(owner: &str, id: &str, session: &str, ttl: u64, single: bool) -> Grant {
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let call = ToolCall::new("bash", json!({ "command": "git push origin main" }));
    let req = GrantRequest {
        rule: "Bash(git push:*)".into(),
        ttl_ms: Some(ttl),
        single_use: single,
    };
    let origin = GrantOrigin {
        id,
        owner,
        session_id: session,
        by: Some("alice"),
        run_id: "r0",
        tool_call_id: "c0",
    };
    Grant::give(&policy, &call, &req, origin, T0).expect("offered")
}

fn grants(store: &SqlStore, owner: &str) {
    let ids = |f: GrantFilter<'_>, now: u64| -> Vec<String> {
        store
            .grants(owner, f, now)
            .expect("list")
            .into_iter()
            .map(|g| g.id)
            .collect()
    };
    store
        .add_grant(&give(owner, "g-long", "s1", 60_000, false), T0)
        .expect("add");
    store
        .add_grant(&give(owner, "g-once", "s1", 60_000, true), T0)
        .expect("add");
    store
        .add_grant(&give(owner, "g-short", "s2", 1_000, false), T0)
        .expect("add");
    assert!(
        store
            .add_grant(&give(owner, "g-long", "s1", 5, false), T0)
            .is_err(),
        "id taken"
    );
    assert_eq!(
        ids(GrantFilter::Session("s1"), T0 + 1),
        ["g-long", "g-once"]
    );
    assert_eq!(
        ids(GrantFilter::Live, T0 + 1),
        ["g-long", "g-once", "g-short"]
    );
    assert!(store
        .grants("someone-else", GrantFilter::All, T0)
        .expect("list")
        .is_empty());
    // Uses count only while live: a single-use grant once; an expired one never.
    assert!(store.use_grant(owner, "g-once", T0 + 2).expect("use"));
    assert!(!store.use_grant(owner, "g-once", T0 + 3).expect("use"));
    assert!(store.use_grant(owner, "g-short", T0 + 999).expect("use"));
    assert!(!store.use_grant(owner, "g-short", T0 + 1_000).expect("use"));
    assert!(!store
        .use_grant("someone-else", "g-long", T0 + 4)
        .expect("use"));
    assert_eq!(ids(GrantFilter::Live, T0 + 1_000), ["g-long"]);
    let g = store.grant(owner, "g-once").expect("get").expect("kept");
    assert_eq!((g.used, g.single_use), (1, true));
    // Revoked: never used again; a second revoke changes nothing.
    assert!(!store
        .revoke_grant("someone-else", "g-long", T0 + 5)
        .expect("revoke"));
    assert!(store.revoke_grant(owner, "g-long", T0 + 5).expect("revoke"));
    assert!(!store.revoke_grant(owner, "g-long", T0 + 6).expect("revoke"));
    assert!(!store.use_grant(owner, "g-long", T0 + 7).expect("use"));
    assert_eq!(
        store
            .grant(owner, "g-long")
            .expect("get")
            .expect("kept")
            .revoked_at,
        Some(T0 + 5)
    );
    assert!(ids(GrantFilter::Live, T0 + 1_000).is_empty());
    assert_eq!(ids(GrantFilter::All, T0 + 8).len(), 3);
    // Another owner's ended grant goes with the server's pruning of every owner's.
    let other = format!("{owner}-other");
    store
        .add_grant(&give(&other, "g-other", "s1", 1_000, false), T0)
        .expect("add");
    assert_eq!(store.prune_grants(owner, T0 + 2_000).expect("prune"), 3);
    assert!(ids(GrantFilter::All, T0 + 8).is_empty());
    assert_eq!(
        store.prune_ended_grants(T0 + 500).expect("prune all"),
        0,
        "not ended yet"
    );
    assert_eq!(store.prune_ended_grants(T0 + 2_000).expect("prune all"), 1);
    assert!(store.grant(&other, "g-other").expect("get").is_none());

    // The audit names the grant that approved a call.
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let call = ToolCall::new("bash", json!({ "command": "git push origin dev" }));
    let runs = Runs::new(store.owner(owner));
    let parked = runs
        .park(
            Park {
                run_id: "granted".into(),
                session_id: "s1".into(),
                owner: owner.into(),
                calls: vec![ParkCall {
                    tool_call_id: "c1".into(),
                    verdict: policy.classify(&call),
                    call: call.clone(),
                }],
                history: "{}".into(),
                ttl_ms: None,
                parked_by: None,
            },
            T0,
        )
        .expect("park");
    let d = ResumeDecision {
        tool_call_id: "c1".into(),
        anchor: call.anchor(),
        choice: Choice::Allow {
            scope: None,
            args: None,
            grant: Some("g-audit".into()),
        },
    };
    assert!(parked.run.marker.is_some());
    runs.resume_by("granted", owner, &[d], T0 + 1, Some("alice"))
        .expect("resume");
    let rec = store
        .audit(Some(owner), T0, 10)
        .expect("audit")
        .into_iter()
        .find(|r| r.run_id == "granted")
        .expect("record");
    assert_eq!(rec.grant.as_deref(), Some("g-audit"));
    assert!(store.verify_audit().expect("verify").problem.is_none());
}

/// Two connections use one single-use grant at once, 50 times: exactly one wins each.
fn race(a: Arc<SqlStore>, b: Arc<SqlStore>, owner: &str) {
    for i in 0..50 {
        let id = format!("race-{i}");
        a.add_grant(&give(owner, &id, "s", 60_000, true), T0)
            .expect("add");
        let barrier = Arc::new(Barrier::new(2));
        let wins: usize = [a.clone(), b.clone()]
            .into_iter()
            .map(|s| {
                let (barrier, id, owner) = (barrier.clone(), id.clone(), owner.to_string());
                std::thread::spawn(move || {
                    barrier.wait();
                    usize::from(s.use_grant(&owner, &id, T0 + 1).expect("use"))
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .sum();
        assert_eq!(wins, 1, "{id}");
    }
}

#[test]
fn sqlite_grants() {
    let dir = std::env::temp_dir().join(format!("toolgate-grants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = format!("sqlite:{}", dir.join("g.db").display());
    let store = open(&url, StoreOptions::default()).expect("open");
    grants(&store, "me");
    let second = open(&url, StoreOptions::default()).expect("second connection");
    race(Arc::new(store), Arc::new(second), "me");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn postgres_grants() {
    let Ok(url) = std::env::var("TOOLGATE_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_POSTGRES").is_none(),
            "TOOLGATE_REQUIRE_POSTGRES is set but TOOLGATE_TEST_POSTGRES_URL is not"
        );
        eprintln!("SKIPPED: no PostgreSQL (run under scripts/with-postgres)");
        return;
    };
    let store = open(&url, StoreOptions::default()).expect("open");
    // An owner of its own: the database is shared with the other store tests.
    let owner = format!("grants-{}", std::process::id());
    grants(&store, &owner);
    let second = open(&url, StoreOptions::default()).expect("second connection");
    race(Arc::new(store), Arc::new(second), &owner);
}
