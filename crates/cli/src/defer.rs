//! Park and resume for a CLI agent: Claude Code's `defer`.
//!
//! In `claude -p` a pre-tool-use hook may answer `defer`: the process ends with the
//! call parked, and `claude -p --resume SESSION` runs the hook again for the same call
//! (the same `tool_use_id`), which must then answer allow or deny. `toolgate hook
//! claude-code --defer` parks an `ask` as a one-call run in a store (SQLite on this
//! machine by default; the agent server's database when `--database` names it, so its
//! panel shows the run), keyed by the session and the tool use id. A person decides
//! with `toolgate decide RUN allow|deny` (or in the panel); the resumed hook takes the
//! decision exactly once (core's compare-and-swap resume) and allows only the very call
//! that was approved: a second resume, a changed `tool_input`, an expired or cancelled
//! run is a deny.

use serde_json::{json, Value};
use toolgate_core::{
    CallOutcome, Choice, Error, Park, ParkCall, ResumeDecision, Run, RunStatus, Runs, ToolCall,
    Verdict,
};
use toolgate_store::{SqlStore, StoreOptions};

use crate::error::CliError;

/// How long a parked call waits for a decision (then it is cancelled: a deny).
pub const DEFAULT_TTL_MS: u64 = toolgate_core::marker::MAX_MARKER_TTL_MS;

/// The owner toolgate's CLI parks runs as, unless `--owner` says otherwise.
pub const DEFAULT_OWNER: &str = "local";

/// `--database` and `--owner`: where `runs` and `decide` look.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StoreOpts {
    /// The runs database URL (sqlite:PATH or postgres://…)
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// The owner whose runs these are
    #[arg(long, value_name = "NAME")]
    pub owner: Option<String>,
}

impl StoreOpts {
    pub fn at(&self) -> Result<StoreAt, CliError> {
        StoreAt::resolve(self.database.clone(), self.owner.clone())
    }
}

/// `toolgate runs`' options.
#[derive(Debug, Clone, clap::Args)]
pub struct RunsArgs {
    /// Every run, not only the parked ones
    #[arg(long)]
    pub all: bool,
    /// As JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreOpts,
}

/// A person's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Decision {
    Allow,
    Deny,
}

/// `toolgate decide`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct DecideArgs {
    /// The run's id (as `toolgate runs` lists it)
    #[arg(value_name = "RUN")]
    pub run: String,
    /// allow or deny
    #[arg(value_enum)]
    pub decision: Decision,
    /// What the model is told of a denial (with deny)
    #[arg(long, value_name = "M")]
    pub message: Option<String>,
    #[command(flatten)]
    pub store: StoreOpts,
}

/// Where parked runs are kept: a database URL and the owner whose runs these are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreAt {
    pub database: String,
    pub owner: String,
}

impl StoreAt {
    /// `--database` (else `$TOOLGATE_DATABASE`, else `sqlite:` the state directory's
    /// `toolgate/runs.db`: `$XDG_STATE_HOME`, else `~/.local/state`) and `--owner`
    /// (else `$TOOLGATE_OWNER`, else `local`).
    pub fn resolve(database: Option<String>, owner: Option<String>) -> Result<StoreAt, CliError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let database = match database.or_else(|| env("TOOLGATE_DATABASE")) {
            Some(d) => d,
            None => {
                let state = env("XDG_STATE_HOME")
                    .or_else(|| env("HOME").map(|h| format!("{h}/.local/state")))
                    .ok_or_else(|| {
                        CliError::Environment(
                            "no $HOME or $XDG_STATE_HOME for the runs database: pass --database"
                                .into(),
                        )
                    })?;
                format!("sqlite:{state}/toolgate/runs.db")
            }
        };
        let owner = owner
            .or_else(|| env("TOOLGATE_OWNER"))
            .unwrap_or_else(|| DEFAULT_OWNER.to_string());
        Ok(StoreAt { database, owner })
    }

    pub(crate) fn open(&self) -> Result<SqlStore, String> {
        toolgate_store::open(&self.database, StoreOptions::default()).map_err(|e| {
            crate::text::without_password(
                &format!("the runs database {}: {e}", self.database),
                &self.database,
            )
        })
    }
}

/// The run a deferred call is parked as: one per session and tool use.
pub fn run_id(session_id: &str, tool_use_id: &str) -> String {
    let hash = toolgate_core::anchor("claude-code-defer", &json!([session_id, tool_use_id]));
    format!("cc-{}", hash.get(..20).unwrap_or(&hash))
}

