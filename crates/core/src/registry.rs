//! Pending approvals and questions of one session: the registry of DESIGN §2.
//!
//! Pure logic. Time (`now_ms`) and randomness (an [`IdSource`]) are passed in; the wasm
//! layer drives it with real timers, native hosts with their own clock. Every request
//! ends exactly once, and every way it can end is reported to the caller as a
//! [`Settled`] event so the caller can wake exactly one waiter for it.
//!
//! Fail-closed: only [`Outcome::Approved`] lets a tool run; expiry, cancellation and
//! cleanup never grant; a built-in hard deny is never approved.

use crate::call::{canonical_json_to, write_json_str, Anchor, ToolCall};
use crate::error::Error;
use crate::policy::{Policy, SessionRules};
pub use crate::status::Ended;
use crate::verdict::{Part, Tier, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;
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

/// A pending approval request: a snapshot, decoded from what the registry holds (see
/// [`PendingRef`]; [`PendingRef::to_pending`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub id: RequestId,
    pub tool_call_id: Option<String>,
    pub call: ToolCall,
    pub verdict: Verdict,
    /// The anchor of `call` (`Display`/`Serialize` give the 64-hex-digit text of
    /// [`ToolCall::anchor`]); a decision must carry it.
    pub anchor: Anchor,
    /// The always-allow / always-deny scopes a prompt may offer, narrowest first.
    pub scopes: Vec<String>,
    pub created_ms: u64,
    pub deadline_ms: u64,
}

/// A pending approval request, as the registry holds it.
///
/// The registry keeps every pending request's tool name, canonical args JSON, verdict
/// and offered scopes back to back in one text log, in creation order; the host's
/// `Value` tree, verdict strings and scope list are dropped when the request is made.
/// So a pending request costs no heap block of its own (one for a tool-call id), and
/// cleanup frees the log at once instead of every request's pieces. The call, verdict
/// and scopes are decoded when asked for, which only listings and always-rules do.
#[derive(Debug, Clone, Copy)]
pub struct PendingRef<'a> {
    pub id: RequestId,
    pub tool_call_id: Option<&'a str>,
    /// The anchor of the call; a decision must carry it.
    pub anchor: Anchor,
    pub created_ms: u64,
    pub deadline_ms: u64,
    tier: Tier,
    hard_deny: bool,
    /// This request's text: tool, canonical args, verdict JSON, scopes JSON array.
    text: &'a [u8],
    /// Where the tool, the args and the verdict end in `text`.
    ends: [usize; 3],
}

impl<'a> PendingRef<'a> {
    fn part(&self, from: usize, to: usize) -> &'a str {
        let bytes = self.text.get(from..to).unwrap_or_default();
        // The registry wrote UTF-8 only.
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The tool name.
    pub fn tool(&self) -> &'a str {
        self.part(0, self.ends[0])
    }

    /// The canonical JSON of the args (what the anchor hashes after the tool name).
    pub fn args_json(&self) -> &'a str {
        self.part(self.ends[0], self.ends[1])
    }

    /// The args, decoded. (JSON nested deeper than serde_json's limit of 128 levels
    /// decodes as `null`.)
    pub fn args(&self) -> Value {
        serde_json::from_str(self.args_json()).unwrap_or(Value::Null)
    }

    /// The call, decoded.
    pub fn call(&self) -> ToolCall {
        ToolCall::new(self.tool(), self.args())
    }

    /// The classifier's verdict, decoded.
    pub fn verdict(&self) -> Verdict {
        let json = self.part(self.ends[1], self.ends[2]);
        serde_json::from_str(json).unwrap_or_else(|e| {
            // Cannot happen (the registry wrote it); fail closed if it ever does.
            Verdict::new(
                Tier::Deny,
                "internal.pending-verdict",
                format!("the stored verdict does not decode: {e}"),
            )
        })
    }

    /// The verdict's tier, without decoding it.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// [`Verdict::is_hard_deny`] of the verdict, without decoding it.
    pub fn is_hard_deny(&self) -> bool {
        self.hard_deny
    }

    /// The always-allow / always-deny scopes a prompt may offer, narrowest first.
    pub fn scopes(&self) -> Vec<String> {
        let json = self.part(self.ends[2], self.text.len());
        serde_json::from_str(json).unwrap_or_default()
    }

    /// Everything, decoded into an owned [`Pending`].
    pub fn to_pending(&self) -> Pending {
        Pending {
            id: self.id,
            tool_call_id: self.tool_call_id.map(str::to_string),
            call: self.call(),
            verdict: self.verdict(),
            anchor: self.anchor,
            scopes: self.scopes(),
            created_ms: self.created_ms,
            deadline_ms: self.deadline_ms,
        }
    }
}

