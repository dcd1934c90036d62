//! Park / marker / resume (DESIGN §3) through the public API.

// Integration tests are test code: clippy.toml allows unwrap/expect in test code, and
// this makes the helpers below count as such.
#![cfg(test)]

use std::cell::RefCell;
use std::sync::{Arc, Barrier};

use proptest::prelude::*;
use serde_json::{json, Value};
use toolgate_core::marker::{
    JsonHistory, FALLBACK_RULE, FALLBACK_TOOL, MAX_HISTORY_BYTES, MAX_MARKER_BYTES,
    MAX_MARKER_TTL_MS,
};
use toolgate_core::{
    anchor, refusal_text, CallOutcome, CallResult, Choice, DecidedCall, Error, Marker, MarkerStore,
    MemoryStore, Park, ParkCall, PendingCall, ResumeDecision, Run, RunDecision, RunStatus, Runs,
    StopReason, Stored, Tier, ToolCall, Verdict,
};

const T0: u64 = 1_700_000_000_000;
const DAY: u64 = 24 * 60 * 60 * 1000;

fn call(id: &str, tool: &str, args: Value, tier: Tier) -> ParkCall {
    ParkCall {
        tool_call_id: id.to_string(),
        call: ToolCall::new(tool, args),
        verdict: Verdict::new(tier, format!("test.{tool}"), format!("{tool} needs a look")),
    }
}

fn rm_build() -> ParkCall {
    call(
        "call_1",
        "bash",
        json!({"command": "rm -rf build"}),
        Tier::Ask,
    )
}

fn park_req(run_id: &str, calls: Vec<ParkCall>, history: &str) -> Park {
    Park {
        run_id: run_id.to_string(),
        session_id: "s-1".to_string(),
        owner: "alice".to_string(),
        calls,
        history: history.to_string(),
        ttl_ms: None,
        parked_by: None,
    }
}

fn three_calls() -> Vec<ParkCall> {
    vec![
        rm_build(),
        call(
            "call_2",
            "write",
            json!({"path": "/tmp/x", "content": "é\n\"q\""}),
            Tier::Ask,
        ),
        call(
            "call_3",
            "mcp__github__merge",
            json!({"pr": 7, "ok": true}),
            Tier::Auto,
        ),
    ]
}

fn anchor_of(c: &ParkCall) -> String {
    anchor(&c.call.tool, &c.call.args)
}

/// Writes `value` as the record of `run_id`, whatever is there now.
fn inject(store: &MemoryStore, run_id: &str, revision: u64, value: &str) {
    let current = store.get(run_id).unwrap().map(|s| s.revision);
    store
        .put_if_revision(
            run_id,
            current,
            Stored {
                revision,
                value: value.to_string(),
            },
        )
        .unwrap();
}

#[test]
fn marker_json_is_the_design_shape_with_calls() {
    let runs = Runs::new(MemoryStore::new());
    let mut calls = vec![
        rm_build(),
        call("call_2", "write", json!({"path": "a.txt"}), Tier::Ask),
    ];
    calls[0].verdict.span = Some([0, 2]);
    let parked = runs
        .park(park_req("r-1", calls.clone(), "[\"hi\"]"), T0)
        .unwrap();
    let stored = runs.store().get("r-1").unwrap().unwrap();
    let got: Value = serde_json::from_str(&stored.value).unwrap();
    let a1 = anchor_of(&calls[0]);
    let a2 = anchor_of(&calls[1]);
    let want = json!({
        "v": 1, "run_id": "r-1", "session_id": "s-1", "owner": "alice",
        "status": "awaiting_permission", "revision": 1,
        "created_at": T0, "expires_at": T0 + DAY,
        "request": {"tool_call_ids": ["call_1", "call_2"], "tool": "bash",
                    "args": {"command": "rm -rf build"}, "anchor": a1, "tier": "ask",
                    "rule": "test.bash", "reason": "bash needs a look"},
        "calls": [
            {"tool_call_id": "call_1", "tool": "bash", "args": {"command": "rm -rf build"},
             "anchor": a1, "tier": "ask", "rule": "test.bash", "reason": "bash needs a look",
             "span": [0, 2]},
            {"tool_call_id": "call_2", "tool": "write", "args": {"path": "a.txt"},
             "anchor": a2, "tier": "ask", "rule": "test.write", "reason": "write needs a look"}
        ],
        "history": "[\"hi\"]"
    });
    assert_eq!(got, want, "stored marker:\n{}", stored.value);
    assert_eq!(stored.revision, 1);
    assert_eq!(parked.stop_reason, StopReason::Paused);
    assert_eq!(
        serde_json::to_value(&parked).unwrap()["stop_reason"],
        json!("paused")
    );
    // The view (`gate.run`) nests the very same marker JSON.
    let view = serde_json::to_value(runs.run("r-1", T0).unwrap().unwrap()).unwrap();
    assert_eq!(view["marker"], want);
    assert_eq!(view["status"], json!("awaiting_permission"));
}

#[test]
fn every_marker_shape_round_trips() {
    let mut spanned = rm_build();
    spanned.verdict.span = Some([3, 9]);
    let shapes: Vec<(&str, Vec<ParkCall>, String)> = vec![
        ("one call", vec![rm_build()], "h".to_string()),
        (
            "several calls",
            three_calls(),
            "[{\"role\":\"user\"}]".to_string(),
        ),
        ("fallback (no call)", vec![], "state".to_string()),
        ("span", vec![spanned], String::new()),
        (
            "unicode + control history",
            vec![rm_build()],
            "é\u{0}\n\"\\ 🦀".to_string(),
        ),
        (
            "null args",
            vec![call("c", "other", Value::Null, Tier::Ask)],
            "x".to_string(),
        ),
        ("100 KB history", vec![rm_build()], "x".repeat(100 * 1024)),
        (
            "max history",
            vec![rm_build()],
            "y".repeat(MAX_HISTORY_BYTES),
        ),
    ];
    for (name, calls, history) in shapes {
        let marker = Marker::park(
            &park_req("r-1", calls, &history),
            &toolgate_core::marker::AnyHistory,
            3,
            T0,
        )
        .unwrap_or_else(|e| panic!("{name}: park failed: {e}"));
        let text = marker.encode().unwrap();
        assert_eq!(
            Marker::decode(&text),
            Ok(marker.clone()),
            "{name}: {text:.300}"
        );
        let run = Run::parked(marker);
        assert_eq!(
            Run::decode(&text, &toolgate_core::marker::AnyHistory),
            Ok(run.clone()),
            "{name}"
        );
        assert_eq!(run.encode().unwrap(), text, "{name}");
    }
}

#[test]
fn settled_records_round_trip() {
    let base = Run::started("r-1", "s-1", "alice", T0);
    let mut resumed = base.clone();
    resumed.revision = 4;
    resumed.resumed_at = Some(T0 + 5);
    let failed = base
        .settle(
            RunStatus::Failed,
            T0 + 9,
            Some("boom \"quoted\"".to_string()),
        )
        .unwrap();
    let completed = base.settle(RunStatus::Completed, T0 + 9, None).unwrap();
    let mut expired = Run::parked(
        Marker::park(
            &park_req("r-1", vec![rm_build()], "h"),
            &toolgate_core::marker::AnyHistory,
            1,
            T0,
        )
        .unwrap(),
    )
    .settle(RunStatus::Cancelled, T0 + DAY, Some("expired".to_string()))
    .unwrap();
    expired.expired_at = Some(T0 + DAY);
    let mut orphan = failed.clone();
    orphan.owner = String::new();
    for run in [base, resumed, failed, completed, expired, orphan] {
        let text = run.encode().unwrap();
        assert_eq!(
            Run::decode(&text, &toolgate_core::marker::AnyHistory),
            Ok(run.clone()),
            "{text}"
        );
    }
    assert_eq!(
        Run::started("r-1", "s-1", "alice", T0).encode().unwrap(),
        r#"{"v":1,"run_id":"r-1","session_id":"s-1","owner":"alice","status":"running","revision":1,"updated_at":1700000000000}"#
    );
}

