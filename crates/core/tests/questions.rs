//! Durable questions: a question parks beside the calls waiting for approval, in the
//! same marker; it is answered (or declined), never approved; the answer resumes the run
//! exactly once and reaches the model as the tool's result.

#![cfg(test)]

use proptest::prelude::*;
use serde_json::json;
use toolgate_core::grant::{plan_park, Grant, GrantOrigin, GrantRequest};
use toolgate_core::marker::{MAX_ANSWER_BYTES, MAX_QUESTION_BYTES};
use toolgate_core::wire::{ParkRequest, ResumeRequest};
use toolgate_core::{
    CallOutcome, Choice, Error, Marker, MemoryStore, Park, ParkCall, Policy, ResumeDecision,
    RunStatus, Runs, Tier, ToolCall, Verdict, QUESTION_RULE,
};

const T0: u64 = 1_700_000_000_000;

fn question(id: &str, text: &str) -> ParkCall {
    ParkCall {
        tool_call_id: id.to_string(),
        call: ToolCall::new("ask_user", json!({ "question": text })),
        verdict: Verdict::question(text.to_string()),
    }
}

fn asked(id: &str, command: &str) -> ParkCall {
    ParkCall {
        tool_call_id: id.to_string(),
        call: ToolCall::new("bash", json!({ "command": command })),
        verdict: Verdict::new(Tier::Ask, "test.ask", "needs a look"),
    }
}

fn park(calls: Vec<ParkCall>) -> Park {
    Park {
        run_id: "r-1".into(),
        session_id: "s-1".into(),
        owner: "alice".into(),
        calls,
        history: "[]".into(),
        ttl_ms: None,
        parked_by: None,
    }
}

fn anchor_of(runs: &Runs<MemoryStore>, id: &str) -> String {
    let run = runs.run_of("r-1", "alice", T0).unwrap().unwrap();
    let marker = run.marker.unwrap();
    marker
        .calls
        .iter()
        .find(|c| c.tool_call_id == id)
        .unwrap()
        .anchor
        .clone()
}

#[test]
fn a_question_survives_as_the_marker_and_its_answer_resumes_once() {
    let runs = Runs::new(MemoryStore::new());
    let parked = runs
        .park(
            park(vec![
                question("q1", "Which branch should I push to?"),
                asked("c1", "git push"),
            ]),
            T0,
        )
        .unwrap();
    // The stored record is the marker: a reload renders the question from it alone.
    let text = parked.run.encode().unwrap();
    let marker = Marker::decode(&text).unwrap();
    let q = &marker.calls[0];
    assert!(q.is_question());
    assert_eq!(q.reason, "Which branch should I push to?");
    assert_eq!(q.rule, QUESTION_RULE);
    assert!(!marker.calls[1].is_question());

    let qa = anchor_of(&runs, "q1");
    let ca = anchor_of(&runs, "c1");
    // An approval of a question, an answer to a call, an empty answer: refused, nothing
    // decided.
    for bad in [
        vec![
            ResumeDecision::allow("q1", &qa),
            ResumeDecision::deny("c1", &ca, ""),
        ],
        vec![
            ResumeDecision::answer("q1", &qa, "main"),
            ResumeDecision::answer("c1", &ca, "yes"),
        ],
        vec![
            ResumeDecision::answer("q1", &qa, "  \n"),
            ResumeDecision::deny("c1", &ca, ""),
        ],
        vec![
            ResumeDecision::answer("q1", &qa, "x".repeat(MAX_ANSWER_BYTES + 1)),
            ResumeDecision::deny("c1", &ca, ""),
        ],
    ] {
        match runs.resume("r-1", "alice", &bad, T0 + 1) {
            Err(Error::AnswerRefused { .. }) => {}
            other => panic!("expected answer_refused, got {other:?}"),
        }
        let run = runs.run_of("r-1", "alice", T0 + 1).unwrap().unwrap();
        assert_eq!(run.status, RunStatus::AwaitingPermission);
    }
    let good = [
        ResumeDecision::answer("q1", &qa, "fix/parse-date"),
        ResumeDecision::allow("c1", &ca),
    ];
    let resumed = runs.resume("r-1", "alice", &good, T0 + 2).unwrap();
    assert_eq!(
        resumed.results[0].outcome,
        CallOutcome::Answered {
            answer: "fix/parse-date".into()
        }
    );
    assert!(!resumed.results[0].outcome.is_approved());
    assert_eq!(
        resumed.results[0].outcome.tool_result_text().as_deref(),
        Some("fix/parse-date")
    );
    assert!(resumed.results[1].outcome.is_approved());
    // The run's decision records the answer; a second answer loses.
    let run = runs.run_of("r-1", "alice", T0 + 3).unwrap().unwrap();
    let decided = run.decision.unwrap();
    assert_eq!(decided.calls[0].outcome, "answered");
    assert_eq!(decided.calls[0].answer.as_deref(), Some("fix/parse-date"));
    assert!(matches!(
        runs.resume("r-1", "alice", &good, T0 + 4),
        Err(Error::AlreadyResumed { .. })
    ));
}

