//! The approvals half of a gate's Rust API: checks, responses, questions, pending
//! lists, cleanup and change listeners.

use super::*;

/// The approvals half of the Rust API (also used by the JS methods of `bindings.rs`).
impl Gate {
    /// Classifies `call` (with this session's rules) and, if it is `ask`, holds it until
    /// a response, expiry or cleanup. `auto` and `deny` resolve at once.
    pub fn check_call(
        &self,
        call: ToolCall,
        tool_call_id: Option<String>,
    ) -> Result<CheckFuture, GateError> {
        self.check_call_with_facts(call, tool_call_id, &toolgate_core::facts::FsFacts::new())
    }

    /// [`Gate::check_call`] classifying with what the host found on its file system.
    pub fn check_call_with_facts(
        &self,
        call: ToolCall,
        tool_call_id: Option<String>,
        facts: &toolgate_core::facts::FsFacts,
    ) -> Result<CheckFuture, GateError> {
        let inner = &self.inner;
        inner.with(|st| {
            if st.disposed {
                return Err(GateError::Disposed);
            }
            let now = now_ms();
            let verdict = st.registry.classify_with_facts(&inner.policy, &call, facts);
            let (tx, rx) = oneshot::channel();
            let mut fut = CheckFuture {
                id: None,
                verdict,
                tool_call_id,
                rx,
            };
            match fut.verdict.tier {
                Tier::Auto => {
                    let swept = match &fut.tool_call_id {
                        Some(t) => st.registry.reserve_slot(t.clone(), call.anchor(), now),
                        None => Vec::new(),
                    };
                    tx.send(Outcome::Approved);
                    Ok((fut, swept, false))
                }
                Tier::Deny => {
                    tx.send(Outcome::Denied {
                        message: Some(fut.verdict.reason.to_string()),
                    });
                    Ok((fut, Vec::new(), false))
                }
                Tier::Sandbox | Tier::Ask => {
                    let scopes = inner.policy.scopes(&call);
                    let new = NewRequest {
                        call,
                        verdict: fut.verdict.clone(),
                        tool_call_id: fut.tool_call_id.clone(),
                        scopes,
                    };
                    let got = st.registry.request(new, inner.timeout_ms, now)?;
                    st.waiters.insert(got.id, Waiter::Approval(tx));
                    fut.id = Some(got.id);
                    Ok((fut, got.expired, true))
                }
            }
        })
    }

    /// Answers pending request `id` (its 32-hex-digit id). Returns how many requests
    /// this settled (more than one when an always-rule covers others).
    pub fn respond_to(
        &self,
        id: &str,
        decision: Decision,
        anchor: &str,
    ) -> Result<usize, GateError> {
        let id = parse_id(id)?;
        let inner = &self.inner;
        inner.with(|st| {
            let settled = st
                .registry
                .respond(id, decision, anchor, &inner.policy, now_ms())?;
            Ok((settled.len(), settled, true))
        })
    }

    /// Asks the user a free-text question; resolves to the answer or to nothing.
    pub fn ask_question(
        &self,
        question: String,
        timeout_ms: Option<u64>,
    ) -> Result<impl Future<Output = QuestionOutcome> + 'static, GateError> {
        let inner = &self.inner;
        let rx = inner.with(|st| {
            if st.disposed {
                return Err(GateError::Disposed);
            }
            let got =
                st.registry
                    .ask(question, timeout_ms.unwrap_or(inner.timeout_ms), now_ms())?;
            let (tx, rx) = oneshot::channel();
            st.waiters.insert(got.id, Waiter::Question(tx));
            Ok((rx, got.expired, true))
        })?;
        Ok(async move { rx.await.unwrap_or(QuestionOutcome::Cancelled) })
    }

    /// Answers question `id`.
    pub fn answer_question(&self, id: &str, text: String) -> Result<(), GateError> {
        let id = parse_id(id)?;
        self.inner.with(|st| {
            let settled = st.registry.answer(id, text, now_ms())?;
            Ok(((), settled, true))
        })
    }

    /// Cancels one pending request or question.
    pub fn cancel_request(&self, id: &str) -> Result<(), GateError> {
        let id = parse_id(id)?;
        self.inner.with(|st| {
            let settled = st.registry.cancel(id, now_ms())?;
            Ok(((), settled, true))
        })
    }

    /// Pending approvals, oldest first.
    pub fn pending_requests(&self) -> Vec<Pending> {
        let st = self.inner.state.borrow();
        st.registry
            .pending()
            .iter()
            .map(|p| p.to_pending())
            .collect()
    }

    /// Pending questions, oldest first.
    pub fn pending_questions(&self) -> Vec<PendingQuestion> {
        let st = self.inner.state.borrow();
        st.registry.questions().into_iter().cloned().collect()
    }

    /// Force-resolves everything pending (approvals → cancelled), returns the counts.
    /// The gate stays usable.
    pub fn cleanup_counts(&self) -> CleanupCounts {
        self.inner
            .with(|st| {
                let c = st.registry.cleanup(now_ms());
                Ok((c.counts, c.settled, false))
            })
            .unwrap_or_default()
    }

    /// Resolves, then removes, entries older than `max_age_ms` (as expired).
    pub fn cleanup_stale_counts(&self, max_age_ms: u64) -> CleanupCounts {
        self.inner
            .with(|st| {
                let c = st.registry.cleanup_stale(max_age_ms, now_ms());
                Ok((c.counts, c.settled, false))
            })
            .unwrap_or_default()
    }

    /// Calls `f` after every change (new request, settled request). Dropping the
    /// returned [`Subscription`] unsubscribes.
    pub fn subscribe(&self, f: impl Fn() + 'static) -> Subscription {
        let id = self.add_listener(Listener::Rust(Rc::new(f)));
        Subscription {
            gate: Rc::downgrade(&self.inner),
            id,
        }
    }

    pub(super) fn add_listener(&self, l: Listener) -> u32 {
        let mut st = self.inner.state.borrow_mut();
        if st.disposed {
            return u32::MAX;
        }
        st.next_listener = st.next_listener.wrapping_add(1);
        let id = st.next_listener;
        st.listeners.push((id, Rc::new(l)));
        id
    }
}

pub(super) fn remove_listener(gate: &Weak<Inner>, id: u32) {
    if let Some(inner) = gate.upgrade() {
        if let Ok(mut st) = inner.state.try_borrow_mut() {
            st.listeners.retain(|(i, _)| *i != id);
        }
    }
}

pub(super) fn parse_id(id: &str) -> Result<RequestId, GateError> {
    RequestId::parse(id)
        .ok_or_else(|| GateError::Core(toolgate_core::Error::UnknownId { id: id.to_string() }))
}

/// A change subscription; unsubscribes on drop.
#[must_use = "dropping the subscription unsubscribes"]
pub struct Subscription {
    gate: Weak<Inner>,
    id: u32,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        remove_listener(&self.gate, self.id);
    }
}
