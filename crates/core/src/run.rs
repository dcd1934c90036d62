//! Run states and the run record a [`crate::store::MarkerStore`] holds (one per run).
//!
//! The stored document of a run (a string value under the run id):
//! - while `awaiting_permission`: exactly the permission marker (see [`crate::marker`]),
//!   so the UI can render the prompt from the stored value alone;
//! - otherwise a small record with no request (and no history, but for one case below):
//!   `{"v":1,"run_id":"r-1","session_id":"s-1","owner":"alice","status":"failed",
//!   "revision":2,"updated_at":5000,"last_error":"…"}` with optional `last_error`
//!   (why a run failed or was cancelled), `resumed_at` (set by the resume that cleared
//!   the marker), `decision` (what that resume decided, per call, and who: an agent
//!   that parked over HTTP reads its answer here) and `expired_at` (set when an
//!   expired marker cancelled the run). A run cancelled by an expired marker also keeps
//!   that marker's `history`, and its `decision` says `expired` for each call, until the
//!   host takes them, once, by resuming with no decisions ([`crate::Runs::resume`]): the
//!   agent can then tell its model "not approved: nobody answered in time".
//!
//! The document's `revision` always equals the revision the store keeps beside it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::fields::{self, Fields};
use crate::marker::{self, HistoryCheck, Marker, MARKER_VERSION};
pub use crate::status::RunStatus;

/// Why a turn ended without finishing the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The run was parked; it continues after `resume`.
    Paused,
}

impl StopReason {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Paused => "paused",
        }
    }
}

/// A run as stored and as shown (`gate.run(runId)`): its status, and its marker while
/// it awaits permission. `marker` is `Some` exactly when `status` is
/// `awaiting_permission`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// The run's id.
    pub run_id: String,
    /// The session it belongs to.
    pub session_id: String,
    /// Whose run it is.
    pub owner: String,
    /// Where it is in its lifecycle.
    pub status: RunStatus,
    /// The store revision of this record (compare-and-swap token).
    pub revision: u64,
    /// When the status last changed (ms). For a parked run, the marker's `created_at`.
    pub updated_at: u64,
    /// Why the run failed or was cancelled, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last resume cleared the marker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<u64>,
    /// The `expires_at` of a marker that expired, cancelling the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired_at: Option<u64>,
    /// What the resume that cleared the marker decided (set with `resumed_at`), or, for a
    /// run an expired marker cancelled, `expired` for each of its calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<RunDecision>,
    /// The history of a marker that expired, or (where runs keep it) of one a person
    /// decided, until the host takes it (resume with no decisions). Stored, never shown.
    #[serde(skip)]
    pub history: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The permission marker, exactly while it awaits permission.
    pub marker: Option<Marker>,
    /// The agent that parked the run last (its marker's `parked_by`), kept after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parked_by: Option<String>,
}

/// What a resume decided: who (the name the host gave, e.g. a token's name), and each
/// pending call's outcome, in marker order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunDecision {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Who decided, when the host said.
    pub decided_by: Option<String>,
    /// Each pending call's outcome.
    pub calls: Vec<DecidedCall>,
}

/// One call's outcome in a [`RunDecision`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecidedCall {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The anchor of the arguments that were decided.
    pub anchor: String,
    /// `approved`, `denied`, `expired` or `answered`.
    pub outcome: String,
    /// The decided arguments (the person's edit, when edited), where runs keep the
    /// history for the host to take ([`crate::Runs::keeping_history`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// The parked call's arguments, when the person approved an edit of them (its
    /// anchor is `anchor`; the edit's is `anchor(tool, args)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_from: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The scope of an approval.
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The message of a denial.
    pub message: Option<String>,
    /// The person's answer, for a question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The grant that approved it (a person's earlier "always allow"), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
}

impl Run {
    /// A parked run: the marker is the record.
    pub fn parked(marker: Marker) -> Run {
        Run {
            run_id: marker.run_id.clone(),
            session_id: marker.session_id.clone(),
            owner: marker.owner.clone(),
            status: RunStatus::AwaitingPermission,
            revision: marker.revision,
            updated_at: marker.created_at,
            last_error: None,
            resumed_at: None,
            expired_at: None,
            decision: None,
            history: None,
            parked_by: marker.parked_by.clone(),
            marker: Some(marker),
        }
    }

    /// Whether `owner` may see this run: its own, or one whose owner could not be read
    /// (a run failed from a corrupt record).
    pub fn is_owned_by(&self, owner: &str) -> bool {
        self.owner == owner || self.owner.is_empty()
    }