/// What the hook answers for an `ask` with `--defer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deferred {
    /// Parked (or still waiting): answer `defer`.
    Defer(String),
    /// A person approved exactly this call, and this is the first resume to take it.
    Allow(String),
    /// Denied, expired, cancelled, already taken, or a different call.
    Deny(String),
}

/// Who parks: the hook input's ids and context.
pub struct Parking<'a> {
    pub session_id: &'a str,
    pub tool_use_id: &'a str,
    pub call: &'a ToolCall,
    pub verdict: &'a Verdict,
    /// The host's context kept with the run (cwd, transcript path): shown, never run.
    pub context: Value,
    pub ttl_ms: u64,
}

/// Parks the call, or (when this tool use was parked before) answers with what a person
/// decided, once.
pub fn on_ask(at: &StoreAt, p: &Parking<'_>, now: u64) -> Result<Deferred, String> {
    let store = at.open()?;
    let runs = Runs::new(store.owner(&at.owner)).keeping_history();
    let id = run_id(p.session_id, p.tool_use_id);
    let words = |v: &Verdict| format!("toolgate: {} ({})", v.reason, v.rule);
    let parked_msg = |id: &str| {
        format!(
            "{} — parked as run {id}: decide with `toolgate decide {id} allow` (or `deny`), \
             then resume the session (claude -p --resume {})",
            words(p.verdict),
            p.session_id
        )
    };
    let existing = runs
        .run_of(&id, &at.owner, now)
        .map_err(|e| e.to_string())?;
    let Some(run) = existing else {
        runs.park(
            Park {
                run_id: id.clone(),
                session_id: p.session_id.to_string(),
                owner: at.owner.clone(),
                calls: vec![ParkCall {
                    tool_call_id: p.tool_use_id.to_string(),
                    call: p.call.clone(),
                    verdict: p.verdict.clone(),
                }],
                history: json!({"kind": "claude-code-defer", "context": p.context}).to_string(),
                ttl_ms: Some(p.ttl_ms),
                parked_by: None,
            },
            now,
        )
        .map_err(|e| e.to_string())?;
        return Ok(Deferred::Defer(parked_msg(&id)));
    };
    if run.status == RunStatus::AwaitingPermission {
        let same = run
            .marker
            .as_ref()
            .and_then(|m| m.calls.first())
            .is_some_and(|c| c.anchor == p.call.anchor());
        return Ok(if same {
            Deferred::Defer(parked_msg(&id))
        } else {
            Deferred::Deny(format!(
                "toolgate: this tool use was parked as run {id} with other input; the changed \
                 call is not the one a person is asked about"
            ))
        });
    }
    if run.status == RunStatus::Completed {
        return Ok(Deferred::Deny(format!(
            "toolgate: the decision of run {id} was already used (a call is approved once)"
        )));
    }
    // Decided, expired or ended: take what was decided, exactly once.
    let taken = runs.resume(&id, &at.owner, &[], now);
    let answer = match taken {
        Ok(resumed) => {
            let _ = runs.complete(&id, &at.owner, now);
            match resumed.results.first() {
                Some(r) => match &r.outcome {
                    CallOutcome::Approved { .. }
                        if toolgate_core::anchor(&r.tool, &r.args) == p.call.anchor() =>
                    {
                        Deferred::Allow(format!("toolgate: a person approved run {id}"))
                    }
                    CallOutcome::Approved { .. } => Deferred::Deny(format!(
                        "toolgate: run {id} was approved for other input; the changed call is \
                         not approved"
                    )),
                    CallOutcome::Denied { message } => Deferred::Deny(if message.is_empty() {
                        format!("toolgate: a person denied run {id}")
                    } else {
                        format!("toolgate: a person denied run {id}: {message}")
                    }),
                    CallOutcome::Expired => {
                        Deferred::Deny(format!("toolgate: nobody decided run {id} in time"))
                    }
                    // A deferred hook parks a call, never a question; an answer approves
                    // nothing.
                    CallOutcome::Answered { answer } => {
                        Deferred::Deny(format!("toolgate: run {id} was answered: {answer}"))
                    }
                },
                None => Deferred::Deny(format!("toolgate: run {id} holds no decision")),
            }
        }
        Err(Error::AlreadyResumed { .. }) => Deferred::Deny(format!(
            "toolgate: the decision of run {id} was already used (a call is approved once)"
        )),
        Err(e) => Deferred::Deny(format!("toolgate: run {id}: {e}")),
    };
    Ok(answer)
}

