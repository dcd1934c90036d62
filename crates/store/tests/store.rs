//! The SQL stores on a real SQLite file and a real PostgreSQL server: compare-and-swap,
//! the size bound, restart mid-approval, corrupt rows → failed, expiry → cancelled, and
//! the same run resumed from two connections 100 times (exactly one winner each time).
//!
//! PostgreSQL: `scripts/with-postgres cargo test -p toolgate-store` (what
//! `./scripts/test` runs) starts a throwaway server and sets TOOLGATE_TEST_POSTGRES_URL.
//! Without it the PostgreSQL test says SKIPPED, unless TOOLGATE_REQUIRE_POSTGRES=1 makes
//! that a failure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

use serde_json::json;
use toolgate_core::{
    Choice, Error, MarkerStore, Park, ParkCall, Policy, ResumeDecision, RunStatus, Runs, Stored,
    ToolCall,
};
use toolgate_store::{open, OpenError, PageFilter, SqlStore, StoreOptions};

const TOML: &str = "workspace = \"/home/dev/app\"\ndefault = \"ask\"\n";
const T0: u64 = 1_700_000_000_000;

/// A fresh directory under the system's temp dir (removed by the test).
fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolgate-store-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn park_request(run_id: &str, by: &str) -> Park {
    let policy = Policy::from_toml(TOML).expect("policy");
    let call = ToolCall::new("bash", json!({ "command": "git push origin main" }));
    Park {
        run_id: run_id.to_string(),
        session_id: "s".into(),
        owner: "me".into(),
        calls: vec![ParkCall {
            tool_call_id: "c1".into(),
            verdict: policy.classify(&call),
            call,
        }],
        history: "{\"step\":1}".into(),
        ttl_ms: Some(60_000),
        parked_by: (!by.is_empty()).then(|| by.to_string()),
    }
}

fn park(runs: &Runs<impl MarkerStore>, run_id: &str, now: u64) -> Vec<ResumeDecision> {
    park_as(runs, run_id, now, "")
}

fn park_as(runs: &Runs<impl MarkerStore>, run_id: &str, now: u64, by: &str) -> Vec<ResumeDecision> {
    let parked = runs.park(park_request(run_id, by), now).expect("park");
    let marker = parked.run.marker.expect("a marker");
    marker
        .calls
        .iter()
        .map(|c| ResumeDecision {
            tool_call_id: c.tool_call_id.clone(),
            anchor: c.anchor.clone(),
            choice: Choice::Allow {
                scope: None,
                args: None,
                grant: None,
            },
        })
        .collect()
}

/// Compare-and-swap, the size bound and keys, on an empty store.
fn cas(store: &SqlStore) {
    let c0 = store.changes().expect("changes");
    let changes = || store.changes().expect("changes");
    let store = store.owner("me");
    let v = |revision: u64, value: &str| Stored {
        revision,
        value: value.to_string(),
    };
    store
        .put_if_revision("k", None, v(1, "one"))
        .expect("insert");
    match store.put_if_revision("k", None, v(1, "again")) {
        Err(Error::StoreConflict { found, .. }) => assert_eq!(found, Some(1)),
        other => panic!("insert over a row: {other:?}"),
    }
    match store.put_if_revision("k", Some(7), v(8, "wrong")) {
        Err(Error::StoreConflict {
            expected, found, ..
        }) => assert_eq!((expected, found), (Some(7), Some(1))),
        other => panic!("stale update: {other:?}"),
    }
    match store.put_if_revision("absent", Some(1), v(2, "x")) {
        Err(Error::StoreConflict { found, .. }) => assert_eq!(found, None),
        other => panic!("update of an absent row: {other:?}"),
    }
    let c1 = changes();
    assert!(c1 > c0, "an insert bumps the change counter");
    store
        .put_if_revision("k", Some(1), v(2, "two"))
        .expect("update");
    assert!(changes() > c1, "an update bumps it");
    assert_eq!(store.get("k").expect("get"), Some(v(2, "two")));
    assert!(matches!(
        store.delete_if_revision("k", 1),
        Err(Error::StoreConflict { .. })
    ));
    assert_eq!(store.get("k").expect("get").map(|s| s.revision), Some(2));
    store
        .put_if_revision("k2", None, v(1, "b"))
        .expect("insert");
    let mut keys = store.keys().expect("keys");
    keys.sort();
    assert_eq!(keys, ["k", "k2"]);
    store.delete_if_revision("k", 2).expect("delete");
    store.delete_if_revision("k2", 1).expect("delete");
    assert_eq!(store.get("k").expect("get"), None);
    assert!(store.keys().expect("keys").is_empty());
    assert!(matches!(
        store.delete_if_revision("k", 2),
        Err(Error::StoreConflict { found: None, .. })
    ));

    // Over the bound: refused, nothing written.
    let big = "x".repeat(StoreOptions::default().max_value_bytes + 1);
    assert!(matches!(
        store.put_if_revision("big", None, v(1, &big)),
        Err(Error::QuotaExceeded { .. })
    ));
    assert_eq!(store.get("big").expect("get"), None);
}

