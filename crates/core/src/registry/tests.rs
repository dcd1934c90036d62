//! The registry's unit tests.

use super::encode::{write_str_array, write_verdict};
use super::*;
use serde_json::json;

const T: u64 = 60_000;

fn seq_ids(start: u128) -> impl FnMut() -> Result<u128, Error> {
    let mut n = start;
    move || {
        n += 1;
        Ok(n)
    }
}

fn reg() -> Registry {
    Registry::new("s-1", RegistryConfig::default(), seq_ids(0))
}

fn policy() -> Policy {
    Policy::defaults("/w", "/home/u")
}

fn bash(cmd: &str) -> ToolCall {
    ToolCall::new("bash", json!({ "command": cmd }))
}

fn ask() -> Verdict {
    Verdict::new(Tier::Ask, "default", "not on any list")
}

fn hard_deny() -> Verdict {
    Verdict::new(
        Tier::Deny,
        "builtin.shell.priv-esc",
        "privilege escalation: sudo",
    )
}

fn req(r: &mut Registry, cmd: &str, now: u64) -> (RequestId, String) {
    let call = bash(cmd);
    let anchor = call.anchor();
    let got = r.request(NewRequest::new(call, ask()), T, now).unwrap();
    assert!(got.expired.is_empty());
    (got.id, anchor)
}

fn approval(id: RequestId, outcome: Outcome) -> Settled {
    Settled::Approval {
        id,
        tool_call_id: None,
        outcome,
    }
}