#[test]
fn a_design_marker_without_calls_is_read() {
    let args = json!({"command": "ls"});
    let a = anchor("bash", &args);
    let one = json!({"v":1,"run_id":"r-1","session_id":"s","owner":"o","status":"awaiting_permission",
        "revision":2,"created_at":10,"expires_at":20,
        "request":{"tool_call_ids":["call_9"],"tool":"bash","args":args,"anchor":a,"tier":"ask","rule":"r","reason":"why"},
        "history":"h"});
    assert_eq!(
        Marker::decode(&one.to_string()),
        Ok(Marker {
            run_id: "r-1".to_string(),
            session_id: "s".to_string(),
            owner: "o".to_string(),
            revision: 2,
            created_at: 10,
            expires_at: 20,
            calls: vec![PendingCall {
                tool_call_id: "call_9".to_string(),
                tool: "bash".to_string(),
                args: args.clone(),
                anchor: a.clone(),
                tier: Tier::Ask,
                rule: "r".to_string(),
                reason: "why".to_string(),
                span: None,
                spans: Vec::new(),
            }],
            history: "h".to_string(),
            parked_by: None,
        })
    );
    let mut two = one.clone();
    two["request"]["tool_call_ids"] = json!(["a", "b"]);
    assert_eq!(
        Marker::decode(&two.to_string()),
        Err(Error::BadMarker {
            reason: "request lists 2 tool_call_ids but the marker has no `calls`".to_string()
        })
    );
}

#[test]
fn several_calls_resume_in_marker_order() {
    let runs = Runs::new(MemoryStore::new());
    let calls = three_calls();
    runs.park(park_req("r-1", calls.clone(), "HIST"), T0)
        .unwrap();
    // Decisions in another order than the calls; results come in marker order.
    let decisions = vec![
        ResumeDecision::deny("call_3", anchor_of(&calls[2]), "  "),
        ResumeDecision {
            tool_call_id: "call_1".to_string(),
            anchor: anchor_of(&calls[0]),
            choice: Choice::Allow {
                scope: Some("rm -rf build".to_string()),
                args: None,
                grant: None,
            },
        },
        ResumeDecision::deny("call_2", anchor_of(&calls[1]), "not that file"),
    ];
    let resumed = runs.resume("r-1", "alice", &decisions, T0 + 1).unwrap();
    assert_eq!(
        resumed.results,
        vec![
            CallResult {
                tool_call_id: "call_1".to_string(),
                tool: "bash".to_string(),
                args: json!({"command": "rm -rf build"}),
                outcome: CallOutcome::Approved {
                    scope: Some("rm -rf build".to_string())
                },
                edited_from: None,
                grant: None,
            },
            CallResult {
                tool_call_id: "call_2".to_string(),
                tool: "write".to_string(),
                args: calls[1].call.args.clone(),
                outcome: CallOutcome::Denied {
                    message: "not that file".to_string()
                },
                edited_from: None,
                grant: None,
            },
            CallResult {
                tool_call_id: "call_3".to_string(),
                tool: "mcp__github__merge".to_string(),
                args: calls[2].call.args.clone(),
                outcome: CallOutcome::Denied {
                    message: "  ".to_string()
                },
                edited_from: None,
                grant: None,
            },
        ]
    );
    let texts: Vec<Option<String>> = resumed
        .results
        .iter()
        .map(|r| r.outcome.tool_result_text())
        .collect();
    assert_eq!(
        texts,
        vec![
            None,
            Some("User refused permission: not that file".to_string()),
            Some("User refused permission.".to_string()),
        ]
    );
    assert_eq!(resumed.history, "HIST");
    assert_eq!((resumed.run_id.as_str(), resumed.revision), ("r-1", 2));
    let run = runs.run("r-1", T0 + 2).unwrap().unwrap();
    assert_eq!(
        run,
        Run {
            run_id: "r-1".to_string(),
            session_id: "s-1".to_string(),
            owner: "alice".to_string(),
            status: RunStatus::Running,
            revision: 2,
            updated_at: T0 + 1,
            last_error: None,
            resumed_at: Some(T0 + 1),
            expired_at: None,
            decision: run.decision.clone(),
            history: None,
            marker: None,
            parked_by: None,
        }
    );
    // The record keeps what was decided, call by call (who: nobody named here).
    let decision = run.decision.unwrap();
    assert_eq!(decision.decided_by, None);
    let got: Vec<(&str, &str)> = decision
        .calls
        .iter()
        .map(|c| (c.tool_call_id.as_str(), c.outcome.as_str()))
        .collect();
    let want: Vec<(&str, &str)> = resumed
        .results
        .iter()
        .map(|r| {
            let o = if r.outcome.is_approved() {
                "approved"
            } else {
                "denied"
            };
            (r.tool_call_id.as_str(), o)
        })
        .collect();
    assert_eq!(got, want);
    assert!(decision.calls.iter().all(|c| c.anchor.len() == 64));
}

#[test]
fn refusal_texts() {
    for (message, want) in [
        ("no", "User refused permission: no"),
        (
            "  use /tmp instead \n",
            "User refused permission: use /tmp instead",
        ),
        ("", "User refused permission."),
        (" \t", "User refused permission."),
    ] {
        assert_eq!(refusal_text(message), want, "message {message:?}");
    }
}

#[test]
fn the_fallback_marker_for_a_park_with_no_call() {
    let runs = Runs::new(MemoryStore::new());
    let parked = runs.park(park_req("r-1", vec![], "H"), T0).unwrap();
    let marker = parked.run.marker.clone().unwrap();
    let request = serde_json::to_value(marker.request()).unwrap();
    assert_eq!(
        request,
        json!({"tool_call_ids": [], "tool": FALLBACK_TOOL, "args": {},
               "anchor": anchor(FALLBACK_TOOL, &json!({})), "tier": "ask",
               "rule": FALLBACK_RULE, "reason": "the run was parked with no pending tool call"})
    );
    let stored: Value =
        serde_json::from_str(&runs.store().get("r-1").unwrap().unwrap().value).unwrap();
    assert_eq!(stored["calls"], json!([]));
    assert_eq!(stored["request"]["tool"], json!("unknown"));
    let resumed = runs.resume("r-1", "alice", &[], T0 + 1).unwrap();
    assert_eq!(
        (resumed.results, resumed.history),
        (vec![], "H".to_string())
    );
}

