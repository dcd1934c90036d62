//! The plugin's state: one policy, one store and one owner for the whole app, shared by
//! its Rust side and every window. Thin glue: core classifies ([`toolgate_fs`] adds
//! this machine's file-system facts) and core [`Runs`] park, resume and expire over the
//! SQL store; this module only keeps the waiters of gated checks and the sessions'
//! "always" rules, and wakes each waiter exactly once.
//!
//! A check that asks parks a one-call run (`check-…`, history [`CHECK_HISTORY`]) whose
//! marker lives as long as the check's timeout: every window sees it, the approval
//! panel renders it, and the decision that resumes it (from any window with
//! `toolgate:decide`, or from Rust) is recorded in the store exactly once, by
//! compare-and-swap. The waiter is then woken with that decision. At the deadline the
//! run is cancelled (`expired`); at cleanup or exit, `cancelled`. Nothing but a
//! person's decision (or an always-allow rule they added) approves.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;
use toolgate_core::wire::ParkCallRequest;
use toolgate_core::{
    CallOutcome, Choice, CleanupCounts, Decision, Outcome, Park, ParkCall, Parked, Policy,
    ResumeDecision, Resumed, Run, RunStatus, Runs, SessionRules, Tier, ToolCall, Verdict,
};
use toolgate_store::{Owned, SqlStore};

use crate::error::{Error, Result};

/// The history of a check's run: it marks the run as a check's.
pub const CHECK_HISTORY: &str = r#"{"kind":"toolgate-check"}"#;
/// A check's run id starts with this.
pub const CHECK_PREFIX: &str = "check-";
/// The session of checks that name none.
pub const DEFAULT_SESSION: &str = "default";
/// A check's default timeout (as the browser's `Gate`): 2 minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Longer timeouts are clamped to this: 30 minutes (park a run to wait longer).
pub const MAX_TIMEOUT_MS: u64 = 30 * 60 * 1000;

/// Milliseconds since the epoch: the time every host gives core (one clock for all).
pub use toolgate_store::now_ms;

/// How a gated check ended, as `gate.check` resolves: `{outcome: "approved" | "denied"
/// | "expired" | "cancelled", message?, verdict, id?, toolCallId?}`. Only `approved`
/// lets the tool run ([`Checked::approved`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checked {
    #[serde(flatten)]
    /// How the check ended (`outcome` inline in JSON).
    pub outcome: Outcome,
    /// The classifier's verdict (with the session's rules and the file-system facts).
    pub verdict: Verdict,
    /// The run the check parked, when it asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The host's id of the call, when it gave one.
    pub tool_call_id: Option<String>,
}

impl Checked {
    /// True only when a person (or an always-allow rule, or the policy's `auto`) let
    /// the call run.
    pub fn approved(&self) -> bool {
        self.outcome.allows_run()
    }
}

/// Options of [`Toolgate::check_with`](crate::Toolgate::check_with).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckOptions {
    /// Whose "always" rules apply and whose cleanup ends the check (default
    /// `"default"`; a window's checks default to its label).
    pub session_id: Option<String>,
    /// How long to wait for a decision (default 2 minutes, at most 30).
    pub timeout_ms: Option<u64>,
    /// The host's id of the call (kept in the run and echoed in the outcome).
    pub tool_call_id: Option<String>,
}

/// A pending check, as `gate.pending()` lists it (`id` is the check's run id).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingRequest {
    /// The check's run id: `gate.respond` takes it.
    pub id: String,
    /// The session whose check it is.
    pub session_id: String,
    /// The host's id of the call.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The exact arguments an approval lets run.
    pub args: Value,
    /// The classifier's verdict.
    pub verdict: Verdict,
    /// The anchor a response must carry.
    pub anchor: String,
    /// The "always" scopes to offer, narrowest first.
    pub scopes: Vec<String>,
    /// When it was made (ms since the Unix epoch).
    pub created_ms: u64,
    /// When it expires unanswered (ms).
    pub deadline_ms: u64,
}