/// Another owner's rows: the same run id is another run; nothing one owner does reaches
/// the other's; pages, counts and pruning candidates per owner.
fn owners(store: &SqlStore) {
    let (a, b) = (store.owner("ann"), store.owner("ben"));
    let v = |revision: u64, value: &str| Stored {
        revision,
        value: value.to_string(),
    };
    a.put_if_revision("same", None, v(1, "ann's"))
        .expect("insert");
    b.put_if_revision("same", None, v(1, "ben's"))
        .expect("insert");
    assert_eq!(a.get("same").expect("get"), Some(v(1, "ann's")));
    assert_eq!(b.get("same").expect("get"), Some(v(1, "ben's")));
    assert!(b.delete_if_revision("only-ann", 1).is_err());
    b.delete_if_revision("same", 1).expect("delete ben's");
    assert_eq!(
        a.get("same").expect("get"),
        Some(v(1, "ann's")),
        "ann's kept"
    );
    a.delete_if_revision("same", 1).expect("delete");
    // Pages by run id, filtered by status and agent, through real runs.
    let runs = Runs::new(store.owner("me"));
    for i in 0..5 {
        park_as(
            &runs,
            &format!("page-{i}"),
            T0,
            if i % 2 == 0 { "agent-a" } else { "agent-b" },
        );
    }
    let me = store.owner("me");
    let ids = |page: Vec<(String, Stored)>| page.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    let waiting = PageFilter {
        status: Some("awaiting_permission"),
        parked_by: None,
    };
    let first = ids(me.page(Some("page-"), 2, waiting).expect("page"));
    assert_eq!(first, ["page-0", "page-1"]);
    let next = ids(me.page(Some("page-1"), 2, waiting).expect("page"));
    assert_eq!(next, ["page-2", "page-3"]);
    let by_a = PageFilter {
        status: None,
        parked_by: Some("agent-a"),
    };
    assert_eq!(
        ids(me.page(Some("page-"), 10, by_a).expect("page")),
        ["page-0", "page-2", "page-4"]
    );
    assert!(me.waiting().expect("waiting") >= 5);
    assert_eq!(store.owner("nobody").waiting().expect("waiting"), 0);
    assert!(store
        .owner("nobody")
        .page(None, 10, waiting)
        .expect("page")
        .is_empty());
    // Another agent cannot park over agent-a's run; agent-a can.
    let again = runs.park(park_request("page-0", "agent-b"), T0 + 1);
    assert!(matches!(again, Err(Error::RunIdTaken { .. })), "{again:?}");
    // Finished runs are pruning candidates once old enough; waiting ones never.
    runs.cancel("page-4", "me", "done", T0 + 2).expect("cancel");
    assert!(!store
        .owners_to_prune(T0 + 2)
        .expect("owners")
        .contains(&"me".to_string()));
    assert!(store
        .owners_to_prune(T0 + 3)
        .expect("owners")
        .contains(&"me".to_string()));
    let pruned = runs.prune("me", 1, T0 + 10).expect("prune");
    assert!(pruned.iter().any(|r| r.run_id == "page-4"));
    assert!(
        runs.run("page-0", T0 + 10).expect("run").is_some(),
        "waiting runs stay"
    );
}

