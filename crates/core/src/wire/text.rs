//! The results' JSON text by hand (the wasm Gate's path), field for field what the
//! derives of [`super`] write; `tests::views_are_written_as_serde_writes_them` checks it.

use super::{
    CallResultView, DecidedCallView, DecisionView, MarkerView, ParkedView, PendingCallView,
    ResumedView, RunView,
};
use crate::call::push_json_str;
use crate::call::Anchor;
use crate::facts::{FsNeeds, Tree};
use crate::grant::Grant;
use crate::json_text::{push_u64, Obj, WriteJson};
use crate::marker::{Marker, MarkerRequest, PendingCall, MARKER_VERSION};
use crate::registry::{CleanupCounts, Outcome, QuestionOutcome, RequestId};
use crate::run::{DecidedCall, RecordOut, RunDecision, RunStatus};
use crate::verdict::Verdict;

impl WriteJson for RunView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("runId", self.run_id)
            .str("sessionId", self.session_id)
            .str("owner", self.owner)
            .str("status", self.status.as_str())
            .u64("revision", self.revision)
            .u64("updatedAt", self.updated_at)
            .opt_str("lastError", self.last_error)
            .opt_u64("resumedAt", self.resumed_at)
            .opt_u64("expiredAt", self.expired_at)
            .opt_field("decision", self.decision.as_ref())
            .opt_field("marker", self.marker.as_ref())
            .end();
    }
}

impl WriteJson for DecisionView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.opt_str("decidedBy", self.decided_by)
            .field("calls", &self.calls)
            .end();
    }
}

impl WriteJson for DecidedCallView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("toolCallId", self.tool_call_id)
            .str("tool", self.tool)
            .str("anchor", self.anchor)
            .str("outcome", self.outcome)
            .opt_str("scope", self.scope)
            .opt_str("message", self.message)
            .opt_str("answer", self.answer)
            .opt_field("editedFrom", self.edited_from)
            .end();
    }
}

impl WriteJson for MarkerView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.u64("createdAt", self.created_at)
            .u64("expiresAt", self.expires_at)
            .field("calls", &self.calls)
            .str("history", self.history)
            .end();
    }
}

/// `[a,b]`, as serde writes a `[usize; 2]`.
fn push_span(out: &mut String, [a, b]: [usize; 2]) {
    out.push('[');
    push_u64(out, a as u64);
    out.push(',');
    push_u64(out, b as u64);
    out.push(']');
}

/// A call's `span` and `spans`, each left out when absent (empty).
fn spans(o: &mut Obj<'_>, span: Option<[usize; 2]>, spans: &[[usize; 2]]) {
    if let Some(span) = span {
        push_span(o.key("span"), span);
    }
    if !spans.is_empty() {
        let out = o.key("spans");
        out.push('[');
        for (i, span) in spans.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_span(out, *span);
        }
        out.push(']');
    }
}

impl WriteJson for PendingCallView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("toolCallId", self.tool_call_id)
            .str("tool", self.tool)
            .field("args", self.args)
            .str("anchor", self.anchor)
            .str("tier", self.tier.as_str())
            .str("rule", self.rule)
            .str("reason", self.reason);
        spans(&mut o, self.span, self.spans);
        o.end();
    }
}

impl WriteJson for ParkedView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.field("run", &self.run)
            .str("stopReason", self.stop_reason.as_str())
            .end();
    }
}

impl WriteJson for ResumedView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("runId", self.run_id)
            .str("sessionId", self.session_id)
            .field("results", &self.results)
            .str("history", self.history)
            .u64("revision", self.revision)
            .end();
    }
}

impl WriteJson for CallResultView<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("toolCallId", self.tool_call_id)
            .str("tool", self.tool)
            .field("args", self.args)
            .str("outcome", self.outcome)
            .opt_str("scope", self.scope)
            .opt_str("message", self.message)
            .opt_str("answer", self.answer)
            .opt_str("toolResult", self.tool_result.as_deref())
            .opt_field("editedFrom", self.edited_from)
            .opt_str("grant", self.grant)
            .end();
    }
}

// The stored records (markers, settled runs, grants): snake_case as their derives write
// them, `tests::records_are_written_as_serde_writes_them` checks it.

impl WriteJson for PendingCall {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("tool_call_id", &self.tool_call_id)
            .str("tool", &self.tool)
            .field("args", &self.args)
            .str("anchor", &self.anchor)
            .str("tier", self.tier.as_str())
            .str("rule", &self.rule)
            .str("reason", &self.reason);
        spans(&mut o, self.span, &self.spans);
        o.end();
    }
}