/// A decision on a pending check, as `gate.respond(id, …)` takes it:
/// `{decision: "allow_once" | "allow_always" | "deny" | "deny_always", anchor, scope?,
/// message?}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Response {
    #[serde(flatten)]
    /// The person's decision (`decision` inline in JSON).
    pub decision: Decision,
    /// The anchor the prompt showed: the response binds to those arguments.
    pub anchor: String,
}

struct Waiter {
    tx: oneshot::Sender<Checked>,
    session: String,
    verdict: Verdict,
    tool_call_id: Option<String>,
}

#[derive(Default)]
struct State {
    /// The waiting checks of this process, by run id.
    waiters: HashMap<String, Waiter>,
    /// Each session's always-allow / always-deny rules (this process's life).
    rules: HashMap<String, SessionRules>,
}

/// What starting a check gave.
pub(crate) enum Begun {
    /// `auto` or `deny`: decided at once.
    Done(Checked),
    /// `ask`: parked as `run_id`; `rx` resolves once; the deadline is `timeout_ms` away.
    Waiting {
        run_id: String,
        rx: oneshot::Receiver<Checked>,
        timeout_ms: u64,
    },
}

/// The app's gate (the Rust half of the plugin, without the app handle).
pub struct Inner {
    policy: Policy,
    store: SqlStore,
    owner: String,
    fs: bool,
    timeout_ms: u64,
    /// Serializes the writes that settle checks, so a decision and a deadline of the
    /// same check never both wake its waiter.
    state: Mutex<State>,
    ids: (u64, u64),
    next: AtomicU64,
}