/// The run lifecycle over the store: resume once, expiry → cancelled.
fn lifecycle(store: &SqlStore) {
    let runs = Runs::new(store.owner("me"));
    let decisions = park(&runs, "run-life", T0);
    let run = runs
        .run_of("run-life", "me", T0 + 1)
        .expect("run")
        .expect("found");
    assert_eq!(run.status, RunStatus::AwaitingPermission);
    assert!(runs
        .run_of("run-life", "other", T0 + 1)
        .expect("run")
        .is_none());
    let resumed = runs
        .resume("run-life", "me", &decisions, T0 + 2)
        .expect("resume");
    assert_eq!(resumed.history, "{\"step\":1}");
    let again = runs.resume("run-life", "me", &decisions, T0 + 3);
    assert!(
        matches!(again, Err(Error::AlreadyResumed { .. })),
        "{again:?}"
    );

    let decisions = park(&runs, "run-exp", T0);
    let late = runs.resume("run-exp", "me", &decisions, T0 + 60_000);
    assert!(late.is_err(), "an expired marker resumed: {late:?}");
    let run = runs
        .run("run-exp", T0 + 60_001)
        .expect("run")
        .expect("found");
    assert_eq!(run.status, RunStatus::Cancelled);
    assert_eq!(run.expired_at, Some(T0 + 60_000));
}

/// The audit trail: each request's end once, with its outcome and who decided.
fn audit_trail(store: &SqlStore) {
    let runs = Runs::new(store.owner("me"));
    let approve = park(&runs, "audit-ok", T0);
    runs.resume_by("audit-ok", "me", &approve, T0 + 5, Some("alice-phone"))
        .expect("resume");
    let deny: Vec<ResumeDecision> = park(&runs, "audit-no", T0)
        .into_iter()
        .map(|mut d| {
            d.choice = Choice::Deny {
                message: Some("not today".into()),
            };
            d
        })
        .collect();
    runs.resume_by("audit-no", "me", &deny, T0 + 6, Some("bob"))
        .expect("deny");
    park(&runs, "audit-exp", T0);
    runs.run("audit-exp", T0 + 60_000).expect("expire");
    park(&runs, "audit-cancel", T0);
    runs.cancel("audit-cancel", "me", "the user moved on", T0 + 7)
        .expect("cancel");
    // Reading again, or failing a lost resume, records nothing more.
    runs.run("audit-exp", T0 + 70_000).expect("read");
    assert!(runs
        .resume_by("audit-ok", "me", &approve, T0 + 8, Some("eve"))
        .is_err());
    let got: Vec<(String, String, Option<String>, Option<String>)> = store
        .audit(Some("me"), T0, 100)
        .expect("audit")
        .into_iter()
        .filter(|r| r.run_id.starts_with("audit-"))
        .map(|r| {
            assert_eq!(r.tool_call_id, "c1");
            assert_eq!(r.anchor.len(), 64);
            assert_eq!(r.rule, "builtin.default");
            (r.run_id, r.outcome, r.decided_by, r.message)
        })
        .collect();
    let row = |id: &str, outcome: &str, by: Option<&str>, msg: Option<&str>| {
        (
            id.to_string(),
            outcome.to_string(),
            by.map(str::to_string),
            msg.map(str::to_string),
        )
    };
    assert_eq!(
        got,
        [
            row("audit-ok", "approved", Some("alice-phone"), None),
            row("audit-no", "denied", Some("bob"), Some("not today")),
            row("audit-cancel", "cancelled", None, Some("the user moved on")),
            row("audit-exp", "expired", None, None),
        ]
    );
    assert!(store
        .audit(Some("other"), 0, 100)
        .expect("audit")
        .is_empty());
    // An approved edit: the record keeps the parked call's anchor and the edit's (read
    // back, and hashed into the chain that `audit_chain` verifies next).
    let policy = Policy::from_toml(TOML).expect("policy");
    let edits: toolgate_core::EditCheck = std::rc::Rc::new(move |c: &ToolCall| policy.classify(c));
    let keeping = Runs::new(store.owner("me"))
        .keeping_history()
        .with_edit_check(Some(edits));
    let mut edited = park(&keeping, "edit-ok", T0);
    let to = json!({ "command": "git push origin feature" });
    edited[0].choice = Choice::Allow {
        scope: None,
        args: Some(to.clone()),
        grant: None,
    };
    keeping
        .resume_by("edit-ok", "me", &edited, T0 + 9, Some("alice-phone"))
        .expect("edited approval");
    let rec = store
        .audit(Some("me"), T0, 100)
        .expect("audit")
        .into_iter()
        .find(|r| r.run_id == "edit-ok")
        .expect("the edit's record");
    assert_eq!(
        (rec.outcome.as_str(), rec.anchor.as_str(), rec.edited_anchor),
        (
            "approved",
            edited[0].anchor.as_str(),
            Some(toolgate_core::anchor("bash", &to))
        )
    );
}

