//! The arena of requests: pending approvals and questions by id, the deadline heap, and the ids of ended requests remembered for `already resolved` errors.

use super::encode::{write_str_array, write_verdict};
use super::id::{IdMap, RequestId};
use super::types::{NewRequest, PendingQuestion, PendingRef};
use crate::call::{canonical_json_to, Anchor};
use crate::status::Ended;
use crate::verdict::Tier;
use std::collections::VecDeque;

/// What the registry stores for a pending approval besides its text (see [`PendingRef`]).
#[derive(Debug)]
pub(super) struct Approval {
    pub(super) id: RequestId,
    pub(super) tool_call_id: Option<String>,
    pub(super) anchor: Anchor,
    pub(super) created_ms: u64,
    pub(super) deadline_ms: u64,
    pub(super) tier: Tier,
    pub(super) hard_deny: bool,
    /// Where its text starts in [`Entries::text`], and how long it is.
    pub(super) start: usize,
    pub(super) len: usize,
    /// Where the tool, the args and the verdict end, relative to `start`.
    pub(super) ends: [usize; 3],
}

/// One pending request, or the hole one left behind.
#[derive(Debug)]
pub(super) enum Entry {
    Approval(Approval),
    Question(PendingQuestion),
    Vacant,
}

impl Entry {
    pub(super) fn id(&self) -> Option<RequestId> {
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
pub(super) enum IdState {
    Live(usize),
    Ended(Ended, u64),
}

/// Pending approvals and questions in creation order, with one id index for pending
/// and remembered ended ids alike: listing and cleanup need no sort, and ending a
/// request touches only the index bucket it already sits in.
/// Ending a request leaves a hole in the list; holes at either end are dropped at once,
/// holes in the middle when they outnumber the live entries (amortised O(1)).
#[derive(Debug, Default)]
pub(super) struct Entries {
    pub(super) list: VecDeque<Entry>,
    /// The approvals' texts, in creation order (see [`PendingRef`]). Ended requests'
    /// texts are `garbage` until the log is truncated or compacted.
    pub(super) text: Vec<u8>,
    pub(super) garbage: usize,
    /// `Live(p)`: the entry is at `list[p - base]` (positions survive pops at the front).
    pub(super) index: IdMap<IdState>,
    /// Endings are numbered; those below this are forgotten. Forgetting an id only
    /// moves this mark (no lookup of the old id); forgotten ids are purged from the
    /// index in one sequential pass once they are many (amortised O(1)).
    pub(super) forgotten_below: u64,
    pub(super) next_ended_seq: u64,
    /// `Ended` states in the index, remembered or not yet purged.
    pub(super) ended_in_index: usize,
    pub(super) base: usize,
    pub(super) holes: usize,
    pub(super) approvals: usize,
    pub(super) questions: usize,
}

impl Entries {
    pub(super) fn len(&self) -> usize {
        self.approvals + self.questions
    }

    /// Pending or remembered as ended.
    pub(super) fn known(&self, id: RequestId) -> bool {
        match self.index.get(&id) {
            Some(IdState::Live(_)) => true,
            Some(IdState::Ended(_, seq)) => *seq >= self.forgotten_below,
            None => false,
        }
    }

    pub(super) fn is_pending(&self, id: RequestId) -> bool {
        matches!(self.index.get(&id), Some(IdState::Live(_)))
    }

    pub(super) fn ended(&self, id: RequestId) -> Option<Ended> {
        match self.index.get(&id)? {
            IdState::Ended(e, seq) if *seq >= self.forgotten_below => Some(*e),
            IdState::Ended(..) | IdState::Live(_) => None,
        }
    }

    pub(super) fn get(&self, id: RequestId) -> Option<&Entry> {
        match self.index.get(&id)? {
            IdState::Live(pos) => self.list.get(pos - self.base),
            IdState::Ended(..) => None,
        }
    }

    pub(super) fn approval(&self, id: RequestId) -> Option<PendingRef<'_>> {
        match self.get(id)? {
            Entry::Approval(a) => Some(self.view(a)),
            Entry::Question(_) | Entry::Vacant => None,
        }
    }

    pub(super) fn view<'a>(&'a self, a: &'a Approval) -> PendingRef<'a> {
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
    pub(super) fn approvals(&self) -> impl Iterator<Item = PendingRef<'_>> {
        self.list.iter().filter_map(|e| match e {
            Entry::Approval(a) => Some(self.view(a)),
            Entry::Question(_) | Entry::Vacant => None,
        })
    }

    /// Adds a pending approval under a fresh id: its text goes to the end of the log.
    pub(super) fn push_approval(
        &mut self,
        id: RequestId,
        new: NewRequest,
        created_ms: u64,
        deadline_ms: u64,
    ) {
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

    pub(super) fn question(&self, id: RequestId) -> Option<&PendingQuestion> {
        match self.get(id)? {
            Entry::Question(q) => Some(q),
            Entry::Approval(_) | Entry::Vacant => None,
        }
    }

    /// Live entries, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.list.iter().filter(|e| !matches!(e, Entry::Vacant))
    }

    /// Adds a pending entry under a fresh id (see `Registry::fresh_id`); an approval's
    /// text must already be in the log.
    pub(super) fn push(&mut self, id: RequestId, entry: Entry) {
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
    pub(super) fn remove_approval(&mut self, id: RequestId) -> Option<Approval> {
        match self.remove_if(id, |e| matches!(e, Entry::Approval(_)))? {
            Entry::Approval(p) => Some(p),
            Entry::Question(_) | Entry::Vacant => None,
        }
    }

    /// Removes `id` if it is a pending question.
    pub(super) fn remove_question(&mut self, id: RequestId) -> Option<PendingQuestion> {
        match self.remove_if(id, |e| matches!(e, Entry::Question(_)))? {
            Entry::Question(q) => Some(q),
            Entry::Approval(_) | Entry::Vacant => None,
        }
    }

    /// Removes pending `id` when its entry is of the kind `want` accepts.
    pub(super) fn remove_if(&mut self, id: RequestId, want: fn(&Entry) -> bool) -> Option<Entry> {
        if !want(self.get(id)?) {
            return None;
        }
        self.remove(id)
    }

    /// Removes pending `id` (its id becomes unknown until [`Entries::mark_ended`]).
    pub(super) fn remove(&mut self, id: RequestId) -> Option<Entry> {
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
    pub(super) fn release_text(&mut self, start: usize, len: usize) {
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
    pub(super) fn compact_text(&mut self, live: usize) {
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

    pub(super) fn compact(&mut self) {
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
    pub(super) fn mark_ended(&mut self, id: RequestId, ended: Ended) -> u64 {
        let seq = self.next_ended_seq;
        self.next_ended_seq += 1;
        if let Some(IdState::Ended(..)) = self.index.insert(id, IdState::Ended(ended, seq)) {
            self.ended_in_index -= 1;
        }
        self.ended_in_index += 1;
        seq
    }

    /// Forgets every ending numbered below `seq`; `remembered` endings remain.
    pub(super) fn forget_below(&mut self, seq: u64, remembered: usize) {
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
    pub(super) fn take_all(&mut self) -> impl Iterator<Item = Entry> {
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