    /// A fresh running run at revision 1.
    pub fn started(run_id: &str, session_id: &str, owner: &str, now: u64) -> Run {
        Run {
            run_id: run_id.to_string(),
            session_id: session_id.to_string(),
            owner: owner.to_string(),
            status: RunStatus::Running,
            revision: 1,
            updated_at: now,
            last_error: None,
            resumed_at: None,
            expired_at: None,
            decision: None,
            history: None,
            marker: None,
            parked_by: None,
        }
    }

    /// This run moved to `to` (not `awaiting_permission`: that is a park) at `now`,
    /// with the next revision and no marker; `Err` for an illegal transition.
    pub fn settle(
        &self,
        to: RunStatus,
        now: u64,
        last_error: Option<String>,
    ) -> Result<Run, Error> {
        if !self.status.can_become(to) || to == RunStatus::AwaitingPermission {
            return Err(Error::IllegalTransition {
                run_id: self.run_id.clone(),
                from: self.status,
                to,
            });
        }
        Ok(Run {
            run_id: self.run_id.clone(),
            session_id: self.session_id.clone(),
            owner: self.owner.clone(),
            status: to,
            revision: self.revision.saturating_add(1),
            updated_at: now,
            last_error,
            resumed_at: None,
            expired_at: None,
            decision: None,
            history: None,
            marker: None,
            parked_by: self.parked_by.clone(),
        })
    }

    /// The stored document (the marker itself while parked), bounded in size.
    pub fn encode(&self) -> Result<String, Error> {
        match (&self.marker, self.status) {
            (Some(marker), RunStatus::AwaitingPermission) => marker.encode(),
            (None, RunStatus::AwaitingPermission) => Err(Error::BadMarker {
                reason: format!("run `{}` awaits permission but has no marker", self.run_id),
            }),
            (Some(_), status) => Err(Error::BadMarker {
                reason: format!("run `{}` is {status} but still has a marker", self.run_id),
            }),
            (
                None,
                RunStatus::Running
                | RunStatus::Completed
                | RunStatus::Failed
                | RunStatus::Cancelled,
            ) => marker::bounded(crate::json_text::WriteJson::to_json(&RecordOut {
                v: MARKER_VERSION,
                run_id: &self.run_id,
                session_id: &self.session_id,
                owner: &self.owner,
                status: self.status,
                revision: self.revision,
                updated_at: self.updated_at,
                last_error: self.last_error.as_deref(),
                resumed_at: self.resumed_at,
                expired_at: self.expired_at,
                decision: self.decision.as_ref(),
                history: self.history.as_deref(),
                parked_by: self.parked_by.as_deref(),
            })),
        }
    }

    /// Decodes and checks a stored run document (a marker or a settled record).
    pub fn decode(text: &str, check: &dyn HistoryCheck) -> Result<Run, Error> {
        Run::decode_inner(text, check).map_err(|reason| Error::BadMarker { reason })
    }

    fn decode_inner(text: &str, check: &dyn HistoryCheck) -> Result<Run, String> {
        let object = marker::parse_object(text)?;
        let status = marker::status_of(&object)?;
        match status {
            RunStatus::AwaitingPermission => Marker::from_object(object, check).map(Run::parked),
            RunStatus::Running
            | RunStatus::Completed
            | RunStatus::Failed
            | RunStatus::Cancelled => settled(object, status),
        }
    }
}

fn settled(object: Map<String, Value>, status: RunStatus) -> Result<Run, String> {
    if object.contains_key("request") {
        return Err(format!(
            "a {status} run carries a permission request; only awaiting_permission does"
        ));
    }
    let raw = RecordIn::read(object)?;
    // An empty owner is legal here: a run failed from a corrupt record whose owner
    // could not be read.
    if raw.run_id.is_empty() {
        return Err("run_id is empty".to_string());
    }
    if raw.revision == 0 {
        return Err("revision is 0; revisions start at 1".to_string());
    }
    Ok(Run {
        run_id: raw.run_id,
        session_id: raw.session_id,
        owner: raw.owner,
        status,
        revision: raw.revision,
        updated_at: raw.updated_at,
        last_error: raw.last_error,
        resumed_at: raw.resumed_at,
        expired_at: raw.expired_at,
        decision: raw.decision,
        history: raw.history,
        marker: None,
        parked_by: raw.parked_by,
    })
}

struct RecordIn {
    run_id: String,
    session_id: String,
    owner: String,
    revision: u64,
    updated_at: u64,
    last_error: Option<String>,
    resumed_at: Option<u64>,
    expired_at: Option<u64>,
    decision: Option<RunDecision>,
    history: Option<String>,
    parked_by: Option<String>,
}