/// The audit trail's hash chain: intact as written; an edited record, a deleted one in
/// the middle and a deleted last one are each found (and the chain holds again once
/// restored). `exec` runs SQL on the database as another program would.
fn audit_chain(store: &SqlStore, exec: &dyn Fn(&str)) {
    let ok = store.verify_audit().expect("verify");
    assert!(ok.problem.is_none(), "{ok:?}");
    assert!(ok.records >= 3, "{ok:?}");
    assert_eq!(ok.head.as_deref().map(str::len), Some(64));
    exec("CREATE TABLE audit_saved AS SELECT * FROM toolgate_audit");
    let second = "(SELECT id FROM audit_saved ORDER BY id LIMIT 1 OFFSET 1)";
    let last = "(SELECT max(id) FROM audit_saved)";
    let problem = || {
        store
            .verify_audit()
            .expect("verify")
            .problem
            .unwrap_or_default()
    };
    exec(&format!("UPDATE toolgate_audit SET outcome = 'approved', decided_by = 'mallory' WHERE id = {second}"));
    assert!(problem().contains("edited"), "{}", problem());
    exec(&format!(
        "UPDATE toolgate_audit SET outcome = (SELECT outcome FROM audit_saved WHERE id = {second}),
             decided_by = (SELECT decided_by FROM audit_saved WHERE id = {second}) WHERE id = {second}"
    ));
    assert_eq!(problem(), "");
    exec(&format!("DELETE FROM toolgate_audit WHERE id = {second}"));
    assert!(
        problem().contains("the record before it was deleted"),
        "{}",
        problem()
    );
    exec(&format!(
        "INSERT INTO toolgate_audit SELECT * FROM audit_saved WHERE id = {second}"
    ));
    assert_eq!(problem(), "");
    exec(&format!("DELETE FROM toolgate_audit WHERE id = {last}"));
    assert!(
        problem().contains("the last record(s) were deleted"),
        "{}",
        problem()
    );
    exec(&format!(
        "INSERT INTO toolgate_audit SELECT * FROM audit_saved WHERE id = {last}"
    ));
    assert_eq!(problem(), "");
    exec("DROP TABLE audit_saved");
}

/// A corrupt document (as written by something else) → the run is failed, never resumed.
fn corrupt(store: &SqlStore, run_id: &str, corrupt_row: &dyn Fn(&str)) {
    let runs = Runs::new(store.owner("me"));
    let decisions = park(&runs, run_id, T0);
    corrupt_row(run_id);
    let got = runs.resume(run_id, "me", &decisions, T0 + 1);
    assert!(
        matches!(
            got,
            Err(Error::MarkerCorrupt { .. }) | Err(Error::RunNotFound { .. })
        ),
        "{got:?}"
    );
    let run = runs.run(run_id, T0 + 2).expect("run").expect("found");
    assert_eq!(run.status, RunStatus::Failed);
    assert!(run.marker.is_none());
}

/// The same run resumed by two connections at once, `rounds` times: one winner each.
fn race(a: Arc<SqlStore>, b: Arc<SqlStore>, rounds: usize) -> usize {
    let mut winners = 0;
    for i in 0..rounds {
        let run_id = format!("race-{i}");
        let decisions = park(&Runs::new(a.owner("me")), &run_id, T0);
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = [a.clone(), b.clone()]
            .into_iter()
            .map(|store| {
                let (barrier, run_id, decisions) =
                    (barrier.clone(), run_id.clone(), decisions.clone());
                std::thread::spawn(move || {
                    let runs = Runs::new(store.owner("me"));
                    barrier.wait();
                    runs.resume(&run_id, "me", &decisions, T0 + 1)
                })
            })
            .collect();
        let results: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect();
        let won = results.iter().filter(|r| r.is_ok()).count();
        for r in &results {
            if let Err(e) = r {
                assert!(
                    matches!(
                        e,
                        Error::AlreadyResumed { .. } | Error::NotAwaitingPermission { .. }
                    ),
                    "the loser's error: {e:?}"
                );
            }
        }
        assert_eq!(won, 1, "round {i}: {results:?}");
        winners += won;
        let ended: Vec<_> = a
            .audit(Some("me"), 0, 100_000)
            .expect("audit")
            .into_iter()
            .filter(|r| r.run_id == run_id)
            .collect();
        assert_eq!(
            ended.len(),
            1,
            "round {i}: the end recorded once: {ended:?}"
        );
    }
    winners
}