impl WriteJson for MarkerRequest {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        let ids = o.key("tool_call_ids");
        ids.push('[');
        for (i, id) in self.tool_call_ids.iter().enumerate() {
            if i > 0 {
                ids.push(',');
            }
            push_json_str(ids, id);
        }
        ids.push(']');
        o.str("tool", &self.tool)
            .field("args", &self.args)
            .str("anchor", &self.anchor)
            .str("tier", self.tier.as_str())
            .str("rule", &self.rule)
            .str("reason", &self.reason)
            .end();
    }
}

impl WriteJson for Marker {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.u64("v", MARKER_VERSION)
            .str("run_id", &self.run_id)
            .str("session_id", &self.session_id)
            .str("owner", &self.owner)
            .str("status", RunStatus::AwaitingPermission.as_str())
            .u64("revision", self.revision)
            .u64("created_at", self.created_at)
            .u64("expires_at", self.expires_at)
            .field("request", &self.request())
            .field("calls", &self.calls)
            .str("history", &self.history)
            .opt_str("parked_by", self.parked_by.as_deref())
            .end();
    }
}

impl WriteJson for DecidedCall {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("tool_call_id", &self.tool_call_id)
            .str("tool", &self.tool)
            .str("anchor", &self.anchor)
            .str("outcome", &self.outcome)
            .opt_field("args", self.args.as_ref())
            .opt_field("edited_from", self.edited_from.as_ref())
            .opt_str("scope", self.scope.as_deref())
            .opt_str("message", self.message.as_deref())
            .opt_str("answer", self.answer.as_deref())
            .opt_str("grant", self.grant.as_deref())
            .end();
    }
}

impl WriteJson for RunDecision {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.opt_str("decided_by", self.decided_by.as_deref())
            .field("calls", &self.calls)
            .end();
    }
}

impl WriteJson for RecordOut<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.u64("v", self.v)
            .str("run_id", self.run_id)
            .str("session_id", self.session_id)
            .str("owner", self.owner)
            .str("status", self.status.as_str())
            .u64("revision", self.revision)
            .u64("updated_at", self.updated_at)
            .opt_str("last_error", self.last_error)
            .opt_u64("resumed_at", self.resumed_at)
            .opt_u64("expired_at", self.expired_at)
            .opt_field("decision", self.decision)
            .opt_str("history", self.history)
            .opt_str("parked_by", self.parked_by)
            .end();
    }
}

impl WriteJson for Grant {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("id", &self.id)
            .str("owner", &self.owner)
            .str("sessionId", &self.session_id)
            .str("rule", &self.rule)
            .str("matches", &self.matches)
            .str("askedBy", &self.asked_by)
            .u64("createdAt", self.created_at)
            .u64("expiresAt", self.expires_at)
            .bool("singleUse", self.single_use)
            .u64("used", u64::from(self.used))
            .opt_u64("revokedAt", self.revoked_at)
            .opt_str("by", self.by.as_deref())
            .opt_str("agent", self.agent.as_deref())
            .str("runId", &self.run_id)
            .str("toolCallId", &self.tool_call_id)
            .end();
    }
}

// The registry's and the classifier's values the wasm Gate hands out.

impl WriteJson for Verdict {
    fn write_json(&self, out: &mut String) {
        Verdict::write_json(self, out);
    }
}

impl WriteJson for RequestId {
    fn write_json(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "\"{self}\"");
    }
}

impl WriteJson for Anchor {
    fn write_json(&self, out: &mut String) {
        out.push('"');
        out.extend(self.hex().iter().map(|&b| char::from(b)));
        out.push('"');
    }
}

/// `"outcome":…` and a denial's `"message"`, as the tagged enum writes them (a field of
/// the object being written, or of one it is flattened into).
pub fn outcome_fields(o: &mut Obj<'_>, outcome: &Outcome) {
    match outcome {
        Outcome::Approved => o.str("outcome", "approved"),
        Outcome::Denied { message } => o
            .str("outcome", "denied")
            .opt_str("message", message.as_deref()),
        Outcome::Expired => o.str("outcome", "expired"),
        Outcome::Cancelled => o.str("outcome", "cancelled"),
    };
}

impl WriteJson for QuestionOutcome {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        match self {
            QuestionOutcome::Answered { answer } => {
                o.str("outcome", "answered").str("answer", answer)
            }
            QuestionOutcome::Expired => o.str("outcome", "expired"),
            QuestionOutcome::Cancelled => o.str("outcome", "cancelled"),
        };
        o.end();
    }
}

impl WriteJson for CleanupCounts {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.u64("approvals", self.approvals as u64)
            .u64("questions", self.questions as u64)
            .u64("slots", self.slots as u64)
            .end();
    }
}