impl Inner {
    pub(crate) fn new(
        policy: Policy,
        store: SqlStore,
        owner: String,
        fs: bool,
        timeout_ms: u64,
    ) -> Inner {
        // Two SipHash keys the standard library draws at random: a check id no other
        // process (nor an earlier run of this one) picks.
        let random = || {
            std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish()
        };
        Inner {
            policy,
            store,
            owner,
            fs,
            timeout_ms: timeout_ms.clamp(1, MAX_TIMEOUT_MS),
            state: Mutex::new(State::default()),
            ids: (random(), random()),
            next: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock left the maps as they were between writes.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn runs(&self) -> Runs<Owned<'_>> {
        // A decided run keeps its history and each call's arguments until the agent
        // that parked it takes them (`resume` with no decisions).
        Runs::new(self.store.owner(&self.owner)).keeping_history()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Classifies `call` with the policy, `session`'s rules and (unless turned off)
    /// this machine's file-system facts. A panic in the classifier asks.
    pub fn classify_in(&self, call: &ToolCall, session: Option<&str>) -> Verdict {
        // The rules are copied out: a classification may walk a tree, and other
        // calls must not wait for it.
        let rules = session
            .and_then(|s| self.lock().rules.get(s).cloned())
            .unwrap_or_default();
        toolgate_fs::classify_with(&self.policy, call, &rules, self.fs)
    }

    fn fresh_check_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{CHECK_PREFIX}{:016x}{:016x}", self.ids.0 ^ n, self.ids.1)
    }

    /// Starts a gated check: `auto` and `deny` are decided at once; `ask` parks a
    /// one-call run and registers its waiter.
    pub(crate) fn begin_check(
        &self,
        call: ToolCall,
        options: CheckOptions,
        now: u64,
    ) -> Result<Begun> {
        let session = options
            .session_id
            .unwrap_or_else(|| DEFAULT_SESSION.to_string());
        if session.is_empty() {
            return Err(Error::BadInput("check: sessionId is empty".into()));
        }
        let timeout_ms = options
            .timeout_ms
            .unwrap_or(self.timeout_ms)
            .clamp(1, MAX_TIMEOUT_MS);
        let verdict = self.classify_in(&call, Some(&session));
        let tool_call_id = options.tool_call_id;
        let done = |outcome| {
            Begun::Done(Checked {
                outcome,
                verdict: verdict.clone(),
                id: None,
                tool_call_id: tool_call_id.clone(),
            })
        };
        match verdict.tier {
            Tier::Auto => return Ok(done(Outcome::Approved)),
            Tier::Deny => {
                return Ok(done(Outcome::Denied {
                    message: Some(verdict.reason.to_string()),
                }))
            }
            Tier::Sandbox | Tier::Ask => {}
        }
        let run_id = self.fresh_check_id();
        let mut st = self.lock();
        self.runs().park(
            Park {
                run_id: run_id.clone(),
                session_id: session.clone(),
                owner: self.owner.clone(),
                calls: vec![ParkCall {
                    tool_call_id: tool_call_id.clone().unwrap_or_else(|| "call".to_string()),
                    call,
                    verdict: verdict.clone(),
                }],
                history: CHECK_HISTORY.to_string(),
                ttl_ms: Some(timeout_ms),
                parked_by: None,
            },
            now,
        )?;
        let (tx, rx) = oneshot::channel();
        st.waiters.insert(
            run_id.clone(),
            Waiter {
                tx,
                session,
                verdict,
                tool_call_id,
            },
        );
        Ok(Begun::Waiting {
            run_id,
            rx,
            timeout_ms,
        })
    }

    /// The deadline of check `run_id` passed: unless a decision won, the run is
    /// cancelled and the waiter hears `expired`. False when it had already ended.
    pub(crate) fn time_out(&self, run_id: &str, now: u64) -> bool {
        let mut st = self.lock();
        let Some(waiter) = st.waiters.remove(run_id) else {
            return false;
        };
        let runs = self.runs();
        let outcome = match runs.run_of(run_id, &self.owner, now) {
            Ok(Some(run)) if run.status == RunStatus::AwaitingPermission => {
                // Cancelled, so that no later click can decide a call nobody waits for;
                // a store failure here still answers `expired` (never approved).
                let _ = runs.cancel(run_id, &self.owner, "the check timed out", now);
                Outcome::Expired
            }
            // Decided by another process on the same database, or expired on reading.
            Ok(Some(run)) => outcome_of(&run).unwrap_or(Outcome::Expired),
            Ok(None) | Err(_) => Outcome::Expired,
        };
        wake(waiter, run_id, outcome);
        true
    }

    /// Resumes `run_id` with `decisions` (none: takes what a person decided, or what
    /// expiry left, once). A check's run also wakes its waiter and applies an
    /// "always allow" scope to its session. `deny_always` is a scope `respond` adds.
    pub(crate) fn resume(
        &self,
        run_id: &str,
        decisions: &[ResumeDecision],
        deny_always: Option<&str>,
        now: u64,
    ) -> Result<Resumed> {
        let mut st = self.lock();
        let runs = self.runs();
        let is_check = st.waiters.contains_key(run_id);
        let mut always: Vec<(Tier, String)> = Vec::new();
        if is_check {
            // The "always" scopes must be ones this call offered; checked before
            // anything is written.
            if let Some(run) = runs.run_of(run_id, &self.owner, now)? {
                let offered = |tool_call_id: &str| {
                    run.marker
                        .as_ref()
                        .and_then(|m| m.calls.iter().find(|c| c.tool_call_id == tool_call_id))
                        .map(|c| {
                            self.policy
                                .scopes(&ToolCall::new(c.tool.clone(), c.args.clone()))
                        })
                        .unwrap_or_default()
                };
                for d in decisions {
                    let scope = match (&d.choice, deny_always) {
                        (Choice::Allow { scope: Some(s), .. }, _) => Some((Tier::Auto, s.clone())),
                        (Choice::Deny { .. }, Some(s)) => Some((Tier::Deny, s.to_string())),
                        _ => None,
                    };
                    if let Some((tier, scope)) = scope {
                        let offered = offered(&d.tool_call_id);
                        if !offered.contains(&scope) {
                            return Err(
                                toolgate_core::Error::ScopeNotOffered { scope, offered }.into()
                            );
                        }
                        always.push((tier, scope));
                    }
                }
            }
        }
        let resumed = runs.resume(run_id, &self.owner, decisions, now)?;
        if let Some(waiter) = st.waiters.remove(run_id) {
            let session = waiter.session.clone();
            let rules = st.rules.entry(session.clone()).or_default();
            for (tier, scope) in &always {
                // A scope the policy offered parses; a failure only loses the rule.
                let _ = rules.add(*tier, scope);
            }
            let outcome = resumed
                .results
                .first()
                .map(|r| match &r.outcome {
                    CallOutcome::Approved { .. } => Outcome::Approved,
                    CallOutcome::Denied { message } => Outcome::Denied {
                        message: Some(message.clone()).filter(|m| !m.is_empty()),
                    },
                    CallOutcome::Expired => Outcome::Expired,
                    // A check is never a question; an answer is not an approval.
                    CallOutcome::Answered { answer } => Outcome::Denied {
                        message: Some(answer.clone()),
                    },
                })
                .unwrap_or(Outcome::Cancelled);
            wake(waiter, run_id, outcome);
            // The check handed its call over: the run is done.
            let _ = runs.complete(run_id, &self.owner, now);
            if !always.is_empty() {
                // Classifying walks the file system: not while other checks wait on
                // the lock.
                drop(st);
                self.settle_covered(&runs, &session, now);
            }
        }
        Ok(resumed)
    }

    /// After an "always" answer added a rule to `session`: each other check of that
    /// session waiting here whose call the rules now allow (or deny) is decided so, as
    /// the browser's `Gate` settles the requests a new rule covers; the rest wait on.
    fn settle_covered(&self, runs: &Runs<Owned<'_>>, session: &str, now: u64) {
        // The session's rules and waiting checks under the lock; the classifying after
        // it; each decision then stands only if its check is still waiting (a person
        // who answered meanwhile decided it: the resume refuses a second decision).
        let (rules, ids) = {
            let st = self.lock();
            let ids: Vec<String> = st
                .waiters
                .iter()
                .filter(|(_, w)| w.session == session)
                .map(|(id, _)| id.clone())
                .collect();
            (st.rules.get(session).cloned().unwrap_or_default(), ids)
        };
        let mut decided = Vec::new();
        for id in ids {
            let Ok(Some(run)) = runs.run_of(&id, &self.owner, now) else {
                continue;
            };
            let Some(c) = run.marker.as_ref().and_then(|m| m.calls.first()) else {
                continue;
            };
            let call = ToolCall::new(c.tool.clone(), c.args.clone());
            let v = toolgate_fs::classify_with(&self.policy, &call, &rules, self.fs);
            let choice = match v.tier {
                Tier::Auto => Choice::Allow {
                    scope: None,
                    args: None,
                    grant: None,
                },
                Tier::Deny => Choice::Deny {
                    message: Some(v.reason.to_string()),
                },
                Tier::Ask | Tier::Sandbox => continue,
            };
            let d = ResumeDecision {
                tool_call_id: c.tool_call_id.clone(),
                anchor: c.anchor.clone(),
                choice,
            };
            decided.push((id, d));
        }
        let mut st = self.lock();
        for (id, d) in decided {
            let Ok(resumed) = runs.resume(&id, &self.owner, &[d], now) else {
                continue;
            };
            if let Some(waiter) = st.waiters.remove(&id) {
                let outcome = match resumed.results.first().map(|r| &r.outcome) {
                    Some(CallOutcome::Approved { .. }) => Outcome::Approved,
                    Some(CallOutcome::Denied { message }) => Outcome::Denied {
                        message: Some(message.clone()),
                    },
                    Some(CallOutcome::Expired | CallOutcome::Answered { .. }) | None => {
                        Outcome::Expired
                    }
                };
                wake(waiter, &id, outcome);
                let _ = runs.complete(&id, &self.owner, now);
            }
        }
    }

    /// Answers pending check `id` as `gate.respond` does.
    pub(crate) fn respond(&self, id: &str, response: Response, now: u64) -> Result<Resumed> {
        let run = self
            .runs()
            .run_of(id, &self.owner, now)?
            .ok_or_else(|| toolgate_core::Error::UnknownId { id: id.to_string() })?;
        if !is_check(&run) {
            return Err(toolgate_core::Error::UnknownId { id: id.to_string() }.into());
        }
        // A check that already ended has no marker: core's resume says how it ended
        // (`already_resumed`, `not_awaiting_permission`, …).
        let tool_call_id = run
            .marker
            .as_ref()
            .and_then(|m| m.calls.first())
            .map_or_else(|| "call".to_string(), |c| c.tool_call_id.clone());
        let (choice, deny_always) = match response.decision {
            Decision::AllowOnce => (
                Choice::Allow {
                    scope: None,
                    args: None,
                    grant: None,
                },
                None,
            ),
            Decision::AllowAlways { scope } => (
                Choice::Allow {
                    scope: Some(scope),
                    args: None,
                    grant: None,
                },
                None,
            ),
            Decision::Deny { message } => (Choice::Deny { message }, None),
            Decision::DenyAlways { scope, message } => (Choice::Deny { message }, Some(scope)),
        };
        let decision = ResumeDecision {
            tool_call_id,
            anchor: response.anchor,
            choice,
        };
        self.resume(id, &[decision], deny_always.as_deref(), now)
    }

    /// The pending checks (of `session`, or every session), oldest first.
    pub(crate) fn pending(&self, session: Option<&str>, now: u64) -> Result<Vec<PendingRequest>> {
        let mut out = Vec::new();
        for run in self.runs().runs_of(&self.owner, now)? {
            if !is_check(&run) || session.is_some_and(|s| s != run.session_id) {
                continue;
            }
            let Some(marker) = &run.marker else { continue };
            for c in &marker.calls {
                let call = ToolCall::new(c.tool.clone(), c.args.clone());
                out.push(PendingRequest {
                    id: run.run_id.clone(),
                    session_id: run.session_id.clone(),
                    tool_call_id: c.tool_call_id.clone(),
                    tool: c.tool.clone(),
                    args: c.args.clone(),
                    verdict: verdict_of(c),
                    anchor: c.anchor.clone(),
                    scopes: self.policy.scopes(&call),
                    created_ms: marker.created_at,
                    deadline_ms: marker.expires_at,
                });
            }
        }
        out.sort_by_key(|p| p.created_ms);
        Ok(out)
    }

    /// Cancels the pending checks of `session` (every session for `None`): their runs
    /// are cancelled and their waiters hear `cancelled`. Checks of an earlier process
    /// (no waiter here) are cancelled too: nobody can act on their decision.
    pub(crate) fn cleanup(&self, session: Option<&str>, now: u64) -> Result<CleanupCounts> {
        let mut st = self.lock();
        let runs = self.runs();
        let mut counts = CleanupCounts::default();
        let ids: Vec<String> = st
            .waiters
            .iter()
            .filter(|(_, w)| session.is_none_or(|s| s == w.session))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            if let Some(waiter) = st.waiters.remove(&id) {
                let _ = runs.cancel(&id, &self.owner, "cleanup: the session ended", now);
                wake(waiter, &id, Outcome::Cancelled);
                counts.approvals += 1;
            }
        }
        for run in runs.runs_of(&self.owner, now)? {
            let mine = session.is_none_or(|s| s == run.session_id);
            if mine && is_check(&run) && run.status == RunStatus::AwaitingPermission {
                runs.cancel(
                    &run.run_id,
                    &self.owner,
                    "cleanup: nobody waits for this check",
                    now,
                )?;
                counts.approvals += 1;
            }
        }
        if let Some(s) = session {
            st.rules.remove(s);
        }
        Ok(counts)
    }

