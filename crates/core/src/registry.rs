//! Pending approvals and questions of one session: the registry of DESIGN §2.
//!
//! Pure logic. Time (`now_ms`) and randomness (an [`IdSource`]) are passed in; the wasm
//! layer drives it with real timers, native hosts with their own clock. Every request
//! ends exactly once, and every way it can end is reported to the caller as a
//! [`Settled`] event so the caller can wake exactly one waiter for it.
//!
//! Fail-closed: only [`Outcome::Approved`] lets a tool run; expiry, cancellation and
//! cleanup never grant; a built-in hard deny is never approved.

use crate::call::ToolCall;
use crate::error::Error;
use crate::policy::{Policy, SessionRules};
use crate::verdict::{Tier, Verdict};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// An unguessable request id: 128 random bits from the [`IdSource`], written as 32
/// lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(u128);

impl RequestId {
    pub fn from_u128(bits: u128) -> RequestId {
        RequestId(bits)
    }
    pub fn as_u128(self) -> u128 {
        self.0
    }
    /// Parses the 32-hex-digit form; anything else is `None`.
    pub fn parse(s: &str) -> Option<RequestId> {
        if s.len() != 32 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(s, 16).ok().map(RequestId)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Where fresh request ids come from. Must be unguessable (a CSPRNG such as
/// `crypto.getRandomValues` or the OS), so that one session cannot answer another's
/// requests by guessing. A failure is reported, never papered over with a weak id.
pub trait IdSource {
    fn next_id(&mut self) -> Result<u128, Error>;
}

impl<F: FnMut() -> Result<u128, Error>> IdSource for F {
    fn next_id(&mut self) -> Result<u128, Error> {
        self()
    }
}

/// A person's answer to a permission prompt: the four kinds of permission options of
/// the Agent Client Protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run this call, this once.
    AllowOnce,
    /// Run it, and add the session allow rule `scope` (one of the request's offered
    /// [`Pending::scopes`], exactly as shown).
    AllowAlways { scope: String },
    /// Refuse it, optionally telling the model why.
    Deny {
        #[serde(default)]
        message: Option<String>,
    },
    /// Refuse it and add the session deny rule `scope`.
    DenyAlways {
        scope: String,
        #[serde(default)]
        message: Option<String>,
    },
}

/// How an approval request ended. Only `Approved` lets the tool run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// A person (or an always-allow rule they added) approved it.
    Approved,
    /// A person said no, with their message if they gave one.
    Denied {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The deadline passed: nobody said no, yet it is not allowed.
    Expired,
    /// The session or run ended (cleanup, dispose, page unload).
    Cancelled,
}

impl Outcome {
    /// True only for `Approved`.
    pub fn allows_run(&self) -> bool {
        match self {
            Outcome::Approved => true,
            Outcome::Denied { .. } | Outcome::Expired | Outcome::Cancelled => false,
        }
    }
    fn ended(&self) -> Ended {
        match self {
            Outcome::Approved => Ended::Approved,
            Outcome::Denied { .. } => Ended::Denied,
            Outcome::Expired => Ended::Expired,
            Outcome::Cancelled => Ended::Cancelled,
        }
    }
}

/// How a question ended: an answer, or nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum QuestionOutcome {
    Answered { answer: String },
    Expired,
    Cancelled,
}

impl QuestionOutcome {
    /// The answer text, if there is one.
    pub fn answer(&self) -> Option<&str> {
        match self {
            QuestionOutcome::Answered { answer } => Some(answer),
            QuestionOutcome::Expired | QuestionOutcome::Cancelled => None,
        }
    }
    fn ended(&self) -> Ended {
        match self {
            QuestionOutcome::Answered { .. } => Ended::Answered,
            QuestionOutcome::Expired => Ended::Expired,
            QuestionOutcome::Cancelled => Ended::Cancelled,
        }
    }
}

/// How an ended request ended, as named in `already resolved: …` errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ended {
    Approved,
    Denied,
    Expired,
    Cancelled,
    Answered,
}

impl Ended {
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Approved => "approved",
            Ended::Denied => "denied",
            Ended::Expired => "expired",
            Ended::Cancelled => "cancelled",
            Ended::Answered => "answered",
        }
    }
}