#[test]
fn decision_errors_change_nothing() {
    let runs = Runs::new(MemoryStore::new());
    let calls = three_calls();
    runs.park(park_req("r-1", calls.clone(), "h"), T0).unwrap();
    let before = runs.store().get("r-1").unwrap();
    let ok = |i: usize| ResumeDecision::allow(calls[i].tool_call_id.clone(), anchor_of(&calls[i]));
    let other_args = anchor("bash", &json!({"command": "rm -rf /"}));
    let cases: Vec<(&str, &str, Vec<ResumeDecision>, Error)> = vec![
        (
            "another owner",
            "mallory",
            vec![ok(0), ok(1), ok(2)],
            Error::RunNotFound {
                run_id: "r-1".to_string(),
            },
        ),
        (
            "anchor of other args",
            "alice",
            vec![
                ok(0),
                ResumeDecision::allow("call_2", other_args.clone()),
                ok(2),
            ],
            Error::ResumeAnchorMismatch {
                run_id: "r-1".to_string(),
                tool_call_id: "call_2".to_string(),
                expected: anchor_of(&calls[1]),
                got: other_args,
            },
        ),
        (
            "unknown id",
            "alice",
            vec![ok(0), ok(1), ok(2), ResumeDecision::allow("call_4", "x")],
            Error::UnknownToolCall {
                run_id: "r-1".to_string(),
                tool_call_id: "call_4".to_string(),
            },
        ),
        (
            "decided twice",
            "alice",
            vec![ok(0), ok(1), ok(2), ok(1)],
            Error::DuplicateDecision {
                run_id: "r-1".to_string(),
                tool_call_id: "call_2".to_string(),
            },
        ),
        (
            "two left undecided",
            "alice",
            vec![ok(1)],
            Error::MissingDecision {
                run_id: "r-1".to_string(),
                tool_call_ids: vec!["call_1".to_string(), "call_3".to_string()],
            },
        ),
    ];
    for (name, owner, decisions, want) in cases {
        assert_eq!(
            runs.resume("r-1", owner, &decisions, T0 + 1),
            Err(want),
            "{name}"
        );
        assert_eq!(
            runs.store().get("r-1").unwrap(),
            before,
            "{name}: the marker changed"
        );
    }
    assert_eq!(
        runs.resume("nope", "alice", &[], T0),
        Err(Error::RunNotFound {
            run_id: "nope".to_string()
        })
    );
    // After all that, the right decisions still resume.
    assert!(runs
        .resume("r-1", "alice", &[ok(2), ok(0), ok(1)], T0 + 2)
        .is_ok());
}

#[test]
fn an_expired_marker_resumes_nothing() {
    for via_view_first in [false, true] {
        let runs = Runs::new(MemoryStore::new());
        let mut park = park_req("r-1", vec![rm_build()], "h");
        park.ttl_ms = Some(1000);
        runs.park(park, T0).unwrap();
        let decision = [ResumeDecision::allow("call_1", anchor_of(&rm_build()))];
        // Just before the deadline the prompt is still there.
        assert_eq!(
            runs.run("r-1", T0 + 999).unwrap().unwrap().status,
            RunStatus::AwaitingPermission
        );
        if via_view_first {
            assert_eq!(
                runs.run("r-1", T0 + 1000).unwrap().unwrap().status,
                RunStatus::Cancelled
            );
        }
        let expired = Error::MarkerExpired {
            run_id: "r-1".to_string(),
            expires_at: T0 + 1000,
        };
        assert_eq!(
            runs.resume("r-1", "alice", &decision, T0 + 1000),
            Err(expired.clone())
        );
        assert_eq!(
            runs.resume("r-1", "alice", &decision, T0 + 5000),
            Err(expired)
        );
        let run = runs.run("r-1", T0 + 6000).unwrap().unwrap();
        assert_eq!(
            run,
            Run {
                run_id: "r-1".to_string(),
                session_id: "s-1".to_string(),
                owner: "alice".to_string(),
                status: RunStatus::Cancelled,
                revision: 2,
                updated_at: T0 + 1000,
                last_error: Some(format!(
                    "the permission request expired at {} ms before anyone decided",
                    T0 + 1000
                )),
                resumed_at: None,
                expired_at: Some(T0 + 1000),
                // Each call `expired`, nobody named; the history kept for the host.
                decision: Some(RunDecision {
                    decided_by: None,
                    calls: vec![DecidedCall {
                        tool_call_id: "call_1".to_string(),
                        tool: "bash".to_string(),
                        anchor: anchor_of(&rm_build()),
                        outcome: "expired".to_string(),
                        scope: None,
                        message: None,
                        args: None,
                        edited_from: None,
                        answer: None,
                        grant: None,
                    }],
                }),
                history: Some("h".to_string()),
                marker: None,
                parked_by: None,
            },
            "via_view_first={via_view_first}"
        );
        // The host takes the history, once, by resuming with no decisions: each call
        // `expired` (not approved, not a person's no), the run still cancelled.
        let taken = runs.resume("r-1", "alice", &[], T0 + 7000).unwrap();
        assert_eq!(taken.history, "h");
        assert_eq!(taken.revision, 3);
        assert_eq!(taken.results.len(), 1);
        assert_eq!(taken.results[0].tool_call_id, "call_1");
        assert_eq!(taken.results[0].outcome, CallOutcome::Expired);
        assert!(!taken.results[0].outcome.is_approved());
        assert_eq!(
            taken.results[0].outcome.tool_result_text().as_deref(),
            Some(toolgate_core::EXPIRED_TEXT)
        );
        let after = runs.run("r-1", T0 + 7001).unwrap().unwrap();
        assert_eq!(
            (
                after.status,
                after.history,
                after.resumed_at,
                after.revision
            ),
            (RunStatus::Cancelled, None, Some(T0 + 7000), 3)
        );
        // A second take is already_resumed; another owner's is not found; a person's late
        // decision is still `expired`.
        assert_eq!(
            runs.resume("r-1", "alice", &[], T0 + 7002),
            Err(Error::AlreadyResumed {
                run_id: "r-1".to_string()
            })
        );
        assert_eq!(
            runs.resume("r-1", "alice", &decision, T0 + 7003),
            Err(Error::MarkerExpired {
                run_id: "r-1".to_string(),
                expires_at: T0 + 1000,
            })
        );
    }
}

#[test]
fn only_the_owner_takes_an_expired_history_and_only_from_an_expired_cancellation() {
    let runs = Runs::new(MemoryStore::new());
    let mut park = park_req("r-1", vec![rm_build()], "h");
    park.ttl_ms = Some(1000);
    runs.park(park, T0).unwrap();
    assert_eq!(
        runs.resume("r-1", "mallory", &[], T0 + 2000),
        Err(Error::RunNotFound {
            run_id: "r-1".to_string()
        })
    );
    assert_eq!(
        runs.resume("r-1", "alice", &[], T0 + 2001)
            .map(|r| r.history),
        Ok("h".to_string())
    );
    // Only a run an expired marker cancelled gives a history to a resume with no
    // decisions; any other record carrying one gives nothing.
    for (status, expired) in [
        ("cancelled", ""),
        ("failed", ",\"expired_at\":5"),
        ("running", ",\"expired_at\":5"),
    ] {
        let doc = format!(
            "{{\"v\":1,\"run_id\":\"r-2\",\"session_id\":\"s-1\",\"owner\":\"alice\",\"status\":\"{status}\",\"revision\":1,\"updated_at\":1{expired},\"history\":\"h\"}}"
        );
        inject(runs.store(), "r-2", 1, &doc);
        assert!(
            runs.resume("r-2", "alice", &[], T0 + 3000).is_err(),
            "{doc}"
        );
    }
}