    /// Parks a run for the agent: the calls are classified here (the caller's
    /// verdicts are never taken), with file-system facts.
    pub(crate) fn park(
        &self,
        run_id: String,
        session_id: Option<String>,
        calls: Vec<ParkCallRequest>,
        history: String,
        ttl_ms: Option<u64>,
        now: u64,
    ) -> Result<Parked> {
        let calls = calls
            .iter()
            .map(|c| c.classified(|call| self.classify_in(call, None)))
            .collect();
        let _st = self.lock();
        Ok(self.runs().park(
            Park {
                session_id: session_id.unwrap_or_else(|| run_id.clone()),
                run_id,
                owner: self.owner.clone(),
                calls,
                history,
                ttl_ms,
                parked_by: None,
            },
            now,
        )?)
    }

    pub(crate) fn run(&self, run_id: &str, now: u64) -> Result<Option<Run>> {
        Ok(self.runs().run_of(run_id, &self.owner, now)?)
    }

    pub(crate) fn runs_list(&self, now: u64) -> Result<Vec<Run>> {
        Ok(self.runs().runs_of(&self.owner, now)?)
    }

    /// The "always" scopes a check's pending call offers (none for other runs: their
    /// scopes would be carried to the agent untouched, and it adds no rule).
    pub(crate) fn scopes_of(&self, run: &Run, tool: &str, args: &Value) -> Vec<String> {
        if is_check(run) {
            self.policy
                .scopes(&ToolCall::new(tool.to_string(), args.clone()))
        } else {
            Vec::new()
        }
    }
}