#[test]
fn a_question_is_declined_or_expires_never_approved() {
    let runs = Runs::new(MemoryStore::new());
    runs.park(park(vec![question("q1", "Go on?")]), T0).unwrap();
    let qa = anchor_of(&runs, "q1");
    let resumed = runs
        .resume(
            "r-1",
            "alice",
            &[ResumeDecision::deny("q1", &qa, "not now")],
            T0 + 1,
        )
        .unwrap();
    assert!(!resumed.results[0].outcome.is_approved());

    let runs = Runs::new(MemoryStore::new());
    let mut p = park(vec![question("q1", "Go on?")]);
    p.ttl_ms = Some(10);
    runs.park(p, T0).unwrap();
    let qa = anchor_of(&runs, "q1");
    assert!(runs
        .resume(
            "r-1",
            "alice",
            &[ResumeDecision::answer("q1", &qa, "yes")],
            T0 + 10
        )
        .is_err());
}

#[test]
fn a_question_must_say_something_and_not_too_much() {
    let runs = Runs::new(MemoryStore::new());
    for text in [
        String::new(),
        " ".into(),
        "q".repeat(MAX_QUESTION_BYTES + 1),
    ] {
        let err = runs
            .park(park(vec![question("q1", &text)]), T0)
            .unwrap_err();
        assert!(matches!(err, Error::BadPark { .. }), "{err:?}");
    }
    // A question with any tier but ask is not a question a marker holds.
    let mut q = question("q1", "Which?");
    q.verdict.tier = Tier::Auto;
    assert!(runs.park(park(vec![q]), T0).is_err());
}

#[test]
fn the_wire_parks_a_question_as_asked_and_decides_it_by_answer() {
    let req: ParkRequest = serde_json::from_value(json!({
        "runId": "r-1",
        "history": "[]",
        "calls": [
            {"toolCallId": "q1", "tool": "ask_user", "args": {"q": 1}, "question": "Which?"},
            {"toolCallId": "c1", "tool": "bash", "args": {"command": "ls"}}
        ]
    }))
    .unwrap();
    let calls = req.park_calls(|_| Verdict::new(Tier::Ask, "classified", "by the host"));
    assert_eq!(calls[0].verdict.rule, QUESTION_RULE);
    assert_eq!(calls[0].verdict.reason, "Which?");
    assert_eq!(calls[1].verdict.rule, "classified");
    let resume: ResumeRequest = serde_json::from_value(json!({"decisions": [
        {"toolCallId": "q1", "anchor": "a", "decision": "answer", "answer": "main"}
    ]}))
    .unwrap();
    let d = resume.into_decisions().unwrap();
    assert_eq!(
        d[0].choice,
        Choice::Answer {
            answer: "main".into()
        }
    );
}

#[test]
fn no_grant_decides_a_park_that_holds_a_question() {
    let policy = Policy::from_toml("").unwrap();
    let call = ToolCall::new("bash", json!({"command": "npm publish --tag next"}));
    let scope = policy.scopes(&call).into_iter().next().unwrap();
    let grant = Grant::give(
        &policy,
        &call,
        &GrantRequest {
            rule: scope,
            ttl_ms: None,
            single_use: false,
        },
        GrantOrigin {
            id: "g1",
            owner: "alice",
            session_id: "s-1",
            by: None,
            run_id: "r-0",
            tool_call_id: "c0",
        },
        T0,
    )
    .unwrap();
    let covered = ParkCall {
        tool_call_id: "c1".into(),
        verdict: policy.classify(&call),
        call: call.clone(),
    };
    let grants = [grant];
    assert!(plan_park(&grants, &policy, &park(vec![covered.clone()]), T0).is_some());
    let with_question = park(vec![covered, question("q1", "npm publish --tag next")]);
    assert!(plan_park(&grants, &policy, &with_question, T0).is_none());
}

fn decision() -> impl Strategy<Value = u8> {
    0u8..3
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Over random parks of questions and calls and random decisions (allow, deny,
    /// answer, any text): a question is never approved, only a question is answered, a
    /// resume that stands decides each call once, and the run resumes once.
    #[test]
    fn questions_are_answered_never_approved(
        kinds in proptest::collection::vec(any::<bool>(), 1..6),
        choices in proptest::collection::vec(decision(), 6),
        text in "\\PC{0,12}",
    ) {
        let runs = Runs::new(MemoryStore::new());
        let calls: Vec<ParkCall> = kinds
            .iter()
            .enumerate()
            .map(|(i, q)| if *q { question(&format!("c{i}"), "Which?") } else { asked(&format!("c{i}"), "make") })
            .collect();
        runs.park(park(calls), T0).unwrap();
        let marker = runs.run_of("r-1", "alice", T0).unwrap().unwrap().marker.unwrap();
        let decisions: Vec<ResumeDecision> = marker
            .calls
            .iter()
            .zip(&choices)
            .map(|(c, k)| match k {
                0 => ResumeDecision::allow(&c.tool_call_id, &c.anchor),
                1 => ResumeDecision::deny(&c.tool_call_id, &c.anchor, text.clone()),
                _ => ResumeDecision::answer(&c.tool_call_id, &c.anchor, text.clone()),
            })
            .collect();
        match runs.resume("r-1", "alice", &decisions, T0 + 1) {
            Ok(resumed) => {
                for (c, r) in marker.calls.iter().zip(&resumed.results) {
                    prop_assert!(!(c.is_question() && r.outcome.is_approved()));
                    if matches!(r.outcome, CallOutcome::Answered { .. }) {
                        prop_assert!(c.is_question());
                    }
                }
                prop_assert!(runs.resume("r-1", "alice", &decisions, T0 + 2).is_err());
            }
            Err(e) => {
                prop_assert!(matches!(e, Error::AnswerRefused { .. }), "{e:?}");
                let run = runs.run_of("r-1", "alice", T0 + 1).unwrap().unwrap();
                prop_assert_eq!(run.status, RunStatus::AwaitingPermission);
            }
        }
    }
}