/// A real marker as stored, for the corrupt table.
fn real_marker() -> String {
    Marker::park(
        &park_req(
            "r-1",
            three_calls(),
            "[{\"role\":\"user\",\"content\":\"hi\"}]",
        ),
        &toolgate_core::marker::AnyHistory,
        1,
        T0,
    )
    .unwrap()
    .encode()
    .unwrap()
}

fn edit(f: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&real_marker()).unwrap();
    f(&mut v);
    v.to_string()
}

/// Stores `value` as run r-1 and checks that resume reports it corrupt, the run
/// becomes failed with that reason and the marker is gone.
fn assert_fails(runs: &Runs<MemoryStore>, value: &str, revision: u64, why: &str) -> String {
    inject(runs.store(), "r-1", revision, value);
    let reason = match runs.resume("r-1", "alice", &[], T0 + 1) {
        Err(Error::MarkerCorrupt { run_id, reason }) if run_id == "r-1" => reason,
        other => panic!("{why}: expected MarkerCorrupt, got {other:?} for {value:.400}"),
    };
    let run = runs.run("r-1", T0 + 2).unwrap().unwrap();
    let want = Run {
        run_id: "r-1".to_string(),
        session_id: run.session_id.clone(),
        owner: run.owner.clone(),
        status: RunStatus::Failed,
        revision: revision + 1,
        updated_at: T0 + 1,
        last_error: Some(format!("corrupt permission marker: {reason}")),
        resumed_at: None,
        expired_at: None,
        decision: None,
        history: None,
        marker: None,
        parked_by: None,
    };
    assert_eq!(run, want, "{why}: {value:.400}");
    // And it stays failed: a second resume says so, without another rewrite.
    assert_eq!(
        runs.resume("r-1", "alice", &[], T0 + 3),
        Err(Error::NotAwaitingPermission {
            run_id: "r-1".to_string(),
            status: RunStatus::Failed,
            why: want.last_error.clone(),
        }),
        "{why}"
    );
    reason
}

#[test]
fn corrupt_markers_fail_the_run_and_clear_the_marker() {
    let good = real_marker();
    let args2 = json!({"path": "/etc/passwd"});
    let cases: Vec<(&str, String, u64, &str)> = vec![
        ("empty", String::new(), 1, "truncated: EOF while parsing a value at line 1 column 0"),
        ("not json", "hello".to_string(), 1, "not JSON: expected value at line 1 column 1"),
        ("array", "[1]".to_string(), 1, "expected a JSON object, found an array"),
        ("wrong version", edit(|v| v["v"] = json!(2)), 1, "unknown version v=2 (this build reads v=1)"),
        ("version as string", edit(|v| v["v"] = json!("1")), 1, "unknown version v=\"1\" (this build reads v=1)"),
        ("no version", edit(|v| { v.as_object_mut().unwrap().remove("v"); }), 1, "missing field `v` (the marker version)"),
        ("missing history", edit(|v| { v.as_object_mut().unwrap().remove("history"); }), 1, "missing field `history`"),
        ("history not a string", edit(|v| v["history"] = json!([1])), 1, "invalid type: sequence, expected a string"),
        ("missing request", edit(|v| { v.as_object_mut().unwrap().remove("request"); }), 1, "missing field `request`"),
        ("revision as string", edit(|v| v["revision"] = json!("1")), 1, "invalid type: string \"1\", expected u64"),
        ("negative time", edit(|v| v["created_at"] = json!(-1)), 1, "invalid value: integer `-1`, expected u64"),
        ("unknown tier", edit(|v| v["calls"][1]["tier"] = json!("maybe")), 1, "unknown variant `maybe`, expected one of `auto`, `sandbox`, `ask`, `deny`"),
        ("unknown status", edit(|v| v["status"] = json!("paused")), 1, "unknown status `paused`"),
        ("status as number", edit(|v| v["status"] = json!(7)), 1, "field `status`: expected a string, found a number"),
        ("running with a request", edit(|v| v["status"] = json!("running")), 1, "a running run carries a permission request; only awaiting_permission does"),
        (
            "tampered args",
            edit(|v| v["calls"][1]["args"] = args2.clone()),
            1,
            "tampered: anchor of tool call `call_2` does not match its tool `write` and args",
        ),
        (
            "tampered request anchor",
            edit(|v| v["request"]["args"] = json!({"command": "rm -rf /"})),
            1,
            "tampered: request anchor ANCHOR1 does not match its tool `bash` and args",
        ),
        (
            "request not the first call",
            edit(|v| {
                v["calls"][0]["args"] = json!({"command": "ls"});
                v["calls"][0]["anchor"] = json!(anchor("bash", &json!({"command": "ls"})));
            }),
            1,
            "tampered: request (ids [\"call_1\", \"call_2\", \"call_3\"], tool `bash`, anchor ANCHOR1) does not describe the pending calls (ids [\"call_1\", \"call_2\", \"call_3\"], first tool `bash`, anchor ANCHORLS)",
        ),
        ("duplicate id", edit(|v| v["calls"][2]["tool_call_id"] = json!("call_2")), 1, "tool call id `call_2` appears twice"),
        (
            "a denied call",
            edit(|v| v["calls"][2]["tier"] = json!("deny")),
            1,
            "tool call `call_3` is denied by rule `test.mcp__github__merge`; a denied call is refused, never asked",
        ),
        ("expires before created", edit(|v| v["expires_at"] = json!(T0 - 1)), 1, "expires_at 1699999999999 is before created_at 1700000000000"),
        ("revision zero", edit(|v| v["revision"] = json!(0)), 0, "revision is 0; revisions start at 1"),
        ("empty owner", edit(|v| v["owner"] = json!("")), 1, "owner is empty"),
        ("other run's record", edit(|v| v["run_id"] = json!("r-2")), 1, "the record under `r-1` names run `r-2`"),
        ("revision not the store's", good.clone(), 5, "revision 1 does not match the store's revision 5"),
        (
            "history over the limit",
            edit(|v| v["history"] = json!("h".repeat(MAX_HISTORY_BYTES + 1))),
            1,
            "history of 524289 bytes is over the limit of 524288 bytes",
        ),
        (
            "oversize",
            format!("{good}{}", " ".repeat(MAX_MARKER_BYTES + 1 - good.len())),
            1,
            "1048577 bytes, over the limit of 1048576 bytes",
        ),
    ];
    let a1 = anchor("bash", &json!({"command": "rm -rf build"}));
    for (name, value, revision, want) in cases {
        let runs = Runs::new(MemoryStore::new());
        let reason = assert_fails(&runs, &value, revision, name);
        let want = want
            .replace("ANCHOR1", &a1)
            .replace("ANCHORLS", &anchor("bash", &json!({"command": "ls"})));
        assert!(
            reason.starts_with(&want),
            "{name}: reason {reason:?}, want {want:?}"
        );
    }
}