#[test]
fn sqlite_file() {
    let dir = temp_dir("sqlite");
    let path = dir.join("nested").join("toolgate.db");
    let url = format!("sqlite:{}", path.display());
    let store = open(&url, StoreOptions::default()).expect("open");
    assert_eq!(store.kind(), "sqlite");
    assert!(path.exists(), "created on first open");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600, "the database file is private");
        assert_eq!(
            mode(path.parent().expect("dir")),
            0o700,
            "its new directory too"
        );
        let wal = path.with_extension("db-wal");
        assert!(wal.exists());
        assert_eq!(mode(&wal), 0o600, "SQLite gives the WAL the file's mode");
        assert_eq!(toolgate_store::exposed(&path), None);
        let shared = dir.join("shared.db");
        std::fs::write(&shared, b"").expect("write");
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(toolgate_store::exposed(&shared).is_some_and(|w| w.contains("644")));
    }
    cas(&store);
    owners(&store);
    lifecycle(&store);
    audit_trail(&store);
    let raw = rusqlite_conn(&path);
    audit_chain(&store, &raw);
    corrupt(&store, "run-bad-json", &|key| {
        raw(&format!(
            "UPDATE toolgate_runs SET value = '{{\"run_id\": 7, truncated' WHERE run_key = '{key}'"
        ))
    });
    // Bytes that are not UTF-8: read lossily, the run fails; nothing panics.
    corrupt(&store, "run-bad-utf8", &|key| {
        raw(&format!(
            "UPDATE toolgate_runs SET value = CAST(X'7B22FF22' AS TEXT) WHERE run_key = '{key}'"
        ))
    });
    let mode = query_one(&path, "PRAGMA journal_mode");
    assert_eq!(mode, "wal");

    // Restart mid-approval: a run parked, the store closed, a new one on the file.
    let decisions = park(&Runs::new(store.owner("me")), "run-restart", T0);
    drop(store);
    let again = open(&url, StoreOptions::default()).expect("reopen");
    let runs = Runs::new(again.owner("me"));
    let run = runs
        .run("run-restart", T0 + 1)
        .expect("run")
        .expect("found");
    assert_eq!(run.status, RunStatus::AwaitingPermission);
    runs.resume("run-restart", "me", &decisions, T0 + 2)
        .expect("resumed after the restart");
    assert_eq!(
        query_one(&path, "SELECT count(*) FROM toolgate_migrations"),
        "7"
    );

    // Two connections to the file (as two server processes would have).
    let a = Arc::new(again);
    let b = Arc::new(open(&url, StoreOptions::default()).expect("second connection"));
    assert_eq!(race(a, b, 100), 100);
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn sqlite_memory_and_bad_urls() {
    let store = open("sqlite::memory:", StoreOptions::default()).expect("memory");
    cas(&store);
    owners(&store);
    lifecycle(&store);
    audit_trail(&store);
    for bad in ["", "mysql://x", "sqlite:", "file.db"] {
        assert!(
            matches!(
                open(bad, StoreOptions::default()),
                Err(OpenError::BadUrl(_))
            ),
            "{bad}"
        );
    }
    let unreachable = open(
        "postgres://nobody@127.0.0.1:1/none?connect_timeout=2",
        StoreOptions::default(),
    );
    assert!(
        matches!(
            unreachable,
            Err(OpenError::Store(Error::StoreUnavailable { .. }))
        ),
        "unreachable server: {}",
        unreachable.err().map(|e| e.to_string()).unwrap_or_default()
    );
}

/// Every object the PostgreSQL migrations make: a test starting from an empty schema
/// drops them all, whichever test ran before it on the shared database.
const DROP_ALL: &str = "DROP TABLE IF EXISTS toolgate_runs, toolgate_audit, toolgate_migrations, toolgate_changes, toolgate_audit_head, toolgate_grants;
     DROP FUNCTION IF EXISTS toolgate_runs_changed();";