/// Serialized as [`Pending`] is.
impl Serialize for PendingRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_pending().serialize(s)
    }
}

/// What the registry stores for a pending approval besides its text (see [`PendingRef`]).
#[derive(Debug)]
struct Approval {
    id: RequestId,
    tool_call_id: Option<String>,
    anchor: Anchor,
    created_ms: u64,
    deadline_ms: u64,
    tier: Tier,
    hard_deny: bool,
    /// Where its text starts in [`Entries::text`], and how long it is.
    start: usize,
    len: usize,
    /// Where the tool, the args and the verdict end, relative to `start`.
    ends: [usize; 3],
}

/// Appends `v` as the JSON its `Serialize` derive writes (so its `Deserialize` reads it
/// back), without serde's per-field machinery: this runs on every request.
fn write_verdict(v: &Verdict, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"tier\":\"");
    out.extend_from_slice(v.tier.as_str().as_bytes());
    out.extend_from_slice(b"\",\"rule\":");
    write_json_str(&v.rule, out);
    out.extend_from_slice(b",\"reason\":");
    write_json_str(&v.reason, out);
    write_span(v.span, out);
    if !v.parts.is_empty() {
        out.extend_from_slice(b",\"parts\":[");
        for (i, p) in v.parts.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_part(p, out);
        }
        out.push(b']');
    }
    out.push(b'}');
}

fn write_part(p: &Part, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"tier\":\"");
    out.extend_from_slice(p.tier.as_str().as_bytes());
    out.extend_from_slice(b"\",\"text\":");
    write_json_str(&p.text, out);
    out.extend_from_slice(b",\"rule\":");
    write_json_str(&p.rule, out);
    out.extend_from_slice(b",\"reason\":");
    write_json_str(&p.reason, out);
    write_span(p.span, out);
    out.push(b'}');
}

fn write_span(span: Option<[usize; 2]>, out: &mut Vec<u8>) {
    if let Some([a, b]) = span {
        use std::io::Write;
        let _ = write!(out, ",\"span\":[{a},{b}]");
    }
}

fn write_str_array(items: &[String], out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(s, out);
    }
    out.push(b']');
}

/// A pending free-text question to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingQuestion {
    pub id: RequestId,
    pub question: String,
    pub created_ms: u64,
    pub deadline_ms: u64,
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

/// Hasher for [`RequestId`] keys: the ids are already uniformly random (and generated
/// by the registry's id source, not chosen by an attacker), so a multiply-fold is enough
/// and much cheaper than SipHash. Also for hosts that map ids to their waiters.
#[derive(Default)]
pub struct IdHasher(u64);

/// `BuildHasher` for maps keyed by [`RequestId`] (see [`IdHasher`]).
pub type IdBuildHasher = BuildHasherDefault<IdHasher>;

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

type IdMap<V> = HashMap<RequestId, V, IdBuildHasher>;

/// One pending request, or the hole one left behind.
#[derive(Debug)]
enum Entry {
    Approval(Approval),
    Question(PendingQuestion),
    Vacant,
}

