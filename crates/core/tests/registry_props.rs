//! Property tests of the registry: random interleavings of request / respond / ask /
//! answer / tick / cleanup / cleanup_stale / deny_all over two sessions.

use proptest::prelude::*;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use toolgate_core::{
    Decision, Error, NewRequest, Outcome, Policy, Registry, RegistryConfig, RequestId, Settled,
    Tier, ToolCall, Verdict,
};

#[derive(Debug, Clone)]
enum Op {
    Request {
        s: usize,
        cmd: u8,
        hard: bool,
        timeout: u64,
    },
    Ask {
        s: usize,
        timeout: u64,
    },
    /// Answer the `pick`-th id ever issued (any session, any state) from session `s`.
    Respond {
        s: usize,
        pick: usize,
        kind: u8,
        good_anchor: bool,
    },
    Answer {
        s: usize,
        pick: usize,
    },
    Tick {
        dt: u64,
    },
    Expire {
        s: usize,
    },
    Cleanup {
        s: usize,
    },
    Stale {
        s: usize,
        max_age: u64,
    },
    DenyAll {
        s: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let s = 0usize..2;
    prop_oneof![
        4 => (s.clone(), 0u8..4, any::<bool>(), 0u64..5_000)
            .prop_map(|(s, cmd, hard, timeout)| Op::Request { s, cmd, hard, timeout }),
        1 => (s.clone(), 0u64..5_000).prop_map(|(s, timeout)| Op::Ask { s, timeout }),
        4 => (s.clone(), any::<usize>(), 0u8..4, any::<bool>())
            .prop_map(|(s, pick, kind, good_anchor)| Op::Respond { s, pick, kind, good_anchor }),
        1 => (s.clone(), any::<usize>()).prop_map(|(s, pick)| Op::Answer { s, pick }),
        2 => (0u64..2_000).prop_map(|dt| Op::Tick { dt }),
        1 => s.clone().prop_map(|s| Op::Expire { s }),
        1 => s.clone().prop_map(|s| Op::Cleanup { s }),
        1 => (s.clone(), 0u64..3_000).prop_map(|(s, max_age)| Op::Stale { s, max_age }),
        1 => s.prop_map(|s| Op::DenyAll { s }),
    ]
}

struct Issued {
    session: usize,
    id: RequestId,
    anchor: String,
    call: ToolCall,
    scope: String,
    hard: bool,
    question: bool,
}

#[derive(Default)]
struct Model {
    issued: Vec<Issued>,
    /// id → how many times it was settled.
    settled: HashMap<RequestId, usize>,
    /// ids for which a matching allow_* was accepted.
    allowed: HashSet<RequestId>,
}

impl Model {
    fn record(&mut self, session: usize, events: &[Settled]) -> Result<(), TestCaseError> {
        for e in events {
            let id = e.id();
            let owner = self.issued.iter().find(|i| i.id == id);
            prop_assert!(owner.is_some(), "settled an id never issued: {id}");
            prop_assert_eq!(
                owner.map(|o| o.session),
                Some(session),
                "session {} settled another's {}",
                session,
                id
            );
            *self.settled.entry(id).or_default() += 1;
            if let Settled::Approval {
                outcome: Outcome::Approved,
                ..
            } = e
            {
                prop_assert!(
                    self.allowed.contains(&id),
                    "{id} approved without a matching allow_*"
                );
                prop_assert!(!owner.is_some_and(|o| o.hard), "hard deny {id} approved");
            }
        }
        Ok(())
    }
}

fn ids(session: usize) -> impl FnMut() -> Result<u128, Error> {
    let mut n = (session as u128) << 64;
    move || {
        n += 1;
        Ok(n)
    }
}

const CMDS: [&str; 4] = [
    "git push origin main",
    "npm install",
    "rm -rf build",
    "curl x",
];

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let policy = Policy::defaults("/w", "/home/u");
    let cfg = RegistryConfig {
        max_timeout_ms: 3_000,
        sweep_interval_ms: 500,
        ..RegistryConfig::default()
    };
    let mut regs = [
        Registry::new("a", cfg.clone(), ids(0)),
        Registry::new("b", cfg, ids(1)),
    ];
    let mut m = Model::default();
    let mut now = 0u64;
    for op in ops {
        match op {
            Op::Request {
                s,
                cmd,
                hard,
                timeout,
            } => {
                let text = CMDS[usize::from(cmd)];
                let call = ToolCall::new("bash", json!({ "command": text }));
                let verdict = if hard {
                    Verdict::new(Tier::Deny, "builtin.shell.priv-esc", "privilege escalation")
                } else {
                    Verdict::new(Tier::Ask, "default", "ask")
                };
                let scope = format!("Bash({text})");
                let anchor = call.anchor();
                let got = regs[s]
                    .request(
                        NewRequest::new(call.clone(), verdict).scopes(vec![scope.clone()]),
                        timeout,
                        now,
                    )
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                m.record(s, &got.expired)?;
                m.issued.push(Issued {
                    session: s,
                    id: got.id,
                    anchor,
                    call,
                    scope,
                    hard,
                    question: false,
                });
            }
            Op::Ask { s, timeout } => {
                let got = regs[s]
                    .ask("?", timeout, now)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                m.record(s, &got.expired)?;
                m.issued.push(Issued {
                    session: s,
                    id: got.id,
                    anchor: String::new(),
                    call: ToolCall::new("ask", json!({})),
                    scope: String::new(),
                    hard: false,
                    question: true,
                });
            }
            Op::Respond {
                s,
                pick,
                kind,
                good_anchor,
            } => {
                if m.issued.is_empty() {
                    continue;
                }
                let i = &m.issued[pick % m.issued.len()];
                let anchor = if good_anchor {
                    i.anchor.clone()
                } else {
                    "f".repeat(64)
                };
                let decision = match kind {
                    0 => Decision::AllowOnce,
                    1 => Decision::AllowAlways {
                        scope: i.scope.clone(),
                    },
                    2 => Decision::Deny {
                        message: Some("no".into()),
                    },
                    _ => Decision::DenyAlways {
                        scope: i.scope.clone(),
                        message: None,
                    },
                };
                let allows = kind < 2;
                let id = i.id;
                let (owner, hard, question) = (i.session, i.hard, i.question);
                let pending_before = regs[s].get(id).is_some();
                let res = regs[s].respond(id, decision, &anchor, &policy, now);
                match &res {
                    Ok(events) => {
                        prop_assert!(owner == s && good_anchor && pending_before && !question);
                        prop_assert!(!(allows && hard));
                        prop_assert_eq!(events.first().map(Settled::id), Some(id));
                    }
                    Err(e) => {
                        let code = e.code();
                        if owner != s {
                            prop_assert_eq!(code, "unknown_id", "cross-session respond");
                        }
                        prop_assert!(
                            [
                                "unknown_id",
                                "already_resolved",
                                "anchor_mismatch",
                                "hard_deny",
                                "wrong_kind"
                            ]
                            .contains(&code),
                            "unexpected error {}",
                            e
                        );
                    }
                }
                if allows && res.is_ok() {
                    m.allowed.insert(id);
                }
                if kind == 1 && res.is_ok() {
                    // An always-allow may approve others the policy now covers.
                    let rules = regs[s].session_rules().clone();
                    for o in m.issued.iter().filter(|o| o.session == s && !o.question) {
                        if policy.classify_with(&o.call, &rules).tier == Tier::Auto {
                            m.allowed.insert(o.id);
                        }
                    }
                }
                if let Ok(events) = res {
                    m.record(s, &events)?;
                }
            }
            Op::Answer { s, pick } => {
                if m.issued.is_empty() {
                    continue;
                }
                let i = &m.issued[pick % m.issued.len()];
                let (id, owner) = (i.id, i.session);
                match regs[s].answer(id, "x", now) {
                    Ok(events) => {
                        prop_assert_eq!(owner, s);
                        m.record(s, &events)?;
                    }
                    Err(e) if owner != s => prop_assert_eq!(e.code(), "unknown_id"),
                    Err(_) => {}
                }
            }
            Op::Tick { dt } => now += dt,
            Op::Expire { s } => {
                let events = regs[s].expire_due(now);
                m.record(s, &events)?;
            }
            Op::Cleanup { s } => {
                let c = regs[s].cleanup(now);
                prop_assert_eq!(c.counts.approvals + c.counts.questions, c.settled.len());
                m.record(s, &c.settled)?;
                prop_assert_eq!(regs[s].size(), 0);
            }
            Op::Stale { s, max_age } => {
                let c = regs[s].cleanup_stale(max_age, now);
                m.record(s, &c.settled)?;
            }
            Op::DenyAll { s } => {
                let events = regs[s].deny_all_pending("moved on", now);
                m.record(s, &events)?;
                prop_assert_eq!(regs[s].size(), 0);
            }
        }
        // Nothing settles twice.
        for (id, n) in &m.settled {
            prop_assert_eq!(*n, 1usize, "{} settled {} times", id, n);
        }
    }
    // Final cleanup: every request has ended exactly once, and both registries are empty.
    for (s, reg) in regs.iter_mut().enumerate() {
        let c = reg.cleanup(now);
        m.record(s, &c.settled)?;
        prop_assert_eq!(reg.size(), 0);
        prop_assert_eq!(reg.slot_count(), 0);
        prop_assert_eq!(reg.next_deadline(), None);
    }
    for i in &m.issued {
        prop_assert_eq!(
            m.settled.get(&i.id).copied(),
            Some(1),
            "{} did not end exactly once",
            i.id
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn every_request_ends_exactly_once(ops in prop::collection::vec(op(), 1..80)) {
        run(ops)?;
    }
}