/// The PostgreSQL tests share one database (scripts/with-postgres): one at a time.
static POSTGRES: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn postgres_server() {
    let _one = POSTGRES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Ok(url) = std::env::var("TOOLGATE_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_POSTGRES").is_none(),
            "TOOLGATE_REQUIRE_POSTGRES is set but TOOLGATE_TEST_POSTGRES_URL is not"
        );
        eprintln!("SKIPPED: no PostgreSQL (run under scripts/with-postgres)");
        return;
    };
    let exec = |sql: &str| {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
        c.batch_execute(sql).expect("sql");
    };
    exec(DROP_ALL);
    let store = open(&url, StoreOptions::default()).expect("open");
    assert_eq!(store.kind(), "postgres");
    // A second open (another replica starting) finds the schema migrated.
    let second = open(&url, StoreOptions::default()).expect("second open");
    cas(&store);
    owners(&store);
    lifecycle(&store);
    audit_trail(&store);
    audit_chain(&store, &exec);
    corrupt(&store, "run-bad", &|key| {
        exec(&format!(
            "UPDATE toolgate_runs SET value = '[1,2' WHERE run_key = '{key}'"
        ))
    });
    let decisions = park(&Runs::new(store.owner("me")), "run-restart", T0);
    drop(store);
    let again = open(&url, StoreOptions::default()).expect("reconnect");
    Runs::new(again.owner("me"))
        .resume("run-restart", "me", &decisions, T0 + 1)
        .expect("resumed after the restart");
    assert_eq!(race(Arc::new(again), Arc::new(second), 100), 100);

    // A database of before owners (migrations 1 to 3, rows in the old shape, one
    // unreadable) migrates: rows under their documents' owners, readable as before.
    exec(DROP_ALL);
    exec(concat!(
        "CREATE TABLE toolgate_migrations (version BIGINT NOT NULL PRIMARY KEY, name TEXT NOT NULL);",
        include_str!("../migrations/postgres/0001_runs.sql"),
        include_str!("../migrations/postgres/0002_audit.sql"),
        include_str!("../migrations/postgres/0003_changes.sql"),
        "INSERT INTO toolgate_migrations VALUES (1, '0001_runs'), (2, '0002_audit'), (3, '0003_changes');"
    ));
    let scratch = open("sqlite::memory:", StoreOptions::default()).expect("memory");
    let runs = Runs::new(scratch.owner("me"));
    let decisions = park_as(&runs, "old-waiting", T0, "agent-a");
    let old = runs.store().get("old-waiting").expect("get").expect("row");
    exec(&format!(
        "INSERT INTO toolgate_runs (run_key, revision, value) VALUES ('old-waiting', {}, '{}'),
             ('old-bad', 1, '{{not json');
         INSERT INTO toolgate_audit (at, run_id, owner, session_id, revision, tool_call_id,
             tool, outcome, decided_by, anchor, rule, reason, message)
         VALUES (1, 'old-1', 'me', 's', 2, 'c1', 'bash', 'approved', 'alice', 'a', 'r', 'why', NULL)",
        old.revision,
        old.value.replace('\'', "''")
    ));
    let migrated = open(&url, StoreOptions::default()).expect("migrate");
    let me = Runs::new(migrated.owner("me"));
    let run = me.run("old-waiting", T0 + 1).expect("run").expect("found");
    assert_eq!(run.parked_by.as_deref(), Some("agent-a"));
    assert!(me.run("old-bad", T0 + 1).expect("run").is_none());
    assert!(migrated
        .owners_to_prune(0)
        .expect("owners")
        .contains(&String::new()));
    me.resume("old-waiting", "me", &decisions, T0 + 2)
        .expect("resumed after the migration");
    let audit = migrated.audit(Some("me"), 0, 10).expect("audit");
    assert_eq!(audit.len(), 2);
    assert_eq!(audit[1].asked_by.as_deref(), Some("agent-a"));
    // The old record was chained by the migration, the new one after it.
    let chain = migrated.verify_audit().expect("verify");
    assert_eq!(
        (chain.records, chain.problem.clone()),
        (2, None),
        "{chain:?}"
    );
}