impl fmt::Display for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One request that ended: the caller wakes exactly the one waiter for `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    Approval {
        id: RequestId,
        tool_call_id: Option<String>,
        outcome: Outcome,
    },
    Question {
        id: RequestId,
        outcome: QuestionOutcome,
    },
}

impl Settled {
    pub fn id(&self) -> RequestId {
        match self {
            Settled::Approval { id, .. } | Settled::Question { id, .. } => *id,
        }
    }
}

/// What a host hands to [`Registry::request`]: the call, the classifier's verdict, the
/// host's tool-call id (for in-flight slots) and the always-allow scopes the prompt
/// will offer (usually [`Policy::scopes`]); `allow_always` accepts only one of these.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRequest {
    pub call: ToolCall,
    pub verdict: Verdict,
    pub tool_call_id: Option<String>,
    pub scopes: Vec<String>,
}

impl NewRequest {
    pub fn new(call: ToolCall, verdict: Verdict) -> NewRequest {
        NewRequest {
            call,
            verdict,
            tool_call_id: None,
            scopes: Vec::new(),
        }
    }
    pub fn tool_call_id(mut self, id: impl Into<String>) -> NewRequest {
        self.tool_call_id = Some(id.into());
        self
    }
    pub fn scopes(mut self, scopes: Vec<String>) -> NewRequest {
        self.scopes = scopes;
        self
    }
}

/// A pending approval request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub id: RequestId,
    pub tool_call_id: Option<String>,
    pub call: ToolCall,
    pub verdict: Verdict,
    /// [`ToolCall::anchor`] of `call`; a decision must carry it.
    pub anchor: String,
    /// The always-allow / always-deny scopes a prompt may offer, narrowest first.
    pub scopes: Vec<String>,
    pub created_ms: u64,
    pub deadline_ms: u64,
    #[serde(skip)]
    seq: u64,
}

/// A pending free-text question to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingQuestion {
    pub id: RequestId,
    pub question: String,
    pub created_ms: u64,
    pub deadline_ms: u64,
    #[serde(skip)]
    seq: u64,
}

/// A reserved in-flight tool-call slot: the call was approved (or auto) and the host
/// has not yet reported it finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slot {
    pub tool_call_id: String,
    pub anchor: String,
    /// The approval request that granted it; `None` for an `auto` call.
    pub request_id: Option<RequestId>,
    pub reserved_ms: u64,
}

/// The answer of [`Registry::request`] / [`Registry::ask`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "`expired` holds requests the growth-path sweep ended; wake their waiters"]
pub struct Requested {
    pub id: RequestId,
    /// The effective deadline (the timeout is clamped to [`RegistryConfig::max_timeout_ms`]).
    pub deadline_ms: u64,
    /// Requests that the expiry sweep on this growth path ended.
    pub expired: Vec<Settled>,
}

/// How many entries a cleanup resolved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CleanupCounts {
    pub approvals: usize,
    pub questions: usize,
    pub slots: usize,
}

/// The answer of [`Registry::cleanup`] / [`Registry::cleanup_stale`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "`settled` holds the requests that were force-resolved; wake their waiters"]
pub struct Cleanup {
    pub counts: CleanupCounts,
    pub settled: Vec<Settled>,
}

/// Limits of a registry. All durations in milliseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryConfig {
    /// Longest allowed timeout. Longer (or unbounded) timeouts are clamped to it, not
    /// rejected: a host asking for "forever" gets the maximum. Default 30 minutes;
    /// longer waits are what park/resume markers are for.
    pub max_timeout_ms: u64,
    /// The growth-path sweep (expiry, slot and tombstone TTLs) runs at most once per
    /// this interval. Default 1 s.
    pub sweep_interval_ms: u64,
    /// An in-flight slot not claimed within this time is dropped. Default 10 minutes.
    pub slot_ttl_ms: u64,
    /// How long an ended id is remembered, so that a late answer gets
    /// `already resolved: …` rather than `unknown request id`. Default 10 minutes.
    pub ended_ttl_ms: u64,
    /// At most this many ended ids are remembered (oldest forgotten first). Default 4096.
    pub ended_cap: usize,
}

impl Default for RegistryConfig {
    fn default() -> RegistryConfig {
        RegistryConfig {
            max_timeout_ms: 30 * 60 * 1000,
            sweep_interval_ms: 1000,
            slot_ttl_ms: 10 * 60 * 1000,
            ended_ttl_ms: 10 * 60 * 1000,
            ended_cap: 4096,
        }
    }
}

/// Hasher for random 128-bit ids: they are already uniformly random (and generated by
/// us, not by an attacker), so a multiply-fold is enough and much cheaper than SipHash.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u128(&mut self, n: u128) {
        // Truncations on purpose: fold both halves.
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
}

type IdMap<V> = HashMap<RequestId, V, BuildHasherDefault<IdHasher>>;

/// The pending approvals, questions and in-flight slots of one session, with the
/// session's always-allow / always-deny rules. Never global: create one per session.
pub struct Registry {
    session_id: String,
    config: RegistryConfig,
    ids: Box<dyn IdSource>,
    rules: SessionRules,
    approvals: IdMap<Pending>,
    questions: IdMap<PendingQuestion>,
    /// Deadlines, earliest first; entries whose request already ended are skipped
    /// lazily and compacted away when they outnumber the live ones.
    deadlines: BinaryHeap<Reverse<(u64, RequestId)>>,
    ended: IdMap<Ended>,
    ended_order: VecDeque<(u64, RequestId)>,
    slots: HashMap<String, Slot>,
    next_sweep_ms: u64,
    seq: u64,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("session_id", &self.session_id)
            .field("approvals", &self.approvals.len())
            .field("questions", &self.questions.len())
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
            approvals: IdMap::default(),
            questions: IdMap::default(),
            deadlines: BinaryHeap::new(),
            ended: IdMap::default(),
            ended_order: VecDeque::new(),
            slots: HashMap::new(),
            next_sweep_ms: 0,
            seq: 0,
        }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }
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

    /// Pending approvals plus pending questions (slots not included).
    pub fn size(&self) -> usize {
        self.approvals.len() + self.questions.len()
    }
    /// Reserved in-flight slots.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }
    /// Pending approvals, oldest first.
    pub fn pending(&self) -> Vec<&Pending> {
        let mut v: Vec<&Pending> = self.approvals.values().collect();
        v.sort_unstable_by_key(|p| p.seq);
        v
    }
    /// Pending questions, oldest first.
    pub fn questions(&self) -> Vec<&PendingQuestion> {
        let mut v: Vec<&PendingQuestion> = self.questions.values().collect();
        v.sort_unstable_by_key(|q| q.seq);
        v
    }
    pub fn get(&self, id: RequestId) -> Option<&Pending> {
        self.approvals.get(&id)
    }
    pub fn get_question(&self, id: RequestId) -> Option<&PendingQuestion> {
        self.questions.get(&id)
    }
    /// How an ended id ended, while it is remembered.
    pub fn ended(&self, id: RequestId) -> Option<Ended> {
        self.ended.get(&id).copied()
    }

    /// The earliest deadline of anything pending (for arming one timer).
    pub fn next_deadline(&mut self) -> Option<u64> {
        while let Some(Reverse((deadline, id))) = self.deadlines.peek().copied() {
            if self.approvals.contains_key(&id) || self.questions.contains_key(&id) {
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
        let expired = self.maybe_sweep(now_ms);
        let id = self.fresh_id()?;
        let deadline_ms = self.deadline(timeout_ms, now_ms);
        let anchor = new.call.anchor();
        let seq = self.next_seq();
        self.approvals.insert(
            id,
            Pending {
                id,
                tool_call_id: new.tool_call_id,
                call: new.call,
                verdict: new.verdict,
                anchor,
                scopes: new.scopes,
                created_ms: now_ms,
                deadline_ms,
                seq,
            },
        );
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
        let expired = self.maybe_sweep(now_ms);
        let id = self.fresh_id()?;
        let deadline_ms = self.deadline(timeout_ms, now_ms);
        let seq = self.next_seq();
        self.questions.insert(
            id,
            PendingQuestion {
                id,
                question: question.into(),
                created_ms: now_ms,
                deadline_ms,
                seq,
            },
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
        let pending = match self.approvals.get(&id) {
            Some(p) => p,
            None => return Err(self.not_pending(id, "an approval")),
        };
        if now_ms >= pending.deadline_ms {
            return Err(Error::AlreadyResolved {
                id: id.to_string(),
                ended: Ended::Expired,
            });
        }
        if pending.anchor != anchor {
            return Err(Error::AnchorMismatch { id: id.to_string() });
        }
        let allows = match &decision {
            Decision::AllowOnce | Decision::AllowAlways { .. } => true,
            Decision::Deny { .. } | Decision::DenyAlways { .. } => false,
        };
        if allows && pending.verdict.is_hard_deny() {
            return Err(Error::HardDeny {
                rule: pending.verdict.rule.clone(),
                reason: pending.verdict.reason.clone(),
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
            if !pending.scopes.iter().any(|s| s == scope) {
                return Err(Error::ScopeNotOffered {
                    scope: scope.clone(),
                    offered: pending.scopes.clone(),
                });
            }
            self.rules.add(*tier, scope)?;
        }
        let mut settled = Vec::new();
        self.settle_approval(id, outcome.clone(), now_ms, &mut settled);
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
        let q = match self.questions.get(&id) {
            Some(q) => q,
            None => return Err(self.not_pending(id, "a question")),
        };
        if now_ms >= q.deadline_ms {
            return Err(Error::AlreadyResolved {
                id: id.to_string(),
                ended: Ended::Expired,
            });
        }
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
        if self.approvals.contains_key(&id) {
            self.settle_approval(id, Outcome::Cancelled, now_ms, &mut settled);
        } else if self.questions.contains_key(&id) {
            self.settle_question(id, QuestionOutcome::Cancelled, now_ms, &mut settled);
        } else {
            return Err(self.not_pending(id, "a request"));
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
            if self.approvals.contains_key(&id) {
                self.settle_approval(id, Outcome::Expired, now_ms, &mut settled);
            } else if self.questions.contains_key(&id) {
                self.settle_question(id, QuestionOutcome::Expired, now_ms, &mut settled);
            }
        }
        settled
    }

    /// Denies every pending approval with `reason` and cancels every pending question
    /// (the user moved on, e.g. typed a new message).
    pub fn deny_all_pending(&mut self, reason: &str, now_ms: u64) -> Vec<Settled> {
        let mut settled = Vec::with_capacity(self.size());
        for id in self.sorted_ids() {
            if self.approvals.contains_key(&id) {
                let outcome = Outcome::Denied {
                    message: Some(reason.to_string()),
                };
                self.settle_approval(id, outcome, now_ms, &mut settled);
            } else {
                self.settle_question(id, QuestionOutcome::Cancelled, now_ms, &mut settled);
            }
        }
        settled
    }

    /// Force-resolves everything: approvals to `cancelled` (never granted), questions to
    /// no answer; releases every slot; empties the registry. Session rules are kept
    /// (use a new registry for a new session).
    pub fn cleanup(&mut self, now_ms: u64) -> Cleanup {
        let counts = CleanupCounts {
            approvals: self.approvals.len(),
            questions: self.questions.len(),
            slots: self.slots.len(),
        };
        let mut settled = Vec::with_capacity(self.size());
        let approvals = std::mem::take(&mut self.approvals);
        let questions = std::mem::take(&mut self.questions);
        let mut entries: Vec<(u64, Settled)> = approvals
            .into_values()
            .map(|p| {
                let s = Settled::Approval {
                    id: p.id,
                    tool_call_id: p.tool_call_id,
                    outcome: Outcome::Cancelled,
                };
                (p.seq, s)
            })
            .chain(questions.into_values().map(|q| {
                let s = Settled::Question {
                    id: q.id,
                    outcome: QuestionOutcome::Cancelled,
                };
                (q.seq, s)
            }))
            .collect();
        entries.sort_unstable_by_key(|(seq, _)| *seq);
        // Remember only as many ended ids as the cap allows: the newest ones.
        let skip = entries.len().saturating_sub(self.config.ended_cap);
        for (i, (_, s)) in entries.into_iter().enumerate() {
            if i >= skip {
                self.remember(s.id(), Ended::Cancelled, now_ms);
            }
            settled.push(s);
        }
        self.slots.clear();
        self.deadlines.clear();
        Cleanup { counts, settled }
    }

    /// Resolves, then removes, approvals and questions created at least `max_age_ms`
    /// ago, as `expired`; also drops slots older than `max_age_ms`.
    pub fn cleanup_stale(&mut self, max_age_ms: u64, now_ms: u64) -> Cleanup {
        let cutoff = now_ms.saturating_sub(max_age_ms);
        let mut counts = CleanupCounts::default();
        let mut settled = Vec::new();
        for id in self.sorted_ids() {
            if let Some(p) = self.approvals.get(&id) {
                if p.created_ms <= cutoff {
                    counts.approvals += 1;
                    self.settle_approval(id, Outcome::Expired, now_ms, &mut settled);
                }
            } else if let Some(q) = self.questions.get(&id) {
                if q.created_ms <= cutoff {
                    counts.questions += 1;
                    self.settle_question(id, QuestionOutcome::Expired, now_ms, &mut settled);
                }
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
        while let Some(&(t, id)) = self.ended_order.front() {
            if t > ended_cutoff {
                break;
            }
            self.ended_order.pop_front();
            self.ended.remove(&id);
        }
        settled
    }

    /// Pushes a deadline; when stale entries (of requests that already ended)
    /// outnumber the live ones, compacts the heap first (amortised O(1) per push).
    fn push_deadline(&mut self, deadline_ms: u64, id: RequestId) {
        if self.deadlines.len() > 2 * self.size() + 1024 {
            let (approvals, questions) = (&self.approvals, &self.questions);
            self.deadlines.retain(|Reverse((_, id))| {
                approvals.contains_key(id) || questions.contains_key(id)
            });
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
        let mut covered: Vec<(u64, RequestId)> = self
            .approvals
            .values()
            .filter(|p| now_ms < p.deadline_ms)
            .filter(|p| {
                let v = policy.classify_with(&p.call, rules);
                match tier {
                    Tier::Auto => {
                        v.tier == Tier::Auto && !p.verdict.is_hard_deny() && !v.is_hard_deny()
                    }
                    Tier::Deny => v.tier == Tier::Deny,
                    Tier::Ask => false,
                }
            })
            .map(|p| (p.seq, p.id))
            .collect();
        covered.sort_unstable();
        for (_, id) in covered {
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
        let Some(p) = self.approvals.remove(&id) else {
            return;
        };
        // Fail-closed: a hard deny never ends approved, whoever asks.
        let outcome = if outcome.allows_run() && p.verdict.is_hard_deny() {
            Outcome::Denied {
                message: Some(p.verdict.reason.clone()),
            }
        } else {
            outcome
        };
        if let Some(tcid) = &p.tool_call_id {
            if outcome.allows_run() {
                self.slots.insert(
                    tcid.clone(),
                    Slot {
                        tool_call_id: tcid.clone(),
                        anchor: p.anchor.clone(),
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
        if self.questions.remove(&id).is_none() {
            return;
        }
        self.remember(id, outcome.ended(), now_ms);
        out.push(Settled::Question { id, outcome });
    }

    fn remember(&mut self, id: RequestId, ended: Ended, now_ms: u64) {
        if self.config.ended_cap == 0 {
            return;
        }
        while self.ended_order.len() >= self.config.ended_cap {
            if let Some((_, old)) = self.ended_order.pop_front() {
                self.ended.remove(&old);
            }
        }
        self.ended.insert(id, ended);
        self.ended_order.push_back((now_ms, id));
    }

    fn not_pending(&self, id: RequestId, wanted: &'static str) -> Error {
        if let Some(ended) = self.ended.get(&id) {
            return Error::AlreadyResolved {
                id: id.to_string(),
                ended: *ended,
            };
        }
        let other = match wanted {
            "an approval" => self.questions.contains_key(&id).then_some("a question"),
            "a question" => self.approvals.contains_key(&id).then_some("an approval"),
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

    fn sorted_ids(&self) -> Vec<RequestId> {
        let mut v: Vec<(u64, RequestId)> = self
            .approvals
            .values()
            .map(|p| (p.seq, p.id))
            .chain(self.questions.values().map(|q| (q.seq, q.id)))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, id)| id).collect()
    }

    fn fresh_id(&mut self) -> Result<RequestId, Error> {
        let id = RequestId(self.ids.next_id()?);
        if self.approvals.contains_key(&id)
            || self.questions.contains_key(&id)
            || self.ended.contains_key(&id)
        {
            return Err(Error::IdSource {
                message: format!("duplicate id {id}: the id source is not random"),
            });
        }
        Ok(id)
    }

    fn deadline(&self, timeout_ms: u64, now_ms: u64) -> u64 {
        now_ms.saturating_add(timeout_ms.min(self.config.max_timeout_ms))
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
}

#[cfg(test)]
mod tests {
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
            (
                p.call.clone(),
                p.anchor.clone(),
                p.created_ms,
                p.deadline_ms
            ),
            (call, crate::anchor("bash", &same), 1000, 1000 + T)
        );
        assert_eq!(p.tool_call_id.as_deref(), Some("c1"));
        // A huge timeout is clamped to the maximum.
        let big = r
            .request(NewRequest::new(bash("x"), ask()), u64::MAX, 1000)
            .unwrap();
        assert_eq!(big.deadline_ms, 1000 + r.config().max_timeout_ms);
        assert_eq!(r.size(), 2);
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
}
