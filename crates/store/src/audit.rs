//! The audit trail's rows: what a compare-and-swap that takes a run out of
//! `awaiting_permission` ended, derived from the old document (the marker: each call's
//! anchor, rule and reason) and the new one (the outcome, who decided). Pure: the stores
//! insert these rows in the transaction of the write itself.

use serde::Serialize;
use sha2::{Digest, Sha256};
use toolgate_core::marker::AnyHistory;
use toolgate_core::{Run, RunStatus};

/// One request's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// When (ms since the epoch): the new record's `updated_at`.
    pub at: u64,
    /// The run's id.
    pub run_id: String,
    /// Whose run it is.
    pub owner: String,
    /// The session it belongs to.
    pub session_id: String,
    /// The revision the ending write created.
    pub revision: u64,
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// `approved`, `denied`, `answered` (a question), `expired`, `cancelled` or `failed`.
    pub outcome: String,
    /// The name of who decided (approved or denied); none for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The anchor of the arguments the request was for.
    pub anchor: String,
    /// The rule that asked.
    pub rule: String,
    /// Why it asked.
    pub reason: String,
    /// The denial's message, a question's answer, or why the run was cancelled or
    /// failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The agent that asked (the marker's `parked_by`), when the host named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
    /// The anchor of the call that ran, when the person approved an edit of the parked
    /// one (`anchor`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_anchor: Option<String>,
    /// The grant that approved it (a person's earlier "always allow"), or that this
    /// approval gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
}

/// The link of `record` in the audit chain after `prev` (the previous record's link,
/// `""` for the first): SHA-256 (hex) of `prev`, a newline and the record's JSON. An
/// edited record no longer matches its link; a deleted one breaks the next record's.
pub fn link(prev: &str, record: &AuditRecord) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    // The JSON of a struct: its fields in declaration order, always the same bytes.
    h.update(serde_json::to_string(record).unwrap_or_default().as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What [`SqlStore::verify_audit`](crate::SqlStore::verify_audit) found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditCheck {
    /// Records read.
    pub records: u64,
    /// The last record's link (none: no record).
    pub head: Option<String>,
    /// The first thing wrong, in words (none: the chain holds).
    pub problem: Option<String>,
}

/// Walks `rows` (id, prev_hash, hash, record) in id order against the stored head
/// (`head_id`, `head_hash`): the first record whose hash does not match its contents
/// (edited), whose prev_hash is not the previous record's hash (one before it deleted
/// or edited), or a head that names a record past the last (the last deleted).
pub(crate) fn check_chain(
    rows: impl IntoIterator<Item = (i64, Option<String>, Option<String>, AuditRecord)>,
    head: Option<(i64, String)>,
) -> AuditCheck {
    let mut prev = String::new();
    let mut records = 0u64;
    let mut last_id = None;
    let mut problem = None;
    for (id, prev_hash, hash, record) in rows {
        records += 1;
        if problem.is_some() {
            continue;
        }
        if prev_hash.as_deref().unwrap_or("") != prev {
            problem = Some(format!(
                "record {id}: the record before it was deleted or edited (its prev_hash is not the previous record's hash)"
            ));
        } else if hash.as_deref() != Some(link(&prev, &record).as_str()) {
            problem = Some(format!(
                "record {id}: edited (its hash does not match its contents)"
            ));
        }
        prev = hash.unwrap_or_default();
        last_id = Some(id);
    }
    if problem.is_none() {
        match (&head, last_id) {
            (Some((head_id, head_hash)), Some(last)) if *head_id != last || *head_hash != prev => {
                problem = Some(format!(
                    "the chain ends at record {last}, but its head names record {head_id}: the last record(s) were deleted"
                ));
            }
            (Some((head_id, _)), None) => {
                problem = Some(format!(
                    "no records, but the chain's head names record {head_id}: they were deleted"
                ));
            }
            _ => {}
        }
    }
    AuditCheck {
        records,
        head: (records > 0).then_some(prev),
        problem,
    }
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
        edited_anchor: None,
        grant: None,
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
                    row.message = d.message.clone().or_else(|| d.answer.clone());
                    // An approved edit: the anchor of what ran (its arguments are in
                    // the run's decision, which a server's runs keep).
                    row.edited_anchor = d
                        .edited_from
                        .as_ref()
                        .and(d.args.as_ref())
                        .map(|args| toolgate_core::anchor(&c.tool, args));
                    row.grant = d.grant.clone();
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