impl Entry {
    fn id(&self) -> Option<RequestId> {
        match self {
            Entry::Approval(p) => Some(p.id),
            Entry::Question(q) => Some(q.id),
            Entry::Vacant => None,
        }
    }
}

/// Where an id stands: pending (at a position in [`Entries::list`]) or ended, with the
/// sequence number of its ending (remembered while that is at least
/// [`Entries::forgotten_below`], so that a late answer gets `already resolved: …`).
#[derive(Debug, Clone, Copy)]
enum IdState {
    Live(usize),
    Ended(Ended, u64),
}

/// Pending approvals and questions in creation order, with one id index for pending
/// and remembered ended ids alike: listing and cleanup need no sort, and ending a
/// request touches only the index bucket it already sits in.
/// Ending a request leaves a hole in the list; holes at either end are dropped at once,
/// holes in the middle when they outnumber the live entries (amortised O(1)).
#[derive(Debug, Default)]
struct Entries {
    list: VecDeque<Entry>,
    /// The approvals' texts, in creation order (see [`PendingRef`]). Ended requests'
    /// texts are `garbage` until the log is truncated or compacted.
    text: Vec<u8>,
    garbage: usize,
    /// `Live(p)`: the entry is at `list[p - base]` (positions survive pops at the front).
    index: IdMap<IdState>,
    /// Endings are numbered; those below this are forgotten. Forgetting an id only
    /// moves this mark (no lookup of the old id); forgotten ids are purged from the
    /// index in one sequential pass once they are many (amortised O(1)).
    forgotten_below: u64,
    next_ended_seq: u64,
    /// `Ended` states in the index, remembered or not yet purged.
    ended_in_index: usize,
    base: usize,
    holes: usize,
    approvals: usize,
    questions: usize,
}

impl Entries {
    fn len(&self) -> usize {
        self.approvals + self.questions
    }

    /// Pending or remembered as ended.
    fn known(&self, id: RequestId) -> bool {
        match self.index.get(&id) {
            Some(IdState::Live(_)) => true,
            Some(IdState::Ended(_, seq)) => *seq >= self.forgotten_below,
            None => false,
        }
    }

    fn is_pending(&self, id: RequestId) -> bool {
        matches!(self.index.get(&id), Some(IdState::Live(_)))
    }

    fn ended(&self, id: RequestId) -> Option<Ended> {
        match self.index.get(&id)? {
            IdState::Ended(e, seq) if *seq >= self.forgotten_below => Some(*e),
            IdState::Ended(..) | IdState::Live(_) => None,
        }
    }

    fn get(&self, id: RequestId) -> Option<&Entry> {
        match self.index.get(&id)? {
            IdState::Live(pos) => self.list.get(pos - self.base),
            IdState::Ended(..) => None,
        }
    }