#[test]
fn request_records_call_anchor_times_and_a_bounded_deadline() {
    let mut r = reg();
    let call = ToolCall::new("bash", json!({"command": "rm -rf build", "cwd": "/w"}));
    // Key order and whitespace do not matter for the anchor.
    let same: serde_json::Value =
        serde_json::from_str(r#"{ "cwd" : "/w", "command" : "rm -rf build" }"#).unwrap();
    let got = r
        .request(
            NewRequest::new(call.clone(), ask()).tool_call_id("c1"),
            T,
            1000,
        )
        .unwrap();
    let p = r.get(got.id).unwrap();
    assert_eq!(
        (p.call(), p.anchor.to_string(), p.created_ms, p.deadline_ms),
        (call, crate::anchor("bash", &same), 1000, 1000 + T)
    );
    assert_eq!(p.tool_call_id, Some("c1"));
    // A huge timeout is clamped to the maximum.
    let big = r
        .request(NewRequest::new(bash("x"), ask()), u64::MAX, 1000)
        .unwrap();
    assert_eq!(big.deadline_ms, 1000 + r.config().max_timeout_ms);
    assert_eq!(r.size(), 2);
}

/// The hand-written verdict and scope encoders write exactly serde's JSON.
#[test]
fn verdict_and_scopes_encode_as_serde_does() {
    let p = policy();
    let mut verdicts: Vec<Verdict> = [
        "rm -rf build",
        "git push origin main && rm -rf /tmp/x",
        "sudo rm -rf /",
        "echo \"a\\b\"\n\tls",
        "cat <<EOF\n\u{1}\u{7f}é\nEOF",
    ]
    .iter()
    .map(|c| p.classify(&bash(c)))
    .collect();
    let mut odd = Verdict::new(Tier::Auto, "user.allow[0]", "q\"uo\\te\u{0}");
    odd.span = Some([0, usize::MAX]);
    verdicts.push(odd);
    verdicts.push(Verdict::new(Tier::Deny, "", ""));
    assert!(
        verdicts
            .iter()
            .any(|v| v.parts.len() > 1 && v.parts[0].span.is_some()),
        "the table covers parts with spans"
    );
    for v in verdicts {
        let mut got = Vec::new();
        write_verdict(&v, &mut got);
        assert_eq!(
            String::from_utf8(got).unwrap(),
            serde_json::to_string(&v).unwrap(),
            "{v:?}"
        );
    }
    for scopes in [vec![], vec!["Bash(x)".to_string(), "a\"\n\\b".to_string()]] {
        let mut got = Vec::new();
        write_str_array(&scopes, &mut got);
        assert_eq!(
            String::from_utf8(got).unwrap(),
            serde_json::to_string(&scopes).unwrap(),
            "{scopes:?}"
        );
    }
}

/// The compact record gives back exactly what was handed in.
#[test]
fn pending_decodes_the_call_verdict_and_scopes_it_was_given() {
    let p = policy();
    let calls = [
        bash("git push origin main && rm -rf /tmp/x"),
        ToolCall::new(
            "mcp__x__y",
            json!({"z": [1, -2, 2.5, -0.0, 1e300, u64::MAX], "a": {"\u{e9}\n\"": null}, "": true}),
        ),
        ToolCall::new("write", json!("not an object")),
        ToolCall::new("", serde_json::Value::Null),
    ];
    let mut r = reg();
    for (i, call) in calls.into_iter().enumerate() {
        let mut verdict = p.classify(&call);
        verdict.span = Some([1, 4]);
        let scopes = vec!["Bash(a \"b\")".to_string(), "x\ny".to_string()];
        let mut new = NewRequest::new(call.clone(), verdict.clone()).scopes(scopes.clone());
        if i % 2 == 0 {
            new = new.tool_call_id(format!("call_{i}"));
        }
        let id = r.request(new, T, 7).unwrap().id;
        let got = r.get(id).unwrap();
        assert_eq!(
            (
                got.call(),
                got.verdict(),
                got.scopes(),
                got.tier(),
                got.is_hard_deny(),
                got.args_json().to_string(),
                got.anchor.to_string(),
            ),
            (
                call.clone(),
                verdict.clone(),
                scopes.clone(),
                verdict.tier,
                verdict.is_hard_deny(),
                crate::canonical_json(&call.args),
                call.anchor(),
            ),
            "{call:?}"
        );
        // Serialized as the plain struct it used to be.
        assert_eq!(
            serde_json::to_value(got).unwrap(),
            json!({
                "id": id.to_string(),
                "tool_call_id": got.tool_call_id,
                "call": call,
                "verdict": verdict,
                "anchor": call.anchor(),
                "scopes": scopes,
                "created_ms": 7,
                "deadline_ms": 7 + T,
            }),
            "{call:?}"
        );
    }
}

#[test]
fn ids_are_32_hex_digits_and_round_trip() {
    let id = RequestId::from_u128(0xdead_beef);
    let s = id.to_string();
    assert_eq!(s, "000000000000000000000000deadbeef");
    assert_eq!(RequestId::parse(&s), Some(id));
    for bad in [
        "",
        "xyz",
        "deadbeef",
        &format!("{s}0"),
        "+0000000000000000000000deadbeef",
    ] {
        assert_eq!(RequestId::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn id_source_failure_and_repeats_are_errors() {
    let mut r = Registry::new("s", RegistryConfig::default(), || {
        Err(Error::IdSource {
            message: "crypto unavailable".into(),
        })
    });
    let e = r
        .request(NewRequest::new(bash("x"), ask()), T, 0)
        .unwrap_err();
    assert_eq!(e.code(), "id_source");
    assert_eq!(r.size(), 0);

    let mut r = Registry::new("s", RegistryConfig::default(), || Ok(7u128));
    let _ = r.request(NewRequest::new(bash("x"), ask()), T, 0).unwrap();
    let e = r
        .request(NewRequest::new(bash("y"), ask()), T, 0)
        .unwrap_err();
    assert_eq!(e.code(), "id_source", "{e}");
    assert_eq!(r.size(), 1);
}

#[test]
fn allow_once_approves_and_reserves_a_slot() {
    let mut r = reg();
    let call = bash("cargo publish");
    let anchor = call.anchor();
    let got = r
        .request(NewRequest::new(call, ask()).tool_call_id("call_1"), T, 0)
        .unwrap();
    let s = r
        .respond(got.id, Decision::AllowOnce, &anchor, &policy(), 10)
        .unwrap();
    assert_eq!(
        s,
        vec![Settled::Approval {
            id: got.id,
            tool_call_id: Some("call_1".into()),
            outcome: Outcome::Approved
        }]
    );
    assert_eq!(r.size(), 0);
    assert_eq!(r.slot_count(), 1);
    let slot = r.claim_slot("call_1").unwrap();
    assert_eq!(
        slot,
        Slot {
            tool_call_id: "call_1".into(),
            anchor,
            request_id: Some(got.id),
            reserved_ms: 10
        }
    );
    assert_eq!(r.claim_slot("call_1"), None, "a slot is claimed once");
}

#[test]
fn deny_carries_the_message() {
    let mut r = reg();
    let (a, anchor_a) = req(&mut r, "rm -rf build", 0);
    let (b, anchor_b) = req(&mut r, "rm -rf dist", 0);
    let s = r
        .respond(
            a,
            Decision::Deny {
                message: Some("use make clean".into()),
            },
            &anchor_a,
            &policy(),
            1,
        )
        .unwrap();
    assert_eq!(
        s,
        vec![approval(
            a,
            Outcome::Denied {
                message: Some("use make clean".into())
            }
        )]
    );
    let s = r
        .respond(b, Decision::Deny { message: None }, &anchor_b, &policy(), 1)
        .unwrap();
    assert_eq!(s, vec![approval(b, Outcome::Denied { message: None })]);
    assert!(!Outcome::Denied { message: None }.allows_run());
}

#[test]
fn errors_have_stable_codes_and_change_nothing() {
    let mut r = reg();
    let (a, anchor) = req(&mut r, "git push", 0);
    let p = policy();
    let cases: Vec<(RequestId, Decision, &str, &str, String)> = vec![
        (
            RequestId::from_u128(999),
            Decision::AllowOnce,
            anchor.as_str(),
            "unknown_id",
            "unknown request id `000000000000000000000000000003e7`".into(),
        ),
        (
            a,
            Decision::AllowOnce,
            "0000",
            "anchor_mismatch",
            format!("anchor mismatch: the decision is for other arguments than request `{a}`"),
        ),
        (
            a,
            Decision::AllowAlways {
                scope: "Bash(git:*)".into(),
            },
            anchor.as_str(),
            "scope_not_offered",
            "scope `Bash(git:*)` was not offered for this request (offered: [])".into(),
        ),
    ];
    for (id, decision, anc, code, msg) in cases {
        let e = r.respond(id, decision.clone(), anc, &p, 1).unwrap_err();
        assert_eq!((e.code(), e.to_string()), (code, msg), "{decision:?}");
        assert_eq!(r.size(), 1, "{decision:?} changed the registry");
    }
    assert!(r.session_rules().is_empty());
}

#[test]
fn first_terminal_event_wins_and_late_answers_say_how_it_ended() {
    let p = policy();
    let mut r = reg();
    let (a, anchor_a) = req(&mut r, "a", 0);
    let (b, anchor_b) = req(&mut r, "b", 0);
    let (c, anchor_c) = req(&mut r, "c", 0);
    r.respond(a, Decision::AllowOnce, &anchor_a, &p, 1).unwrap();
    r.respond(b, Decision::Deny { message: None }, &anchor_b, &p, 1)
        .unwrap();
    let (d, anchor_d) = req(&mut r, "d", 2);
    assert_eq!(r.cleanup(3).settled.len(), 2);
    let mut r2 = reg();
    let (e, anchor_e) = req(&mut r2, "e", 0);
    assert_eq!(r2.expire_due(T), vec![approval(e, Outcome::Expired)]);
    for (which, id, anchor, ended) in [
        (0, a, &anchor_a, "approved"),
        (0, b, &anchor_b, "denied"),
        (0, c, &anchor_c, "cancelled"),
        (0, d, &anchor_d, "cancelled"),
        (1, e, &anchor_e, "expired"),
    ] {
        let reg = if which == 0 { &mut r } else { &mut r2 };
        for decision in [Decision::AllowOnce, Decision::Deny { message: None }] {
            let err = reg.respond(id, decision, anchor, &p, T + 5).unwrap_err();
            assert_eq!(
                (err.code(), err.to_string()),
                ("already_resolved", format!("already resolved: {ended}")),
                "{id}"
            );
        }
        assert_eq!(
            reg.cancel(id, T + 5).unwrap_err().code(),
            "already_resolved"
        );
    }
}

#[test]
fn a_passed_deadline_is_expired_even_before_the_sweep() {
    let mut r = reg();
    let (a, anchor) = req(&mut r, "a", 0);
    let e = r
        .respond(a, Decision::AllowOnce, &anchor, &policy(), T)
        .unwrap_err();
    assert_eq!(e.to_string(), "already resolved: expired");
    // It is still reported, once, as expired.
    assert_eq!(r.expire_due(T), vec![approval(a, Outcome::Expired)]);
    assert_eq!(r.expire_due(T + 1), vec![]);
    assert_eq!(r.size(), 0);
}

#[test]
fn hard_deny_is_never_approved() {
    let mut r = reg();
    let call = bash("sudo rm -rf /");
    let anchor = call.anchor();
    let scope = "Bash(sudo rm -rf /)".to_string();
    let got = r
        .request(
            NewRequest::new(call, hard_deny()).scopes(vec![scope.clone()]),
            T,
            0,
        )
        .unwrap();
    for d in [Decision::AllowOnce, Decision::AllowAlways { scope }] {
        let e = r.respond(got.id, d, &anchor, &policy(), 1).unwrap_err();
        assert_eq!(e.code(), "hard_deny");
        assert_eq!(
            e.to_string(),
            "hard deny (builtin.shell.priv-esc): privilege escalation: sudo; no approval can override it"
        );
    }
    assert!(r.session_rules().is_empty(), "no rule was added");
    let s = r
        .respond(
            got.id,
            Decision::Deny { message: None },
            &anchor,
            &policy(),
            1,
        )
        .unwrap();
    assert_eq!(s, vec![approval(got.id, Outcome::Denied { message: None })]);
}

#[test]
fn allow_always_adds_exactly_the_offered_scope_and_settles_what_it_covers() {
    let p = policy();
    let mut r = reg();
    let scopes = vec![
        "Bash(git push origin main)".to_string(),
        "Bash(git push:*)".to_string(),
    ];
    let call = bash("git push origin main");
    let anchor = call.anchor();
    let first = r
        .request(
            NewRequest::new(call.clone(), ask()).scopes(scopes.clone()),
            T,
            0,
        )
        .unwrap()
        .id;
    let twin = r.request(NewRequest::new(call, ask()), T, 0).unwrap().id;
    let other = r
        .request(NewRequest::new(bash("rm -rf x"), ask()), T, 0)
        .unwrap()
        .id;
    let hard = r
        .request(
            NewRequest::new(bash("git push origin main"), hard_deny()),
            T,
            0,
        )
        .unwrap()
        .id;
    let s = r
        .respond(
            first,
            Decision::AllowAlways {
                scope: scopes[0].clone(),
            },
            &anchor,
            &p,
            5,
        )
        .unwrap();
    assert_eq!(s[0], approval(first, Outcome::Approved));
    // "Covers" is the policy's judgement with the new session rule; whatever the
    // policy says, the registry settles exactly those, and never a hard deny.
    let expected: Vec<Settled> = [twin, other]
        .into_iter()
        .filter(|id| r.get(*id).is_none())
        .map(|id| approval(id, Outcome::Approved))
        .collect();
    assert_eq!(s[1..], expected[..]);
    assert!(r.get(hard).is_some(), "a hard deny stays pending");
    assert!(
        r.get(other).is_some()
            || p.classify_with(&bash("rm -rf x"), r.session_rules()).tier == Tier::Auto
    );
    assert!(!r.session_rules().is_empty());
}

#[test]
fn allow_always_with_the_real_policy_settles_the_twin_but_not_others() {
    let p = policy();
    let mut r = reg();
    let call = bash("git push origin main");
    let scopes = p.scopes(&call);
    assert!(!scopes.is_empty(), "the policy offers scopes for {call:?}");
    let anchor = call.anchor();
    let first = r
        .request(
            NewRequest::new(call.clone(), p.classify(&call)).scopes(scopes.clone()),
            T,
            0,
        )
        .unwrap()
        .id;
    let twin = r
        .request(NewRequest::new(call.clone(), p.classify(&call)), T, 0)
        .unwrap()
        .id;
    let other_call = bash("git push origin dev && rm -rf /tmp/x");
    let other = r
        .request(
            NewRequest::new(other_call.clone(), p.classify(&other_call)),
            T,
            0,
        )
        .unwrap()
        .id;
    let s = r
        .respond(
            first,
            Decision::AllowAlways {
                scope: scopes[0].clone(),
            },
            &anchor,
            &p,
            1,
        )
        .unwrap();
    assert_eq!(
        s,
        vec![
            approval(first, Outcome::Approved),
            approval(twin, Outcome::Approved)
        ]
    );
    assert!(r.get(other).is_some(), "{:?}", r.classify(&p, &other_call));
    // Future calls of the same command are auto for this session only.
    assert_eq!(r.classify(&p, &call).tier, Tier::Auto);
    assert_eq!(reg().classify(&p, &call).tier, Tier::Ask);
}

#[test]
fn deny_always_settles_itself_denied_and_adds_a_rule() {
    let p = policy();
    let mut r = reg();
    let call = bash("terraform destroy");
    let anchor = call.anchor();
    let scope = "Bash(terraform destroy:*)".to_string();
    let id = r
        .request(
            NewRequest::new(call.clone(), ask()).scopes(vec![scope.clone()]),
            T,
            0,
        )
        .unwrap()
        .id;
    let twin = r.request(NewRequest::new(call, ask()), T, 0).unwrap().id;
    let msg = Some("never".to_string());
    let s = r
        .respond(
            id,
            Decision::DenyAlways {
                scope,
                message: msg.clone(),
            },
            &anchor,
            &p,
            1,
        )
        .unwrap();
    assert_eq!(
        s[0],
        approval(
            id,
            Outcome::Denied {
                message: msg.clone()
            }
        )
    );
    let twin_settled = r.get(twin).is_none();
    assert_eq!(s.len(), 1 + usize::from(twin_settled));
    if twin_settled {
        assert_eq!(s[1], approval(twin, Outcome::Denied { message: msg }));
    }
    assert!(s.iter().all(|x| match x {
        Settled::Approval { outcome, .. } => !outcome.allows_run(),
        Settled::Question { .. } => false,
    }));
}

#[test]
fn questions_resolve_to_answers_or_nothing() {
    let mut r = reg();
    let q1 = r.ask("Which branch?", T, 0).unwrap().id;
    let q2 = r.ask("Why?", T, 0).unwrap().id;
    let q3 = r.ask("When?", 10, 0).unwrap().id;
    assert_eq!(
        r.questions()
            .iter()
            .map(|q| q.question.as_str())
            .collect::<Vec<_>>(),
        ["Which branch?", "Why?", "When?"]
    );
    let s = r.answer(q1, "main", 1).unwrap();
    assert_eq!(
        s,
        vec![Settled::Question {
            id: q1,
            outcome: QuestionOutcome::Answered {
                answer: "main".into()
            }
        }]
    );
    assert_eq!(
        r.answer(q1, "dev", 2).unwrap_err().to_string(),
        "already resolved: answered"
    );
    assert_eq!(
        r.expire_due(10),
        vec![Settled::Question {
            id: q3,
            outcome: QuestionOutcome::Expired
        }]
    );
    let c = r.cleanup(11);
    assert_eq!(
        c.settled,
        vec![Settled::Question {
            id: q2,
            outcome: QuestionOutcome::Cancelled
        }]
    );
    assert_eq!(
        c.settled
            .iter()
            .filter_map(|s| match s {
                Settled::Question { outcome, .. } => outcome.answer(),
                Settled::Approval { .. } => None,
            })
            .count(),
        0
    );
}

#[test]
fn approvals_and_questions_do_not_mix() {
    let mut r = reg();
    let (a, _) = req(&mut r, "a", 0);
    let q = r.ask("?", T, 0).unwrap().id;
    assert_eq!(
        r.answer(a, "x", 1).unwrap_err().to_string(),
        format!("request `{a}` is an approval, not a question")
    );
    let e = r
        .respond(q, Decision::AllowOnce, "", &policy(), 1)
        .unwrap_err();
    assert_eq!(e.code(), "wrong_kind");
    assert_eq!(r.size(), 2);
}

#[test]
fn cleanup_cancels_everything_and_returns_counts() {
    let mut r = reg();
    let (a, _) = req(&mut r, "a", 0);
    let q = r.ask("?", T, 0).unwrap().id;
    let (b, _) = req(&mut r, "b", 0);
    let _ = r.reserve_slot("auto_1", "anchor", 0);
    let c = r.cleanup(5);
    assert_eq!(
        c.counts,
        CleanupCounts {
            approvals: 2,
            questions: 1,
            slots: 1
        }
    );
    assert_eq!(
        c.settled,
        vec![
            approval(a, Outcome::Cancelled),
            Settled::Question {
                id: q,
                outcome: QuestionOutcome::Cancelled
            },
            approval(b, Outcome::Cancelled),
        ]
    );
    assert_eq!((r.size(), r.slot_count(), r.next_deadline()), (0, 0, None));
    let again = r.cleanup(6);
    assert_eq!(
        (again.counts, again.settled),
        (CleanupCounts::default(), vec![])
    );
}

#[test]
fn cleanup_stale_resolves_old_entries_of_both_kinds() {
    let mut r = reg();
    let (old, _) = req(&mut r, "old", 0);
    let q_old = r.ask("old?", T, 0).unwrap().id;
    let (new, _) = req(&mut r, "new", 5_000);
    let q_new = r.ask("new?", T, 5_000).unwrap().id;
    let c = r.cleanup_stale(4_000, 6_000);
    assert_eq!(
        c.counts,
        CleanupCounts {
            approvals: 1,
            questions: 1,
            slots: 0
        }
    );
    assert_eq!(
        c.settled,
        vec![
            approval(old, Outcome::Expired),
            Settled::Question {
                id: q_old,
                outcome: QuestionOutcome::Expired
            }
        ]
    );
    assert!(r.get(new).is_some() && r.get_question(q_new).is_some());
    assert_eq!(r.size(), 2);
}

#[test]
fn deny_all_pending_denies_approvals_and_drops_questions() {
    let mut r = reg();
    let (a, _) = req(&mut r, "a", 0);
    let q = r.ask("?", T, 0).unwrap().id;
    let s = r.deny_all_pending("the user sent a new message", 1);
    let m = Some("the user sent a new message".to_string());
    assert_eq!(
        s,
        vec![
            approval(a, Outcome::Denied { message: m }),
            Settled::Question {
                id: q,
                outcome: QuestionOutcome::Cancelled
            }
        ]
    );
    assert_eq!(r.size(), 0);
}

#[test]
fn growth_path_sweeps_expired_at_most_once_per_interval() {
    let mut r = reg(); // sweep interval 1 s
    let a = r
        .request(NewRequest::new(bash("a"), ask()), 100, 0)
        .unwrap();
    assert!(a.expired.is_empty());
    // Within the interval: no sweep, though `a` is past its deadline.
    let b = r
        .request(NewRequest::new(bash("b"), ask()), 100, 500)
        .unwrap();
    assert_eq!((b.expired.len(), r.size()), (0, 2));
    // The next growth after the interval sweeps both, reporting them once.
    let c = r
        .request(NewRequest::new(bash("c"), ask()), T, 1_000)
        .unwrap();
    assert_eq!(
        c.expired,
        vec![
            approval(a.id, Outcome::Expired),
            approval(b.id, Outcome::Expired)
        ]
    );
    let d = r.ask("d?", 100, 1_500).unwrap();
    assert_eq!((d.expired.len(), r.size()), (0, 2));
    assert_eq!(r.next_deadline(), Some(1_600));
}

#[test]
fn slots_reserve_on_auto_claim_once_release_on_deny_and_expire_after_ttl() {
    let cfg = RegistryConfig {
        slot_ttl_ms: 10_000,
        ..RegistryConfig::default()
    };
    let mut r = Registry::new("s", cfg, seq_ids(0));
    let _ = r.reserve_slot("auto_1", "anc", 0);
    assert_eq!(r.claim_slot("auto_1").map(|s| s.request_id), Some(None));
    assert_eq!(r.claim_slot("nope"), None);
    // A stale reservation under the same tool-call id is released by a deny.
    let _ = r.reserve_slot("call_2", "anc", 0);
    let call = bash("x");
    let anchor = call.anchor();
    let id = r
        .request(NewRequest::new(call, ask()).tool_call_id("call_2"), T, 0)
        .unwrap()
        .id;
    r.respond(id, Decision::Deny { message: None }, &anchor, &policy(), 1)
        .unwrap();
    assert_eq!(r.claim_slot("call_2"), None);
    // Unclaimed slots are swept on the growth path after the TTL.
    let _ = r.reserve_slot("auto_3", "anc", 1_000);
    let _ = r.reserve_slot("auto_4", "anc", 5_000);
    assert_eq!(r.slot_count(), 2);
    let _ = r.ask("?", T, 11_000).unwrap();
    assert_eq!(r.slot_count(), 1);
    assert!(r.claim_slot("auto_4").is_some());
}

/// Pending entries keep creation order and stay reachable by id whatever the order
/// in which others end (holes at the front, back and middle; compaction).
#[test]
fn order_and_lookup_survive_any_removal_pattern() {
    let p = policy();
    // Which of 400 entries (every 5th a question) to end, in what order.
    let patterns: [(&str, Vec<usize>); 5] = [
        ("oldest first", (0..300).collect()),
        ("newest first", (100..400).rev().collect()),
        ("every third", (0..400).step_by(3).collect()),
        (
            "middle out",
            (150..250).chain(50..150).chain(250..350).collect(),
        ),
        (
            "scattered",
            (0..400).map(|i| (i * 7919) % 400).take(350).collect(),
        ),
    ];
    for (name, ends) in patterns {
        let mut r = reg();
        // (id, for approvals: command and anchor)
        let mut live: Vec<(RequestId, Option<(String, String)>)> = Vec::new();
        for i in 0..400 {
            if i % 5 == 4 {
                live.push((r.ask(format!("q{i}"), T, 0).unwrap().id, None));
            } else {
                // Long enough that the text log compacts along the way.
                let cmd = format!("cmd {i} {}", "x".repeat(i % 7 * 40));
                let (id, anchor) = req(&mut r, &cmd, 0);
                live.push((id, Some((cmd, anchor))));
            }
        }
        let all = live.clone();
        for (n, &i) in ends.iter().enumerate() {
            let (id, anchor) = &all[i];
            match anchor {
                Some((_, a)) => {
                    r.respond(*id, Decision::AllowOnce, a, &p, 1).unwrap();
                }
                None => {
                    r.answer(*id, "ok", 1).unwrap();
                }
            }
            live.retain(|(l, _)| l != id);
            if n % 37 == 0 || n + 1 == ends.len() {
                let approvals: Vec<RequestId> = r.pending().iter().map(|p| p.id).collect();
                let questions: Vec<RequestId> = r.questions().iter().map(|q| q.id).collect();
                let want_a: Vec<RequestId> =
                    live.iter().filter(|l| l.1.is_some()).map(|l| l.0).collect();
                let want_q: Vec<RequestId> =
                    live.iter().filter(|l| l.1.is_none()).map(|l| l.0).collect();
                assert_eq!((approvals, questions), (want_a, want_q), "{name} after {n}");
                assert_eq!(r.size(), live.len(), "{name} after {n}");
                for (id, approval) in &live {
                    match approval {
                        Some((cmd, anchor)) => {
                            let got = r.get(*id).map(|p| (p.call(), p.anchor.to_string()));
                            assert_eq!(got, Some((bash(cmd), anchor.clone())), "{name} after {n}");
                        }
                        None => {
                            let got = r.get_question(*id).map(|q| q.id);
                            assert_eq!(got, Some(*id), "{name} after {n}");
                        }
                    }
                }
            }
        }
        let gone: Vec<Option<Ended>> = ends.iter().map(|&i| r.ended(all[i].0)).collect();
        assert!(
            gone.iter()
                .all(|e| matches!(e, Some(Ended::Approved | Ended::Answered))),
            "{name}: {gone:?}"
        );
        let c = r.cleanup(2);
        let cancelled: Vec<RequestId> = c.settled.iter().map(Settled::id).collect();
        let want: Vec<RequestId> = live.iter().map(|l| l.0).collect();
        assert_eq!(cancelled, want, "{name}: cleanup order");
        assert_eq!((r.size(), r.next_deadline()), (0, None), "{name}");
        for id in want {
            assert_eq!(r.ended(id), Some(Ended::Cancelled), "{name}");
        }
    }
}

#[test]
fn two_sessions_never_answer_each_other() {
    let p = policy();
    let mut a = Registry::new("s-a", RegistryConfig::default(), seq_ids(0));
    let mut b = Registry::new("s-b", RegistryConfig::default(), seq_ids(1 << 64));
    let (ida, anchor) = req(&mut a, "same command", 0);
    let (idb, _) = req(&mut b, "same command", 0);
    let e = b
        .respond(ida, Decision::AllowOnce, &anchor, &p, 1)
        .unwrap_err();
    assert_eq!(e.code(), "unknown_id");
    assert_eq!(
        b.cleanup(2).settled,
        vec![approval(idb, Outcome::Cancelled)]
    );
    assert_eq!(a.size(), 1);
    assert!(a.respond(ida, Decision::AllowOnce, &anchor, &p, 3).is_ok());
}

#[test]
fn ended_ids_are_remembered_within_cap_and_ttl_only() {
    let cfg = RegistryConfig {
        ended_cap: 2,
        ended_ttl_ms: 5_000,
        ..RegistryConfig::default()
    };
    let mut r = Registry::new("s", cfg, seq_ids(0));
    let ids: Vec<RequestId> = (0..3).map(|i| req(&mut r, &i.to_string(), 0).0).collect();
    let _ = r.cleanup(0);
    let known: Vec<Option<Ended>> = ids.iter().map(|id| r.ended(*id)).collect();
    assert_eq!(
        known,
        vec![None, Some(Ended::Cancelled), Some(Ended::Cancelled)]
    );
    assert_eq!(r.cancel(ids[0], 1).unwrap_err().code(), "unknown_id");
    let _ = r.ask("?", T, 6_000).unwrap();
    assert_eq!(r.ended(ids[2]), None, "forgotten after the TTL");
}

/// Forgetting ended ids moves a mark; the index is purged of them in passes, so it
/// stays bounded, and a forgotten id is unknown (and could be issued again).
#[test]
fn forgotten_ended_ids_are_purged_and_unknown() {
    let cfg = RegistryConfig {
        ended_cap: 10,
        ..RegistryConfig::default()
    };
    let p = policy();
    // Ids 1..=5000, then 1 again (forgotten long ago).
    let mut next = 0u128;
    let ids = move || {
        next = if next == 5_000 { 1 } else { next + 1 };
        Ok(next)
    };
    let mut r = Registry::new("s", cfg, ids);
    let (keep, _) = req(&mut r, "stays pending", 0);
    let mut max_index = 0;
    for i in 2..5_000 {
        let (id, anchor) = req(&mut r, &format!("c{i}"), 0);
        r.respond(id, Decision::AllowOnce, &anchor, &p, 1).unwrap();
        max_index = max_index.max(r.entries.index.len());
    }
    assert!(max_index <= 1 + 10 + 1024 + 8, "index grew to {max_index}");
    assert_eq!(r.ended(RequestId(2)), None, "forgotten");
    assert_eq!(r.ended(RequestId(4_999)), Some(Ended::Approved));
    assert_eq!(
        r.cancel(RequestId(2), 1).unwrap_err().code(),
        "unknown_id",
        "a forgotten id is unknown"
    );
    // Id 1 is pending (`keep`), so drawing it again is refused; 5000's turn is fine.
    assert_eq!(keep, RequestId(1));
    let (again, _) = req(&mut r, "id 5000", 0);
    assert_eq!(again, RequestId(5_000));
    let e = r
        .request(NewRequest::new(bash("dup"), ask()), T, 0)
        .unwrap_err();
    assert_eq!(e.code(), "id_source");
    assert_eq!(r.size(), 2);
    let c = r.cleanup(2);
    assert_eq!(c.settled.len(), 2);
    // The remembered 10, plus the 2 that cleanup's endings pushed out (not purged yet).
    assert_eq!(r.entries.index.len(), 12);
    assert_eq!(r.ended(keep), Some(Ended::Cancelled));
}

#[test]
fn outcomes_serialize_as_documented() {
    let cases = [
        (Outcome::Approved, json!({"outcome": "approved"})),
        (
            Outcome::Denied {
                message: Some("no".into()),
            },
            json!({"outcome": "denied", "message": "no"}),
        ),
        (
            Outcome::Denied { message: None },
            json!({"outcome": "denied"}),
        ),
        (Outcome::Expired, json!({"outcome": "expired"})),
        (Outcome::Cancelled, json!({"outcome": "cancelled"})),
    ];
    for (o, j) in cases {
        assert_eq!(serde_json::to_value(&o).unwrap(), j, "{o:?}");
    }
    let d: Decision =
        serde_json::from_value(json!({"decision": "deny_always", "scope": "Bash(x)"})).unwrap();
    assert_eq!(
        d,
        Decision::DenyAlways {
            scope: "Bash(x)".into(),
            message: None
        }
    );
}
