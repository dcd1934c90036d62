//! Pending approvals and questions of one session: the registry of DESIGN §2.
//!
//! Pure logic. Time (`now_ms`) and randomness (an [`IdSource`]) are passed in; the wasm
//! layer drives it with real timers, native hosts with their own clock. Every request
//! ends exactly once, and every way it can end is reported to the caller as a
//! [`Settled`] event so the caller can wake exactly one waiter for it.
//!
//! Fail-closed: only [`Outcome::Approved`] lets a tool run; expiry, cancellation and
//! cleanup never grant; a built-in hard deny is never approved.

mod encode;
mod entries;
mod id;
mod types;

use crate::call::ToolCall;
use crate::error::Error;
use crate::policy::{Policy, SessionRules};
pub use crate::status::Ended;
use crate::verdict::{Tier, Verdict};
use entries::{Approval, Entries, Entry};
pub use id::{IdBuildHasher, IdHasher, IdSource, RequestId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::fmt;
pub use types::{
    Cleanup, CleanupCounts, Decision, NewRequest, Outcome, Pending, PendingQuestion, PendingRef,
    QuestionOutcome, RegistryConfig, Requested, Settled, Slot,
};

/// The pending approvals, questions and in-flight slots of one session, with the
/// session's always-allow / always-deny rules. Never global: create one per session.
pub struct Registry {
    session_id: String,
    config: RegistryConfig,
    ids: Box<dyn IdSource>,
    rules: SessionRules,
    entries: Entries,
    /// Deadlines, earliest first; entries whose request already ended are skipped
    /// lazily and compacted away when they outnumber the live ones.
    deadlines: BinaryHeap<Reverse<(u64, RequestId)>>,
    /// Remembered endings (ids in `entries`' index), oldest first: when, and the
    /// ending's sequence number.
    ended_order: VecDeque<(u64, u64)>,
    slots: HashMap<String, Slot>,
    next_sweep_ms: u64,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("session_id", &self.session_id)
            .field("approvals", &self.entries.approvals)
            .field("questions", &self.entries.questions)
            .field("slots", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// An empty registry for one session.
    pub fn new(
        session_id: impl Into<String>,
        config: RegistryConfig,
        ids: impl IdSource + 'static,
    ) -> Registry {
        Registry {
            session_id: session_id.into(),
            config,
            ids: Box::new(ids),
            rules: SessionRules::new(),
            entries: Entries::default(),
            deadlines: BinaryHeap::new(),
            ended_order: VecDeque::new(),
            slots: HashMap::new(),
            next_sweep_ms: 0,
        }
    }

    /// The session this registry holds requests for.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }
    /// Its limits.
    pub fn config(&self) -> &RegistryConfig {
        &self.config
    }
    /// The rules this session's always-allow / always-deny decisions added.
    pub fn session_rules(&self) -> &SessionRules {
        &self.rules
    }
    /// Classifies `call` with `policy` plus this session's rules.
    pub fn classify(&self, policy: &Policy, call: &ToolCall) -> Verdict {
        policy.classify_with(call, &self.rules)
    }

    /// [`Registry::classify`] with what a host found on its file system.
    pub fn classify_with_facts(
        &self,
        policy: &Policy,
        call: &ToolCall,
        facts: &crate::facts::FsFacts,
    ) -> Verdict {
        policy.classify_with_facts(call, &self.rules, facts)
    }

    /// Pending approvals plus pending questions (slots not included).
    pub fn size(&self) -> usize {
        self.entries.len()
    }
    /// Reserved in-flight slots.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }
    /// Pending approvals, oldest first.
    pub fn pending(&self) -> Vec<PendingRef<'_>> {
        let mut v = Vec::with_capacity(self.entries.approvals);
        v.extend(self.entries.approvals());
        v
    }
    /// Pending questions, oldest first.
    pub fn questions(&self) -> Vec<&PendingQuestion> {
        let mut v = Vec::with_capacity(self.entries.questions);
        v.extend(self.entries.iter().filter_map(|e| match e {
            Entry::Question(q) => Some(q),
            Entry::Approval(_) | Entry::Vacant => None,
        }));
        v
    }
    /// The pending approval request `id`, if it is pending.
    pub fn get(&self, id: RequestId) -> Option<PendingRef<'_>> {
        self.entries.approval(id)
    }
    /// The pending question `id`, if it is pending.
    pub fn get_question(&self, id: RequestId) -> Option<&PendingQuestion> {
        self.entries.question(id)
    }
    /// How an ended id ended, while it is remembered.
    pub fn ended(&self, id: RequestId) -> Option<Ended> {
        self.entries.ended(id)
    }

    /// The earliest deadline of anything pending (for arming one timer).
    pub fn next_deadline(&mut self) -> Option<u64> {
        while let Some(Reverse((deadline, id))) = self.deadlines.peek().copied() {
            if self.entries.is_pending(id) {
                return Some(deadline);
            }
            self.deadlines.pop();
        }
        None
    }

    /// Holds a call for a human decision. The timeout is clamped to
    /// [`RegistryConfig::max_timeout_ms`].
    pub fn request(
        &mut self,
        new: NewRequest,
        timeout_ms: u64,
        now_ms: u64,
    ) -> Result<Requested, Error> {
        // The id first: if the id source fails, nothing has been swept (whose settled
        // events the error would lose).
        let id = self.fresh_id()?;
        let expired = self.maybe_sweep(now_ms);
        let deadline_ms = self.deadline(timeout_ms, now_ms);
        self.entries.push_approval(id, new, now_ms, deadline_ms);
        self.push_deadline(deadline_ms, id);
        Ok(Requested {
            id,
            deadline_ms,
            expired,
        })
    }

    /// Asks the user a free-text question (same lifecycle as an approval).
    pub fn ask(
        &mut self,
        question: impl Into<String>,
        timeout_ms: u64,
        now_ms: u64,
    ) -> Result<Requested, Error> {
        // The id first: if the id source fails, nothing has been swept (whose settled
        // events the error would lose).
        let id = self.fresh_id()?;
        let expired = self.maybe_sweep(now_ms);
        let deadline_ms = self.deadline(timeout_ms, now_ms);
        self.entries.push(
            id,
            Entry::Question(PendingQuestion {
                id,
                question: question.into(),
                created_ms: now_ms,
                deadline_ms,
            }),
        );
        self.push_deadline(deadline_ms, id);
        Ok(Requested {
            id,
            deadline_ms,
            expired,
        })
    }

    /// Answers approval request `id`. `anchor` must be the request's anchor. On success
    /// returns every request this settled: `id` first, then (for `allow_always` /
    /// `deny_always`) the other pending requests the new session rule covers, found by
    /// re-classifying each with `policy` and the session rules.
    ///
    /// Errors leave everything unchanged: unknown id, already resolved (including a
    /// deadline that has passed, even if the sweep has not run yet), anchor mismatch, an
    /// allow of a built-in hard deny, a scope that was not offered, a bad rule.
    pub fn respond(
        &mut self,
        id: RequestId,
        decision: Decision,
        anchor: &str,
        policy: &Policy,
        now_ms: u64,
    ) -> Result<Vec<Settled>, Error> {
        let pending = match self.entries.approval(id) {
            Some(p) => p,
            None => return Err(self.not_pending(id, "an approval")),
        };
        not_expired(id, pending.deadline_ms, now_ms)?;
        if !pending.anchor.matches(anchor) {
            return Err(Error::AnchorMismatch { id: id.to_string() });
        }
        let allows = match &decision {
            Decision::AllowOnce | Decision::AllowAlways { .. } => true,
            Decision::Deny { .. } | Decision::DenyAlways { .. } => false,
        };
        if allows && pending.is_hard_deny() {
            let v = pending.verdict();
            return Err(Error::HardDeny {
                rule: v.rule.into_owned(),
                reason: v.reason.into_owned(),
            });
        }
        let (rule, outcome) = match decision {
            Decision::AllowOnce => (None, Outcome::Approved),
            Decision::AllowAlways { scope } => (Some((Tier::Auto, scope)), Outcome::Approved),
            Decision::Deny { message } => (None, Outcome::Denied { message }),
            Decision::DenyAlways { scope, message } => {
                (Some((Tier::Deny, scope)), Outcome::Denied { message })
            }
        };
        if let Some((tier, scope)) = &rule {
            let offered = pending.scopes();
            if !offered.iter().any(|s| s == scope) {
                return Err(Error::ScopeNotOffered {
                    scope: scope.clone(),
                    offered,
                });
            }
            self.rules.add(*tier, scope)?;
        }
        let mut settled = Vec::new();
        // An allow of a hard deny was refused above, so `outcome` stands as it is.
        if let Some(p) = self.entries.remove_approval(id) {
            self.settle_pending(p, outcome.clone(), now_ms, &mut settled);
        }
        if let Some((tier, _)) = rule {
            self.settle_covered(tier, &outcome, policy, now_ms, &mut settled);
        }
        Ok(settled)
    }

    /// Answers question `id`.
    pub fn answer(
        &mut self,
        id: RequestId,
        text: impl Into<String>,
        now_ms: u64,
    ) -> Result<Vec<Settled>, Error> {
        let q = match self.entries.question(id) {
            Some(q) => q,
            None => return Err(self.not_pending(id, "a question")),
        };
        not_expired(id, q.deadline_ms, now_ms)?;
        let mut settled = Vec::new();
        self.settle_question(
            id,
            QuestionOutcome::Answered {
                answer: text.into(),
            },
            now_ms,
            &mut settled,
        );
        Ok(settled)
    }

    /// Cancels one pending approval or question (e.g. the host aborted that call).
    pub fn cancel(&mut self, id: RequestId, now_ms: u64) -> Result<Vec<Settled>, Error> {
        let mut settled = Vec::new();
        match self.entries.remove(id) {
            Some(Entry::Approval(p)) => {
                self.settle_pending(p, Outcome::Cancelled, now_ms, &mut settled);
            }
            Some(Entry::Question(q)) => {
                self.settle_removed_question(
                    q.id,
                    QuestionOutcome::Cancelled,
                    now_ms,
                    &mut settled,
                );
            }
            Some(Entry::Vacant) | None => return Err(self.not_pending(id, "a request")),
        }
        Ok(settled)
    }

    /// Ends everything whose deadline is at or before `now_ms` as expired.
    pub fn expire_due(&mut self, now_ms: u64) -> Vec<Settled> {
        let mut settled = Vec::new();
        while let Some(Reverse((deadline, id))) = self.deadlines.peek().copied() {
            if deadline > now_ms {
                break;
            }
            self.deadlines.pop();
            match self.entries.remove(id) {
                Some(Entry::Approval(p)) => {
                    self.settle_pending(p, Outcome::Expired, now_ms, &mut settled);
                }
                Some(Entry::Question(q)) => {
                    self.settle_removed_question(
                        q.id,
                        QuestionOutcome::Expired,
                        now_ms,
                        &mut settled,
                    );
                }
                Some(Entry::Vacant) | None => {}
            }
        }
        settled
    }

    /// Denies every pending approval with `reason` and cancels every pending question
    /// (the user moved on, e.g. typed a new message).
    pub fn deny_all_pending(&mut self, reason: &str, now_ms: u64) -> Vec<Settled> {
        let mut settled = Vec::with_capacity(self.size());
        for e in self.entries.take_all() {
            match e {
                Entry::Approval(p) => {
                    let outcome = Outcome::Denied {
                        message: Some(reason.to_string()),
                    };
                    self.settle_pending(p, outcome, now_ms, &mut settled);
                }
                Entry::Question(q) => {
                    self.settle_removed_question(
                        q.id,
                        QuestionOutcome::Cancelled,
                        now_ms,
                        &mut settled,
                    );
                }
                Entry::Vacant => {}
            }
        }
        self.deadlines.clear();
        settled
    }

    /// Force-resolves everything: approvals to `cancelled` (never granted), questions to
    /// no answer; releases every slot; empties the registry. Session rules are kept
    /// (use a new registry for a new session).
    pub fn cleanup(&mut self, now_ms: u64) -> Cleanup {
        let counts = CleanupCounts {
            approvals: self.entries.approvals,
            questions: self.entries.questions,
            slots: self.slots.len(),
        };
        let n = self.entries.len();
        // Remember only as many ended ids as the cap allows: the newest ones.
        let skip = n.saturating_sub(self.config.ended_cap);
        let mut settled = Vec::with_capacity(n);
        for (i, e) in self.entries.take_all().enumerate() {
            let s = match e {
                Entry::Approval(p) => Settled::Approval {
                    id: p.id,
                    tool_call_id: p.tool_call_id,
                    outcome: Outcome::Cancelled,
                },
                Entry::Question(q) => Settled::Question {
                    id: q.id,
                    outcome: QuestionOutcome::Cancelled,
                },
                Entry::Vacant => continue,
            };
            if i >= skip {
                self.remember(s.id(), Ended::Cancelled, now_ms);
            }
            settled.push(s);
        }
        self.slots.clear();
        self.deadlines = BinaryHeap::new();
        Cleanup { counts, settled }
    }

    /// Resolves, then removes, approvals and questions created at least `max_age_ms`
    /// ago, as `expired`; also drops slots older than `max_age_ms`.
    pub fn cleanup_stale(&mut self, max_age_ms: u64, now_ms: u64) -> Cleanup {
        let cutoff = now_ms.saturating_sub(max_age_ms);
        let mut counts = CleanupCounts::default();
        let mut settled = Vec::new();
        let stale: Vec<RequestId> = self
            .entries
            .iter()
            .filter(|e| match e {
                Entry::Approval(p) => p.created_ms <= cutoff,
                Entry::Question(q) => q.created_ms <= cutoff,
                Entry::Vacant => false,
            })
            .filter_map(Entry::id)
            .collect();
        for id in stale {
            match self.entries.remove(id) {
                Some(Entry::Approval(p)) => {
                    counts.approvals += 1;
                    self.settle_pending(p, Outcome::Expired, now_ms, &mut settled);
                }
                Some(Entry::Question(q)) => {
                    counts.questions += 1;
                    self.settle_removed_question(
                        q.id,
                        QuestionOutcome::Expired,
                        now_ms,
                        &mut settled,
                    );
                }
                Some(Entry::Vacant) | None => {}
            }
        }
        let before = self.slots.len();
        self.slots.retain(|_, s| s.reserved_ms > cutoff);
        counts.slots = before - self.slots.len();
        Cleanup { counts, settled }
    }

    /// Reserves an in-flight slot for a call that runs without a prompt (`auto`).
    /// (Approved requests with a tool-call id reserve theirs automatically.)
    pub fn reserve_slot(
        &mut self,
        tool_call_id: impl Into<String>,
        anchor: impl Into<String>,
        now_ms: u64,
    ) -> Vec<Settled> {
        let expired = self.maybe_sweep(now_ms);
        let tool_call_id = tool_call_id.into();
        self.slots.insert(
            tool_call_id.clone(),
            Slot {
                tool_call_id,
                anchor: anchor.into(),
                request_id: None,
                reserved_ms: now_ms,
            },
        );
        expired
    }

    /// The host reports the tool call finished (after-tool-call): claims and removes its
    /// slot. `None` means no approval or auto verdict is on record for that id.
    pub fn claim_slot(&mut self, tool_call_id: &str) -> Option<Slot> {
        self.slots.remove(tool_call_id)
    }

    /// The growth-path sweep: at most once per `sweep_interval_ms`, expires what is due,
    /// drops slots and remembered ended ids past their TTL, compacts the deadline heap.
    fn maybe_sweep(&mut self, now_ms: u64) -> Vec<Settled> {
        if now_ms < self.next_sweep_ms {
            return Vec::new();
        }
        self.next_sweep_ms = now_ms.saturating_add(self.config.sweep_interval_ms.max(1));
        let settled = self.expire_due(now_ms);
        let slot_cutoff = now_ms.saturating_sub(self.config.slot_ttl_ms);
        if !self.slots.is_empty() {
            self.slots.retain(|_, s| s.reserved_ms > slot_cutoff);
        }
        let ended_cutoff = now_ms.saturating_sub(self.config.ended_ttl_ms);
        while let Some(&(t, seq)) = self.ended_order.front() {
            if t > ended_cutoff {
                break;
            }
            self.ended_order.pop_front();
            self.entries.forget_below(seq + 1, self.ended_order.len());
        }
        settled
    }

    /// Pushes a deadline; when stale entries (of requests that already ended)
    /// outnumber the live ones, compacts the heap first (amortised O(1) per push).
    fn push_deadline(&mut self, deadline_ms: u64, id: RequestId) {
        if self.deadlines.len() > 2 * self.size() + 1024 {
            let entries = &self.entries;
            self.deadlines
                .retain(|Reverse((_, id))| entries.is_pending(*id));
        }
        self.deadlines.push(Reverse((deadline_ms, id)));
    }

    fn settle_covered(
        &mut self,
        tier: Tier,
        outcome: &Outcome,
        policy: &Policy,
        now_ms: u64,
        settled: &mut Vec<Settled>,
    ) {
        let rules = &self.rules;
        let covered: Vec<RequestId> = self
            .entries
            .approvals()
            .filter(|p| now_ms < p.deadline_ms)
            .filter(|p| {
                let v = policy.classify_with(&p.call(), rules);
                match tier {
                    Tier::Auto => v.tier == Tier::Auto && !p.is_hard_deny() && !v.is_hard_deny(),
                    Tier::Deny => v.tier == Tier::Deny,
                    Tier::Sandbox | Tier::Ask => false,
                }
            })
            .map(|p| p.id)
            .collect();
        for id in covered {
            self.settle_approval(id, outcome.clone(), now_ms, settled);
        }
    }

    fn settle_approval(
        &mut self,
        id: RequestId,
        outcome: Outcome,
        now_ms: u64,
        out: &mut Vec<Settled>,
    ) {
        // Fail-closed: a hard deny never ends approved, whoever asks (the message is
        // the verdict's reason, read while the request's text is still there).
        let outcome = match self.entries.approval(id) {
            None => return,
            Some(p) if outcome.allows_run() && p.is_hard_deny() => Outcome::Denied {
                message: Some(p.verdict().reason.into_owned()),
            },
            Some(_) => outcome,
        };
        if let Some(p) = self.entries.remove_approval(id) {
            self.settle_pending(p, outcome, now_ms, out);
        }
    }

    /// Settles an approval already taken out of `entries`.
    fn settle_pending(
        &mut self,
        p: Approval,
        outcome: Outcome,
        now_ms: u64,
        out: &mut Vec<Settled>,
    ) {
        let id = p.id;
        // Fail-closed, again: callers pass only outcomes that cannot run for a hard deny.
        let outcome = if outcome.allows_run() && p.hard_deny {
            Outcome::Denied { message: None }
        } else {
            outcome
        };
        if let Some(tcid) = &p.tool_call_id {
            if outcome.allows_run() {
                self.slots.insert(
                    tcid.clone(),
                    Slot {
                        tool_call_id: tcid.clone(),
                        anchor: p.anchor.to_string(),
                        request_id: Some(id),
                        reserved_ms: now_ms,
                    },
                );
            } else {
                self.slots.remove(tcid);
            }
        }
        self.remember(id, outcome.ended(), now_ms);
        out.push(Settled::Approval {
            id,
            tool_call_id: p.tool_call_id,
            outcome,
        });
    }

    fn settle_question(
        &mut self,
        id: RequestId,
        outcome: QuestionOutcome,
        now_ms: u64,
        out: &mut Vec<Settled>,
    ) {
        if self.entries.remove_question(id).is_some() {
            self.settle_removed_question(id, outcome, now_ms, out);
        }
    }

    /// Settles a question already taken out of `entries`.
    fn settle_removed_question(
        &mut self,
        id: RequestId,
        outcome: QuestionOutcome,
        now_ms: u64,
        out: &mut Vec<Settled>,
    ) {
        self.remember(id, outcome.ended(), now_ms);
        out.push(Settled::Question { id, outcome });
    }

    fn remember(&mut self, id: RequestId, ended: Ended, now_ms: u64) {
        if self.config.ended_cap == 0 {
            return;
        }
        while self.ended_order.len() >= self.config.ended_cap {
            if let Some((_, old)) = self.ended_order.pop_front() {
                self.entries.forget_below(old + 1, self.ended_order.len());
            }
        }
        let seq = self.entries.mark_ended(id, ended);
        self.ended_order.push_back((now_ms, seq));
    }

    fn not_pending(&self, id: RequestId, wanted: &'static str) -> Error {
        if let Some(ended) = self.entries.ended(id) {
            return Error::AlreadyResolved {
                id: id.to_string(),
                ended,
            };
        }
        let other = match (wanted, self.entries.get(id)) {
            ("an approval", Some(Entry::Question(_))) => Some("a question"),
            ("a question", Some(Entry::Approval(_))) => Some("an approval"),
            _ => None,
        };
        match other {
            Some(is) => Error::WrongKind {
                id: id.to_string(),
                is,
                wanted,
            },
            None => Error::UnknownId { id: id.to_string() },
        }
    }

    fn fresh_id(&mut self) -> Result<RequestId, Error> {
        let id = RequestId(self.ids.next_id()?);
        if self.entries.known(id) {
            return Err(Error::IdSource {
                message: format!("duplicate id {id}: the id source is not random"),
            });
        }
        Ok(id)
    }

    fn deadline(&self, timeout_ms: u64, now_ms: u64) -> u64 {
        now_ms.saturating_add(timeout_ms.min(self.config.max_timeout_ms))
    }
}

/// A request whose deadline has passed is resolved (expired), even before the sweep
/// has run: it can no longer be answered.
fn not_expired(id: RequestId, deadline_ms: u64, now_ms: u64) -> Result<(), Error> {
    if now_ms >= deadline_ms {
        return Err(Error::AlreadyResolved {
            id: id.to_string(),
            ended: Ended::Expired,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