#[test]
fn a_history_the_host_refuses_fails_the_run() {
    let runs = Runs::new(MemoryStore::new()).with_history_check(JsonHistory);
    assert_eq!(
        runs.park(park_req("r-1", vec![rm_build()], "{not json"), T0)
            .map(|p| p.run),
        Err(Error::HistoryRejected {
            reason: "history is not JSON: key must be a string at line 1 column 2".to_string()
        })
    );
    assert_eq!(
        runs.run("r-1", T0).unwrap(),
        None,
        "a refused park writes nothing"
    );
    let value = edit(|v| v["history"] = json!("{not json"));
    let reason = assert_fails(&runs, &value, 1, "host check");
    assert_eq!(
        reason,
        "history refused by the host's check: history is not JSON: key must be a string at line 1 column 2"
    );
    // A closure works as a check too.
    let picky = Runs::new(MemoryStore::new()).with_history_check(|h: &str| {
        if h.starts_with('[') {
            Ok(())
        } else {
            Err(format!("expected a message list, got {:.10}", h))
        }
    });
    let reason = assert_fails(
        &picky,
        &edit(|v| v["history"] = json!("oops")),
        1,
        "closure",
    );
    assert_eq!(
        reason,
        "history refused by the host's check: expected a message list, got oops"
    );
}

#[test]
fn truncated_at_every_byte_fails_and_clears() {
    let good = real_marker();
    assert!(
        !good.is_ascii(),
        "the marker should hold multi-byte text too"
    );
    let runs = Runs::new(MemoryStore::new());
    for cut in 0..good.len() {
        // Cut at every byte; a cut inside a character leaves U+FFFD, as a lossy reader would.
        let prefix = String::from_utf8_lossy(&good.as_bytes()[..cut]);
        assert!(
            matches!(Marker::decode(&prefix), Err(Error::BadMarker { .. })),
            "prefix of {cut} bytes decoded: {prefix}"
        );
        inject(runs.store(), "r-1", 1, &prefix);
        let run = runs.run("r-1", T0).unwrap().unwrap();
        assert_eq!(
            (run.status, run.marker.is_none(), run.revision),
            (RunStatus::Failed, true, 2),
            "cut at {cut}: {prefix}"
        );
        let last_error = run.last_error.unwrap_or_default();
        assert!(
            last_error.starts_with("corrupt permission marker: truncated: ")
                || last_error.starts_with("corrupt permission marker: not JSON: "),
            "cut at {cut}: {last_error}"
        );
    }
    // The whole marker is fine.
    inject(runs.store(), "r-1", 1, &good);
    assert_eq!(
        runs.run("r-1", T0).unwrap().unwrap().status,
        RunStatus::AwaitingPermission
    );
}

#[test]
fn a_corrupt_record_keeps_its_readable_owner() {
    let runs = Runs::new(MemoryStore::new());
    inject(runs.store(), "r-1", 1, &edit(|v| v["v"] = json!(9)));
    // Another owner learns nothing; the owner learns it is corrupt.
    assert_eq!(
        runs.resume("r-1", "mallory", &[], T0),
        Err(Error::RunNotFound {
            run_id: "r-1".to_string()
        })
    );
    let run = runs.run("r-1", T0).unwrap().unwrap();
    assert_eq!(
        (run.owner.as_str(), run.session_id.as_str()),
        ("alice", "s-1")
    );
    // Unreadable owner: the failure is visible to anyone (and the record stays valid).
    inject(runs.store(), "r-2", 1, "{\"v\":1,");
    let run = runs.run("r-2", T0).unwrap().unwrap();
    assert_eq!((run.owner.as_str(), run.status), ("", RunStatus::Failed));
    assert_eq!(
        runs.run("r-2", T0 + 1).unwrap().unwrap(),
        run,
        "healed once, then stable"
    );
}

#[test]
fn two_sequential_resumes_one_wins() {
    let store = Arc::new(MemoryStore::new());
    let tab_a = Runs::new(Arc::clone(&store));
    let tab_b = Runs::new(Arc::clone(&store));
    tab_a
        .park(park_req("r-1", vec![rm_build()], "h"), T0)
        .unwrap();
    let d = [ResumeDecision::allow("call_1", anchor_of(&rm_build()))];
    assert!(tab_b.resume("r-1", "alice", &d, T0 + 1).is_ok());
    assert_eq!(
        tab_a.resume("r-1", "alice", &d, T0 + 2),
        Err(Error::AlreadyResumed {
            run_id: "r-1".to_string()
        })
    );
}

/// A store that lets another tab act between this tab's read and its write.
struct Interleaved<'a> {
    inner: &'a MemoryStore,
    before_first_put: RefCell<Option<Box<dyn FnOnce() + 'a>>>,
}

impl MarkerStore for Interleaved<'_> {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.inner.get(key)
    }
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        let other_tab = self.before_first_put.borrow_mut().take();
        if let Some(other_tab) = other_tab {
            other_tab();
        }
        self.inner.put_if_revision(key, expected, new)
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        self.inner.delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        self.inner.keys()
    }
}

#[test]
fn two_racing_resumes_one_wins_by_compare_and_swap() {
    let store = MemoryStore::new();
    Runs::new(&store)
        .park(park_req("r-1", vec![rm_build()], "h"), T0)
        .unwrap();
    let d = [ResumeDecision::deny("call_1", anchor_of(&rm_build()), "no")];
    let b_result = RefCell::new(None);
    let tab_a = Runs::new(Interleaved {
        inner: &store,
        before_first_put: RefCell::new(Some(Box::new(|| {
            // Tab B resumes after tab A has read the marker, before A writes.
            *b_result.borrow_mut() = Some(Runs::new(&store).resume("r-1", "alice", &d, T0 + 1));
        }))),
    });
    let a_result = tab_a.resume("r-1", "alice", &d, T0 + 2);
    assert_eq!(
        a_result,
        Err(Error::AlreadyResumed {
            run_id: "r-1".to_string()
        })
    );
    drop(tab_a);
    let b_result = b_result.into_inner().unwrap().unwrap();
    assert_eq!(
        b_result.results,
        vec![CallResult {
            tool_call_id: "call_1".to_string(),
            tool: "bash".to_string(),
            args: json!({"command": "rm -rf build"}),
            outcome: CallOutcome::Denied {
                message: "no".to_string()
            },
            edited_from: None,
            grant: None,
        }]
    );
}