/// `toolgate runs`: the parked runs (every run with `all`), as text or JSON.
pub fn list(at: &StoreAt, all: bool, as_json: bool, now: u64) -> Result<String, CliError> {
    let store = at.open().map_err(CliError::Runs)?;
    let runs = Runs::new(store.owner(&at.owner)).keeping_history();
    let mut list: Vec<Run> = runs
        .runs_of(&at.owner, now)
        .map_err(|e| CliError::Runs(e.to_string()))?
        .into_iter()
        .filter(|r| all || r.status == RunStatus::AwaitingPermission)
        .collect();
    list.sort_by_key(|r| r.updated_at);
    if as_json {
        let text = serde_json::to_string_pretty(&list)
            .map_err(|e| CliError::Runs(format!("the runs as JSON: {e}")))?;
        return Ok(text + "\n");
    }
    let mut out = String::new();
    for r in &list {
        let call = r.marker.as_ref().and_then(|m| m.calls.first());
        let what = call.map_or_else(String::new, |c| {
            let command = c
                .args
                .get("command")
                .and_then(Value::as_str)
                .map_or_else(|| toolgate_core::canonical_json(&c.args), str::to_string);
            format!(
                "  {} {}  ({}: {})",
                shown(&c.tool),
                one_line(&command, 100),
                shown(&c.rule),
                shown(&c.reason)
            )
        });
        let age = now.saturating_sub(r.updated_at) / 1000;
        out.push_str(&format!(
            "{}  {}  {}s ago  session {}{what}\n",
            shown(&r.run_id),
            r.status.as_str(),
            age,
            shown(&r.session_id)
        ));
    }
    if list.is_empty() {
        out.push_str(if all { "no runs\n" } else { "no parked runs\n" });
    }
    Ok(out)
}

/// `toolgate decide RUN allow|deny [--message M]`: decides every call of a parked run.
pub fn decide(
    at: &StoreAt,
    run_id: &str,
    allow: bool,
    message: Option<String>,
    now: u64,
) -> Result<String, CliError> {
    let store = at.open().map_err(CliError::Runs)?;
    let runs = Runs::new(store.owner(&at.owner)).keeping_history();
    let run = runs
        .run_of(run_id, &at.owner, now)
        .map_err(|e| CliError::Runs(e.to_string()))?
        .ok_or_else(|| {
            CliError::Runs(format!(
                "no run {} (owner {})",
                shown(run_id),
                shown(&at.owner)
            ))
        })?;
    let Some(marker) = run.marker.as_ref() else {
        return Err(CliError::Runs(format!(
            "run {} is {}: there is nothing to decide",
            shown(run_id),
            run.status.as_str()
        )));
    };
    let decisions: Vec<ResumeDecision> = marker
        .calls
        .iter()
        .map(|c| ResumeDecision {
            tool_call_id: c.tool_call_id.clone(),
            anchor: c.anchor.clone(),
            choice: if allow {
                Choice::Allow {
                    scope: None,
                    args: None,
                    grant: None,
                }
            } else {
                Choice::Deny {
                    message: message.clone(),
                }
            },
        })
        .collect();
    let by = std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .map_or_else(
            || "toolgate decide".to_string(),
            |u| format!("toolgate decide ({u})"),
        );
    runs.resume_by(run_id, &at.owner, &decisions, now, Some(&by))
        .map_err(|e| {
            CliError::Runs(format!(
                "run {}: {} ({})",
                shown(run_id),
                shown(&e.to_string()),
                e.code()
            ))
        })?;
    let run_id = shown(run_id);
    Ok(format!(
        "{} run {run_id}: the session's next resume {} it, once\n",
        if allow { "approved" } else { "denied" },
        if allow { "runs" } else { "refuses" }
    ))
}

use crate::text::shown;

/// `s` on one line, at most `max` characters.
fn one_line(s: &str, max: usize) -> String {
    let flat: String = shown(&s.replace(['\n', '\t'], " "));
    if flat.chars().count() > max {
        flat.chars().take(max).collect::<String>() + "…"
    } else {
        flat
    }
}

/// Milliseconds since the epoch: the time every host gives core.
pub use toolgate_store::now_ms;