impl WriteJson for Tree {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("root", &self.root)
            .bool("hidden", self.hidden)
            .bool("ignore", self.ignore)
            .end();
    }
}

/// A set as serde writes it: a list in the set's order.
fn push_list<'a, T: WriteJson + 'a>(out: &mut String, items: impl Iterator<Item = &'a T>) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        item.write_json(out);
    }
    out.push(']');
}

impl WriteJson for FsNeeds {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        push_list(o.key("paths"), self.paths.iter());
        push_list(o.key("trees"), self.trees.iter());
        #[cfg(feature = "repo-facts")]
        push_list(o.key("repos"), self.repos.iter());
        o.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{CallOutcome, CallResult};
    use crate::json_text::any_value;
    use crate::marker::Marker;
    use crate::marker::PendingCall;
    use crate::run::{DecidedCall, RunDecision};
    use crate::run::{Run, RunStatus, StopReason};
    use crate::runs::{Parked, Resumed};
    use crate::verdict::Tier;
    use proptest::collection::vec;
    use proptest::option::of;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        "[a-z\"\\\\\u{1}\u{1f}é\u{2028}]{0,6}"
    }

    fn span() -> impl Strategy<Value = [usize; 2]> {
        any::<[usize; 2]>()
    }

    fn pending_call() -> impl Strategy<Value = PendingCall> {
        let tier = prop_oneof![
            Just(Tier::Auto),
            Just(Tier::Ask),
            Just(Tier::Deny),
            Just(Tier::Sandbox)
        ];
        (
            (text(), text(), any_value(), text()),
            (tier, text(), text(), of(span()), vec(span(), 0..3)),
        )
            .prop_map(
                |((tool_call_id, tool, args, anchor), (tier, rule, reason, span, spans))| {
                    PendingCall {
                        tool_call_id,
                        tool,
                        args,
                        anchor,
                        tier,
                        rule,
                        reason,
                        span,
                        spans,
                    }
                },
            )
    }

    fn decided_call() -> impl Strategy<Value = DecidedCall> {
        (
            (text(), text(), text(), text()),
            (
                of(any_value()),
                of(any_value()),
                of(text()),
                of(text()),
                of(text()),
            ),
        )
            .prop_map(
                |(
                    (tool_call_id, tool, anchor, outcome),
                    (args, edited_from, scope, message, answer),
                )| {
                    DecidedCall {
                        tool_call_id,
                        tool,
                        anchor,
                        outcome,
                        args,
                        edited_from,
                        scope,
                        message,
                        answer,
                        grant: None,
                    }
                },
            )
    }

    fn run() -> impl Strategy<Value = Run> {
        let status = proptest::sample::select(RunStatus::ALL.to_vec());
        let marker = (
            any::<u64>(),
            any::<u64>(),
            vec(pending_call(), 0..3),
            text(),
            of(text()),
        )
            .prop_map(
                |(created_at, expires_at, calls, history, parked_by)| Marker {
                    run_id: "r".into(),
                    session_id: "s".into(),
                    owner: "o".into(),
                    revision: 1,
                    created_at,
                    expires_at,
                    calls,
                    history,
                    parked_by,
                },
            );
        let decision = (of(text()), vec(decided_call(), 0..3))
            .prop_map(|(decided_by, calls)| RunDecision { decided_by, calls });
        (
            (text(), text(), text(), status, any::<u64>(), any::<u64>()),
            (
                of(text()),
                of(any::<u64>()),
                of(any::<u64>()),
                of(decision),
                of(marker),
                (of(text()), of(text())),
            ),
        )
            .prop_map(
                |(
                    (run_id, session_id, owner, status, revision, updated_at),
                    (last_error, resumed_at, expired_at, decision, marker, (history, parked_by)),
                )| Run {
                    run_id,
                    session_id,
                    owner,
                    status,
                    revision,
                    updated_at,
                    last_error,
                    resumed_at,
                    expired_at,
                    decision,
                    history,
                    marker,
                    parked_by,
                },
            )
    }

    fn call_result() -> impl Strategy<Value = CallResult> {
        let outcome = prop_oneof![
            of(text()).prop_map(|scope| CallOutcome::Approved { scope }),
            text().prop_map(|message| CallOutcome::Denied { message }),
            Just(CallOutcome::Expired),
            text().prop_map(|answer| CallOutcome::Answered { answer }),
        ];
        (
            text(),
            text(),
            any_value(),
            outcome,
            of(any_value()),
            of(text()),
        )
            .prop_map(|(tool_call_id, tool, args, outcome, edited_from, grant)| {
                CallResult {
                    tool_call_id,
                    tool,
                    args,
                    outcome,
                    edited_from,
                    grant,
                }
            })
    }

    fn grant() -> impl Strategy<Value = Grant> {
        (
            (text(), text(), text(), text(), text(), text()),
            (
                any::<u64>(),
                any::<u64>(),
                any::<bool>(),
                any::<u32>(),
                of(any::<u64>()),
            ),
            (of(text()), of(text()), text(), text()),
        )
            .prop_map(
                |(
                    (id, owner, session_id, rule, matches, asked_by),
                    (created_at, expires_at, single_use, used, revoked_at),
                    (by, agent, run_id, tool_call_id),
                )| Grant {
                    id,
                    owner,
                    session_id,
                    rule,
                    matches,
                    asked_by,
                    created_at,
                    expires_at,
                    single_use,
                    used,
                    revoked_at,
                    by,
                    agent,
                    run_id,
                    tool_call_id,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// The registry's and the classifier's values as their `Serialize` writes them.
        #[test]
        fn values_are_written_as_serde_writes_them(
            id in any::<u128>(),
            args in any_value(),
            message in of(text()),
            answer in text(),
            counts in any::<[u32; 3]>(),
            paths in vec(text(), 0..3),
            trees in vec((text(), any::<bool>(), any::<bool>()), 0..3),
        ) {
            let id = RequestId::from_u128(id);
            prop_assert_eq!(id.to_json(), serde_json::to_string(&id).unwrap());
            let anchor = Anchor::new("bash", &args);
            prop_assert_eq!(anchor.to_json(), serde_json::to_string(&anchor).unwrap());
            for outcome in [Outcome::Approved, Outcome::Denied { message }, Outcome::Expired, Outcome::Cancelled] {
                let mut out = String::new();
                let mut o = Obj::new(&mut out);
                outcome_fields(&mut o, &outcome);
                o.end();
                prop_assert_eq!(out, serde_json::to_string(&outcome).unwrap());
            }
            for q in [QuestionOutcome::Answered { answer }, QuestionOutcome::Expired, QuestionOutcome::Cancelled] {
                prop_assert_eq!(q.to_json(), serde_json::to_string(&q).unwrap());
            }
            let [a, q, s] = counts.map(|n| n as usize);
            let counts = CleanupCounts { approvals: a, questions: q, slots: s };
            prop_assert_eq!(counts.to_json(), serde_json::to_string(&counts).unwrap());
            let mut needs = FsNeeds::default();
            needs.paths.extend(paths.iter().cloned());
            needs.repos.extend(paths);
            needs.trees.extend(trees.into_iter().map(|(root, hidden, ignore)| Tree { root, hidden, ignore }));
            prop_assert_eq!(needs.to_json(), serde_json::to_string(&needs).unwrap());
            let scopes = vec!["Bash(git:*)".to_string(), "a\"b".to_string()];
            prop_assert_eq!(scopes.to_json(), serde_json::to_string(&scopes).unwrap());
        }

        /// The stored records' text by hand is what their `Serialize` writes.
        #[test]
        fn records_are_written_as_serde_writes_them(run in run(), grant in grant()) {
            if let Some(marker) = &run.marker {
                prop_assert_eq!(marker.to_json(), serde_json::to_string(marker).unwrap());
            }
            let record = RecordOut {
                v: MARKER_VERSION,
                run_id: &run.run_id,
                session_id: &run.session_id,
                owner: &run.owner,
                status: run.status,
                revision: run.revision,
                updated_at: run.updated_at,
                last_error: run.last_error.as_deref(),
                resumed_at: run.resumed_at,
                expired_at: run.expired_at,
                decision: run.decision.as_ref(),
                history: run.history.as_deref(),
                parked_by: run.parked_by.as_deref(),
            };
            prop_assert_eq!(record.to_json(), serde_json::to_string(&record).unwrap());
            prop_assert_eq!(grant.to_json(), serde_json::to_string(&grant).unwrap());
        }

        /// The results' text by hand is the derives' text, byte for byte.
        #[test]
        fn views_are_written_as_serde_writes_them(run in run(), results in vec(call_result(), 0..3), history in text(), revision in any::<u64>()) {
            let view = RunView::from(&run);
            prop_assert_eq!(view.to_json(), serde_json::to_string(&view).unwrap());
            let parked = Parked { run, stop_reason: StopReason::Paused };
            let view = ParkedView::from(&parked);
            prop_assert_eq!(view.to_json(), serde_json::to_string(&view).unwrap());
            let resumed = Resumed { run_id: "r\"1".into(), session_id: "s".into(), results, history, revision };
            let view = ResumedView::from(&resumed);
            prop_assert_eq!(view.to_json(), serde_json::to_string(&view).unwrap());
        }
    }
}