impl RecordIn {
    /// The fields by hand (no serde-derived decoder where runs are read in the
    /// WebAssembly build); unknown fields are ignored, as the derived decoder does.
    fn read(object: Map<String, Value>) -> Result<RecordIn, String> {
        let mut f = Fields::new(object);
        Ok(RecordIn {
            run_id: f.string("run_id")?,
            session_id: f.string("session_id")?,
            owner: f.string("owner")?,
            revision: f.u64("revision")?,
            updated_at: f.u64("updated_at")?,
            last_error: f.opt_string("last_error")?,
            resumed_at: f.opt_u64("resumed_at")?,
            expired_at: f.opt_u64("expired_at")?,
            decision: f.opt("decision", RunDecision::read)?,
            history: f.opt_string("history")?,
            parked_by: f.opt_string("parked_by")?,
        })
    }
}

impl RunDecision {
    /// A stored decision, by hand (as the stored record is read: unknown fields ignored).
    pub fn read(value: Value) -> Result<RunDecision, String> {
        let mut f = Fields::of(value, "struct RunDecision")?;
        Ok(RunDecision {
            decided_by: f.opt_string("decided_by")?,
            calls: fields::array(f.value("calls")?, DecidedCall::read)?,
        })
    }
}

impl DecidedCall {
    /// A stored call's outcome, by hand (as the stored record is read: unknown fields ignored).
    pub fn read(value: Value) -> Result<DecidedCall, String> {
        let mut f = Fields::of(value, "struct DecidedCall")?;
        Ok(DecidedCall {
            tool_call_id: f.string("tool_call_id")?,
            tool: f.string("tool")?,
            anchor: f.string("anchor")?,
            outcome: f.string("outcome")?,
            args: f.opt("args", Ok)?,
            edited_from: f.opt("edited_from", Ok)?,
            scope: f.opt_string("scope")?,
            message: f.opt_string("message")?,
            answer: f.opt_string("answer")?,
            grant: f.opt_string("grant")?,
        })
    }
}

/// A settled run's stored shape, write side (`wire::text` writes it; the derive is the
/// reference its test compares with).
#[derive(Serialize)]
pub(crate) struct RecordOut<'a> {
    pub(crate) v: u64,
    pub(crate) run_id: &'a str,
    pub(crate) session_id: &'a str,
    pub(crate) owner: &'a str,
    pub(crate) status: RunStatus,
    pub(crate) revision: u64,
    pub(crate) updated_at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resumed_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) expired_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<&'a RunDecision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) parked_by: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use RunStatus::{AwaitingPermission as Awaiting, Cancelled, Completed, Failed, Running};

    /// Every (from, to) pair, legal or not.
    #[test]
    fn transition_table() {
        let table: [(RunStatus, [bool; 5]); 5] = [
            //               Running Awaiting Completed Failed Cancelled
            (Running, [false, true, true, true, true]),
            (Awaiting, [true, false, false, true, true]),
            (Completed, [false, false, false, false, false]),
            (Failed, [false, false, false, false, false]),
            (Cancelled, [false, false, false, false, false]),
        ];
        for (from, row) in table {
            for (to, legal) in RunStatus::ALL.into_iter().zip(row) {
                assert_eq!(from.can_become(to), legal, "{from} -> {to}");
                let mut run = Run::started("r-1", "s-1", "o", 0);
                run.status = from;
                let want = if legal && to != Awaiting {
                    Ok(to)
                } else {
                    Err(Error::IllegalTransition {
                        run_id: "r-1".to_string(),
                        from,
                        to,
                    })
                };
                // `settle` never parks: awaiting_permission needs a marker (Runs::park).
                assert_eq!(
                    run.settle(to, 1, None).map(|r| r.status),
                    want,
                    "{from} -> {to}"
                );
            }
            assert_eq!(from.is_terminal(), row.iter().all(|l| !l), "{from}");
        }
    }

    #[test]
    fn status_names_round_trip() {
        for status in RunStatus::ALL {
            assert_eq!(RunStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).ok(),
                Some(Value::String(status.as_str().to_string()))
            );
        }
        assert_eq!(RunStatus::parse("paused"), None);
    }
}

#[cfg(test)]
mod read_by_hand {
    use super::{DecidedCall, RunDecision};
    use crate::fields::{deep, variants};
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The readers by hand accept exactly what the derived decoders accept, alike.
        #[test]
        fn run_decision(
            call in deep(json!({"tool_call_id": "c", "tool": "bash", "anchor": "a",
                "outcome": "approved", "args": {"x": 1}, "edited_from": [1], "scope": "s",
                "message": "m", "answer": "yes", "grant": "g"})),
            by in variants(json!({"decided_by": "b"})),
        ) {
            let mut v = by;
            if let Some(o) = v.as_object_mut() {
                o.insert("calls".into(), json!([call]));
            }
            prop_assert_eq!(
                RunDecision::read(v.clone()).ok(),
                serde_json::from_value::<RunDecision>(v).ok()
            );
            prop_assert_eq!(
                DecidedCall::read(call.clone()).ok(),
                serde_json::from_value::<DecidedCall>(call).ok()
            );
        }
    }
}