/// A run a check parked.
pub fn is_check(run: &Run) -> bool {
    run.run_id.starts_with(CHECK_PREFIX)
        && run
            .marker
            .as_ref()
            .is_none_or(|m| m.history == CHECK_HISTORY)
}

fn verdict_of(c: &toolgate_core::PendingCall) -> Verdict {
    let mut v = Verdict::new(c.tier, c.rule.clone(), c.reason.clone());
    v.span = c.span;
    v
}

/// What a decided run's record says of its (first) call.
fn outcome_of(run: &Run) -> Option<Outcome> {
    let call = run.decision.as_ref()?.calls.first()?;
    Some(match call.outcome.as_str() {
        "approved" => Outcome::Approved,
        "denied" => Outcome::Denied {
            message: call.message.clone(),
        },
        "expired" => Outcome::Expired,
        _ => Outcome::Cancelled,
    })
}

fn wake(waiter: Waiter, run_id: &str, outcome: Outcome) {
    // The receiver may be gone (the caller stopped waiting): nothing to tell.
    let _ = waiter.tx.send(Checked {
        outcome,
        verdict: waiter.verdict,
        id: Some(run_id.to_string()),
        tool_call_id: waiter.tool_call_id,
    });
}

/// The property behind "every request ends exactly once": whatever order decisions,
/// takes, deadlines and cleanups come in, each check's waiter hears exactly one
/// outcome, the one the first of them decided, and only an allow with the call's
/// anchor approves. The store agrees.
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use toolgate_store::StoreOptions;

    #[derive(Debug, Clone)]
    enum Op {
        Respond {
            check: usize,
            allow: bool,
            right_anchor: bool,
        },
        Resume {
            check: usize,
            allow: bool,
        },
        Take {
            check: usize,
        },
        TimeOut {
            check: usize,
        },
        Cleanup {
            session: Option<usize>,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..4usize, any::<bool>(), any::<bool>()).prop_map(|(check, allow, right_anchor)| {
                Op::Respond {
                    check,
                    allow,
                    right_anchor,
                }
            }),
            (0..4usize, any::<bool>()).prop_map(|(check, allow)| Op::Resume { check, allow }),
            (0..4usize).prop_map(|check| Op::Take { check }),
            (0..4usize).prop_map(|check| Op::TimeOut { check }),
            proptest::option::of(0..2usize).prop_map(|session| Op::Cleanup { session }),
        ]
    }

    const NOW: u64 = 1_000_000;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
        #[test]
        fn every_check_ends_once_and_only_an_allow_approves(n in 1usize..5, ops in proptest::collection::vec(op(), 0..24)) {
            let store = toolgate_store::open("sqlite::memory:", StoreOptions::default()).unwrap();
            let gate = Inner::new(Policy::defaults("/w", "/h"), store, "me".to_string(), false, 60_000);
            let mut checks = Vec::new();
            for i in 0..n {
                let call = ToolCall::new("bash", json!({ "command": format!("npm publish --tag t{i}") }));
                let anchor = call.anchor();
                let options = CheckOptions { session_id: Some(format!("s{}", i % 2)), timeout_ms: Some(60_000), tool_call_id: None };
                match gate.begin_check(call, options, NOW).unwrap() {
                    Begun::Waiting { run_id, rx, .. } => checks.push((run_id, anchor, rx)),
                    Begun::Done(c) => panic!("npm publish asks: {c:?}"),
                }
            }
            // What the first decisive op made of each check: None while pending.
            let mut model: Vec<Option<&str>> = vec![None; n];
            for (t, op) in ops.into_iter().enumerate() {
                let now = NOW + 1 + t as u64;
                match op {
                    Op::Respond { check, allow, right_anchor } => {
                        let Some((id, anchor, _)) = checks.get(check) else { continue };
                        let decision = if allow { Decision::AllowOnce } else { Decision::Deny { message: None } };
                        let anchor = if right_anchor { anchor.clone() } else { "wrong".to_string() };
                        let r = gate.respond(id, Response { decision, anchor }, now);
                        if model[check].is_none() && right_anchor {
                            prop_assert!(r.is_ok(), "respond {check}: {r:?}");
                            model[check] = Some(if allow { "approved" } else { "denied" });
                        } else {
                            prop_assert!(r.is_err(), "respond {check} decided twice or with a wrong anchor");
                        }
                    }
                    Op::Resume { check, allow } => {
                        let Some((id, anchor, _)) = checks.get(check) else { continue };
                        let choice = if allow { Choice::Allow { scope: None, args: None, grant: None } } else { Choice::Deny { message: Some("no".into()) } };
                        let d = ResumeDecision { tool_call_id: "call".into(), anchor: anchor.clone(), choice };
                        let r = gate.resume(id, &[d], None, now);
                        if model[check].is_none() {
                            prop_assert!(r.is_ok(), "resume {check}: {r:?}");
                            model[check] = Some(if allow { "approved" } else { "denied" });
                        } else {
                            prop_assert!(r.is_err(), "resume {check} decided twice");
                        }
                    }
                    Op::Take { check } => {
                        let Some((id, _, _)) = checks.get(check) else { continue };
                        // A take decides nothing: before a decision it has nothing to
                        // take, after one the check's run is completed.
                        prop_assert!(gate.resume(id, &[], None, now).is_err());
                    }
                    Op::TimeOut { check } => {
                        let Some((id, _, _)) = checks.get(check) else { continue };
                        let timed_out = gate.time_out(id, now);
                        prop_assert_eq!(timed_out, model[check].is_none());
                        if model[check].is_none() {
                            model[check] = Some("expired");
                        }
                    }
                    Op::Cleanup { session } => {
                        let session = session.map(|s| format!("s{s}"));
                        let counts = gate.cleanup(session.as_deref(), now).unwrap();
                        let mut ended = 0;
                        for (i, m) in model.iter_mut().enumerate() {
                            let mine = session.as_ref().is_none_or(|s| *s == format!("s{}", i % 2));
                            if m.is_none() && mine {
                                *m = Some("cancelled");
                                ended += 1;
                            }
                        }
                        prop_assert_eq!(counts.approvals, ended);
                    }
                }
            }
            gate.cleanup(None, NOW + 100).unwrap();
            for (i, (id, _, rx)) in checks.iter_mut().enumerate() {
                let want = model[i].unwrap_or("cancelled");
                let heard = rx.try_recv();
                prop_assert!(heard.is_ok(), "check {i} heard nothing");
                let heard = heard.unwrap();
                let kind = match heard.outcome {
                    Outcome::Approved => "approved",
                    Outcome::Denied { .. } => "denied",
                    Outcome::Expired => "expired",
                    Outcome::Cancelled => "cancelled",
                };
                prop_assert_eq!(kind, want, "check {}", i);
                prop_assert!(rx.try_recv().is_err(), "check {i} heard twice");
                let status = gate.run(id, NOW + 200).unwrap().unwrap().status;
                let stored = if matches!(want, "approved" | "denied") { RunStatus::Completed } else { RunStatus::Cancelled };
                prop_assert_eq!(status, stored, "check {}'s run", i);
            }
        }
    }
}