/// Runs SQL on the file through a connection of its own (what another program does).
fn rusqlite_conn(path: &std::path::Path) -> impl Fn(&str) {
    let path = path.to_path_buf();
    move |sql: &str| {
        let conn = rusqlite::Connection::open(&path).expect("open");
        conn.execute_batch(sql).expect("sql");
    }
}

fn query_one(path: &std::path::Path, sql: &str) -> String {
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.query_row(sql, [], |row| {
        Ok(match row.get_ref(0)? {
            rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
            rusqlite::types::ValueRef::Integer(n) => n.to_string(),
            other => format!("{other:?}"),
        })
    })
    .expect("query")
}

/// A database written before runs were kept per owner (migrations 1 to 3, rows in the
/// old shape): opening it migrates, each row lands under its document's owner with its
/// status, the unreadable one under no owner, and every run reads as before.
#[test]
fn sqlite_migrates_rows_of_before_owners() {
    let dir = temp_dir("migrate");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("old.db");
    {
        let conn = rusqlite::Connection::open(&path).expect("open");
        conn.execute_batch(concat!(
            "CREATE TABLE toolgate_migrations (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL) STRICT;",
            include_str!("../migrations/sqlite/0001_runs.sql"),
            include_str!("../migrations/sqlite/0002_audit.sql"),
            include_str!("../migrations/sqlite/0003_changes.sql"),
            "INSERT INTO toolgate_migrations VALUES (1, '0001_runs'), (2, '0002_audit'), (3, '0003_changes');"
        ))
        .expect("old schema");
    }
    // Rows as the old store wrote them, through a store of today on a scratch file.
    let scratch = open("sqlite::memory:", StoreOptions::default()).expect("memory");
    let runs = Runs::new(scratch.owner("me"));
    park_as(&runs, "old-waiting", T0, "agent-a");
    park(&runs, "old-done", T0);
    runs.cancel("old-done", "me", "done", T0 + 1)
        .expect("cancel");
    let rows: Vec<(String, u64, String)> = ["old-waiting", "old-done"]
        .iter()
        .map(|k| {
            let s = runs.store().get(k).expect("get").expect("row");
            (k.to_string(), s.revision, s.value)
        })
        .collect();
    {
        let conn = rusqlite::Connection::open(&path).expect("open");
        for (k, rev, value) in &rows {
            conn.execute(
                "INSERT INTO toolgate_runs (run_key, revision, value) VALUES (?1, ?2, ?3)",
                rusqlite::params![k, i64::try_from(*rev).expect("revision"), value],
            )
            .expect("insert");
        }
        conn.execute(
            "INSERT INTO toolgate_runs (run_key, revision, value) VALUES ('old-bad', 1, '{not json')",
            [],
        )
        .expect("insert");
        conn.execute_batch(
            "INSERT INTO toolgate_audit (at, run_id, owner, session_id, revision, tool_call_id,
                 tool, outcome, decided_by, anchor, rule, reason, message)
             VALUES (1, 'old-1', 'me', 's', 2, 'c1', 'bash', 'approved', 'alice', 'a', 'r', 'why', NULL),
                    (2, 'old-2', 'me', 's', 2, 'c1', 'bash', 'denied', 'bob', 'a', 'r', 'why', 'no');",
        )
        .expect("old audit rows");
    }
    let store = open(
        &format!("sqlite:{}", path.display()),
        StoreOptions::default(),
    )
    .expect("migrate");
    assert_eq!(
        query_one(&path, "SELECT count(*) FROM toolgate_migrations"),
        "7"
    );
    assert_eq!(
        query_one(&path, "SELECT owner || '/' || status || '/' || coalesce(parked_by, '-') FROM toolgate_runs WHERE run_key = 'old-waiting'"),
        "me/awaiting_permission/agent-a"
    );
    assert_eq!(
        query_one(
            &path,
            "SELECT owner || '/' || status FROM toolgate_runs WHERE run_key = 'old-done'"
        ),
        "me/cancelled"
    );
    assert_eq!(
        query_one(
            &path,
            "SELECT '[' || owner || ']/' || status FROM toolgate_runs WHERE run_key = 'old-bad'"
        ),
        "[]/unreadable"
    );
    let me = Runs::new(store.owner("me"));
    let waiting = me.run("old-waiting", T0 + 2).expect("run").expect("found");
    assert_eq!(waiting.status, RunStatus::AwaitingPermission);
    assert_eq!(waiting.parked_by.as_deref(), Some("agent-a"));
    assert_eq!(
        me.run("old-done", T0 + 2).expect("run").map(|r| r.status),
        Some(RunStatus::Cancelled)
    );
    assert!(
        me.run("old-bad", T0 + 2).expect("run").is_none(),
        "not me's"
    );
    // The audit records already there were chained by the migration.
    let chain = store.verify_audit().expect("verify");
    assert_eq!(
        (chain.records, chain.problem.clone()),
        (2, None),
        "{chain:?}"
    );
    // The unreadable row is a pruning candidate (its owner could not be read).
    assert!(store
        .owners_to_prune(0)
        .expect("owners")
        .contains(&String::new()));
    // The change counter still counts after the table was rebuilt.
    let before = store.changes().expect("changes");
    me.cancel("old-waiting", "me", "moved on", T0 + 3)
        .expect("cancel");
    assert!(store.changes().expect("changes") > before);
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

