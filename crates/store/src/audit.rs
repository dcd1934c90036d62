//! The audit trail's rows: what a compare-and-swap that takes a run out of
//! `awaiting_permission` ended, derived from the old document (the marker: each call's
//! anchor, rule and reason) and the new one (the outcome, who decided). Pure: the stores
//! insert these rows in the transaction of the write itself.

use serde::Serialize;
use toolgate_core::marker::AnyHistory;
use toolgate_core::{Run, RunStatus};

/// One request's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// When (ms since the epoch): the new record's `updated_at`.
    pub at: u64,
    pub run_id: String,
    pub owner: String,
    pub session_id: String,
    /// The revision the ending write created.
    pub revision: u64,
    pub tool_call_id: String,
    pub tool: String,
    /// `approved`, `denied`, `expired`, `cancelled` or `failed`.
    pub outcome: String,
    /// The name of who decided (approved or denied); none for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The anchor of the arguments the request was for.
    pub anchor: String,
    pub rule: String,
    pub reason: String,
    /// The denial's message, or why the run was cancelled or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The agent that asked (the marker's `parked_by`), when the host named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
}

/// The rows for a write from `old` (the stored document) to `new`; none unless `old`
/// awaited permission and `new` does not. A corrupt `old` that `new` fails gives one
/// row with no call.
pub fn rows(old: &str, new: &str) -> Vec<AuditRecord> {
    let Ok(new) = Run::decode(new, &AnyHistory) else {
        return Vec::new();
    };
    if new.status == RunStatus::AwaitingPermission {
        return Vec::new();
    }
    let base = |tool_call_id: &str, tool: &str| AuditRecord {
        at: new.updated_at,
        run_id: new.run_id.clone(),
        owner: new.owner.clone(),
        session_id: new.session_id.clone(),
        revision: new.revision,
        tool_call_id: tool_call_id.to_string(),
        tool: tool.to_string(),
        outcome: String::new(),
        decided_by: None,
        anchor: String::new(),
        rule: String::new(),
        reason: String::new(),
        message: None,
        asked_by: None,
    };
    let old = match Run::decode(old, &AnyHistory) {
        Ok(old) => old,
        Err(_) => {
            // Only a heal writes over an unreadable record, and it writes `failed`.
            if new.status != RunStatus::Failed {
                return Vec::new();
            }
            let mut row = base("", "");
            row.outcome = "failed".to_string();
            row.message = new.last_error.clone();
            return vec![row];
        }
    };
    let Some(marker) = old.marker.as_ref() else {
        return Vec::new();
    };
    marker
        .calls
        .iter()
        .map(|c| {
            let mut row = base(&c.tool_call_id, &c.tool);
            row.anchor = c.anchor.clone();
            row.rule = c.rule.clone();
            row.reason = c.reason.clone();
            row.asked_by = marker.parked_by.clone();
            let decided = new
                .decision
                .as_ref()
                .and_then(|d| d.calls.iter().find(|dc| dc.tool_call_id == c.tool_call_id));
            match (new.status, decided) {
                (RunStatus::Running, Some(d)) => {
                    row.outcome = d.outcome.clone();
                    row.decided_by = new.decision.as_ref().and_then(|d| d.decided_by.clone());
                    row.message = d.message.clone();
                }
                (RunStatus::Cancelled, _) if new.expired_at.is_some() => {
                    row.outcome = "expired".to_string();
                }
                (RunStatus::Cancelled, _) => {
                    row.outcome = "cancelled".to_string();
                    row.message = new.last_error.clone();
                }
                (RunStatus::Failed, _) => {
                    row.outcome = "failed".to_string();
                    row.message = new.last_error.clone();
                }
                // A resume that recorded no decision (a record from before decisions
                // were kept), or a status the transition table does not allow.
                (RunStatus::Running | RunStatus::Completed | RunStatus::AwaitingPermission, _) => {
                    row.outcome = "resumed".to_string();
                }
            }
            row
        })
        .collect()
}