    fn approval(&self, id: RequestId) -> Option<PendingRef<'_>> {
        match self.get(id)? {
            Entry::Approval(a) => Some(self.view(a)),
            Entry::Question(_) | Entry::Vacant => None,
        }
    }

    fn view<'a>(&'a self, a: &'a Approval) -> PendingRef<'a> {
        PendingRef {
            id: a.id,
            tool_call_id: a.tool_call_id.as_deref(),
            anchor: a.anchor,
            created_ms: a.created_ms,
            deadline_ms: a.deadline_ms,
            tier: a.tier,
            hard_deny: a.hard_deny,
            text: self.text.get(a.start..a.start + a.len).unwrap_or_default(),
            ends: a.ends,
        }
    }

    /// Pending approvals, oldest first.
    fn approvals(&self) -> impl Iterator<Item = PendingRef<'_>> {
        self.list.iter().filter_map(|e| match e {
            Entry::Approval(a) => Some(self.view(a)),
            Entry::Question(_) | Entry::Vacant => None,
        })
    }

    /// Adds a pending approval under a fresh id: its text goes to the end of the log.
    fn push_approval(&mut self, id: RequestId, new: NewRequest, created_ms: u64, deadline_ms: u64) {
        let text = &mut self.text;
        let start = text.len();
        text.extend_from_slice(new.call.tool.as_bytes());
        let tool_end = text.len() - start;
        canonical_json_to(&new.call.args, text);
        let args_end = text.len() - start;
        write_verdict(&new.verdict, text);
        let verdict_end = text.len() - start;
        write_str_array(&new.scopes, text);
        let len = text.len() - start;
        let args = text
            .get(start + tool_end..start + args_end)
            .unwrap_or_default();
        let approval = Approval {
            id,
            tool_call_id: new.tool_call_id,
            anchor: Anchor::from_canonical(&new.call.tool, args),
            created_ms,
            deadline_ms,
            tier: new.verdict.tier,
            hard_deny: new.verdict.is_hard_deny(),
            start,
            len,
            ends: [tool_end, args_end, verdict_end],
        };
        self.push(id, Entry::Approval(approval));
    }

    fn question(&self, id: RequestId) -> Option<&PendingQuestion> {
        match self.get(id)? {
            Entry::Question(q) => Some(q),
            Entry::Approval(_) | Entry::Vacant => None,
        }
    }

    /// Live entries, oldest first.
    fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.list.iter().filter(|e| !matches!(e, Entry::Vacant))
    }

    /// Adds a pending entry under a fresh id (see `Registry::fresh_id`); an approval's
    /// text must already be in the log.
    fn push(&mut self, id: RequestId, entry: Entry) {
        match &entry {
            Entry::Approval(_) => self.approvals += 1,
            Entry::Question(_) => self.questions += 1,
            Entry::Vacant => return,
        }
        let old = self
            .index
            .insert(id, IdState::Live(self.base + self.list.len()));
        if let Some(IdState::Ended(..)) = old {
            self.ended_in_index -= 1; // a forgotten id, drawn again
        }
        self.list.push_back(entry);
    }

    /// Removes `id` if it is a pending approval.
    fn remove_approval(&mut self, id: RequestId) -> Option<Approval> {
        match self.remove_if(id, |e| matches!(e, Entry::Approval(_)))? {
            Entry::Approval(p) => Some(p),
            Entry::Question(_) | Entry::Vacant => None,
        }
    }

    /// Removes `id` if it is a pending question.
    fn remove_question(&mut self, id: RequestId) -> Option<PendingQuestion> {
        match self.remove_if(id, |e| matches!(e, Entry::Question(_)))? {
            Entry::Question(q) => Some(q),
            Entry::Approval(_) | Entry::Vacant => None,
        }
    }

    /// Removes pending `id` when its entry is of the kind `want` accepts.
    fn remove_if(&mut self, id: RequestId, want: fn(&Entry) -> bool) -> Option<Entry> {
        if !want(self.get(id)?) {
            return None;
        }
        self.remove(id)
    }

    /// Removes pending `id` (its id becomes unknown until [`Entries::mark_ended`]).
    fn remove(&mut self, id: RequestId) -> Option<Entry> {
        let pos = match self.index.remove(&id)? {
            IdState::Live(pos) => pos,
            ended @ IdState::Ended(..) => {
                self.index.insert(id, ended); // not pending: stays as it was
                return None;
            }
        };
        let slot = self.list.get_mut(pos - self.base)?;
        let entry = std::mem::replace(slot, Entry::Vacant);
        match &entry {
            Entry::Approval(a) => {
                self.approvals -= 1;
                self.release_text(a.start, a.len);
            }
            Entry::Question(_) => self.questions -= 1,
            Entry::Vacant => return None,
        }
        self.holes += 1;
        while let Some(Entry::Vacant) = self.list.back() {
            self.list.pop_back();
            self.holes -= 1;
        }
        while let Some(Entry::Vacant) = self.list.front() {
            self.list.pop_front();
            self.base += 1;
            self.holes -= 1;
        }
        if self.holes > self.len() + 64 {
            self.compact();
        }
        Some(entry)
    }

    /// The text of an ended approval becomes garbage: dropped at once at the end of the
    /// log, else when garbage outweighs live text (amortised O(1) per byte).
    fn release_text(&mut self, start: usize, len: usize) {
        if start + len == self.text.len() {
            self.text.truncate(start);
        } else {
            self.garbage += len;
        }
        let live = self.text.len().saturating_sub(self.garbage);
        if live == 0 {
            self.garbage = 0;
            if self.text.capacity() > 64 * 1024 {
                self.text = Vec::new(); // give a high-water mark back
            } else {
                self.text.clear();
            }
        } else if self.garbage > live + 16 * 1024 {
            self.compact_text(live);
        }
    }

    /// Copies the live texts to a fresh log, in order.
    fn compact_text(&mut self, live: usize) {
        let old = std::mem::replace(&mut self.text, Vec::with_capacity(live));
        for e in self.list.iter_mut() {
            if let Entry::Approval(a) = e {
                let bytes = old.get(a.start..a.start + a.len).unwrap_or_default();
                a.start = self.text.len();
                self.text.extend_from_slice(bytes);
            }
        }
        self.garbage = 0;
    }

    fn compact(&mut self) {
        self.list.retain(|e| !matches!(e, Entry::Vacant));
        self.holes = 0;
        for (i, e) in self.list.iter().enumerate() {
            if let Some(slot) = e.id().and_then(|id| self.index.get_mut(&id)) {
                *slot = IdState::Live(self.base + i);
            }
        }
    }

    /// Remembers that `id` (no longer pending) ended this way; returns the ending's
    /// sequence number.
    fn mark_ended(&mut self, id: RequestId, ended: Ended) -> u64 {
        let seq = self.next_ended_seq;
        self.next_ended_seq += 1;
        if let Some(IdState::Ended(..)) = self.index.insert(id, IdState::Ended(ended, seq)) {
            self.ended_in_index -= 1;
        }
        self.ended_in_index += 1;
        seq
    }

    /// Forgets every ending numbered below `seq`; `remembered` endings remain.
    fn forget_below(&mut self, seq: u64, remembered: usize) {
        self.forgotten_below = self.forgotten_below.max(seq);
        let stale = self.ended_in_index.saturating_sub(remembered);
        if stale > 1024 + (self.len() + remembered) / 2 {
            let below = self.forgotten_below;
            self.index.retain(|_, st| match st {
                IdState::Live(_) => true,
                IdState::Ended(_, seq) => *seq >= below,
            });
            self.ended_in_index = remembered;
        }
    }

    /// Removes every pending entry, returning them oldest first. Remembered ended ids
    /// stay; the list and the index are rebuilt small rather than kept at their
    /// high-water mark.
    fn take_all(&mut self) -> impl Iterator<Item = Entry> {
        let list = std::mem::take(&mut self.list);
        let index = std::mem::take(&mut self.index);
        if !list.is_empty() {
            let below = self.forgotten_below;
            self.index = index
                .into_iter()
                .filter(|(_, st)| matches!(st, IdState::Ended(_, seq) if *seq >= below))
                .collect();
            self.ended_in_index = self.index.len();
        } else {
            self.index = index;
        }
        self.base = 0;
        self.holes = 0;
        self.approvals = 0;
        self.questions = 0;
        self.text = Vec::new();
        self.garbage = 0;
        list.into_iter().filter(|e| !matches!(e, Entry::Vacant))
    }
}

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
    pub fn get(&self, id: RequestId) -> Option<PendingRef<'_>> {
        self.entries.approval(id)
    }
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
        if now_ms >= pending.deadline_ms {
            return Err(Error::AlreadyResolved {
                id: id.to_string(),
                ended: Ended::Expired,
            });
        }
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
                    Tier::Ask => false,
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
                                assert_eq!(
                                    got,
                                    Some((bash(cmd), anchor.clone())),
                                    "{name} after {n}"
                                );
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
}