/// TLS to PostgreSQL (scripts/with-postgres runs the server with a certificate for
/// `localhost` from a throwaway CA): verify-full connects and is encrypted; the wrong
/// name, the wrong CA and a server that will not speak TLS are each refused when the
/// URL asks for verification; verify-ca checks the chain only; no sslmode encrypts
/// without checking (libpq's `prefer`); `disable` is plain.
#[test]
fn postgres_tls() {
    let _one = POSTGRES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (Ok(url), Ok(tls_url), Ok(ca), Ok(other_ca)) = (
        std::env::var("TOOLGATE_TEST_POSTGRES_URL"),
        std::env::var("TOOLGATE_TEST_POSTGRES_TLS_URL"),
        std::env::var("TOOLGATE_TEST_POSTGRES_CA"),
        std::env::var("TOOLGATE_TEST_POSTGRES_OTHER_CA"),
    ) else {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_POSTGRES").is_none(),
            "TOOLGATE_REQUIRE_POSTGRES is set but the TLS variables of scripts/with-postgres are not"
        );
        eprintln!("SKIPPED: no PostgreSQL (run under scripts/with-postgres)");
        return;
    };
    let tls_of = |u: &str| match open(u, StoreOptions::default()) {
        Ok(SqlStore::Postgres(p)) => Ok(p.tls().expect("tls")),
        Ok(SqlStore::Sqlite(_)) => panic!("not postgres"),
        Err(e) => Err(e.to_string()),
    };
    assert_eq!(tls_of(&tls_url), Ok(("verify-full".to_string(), true)));
    let by_ip = format!("{url}?sslmode=verify-full&sslrootcert={ca}");
    let refused = tls_of(&by_ip).expect_err("a certificate for localhost, reached as 127.0.0.1");
    assert!(refused.to_lowercase().contains("certificate"), "{refused}");
    assert_eq!(
        tls_of(&format!("{url}?sslmode=verify-ca&sslrootcert={ca}")),
        Ok(("verify-ca".to_string(), true))
    );
    let wrong_ca = tls_url.replace(&ca, &other_ca);
    assert!(tls_of(&wrong_ca).is_err(), "another CA's certificate");
    assert_eq!(
        tls_of(&url),
        Ok(("encrypt, unverified".to_string(), true)),
        "no sslmode: prefer"
    );
    assert_eq!(
        tls_of(&format!("{url}?sslmode=disable")),
        Ok(("disable".to_string(), false))
    );
    // A server that answers the TLS request with `N` (no TLS): refused when TLS is
    // required, whatever follows.
    let plain = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = plain.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for conn in plain.incoming().take(4) {
            let Ok(mut c) = conn else { return };
            let mut request = [0u8; 8];
            if c.read_exact(&mut request).is_ok() {
                let _ = c.write_all(b"N");
            }
        }
    });
    for mode in ["verify-full", "verify-ca", "require"] {
        let u = format!("postgres://toolgate@localhost:{port}/x?sslmode={mode}&sslrootcert={ca}&connect_timeout=3");
        let e = tls_of(&u).expect_err(mode);
        assert!(
            e.to_lowercase().contains("tls") || e.to_lowercase().contains("ssl"),
            "{mode}: {e}"
        );
    }
}