#[test]
fn many_threads_resume_exactly_once() {
    let store = Arc::new(MemoryStore::new());
    Runs::new(Arc::clone(&store))
        .park(park_req("r-1", three_calls(), "h"), T0)
        .unwrap();
    let calls = three_calls();
    let decisions: Vec<ResumeDecision> = calls
        .iter()
        .map(|c| ResumeDecision::allow(c.tool_call_id.clone(), anchor_of(c)))
        .collect();
    let n = 8;
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let (store, barrier, decisions) =
                (Arc::clone(&store), Arc::clone(&barrier), decisions.clone());
            std::thread::spawn(move || {
                let runs = Runs::new(store);
                barrier.wait();
                runs.resume("r-1", "alice", &decisions, T0 + 1)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let winners = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(winners, 1, "{results:?}");
    for r in results.iter().filter(|r| r.is_err()) {
        assert_eq!(
            r,
            &Err(Error::AlreadyResumed {
                run_id: "r-1".to_string()
            })
        );
    }
}

#[test]
fn a_full_store_is_a_clear_error_and_changes_nothing() {
    let runs = Runs::new(MemoryStore::with_quota(4096));
    runs.start("r-1", "s-1", "alice", T0).unwrap();
    let before = runs.store().get("r-1").unwrap();
    let used = runs.store().used_bytes();
    let history = "z".repeat(8000);
    assert_eq!(
        runs.park(park_req("r-1", vec![rm_build()], &history), T0 + 1)
            .map(|p| p.run),
        Err(Error::QuotaExceeded {
            key: "r-1".to_string(),
            bytes: Marker::park(
                &park_req("r-1", vec![rm_build()], &history),
                &toolgate_core::marker::AnyHistory,
                2,
                T0 + 1
            )
            .unwrap()
            .encode()
            .unwrap()
            .len(),
        })
    );
    assert_eq!(runs.store().get("r-1").unwrap(), before);
    assert_eq!(runs.store().used_bytes(), used);
    assert_eq!(
        runs.run("r-1", T0 + 2).unwrap().unwrap().status,
        RunStatus::Running
    );
    // A small one still fits.
    assert!(runs
        .park(park_req("r-1", vec![rm_build()], "h"), T0 + 3)
        .is_ok());
}

#[test]
fn a_corrupt_record_in_a_full_store_is_deleted() {
    // The failed record cannot be written (quota), so the record is cleared instead.
    let value = "{".repeat(100);
    let store = MemoryStore::with_quota(110);
    inject(&store, "r-1", 1, &value);
    let runs = Runs::new(&store);
    match runs.resume("r-1", "alice", &[], T0) {
        Err(Error::MarkerCorrupt { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(store.get("r-1").unwrap(), None);
}

#[test]
fn park_refusals() {
    let runs = Runs::new(MemoryStore::new());
    let bad = |reason: &str| Error::BadPark {
        run_id: "r-1".to_string(),
        reason: reason.to_string(),
    };
    let mut ttl_zero = park_req("r-1", vec![rm_build()], "h");
    ttl_zero.ttl_ms = Some(0);
    let mut ttl_long = park_req("r-1", vec![rm_build()], "h");
    ttl_long.ttl_ms = Some(MAX_MARKER_TTL_MS + 1);
    let mut no_owner = park_req("r-1", vec![rm_build()], "h");
    no_owner.owner = String::new();
    let huge_args: Vec<ParkCall> = (0..3)
        .map(|i| {
            call(
                &format!("c{i}"),
                "write",
                json!({"content": "w".repeat(400_000)}),
                Tier::Ask,
            )
        })
        .collect();
    let cases: Vec<(&str, Park, Error)> = vec![
        (
            "duplicate ids",
            park_req("r-1", vec![rm_build(), rm_build()], "h"),
            bad("tool call id `call_1` appears twice"),
        ),
        (
            "empty id",
            park_req("r-1", vec![call("", "bash", json!({}), Tier::Ask)], "h"),
            bad("tool_call_id is empty"),
        ),
        (
            "a denied call",
            park_req("r-1", vec![call("c", "bash", json!({}), Tier::Deny)], "h"),
            bad("tool call `c` is denied by rule `test.bash`; a denied call is refused, never asked"),
        ),
        ("ttl 0", ttl_zero, bad("ttl_ms 0 is out of range (1..=604800000)")),
        ("ttl too long", ttl_long, bad("ttl_ms 604800001 is out of range (1..=604800000)")),
        ("no owner", no_owner, bad("owner is empty")),
        (
            "history too large",
            park_req("r-1", vec![rm_build()], &"h".repeat(MAX_HISTORY_BYTES + 1)),
            Error::HistoryTooLarge {
                bytes: MAX_HISTORY_BYTES + 1,
                limit: MAX_HISTORY_BYTES,
            },
        ),
        (
            "marker too large",
            park_req("r-1", huge_args, "h"),
            Error::MarkerTooLarge {
                // 4 copies of 400 KB: the first call is in `request` and in `calls`.
                bytes: 1_600_994,
                limit: MAX_MARKER_BYTES,
            },
        ),
    ];
    for (name, park, want) in cases {
        assert_eq!(runs.park(park, T0).map(|p| p.run), Err(want), "{name}");
        assert_eq!(runs.store().keys().unwrap(), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn run_lifecycle_through_runs() {
    let runs = Runs::new(MemoryStore::new());
    runs.start("r-1", "s-1", "alice", T0).unwrap();
    assert_eq!(
        runs.start("r-1", "s-1", "bob", T0),
        Err(Error::RunIdTaken {
            run_id: "r-1".to_string()
        })
    );
    assert_eq!(
        runs.park(park_req("r-1", vec![], "h"), T0)
            .map(|p| p.run.revision),
        Ok(2)
    );
    let mut other_session = park_req("r-1", vec![], "h");
    other_session.session_id = "s-2".to_string();
    // Parking a parked run again is illegal (awaiting -> awaiting).
    assert_eq!(
        runs.park(other_session, T0).map(|p| p.run),
        Err(Error::IllegalTransition {
            run_id: "r-1".to_string(),
            from: RunStatus::AwaitingPermission,
            to: RunStatus::AwaitingPermission,
        })
    );
    assert_eq!(
        runs.complete("r-1", "alice", T0),
        Err(Error::IllegalTransition {
            run_id: "r-1".to_string(),
            from: RunStatus::AwaitingPermission,
            to: RunStatus::Completed,
        })
    );
    runs.resume("r-1", "alice", &[], T0 + 1).unwrap();
    let mut other_session = park_req("r-1", vec![], "h");
    other_session.session_id = "s-2".to_string();
    assert_eq!(
        runs.park(other_session, T0 + 2).map(|p| p.run),
        Err(Error::BadPark {
            run_id: "r-1".to_string(),
            reason: "session_id `s-2` is not the run's session `s-1`".to_string()
        })
    );
    // Park again after a resume: a new marker, and it resumes again.
    runs.park(park_req("r-1", vec![rm_build()], "h2"), T0 + 3)
        .unwrap();
    assert_eq!(
        runs.forget("r-1", "alice", T0),
        Err(Error::RunStillActive {
            run_id: "r-1".to_string(),
            status: RunStatus::AwaitingPermission
        })
    );
    let failed = runs.fail("r-1", "alice", "host crashed", T0 + 4).unwrap();
    assert_eq!(
        (
            failed.status,
            failed.last_error.as_deref(),
            failed.marker.is_none()
        ),
        (RunStatus::Failed, Some("host crashed"), true)
    );
    assert_eq!(
        runs.resume("r-1", "alice", &[], T0 + 5),
        Err(Error::NotAwaitingPermission {
            run_id: "r-1".to_string(),
            status: RunStatus::Failed,
            why: Some("host crashed".to_string()),
        })
    );
    assert_eq!(
        runs.park(park_req("r-1", vec![], "h"), T0 + 6)
            .map(|p| p.run),
        Err(Error::IllegalTransition {
            run_id: "r-1".to_string(),
            from: RunStatus::Failed,
            to: RunStatus::AwaitingPermission,
        })
    );
    assert_eq!(
        runs.forget("r-1", "bob", T0),
        Err(Error::RunNotFound {
            run_id: "r-1".to_string()
        })
    );
    runs.forget("r-1", "alice", T0).unwrap();
    assert_eq!(runs.run("r-1", T0).unwrap(), None);

    runs.start("r-2", "s-1", "alice", T0).unwrap();
    runs.park(park_req("r-3", vec![rm_build()], "h"), T0)
        .unwrap();
    let cancelled = runs
        .cancel("r-3", "alice", "user typed a new message", T0 + 1)
        .unwrap();
    assert_eq!(cancelled.status, RunStatus::Cancelled);
    assert_eq!(
        runs.complete("r-2", "alice", T0 + 1).unwrap().status,
        RunStatus::Completed
    );
    let listed: Vec<(String, RunStatus)> = runs
        .runs(T0 + 2)
        .unwrap()
        .into_iter()
        .map(|r| (r.run_id, r.status))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("r-2".to_string(), RunStatus::Completed),
            ("r-3".to_string(), RunStatus::Cancelled)
        ]
    );
}

#[test]
fn decisions_speak_json() {
    let decisions: Vec<ResumeDecision> = serde_json::from_value(json!([
        {"tool_call_id": "a", "anchor": "x", "decision": "allow"},
        {"tool_call_id": "b", "anchor": "y", "decision": "allow", "scope": "npm test:*"},
        {"tool_call_id": "c", "anchor": "z", "decision": "deny", "message": "no"},
        {"tool_call_id": "d", "anchor": "w", "decision": "deny"}
    ]))
    .unwrap();
    assert_eq!(
        decisions,
        vec![
            ResumeDecision::allow("a", "x"),
            ResumeDecision {
                tool_call_id: "b".to_string(),
                anchor: "y".to_string(),
                choice: Choice::Allow {
                    scope: Some("npm test:*".to_string()),
                    args: None,
                    grant: None,
                },
            },
            ResumeDecision::deny("c", "z", "no"),
            ResumeDecision {
                tool_call_id: "d".to_string(),
                anchor: "w".to_string(),
                choice: Choice::Deny { message: None },
            },
        ]
    );
    let result = CallResult {
        tool_call_id: "c".to_string(),
        tool: "bash".to_string(),
        args: json!({}),
        outcome: CallOutcome::Denied {
            message: "no".to_string(),
        },
        edited_from: None,
        grant: None,
    };
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"tool_call_id": "c", "tool": "bash", "args": {}, "outcome": "denied", "message": "no"})
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes_decode_to_a_value_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Marker::decode(&text);
        let _ = Run::decode(&text, &toolgate_core::marker::AnyHistory);
    }

    /// Needs serde_json's `float_roundtrip`: without it some floats parse back one ULP
    /// off and the recomputed anchor makes an honest marker look tampered.
    #[test]
    fn float_args_survive_the_round_trip(bits in any::<u64>()) {
        let f = f64::from_bits(bits);
        prop_assume!(f.is_finite());
        let park = park_req("r-1", vec![call("c", "other", json!({"x": f, "y": [f]}), Tier::Ask)], "h");
        let marker = Marker::park(&park, &toolgate_core::marker::AnyHistory, 1, T0).unwrap();
        prop_assert_eq!(Marker::decode(&marker.encode().unwrap()), Ok(marker));
    }

    #[test]
    fn any_edit_of_a_real_marker_never_wedges(
        pos in 0usize..4096,
        byte in any::<u8>(),
        cut in 0usize..4096,
    ) {
        let mut bytes = real_marker().into_bytes();
        let len = bytes.len();
        bytes[pos % len] = byte;
        bytes.truncate(len - cut % len);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let runs = Runs::new(MemoryStore::new());
        inject(runs.store(), "r-1", 1, &text);
        let run = runs.run("r-1", T0).unwrap().unwrap();
        match run.status {
            // Still parked only if the edit left a valid marker.
            RunStatus::AwaitingPermission => prop_assert!(Marker::decode(&text).is_ok(), "{}", text),
            RunStatus::Failed => prop_assert!(run.marker.is_none()),
            other @ (RunStatus::Running | RunStatus::Completed | RunStatus::Cancelled) => {
                prop_assert!(false, "status {} from {}", other, text)
            }
        }
    }
}

#[test]
fn runs_of_lists_an_owners_runs_and_unowned_failures_only() {
    let runs = Runs::new(MemoryStore::new());
    runs.park(park_req("r-a", vec![rm_build()], "h"), T0)
        .unwrap();
    let mut bob = park_req("r-b", vec![rm_build()], "h");
    bob.owner = "bob".to_string();
    runs.park(bob, T0).unwrap();
    inject(runs.store(), "r-x", 1, "garbage");
    let ids = |owner: &str| -> Vec<String> {
        runs.runs_of(owner, T0 + 1)
            .unwrap()
            .into_iter()
            .map(|r| r.run_id)
            .collect()
    };
    assert_eq!(ids("alice"), ["r-a", "r-x"]);
    assert_eq!(ids("bob"), ["r-b", "r-x"]);
    assert_eq!(ids("mallory"), ["r-x"]);
    assert_eq!(runs.runs(T0 + 1).unwrap().len(), 3);
    let status = |id: &str, owner: &str| runs.run_of(id, owner, T0 + 1).unwrap().map(|r| r.status);
    assert_eq!(status("r-a", "alice"), Some(RunStatus::AwaitingPermission));
    assert_eq!(
        status("r-a", "bob"),
        None,
        "another owner's run is not found"
    );
    assert_eq!(status("r-x", "bob"), Some(RunStatus::Failed));
    assert_eq!(status("r-none", "alice"), None);
}

#[test]
fn prune_deletes_only_old_finished_runs_of_the_owner() {
    let runs = Runs::new(MemoryStore::new());
    // Finished a day ago: completed, failed, cancelled (alice).
    runs.start("done", "s-1", "alice", T0).unwrap();
    runs.complete("done", "alice", T0).unwrap();
    runs.start("failed", "s-1", "alice", T0).unwrap();
    runs.fail("failed", "alice", "crashed", T0).unwrap();
    runs.park(park_req("cancelled", vec![rm_build()], "h"), T0)
        .unwrap();
    runs.cancel("cancelled", "alice", "new message", T0)
        .unwrap();
    // Still active a day later: never pruned, however old.
    runs.start("running", "s-1", "alice", T0).unwrap();
    runs.park(park_req("waiting", vec![rm_build()], "h"), T0)
        .unwrap();
    // Finished recently, and another owner's old finished run.
    runs.start("recent", "s-1", "alice", T0).unwrap();
    runs.complete("recent", "alice", T0 + DAY - 10).unwrap();
    let mut bob = park_req("bobs", vec![rm_build()], "h");
    bob.owner = "bob".to_string();
    runs.park(bob, T0).unwrap();
    runs.cancel("bobs", "bob", "gone", T0).unwrap();

    // A marker whose TTL passed is cancelled on this read, i.e. it changed now: kept.
    let now = T0 + DAY;
    let pruned: Vec<String> = runs
        .prune("alice", DAY, now)
        .unwrap()
        .into_iter()
        .map(|r| r.run_id)
        .collect();
    assert_eq!(pruned, ["cancelled", "done", "failed"]);
    let left: Vec<(String, RunStatus)> = runs
        .runs(now)
        .unwrap()
        .into_iter()
        .map(|r| (r.run_id, r.status))
        .collect();
    let left_ids: Vec<&str> = left.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(left_ids, ["bobs", "recent", "running", "waiting"]);
    // Nothing more is old enough now; later, the recent one goes, active runs stay.
    assert!(runs.prune("alice", DAY, now).unwrap().is_empty());
    let later = runs.prune("alice", DAY, T0 + 3 * DAY).unwrap();
    let later_ids: Vec<&str> = later.iter().map(|r| r.run_id.as_str()).collect();
    // "waiting" expired (its marker TTL passed), so by now it is an old finished run too.
    assert!(later_ids.contains(&"recent"), "{later_ids:?}");
    assert!(!later_ids.contains(&"running"), "{later_ids:?}");
    assert!(runs.run("running", T0 + 3 * DAY).unwrap().is_some());
    assert!(runs.run("bobs", T0 + 3 * DAY).unwrap().is_some());
}

#[test]
fn prune_skips_a_record_that_changed_under_it() {
    // A store whose delete always loses the compare-and-swap (another tab rewrote it).
    struct Racing(MemoryStore);
    impl MarkerStore for Racing {
        fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
            self.0.get(key)
        }
        fn put_if_revision(
            &self,
            key: &str,
            expected: Option<u64>,
            new: Stored,
        ) -> Result<(), Error> {
            self.0.put_if_revision(key, expected, new)
        }
        fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
            Err(Error::StoreConflict {
                key: key.to_string(),
                expected: Some(expected),
                found: Some(expected + 1),
            })
        }
        fn keys(&self) -> Result<Vec<String>, Error> {
            self.0.keys()
        }
    }
    let runs = Runs::new(Racing(MemoryStore::new()));
    runs.start("done", "s-1", "alice", T0).unwrap();
    runs.complete("done", "alice", T0).unwrap();
    assert!(runs.prune("alice", 0, T0 + 1).unwrap().is_empty());
    assert!(runs.run("done", T0 + 1).unwrap().is_some());
}

#[test]
fn runs_that_keep_history_hand_a_decision_to_the_host_once() {
    let runs = Runs::new(MemoryStore::new()).keeping_history();
    runs.park(park_req("r-1", vec![rm_build()], "h"), T0)
        .unwrap();
    // Nothing decided yet: a resume with no decisions decides nothing.
    assert!(runs.resume("r-1", "alice", &[], T0 + 1).is_err());
    assert_eq!(
        runs.run("r-1", T0 + 2).unwrap().unwrap().status,
        RunStatus::AwaitingPermission
    );
    let allow = [ResumeDecision::allow("call_1", anchor_of(&rm_build()))];
    let decided = runs
        .resume_by("r-1", "alice", &allow, T0 + 3, Some("alice-phone"))
        .unwrap();
    assert_eq!(decided.history, "h");
    // Another owner takes nothing; the owner takes the outcome, the decided arguments and
    // the history, once.
    assert_eq!(
        runs.resume("r-1", "mallory", &[], T0 + 4),
        Err(Error::RunNotFound {
            run_id: "r-1".to_string()
        })
    );
    let taken = runs.resume("r-1", "alice", &[], T0 + 4).unwrap();
    assert_eq!(taken.history, "h");
    assert_eq!(taken.results.len(), 1);
    assert_eq!(
        taken.results[0].outcome,
        CallOutcome::Approved { scope: None }
    );
    assert_eq!(taken.results[0].args, json!({"command": "rm -rf build"}));
    let after = runs.run("r-1", T0 + 5).unwrap().unwrap();
    assert_eq!(
        (after.status, after.history, after.resumed_at),
        (RunStatus::Running, None, Some(T0 + 3))
    );
    assert_eq!(
        runs.resume("r-1", "alice", &[], T0 + 6),
        Err(Error::AlreadyResumed {
            run_id: "r-1".to_string()
        })
    );
    // Runs that do not keep it (the browser's Gate, where the decision's own caller goes
    // on): nothing to take.
    let plain = Runs::new(MemoryStore::new());
    plain
        .park(park_req("r-1", vec![rm_build()], "h"), T0)
        .unwrap();
    plain.resume("r-1", "alice", &allow, T0 + 1).unwrap();
    assert_eq!(
        plain.resume("r-1", "alice", &[], T0 + 2),
        Err(Error::AlreadyResumed {
            run_id: "r-1".to_string()
        })
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever happens in whatever order (a person allows or denies, the marker expires,
    /// takes come early, late and twice, the runs keep history or not): a take approves a
    /// call only if a person's allow for it succeeded before the marker expired, a take
    /// of an expired run says `expired` for every call, and at most one take succeeds.
    #[test]
    fn a_take_is_once_and_approves_only_what_a_person_allowed(
        keep in any::<bool>(),
        ttl in 1u64..100,
        steps in proptest::collection::vec((0u8..4, 0u64..150), 1..8),
    ) {
        let runs = if keep { Runs::new(MemoryStore::new()).keeping_history() } else { Runs::new(MemoryStore::new()) };
        let mut park = park_req("r-1", vec![rm_build()], "h");
        park.ttl_ms = Some(ttl);
        runs.park(park, T0).unwrap();
        let anchor = anchor_of(&rm_build());
        let mut allowed = false;
        let mut decided = false;
        let mut takes = 0;
        let mut now = T0;
        for (op, dt) in steps {
            now += dt;
            match op {
                0 | 1 => {
                    let d = if op == 0 {
                        ResumeDecision::allow("call_1", anchor.clone())
                    } else {
                        ResumeDecision::deny("call_1", anchor.clone(), "no")
                    };
                    if runs.resume("r-1", "alice", &[d], now).is_ok() {
                        prop_assert!(!decided, "two decisions succeeded");
                        prop_assert!(now < T0 + ttl, "a decision after expiry succeeded");
                        decided = true;
                        allowed = op == 0;
                    }
                }
                2 => {
                    let _ = runs.run("r-1", now);
                }
                _ => {
                    if let Ok(taken) = runs.resume("r-1", "alice", &[], now) {
                        takes += 1;
                        prop_assert_eq!(taken.history.as_str(), "h");
                        for r in &taken.results {
                            match &r.outcome {
                                CallOutcome::Approved { .. } => prop_assert!(keep && allowed, "a take approved what nobody allowed"),
                                CallOutcome::Denied { .. } => prop_assert!(keep && decided && !allowed),
                                CallOutcome::Expired => prop_assert!(!decided, "expired after a decision"),
                                CallOutcome::Answered { .. } => prop_assert!(false, "a call that is no question was answered"),
                            }
                        }
                    }
                }
            }
        }
        prop_assert!(takes <= 1, "{} takes succeeded", takes);
    }
}

/// Every deciding part of a compound command is kept for the prompt to mark: each
/// simple command whose tier is the call's, not the parts that decided less.
#[test]
fn a_marker_keeps_every_deciding_part() {
    let policy = toolgate_core::Policy::defaults("/w", "/home/u");
    let call = ToolCall::new(
        "bash",
        json!({"command": "git push origin dev; ls; npm publish"}),
    );
    let verdict = policy.classify(&call);
    assert_eq!(verdict.tier, Tier::Ask);
    let park = park_req(
        "r-spans",
        vec![ParkCall {
            tool_call_id: "c1".into(),
            call,
            verdict,
        }],
        "h",
    );
    let marker = Marker::park(&park, &toolgate_core::marker::AnyHistory, 1, T0).unwrap();
    assert_eq!(
        marker.calls[0].spans,
        vec![[0, 3], [25, 28]],
        "git and npm, not ls"
    );
    let back = Marker::decode(&marker.encode().unwrap()).unwrap();
    assert_eq!(back.calls[0].spans, marker.calls[0].spans);
}

/// A stored document of another version is refused, naming the version it has as JSON.
#[test]
fn a_marker_of_another_version_is_refused_naming_it() {
    for (v, shown) in [
        (json!(2), "v=2"),
        (json!("1"), "v=\"1\""),
        (json!(1.5), "v=1.5"),
        (json!([1]), "v=[1]"),
    ] {
        let text = json!({"v": v, "run_id": "r", "status": "awaiting_permission"}).to_string();
        let err = Marker::decode(&text).unwrap_err().to_string();
        assert!(
            err.contains(&format!("unknown version {shown} (this build reads v=1)")),
            "{err}"
        );
    }
}
