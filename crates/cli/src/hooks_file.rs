//! The hooks files of the agent CLIs that take hook commands from JSON: where in the
//! file toolgate's entry goes for each host and event, what it looks like (its matcher,
//! its timeout, its failure guard), how an entry is recognised as toolgate's, and the
//! edit itself ([`apply`]), event by event. `toolgate install` reads and writes the
//! file; `toolgate doctor` reads it.

use crate::host::{Event, Host};
use crate::ordered_json::Json;
use std::path::Path;

/// Does the host list hook entries right under the event, without matcher groups
/// (Cursor's `{"version": 1, "hooks": {"beforeShellExecution": [{"command": …}]}}`)?
/// Its entries are read and written as one-hook groups ([`grouped`], [`ungrouped`]).
fn flat(host: Host) -> bool {
    host == Host::Cursor
}

/// Flat entries as groups of one hook each.
fn grouped(entries: Vec<Json>) -> Vec<Json> {
    entries
        .into_iter()
        .map(|h| Json::Object(vec![("hooks".to_string(), Json::Array(vec![h]))]))
        .collect()
}

/// Groups back as flat entries.
fn ungrouped(groups: Vec<Json>) -> Vec<Json> {
    groups
        .into_iter()
        .flat_map(|g| match g.get("hooks") {
            Some(Json::Array(hs)) => hs.clone(),
            _ => vec![g],
        })
        .collect()
}

/// The key under which the file holds the hook's events: `hooks`, or for Antigravity,
/// whose `hooks.json` holds named hooks at its top, the hook's own name.
pub(crate) fn root_key(host: Host) -> &'static str {
    match host {
        Host::Agy => "toolgate",
        _ => "hooks",
    }
}

/// The hook entry for `host`: its event, and the matcher group to add.
fn entry(host: Host, event: Event, command: &str) -> (&'static str, Json) {
    let s = |t: &str| Json::String(t.to_string());
    let mut hook = vec![
        ("type".to_string(), s("command")),
        ("command".to_string(), s(command)),
    ];
    if host == Host::ClaudeCode {
        // A hook that cannot start, times out or exits unexpectedly blocks the call
        // (Claude Code 2.1.295; older versions ignore the key and rely on the guard).
        hook.push(("onFailure".to_string(), s("block")));
    }
    if event == Event::PermissionRequest {
        // Seconds: the hook waits up to --wait-ms (90 s) for the panel, then answers.
        // Copilot CLI matches the whole tool name as a regular expression.
        let (key, name, matcher) = match host {
            Host::Copilot => ("timeoutSec", "permissionRequest", ".*"),
            _ => ("timeout", "PermissionRequest", "*"),
        };
        hook.push((key.to_string(), Json::Number(120.into())));
        let group = Json::Object(vec![
            ("matcher".to_string(), s(matcher)),
            ("hooks".to_string(), Json::Array(vec![Json::Object(hook)])),
        ]);
        return (name, group);
    }
    let event = match host {
        // Seconds; the hook answers within its own --timeout-ms (10 s).
        Host::ClaudeCode | Host::Codex => {
            hook.push(("timeout".to_string(), Json::Number(30.into())));
            "PreToolUse"
        }
        // Milliseconds.
        Host::Gemini => {
            hook.push(("timeout".to_string(), Json::Number(15_000.into())));
            "BeforeTool"
        }
        // Seconds (Copilot CLI runs the call when its hook times out: the hook answers
        // within 25 s).
        Host::Copilot => {
            hook.push(("timeoutSec".to_string(), Json::Number(30.into())));
            "preToolUse"
        }
        // No timeout key is known for Antigravity; the hook answers within its own.
        Host::Agy => "PreToolUse",
        // The plugin's own event (its file is written whole: [`edit_plugin`]).
        Host::OpenCode => "tool.execute.before",
        // Seconds; `failClosed`: a hook that fails or answers nothing blocks (Cursor's
        // option, as its docs are quoted; not checked against a real cursor-agent here).
        Host::Cursor => {
            hook.retain(|(k, _)| k != "type");
            hook.push(("timeout".to_string(), Json::Number(30.into())));
            hook.push(("failClosed".to_string(), Json::Bool(true)));
            "beforeShellExecution"
        }
    };
    let matcher = match host {
        Host::ClaudeCode => CLAUDE_MATCHER,
        Host::Codex => "*",
        Host::Gemini => GEMINI_MATCHER,
        Host::Copilot => COPILOT_MATCHER,
        // Its shell tool only: the hook reads `run_command`'s arguments.
        Host::Agy => "run_command",
        // No matcher: the event is the shell's (the group is unwrapped, [`flat`]).
        Host::Cursor | Host::OpenCode => "",
    };
    let group = Json::Object(vec![
        ("matcher".to_string(), s(matcher)),
        ("hooks".to_string(), Json::Array(vec![Json::Object(hook)])),
    ]);
    (event, group)
}

/// Every Claude Code tool but its own bookkeeping (the to-do list, sub-agents, whose
/// every call is hooked on its own, a background shell's output, the plan and question
/// prompts Claude Code puts to you itself): toolgate has no rule for those and would
/// ask for each (its default for a tool it does not know). A JavaScript regex, as
/// Claude Code reads a matcher with other characters than letters and `|`.
pub const CLAUDE_MATCHER: &str =
    "^(?!(TodoWrite|TodoRead|Task|BashOutput|KillShell|ExitPlanMode|AskUserQuestion)$).*";

/// Every Gemini CLI tool but its to-do list (`write_todos`).
pub const GEMINI_MATCHER: &str = "^(?!write_todos$).*";

/// Every Copilot CLI tool but its own bookkeeping: reading, listing and stopping the
/// shells it started, sub-agents (whose calls are hooked on their own), skills, its
/// to-do list and intent, its documentation, the plan and question prompts it puts to
/// you itself. (`write_bash`, which types into a running shell, stays hooked: it asks.)
/// Copilot CLI matches the whole tool name, lookahead included (checked with 1.0.102).
pub const COPILOT_MATCHER: &str = "^(?!(read_bash|list_bash|stop_bash|task|read_agent|list_agents|write_agent|skill|update_todo|report_intent|fetch_copilot_cli_documentation|exit_plan_mode|ask_user|get_context_remaining)$).*";

/// What a host does when the hook command fails (cannot start, is killed, exits with
/// another status than 0 or 2): Claude Code and Codex run the tool, Gemini CLI warns
/// (Copilot CLI 1.0.102 denies it, but runs it when the hook times out)
/// and runs it. Each runs a hook command through a shell (Codex: `$SHELL -lc`, openai/codex
/// `codex-rs/hooks/src/engine/command_runner.rs`), so the command is guarded: any
/// failure exits 2, which they read as "block" (Antigravity fails closed on any hook without a decision), with the shell's message (`toolgate:
/// not found`) as the reason. `||` and `exit` mean the same in sh, bash, zsh and fish.
pub const GUARD: &str = "|| exit 2";

/// `command` with the failure guard ([`GUARD`]) after it, unless it ends in one.
pub fn fail_closed(command: &str) -> String {
    if is_guarded(command) {
        command.to_string()
    } else {
        format!("{command} {GUARD}")
    }
}

fn is_guarded(command: &str) -> bool {
    command
        .trim_end()
        .strip_suffix("exit 2")
        .is_some_and(|rest| rest.trim_end().ends_with("||"))
}

/// Does this hook entry block when it fails: the guard in its command, and for Claude
/// Code `"onFailure": "block"` too (2.1.295+: also covers a hook its timeout kills).
pub(crate) fn guarded(host: Host, hook: &Json) -> bool {
    let cmd = hook.get("command").and_then(Json::str).unwrap_or("");
    let wrapped = is_guarded(cmd);
    let on_failure = hook.get("onFailure").and_then(Json::str) == Some("block");
    match host {
        Host::ClaudeCode => wrapped && on_failure,
        Host::Codex | Host::Gemini | Host::Copilot | Host::Agy | Host::Cursor | Host::OpenCode => {
            wrapped
        }
    }
}

/// Is this hook command toolgate's hook?
pub(crate) fn is_ours(command: &str) -> bool {
    let mut words = command.split_ascii_whitespace();
    words.any(|w| {
        let name = w.trim_matches(['"', '\'']).rsplit('/').next().unwrap_or("");
        name == "toolgate"
    }) && command.split_ascii_whitespace().any(|w| w == "hook")
}

/// toolgate's hook entries in the settings file at `path` for `host`'s events (one per
/// command: Cursor's four events share one): `None` when the file does not exist; `Err`
/// when it is not the host's shape.
pub(crate) fn our_hooks(host: Host, path: &Path) -> Result<Option<Vec<Json>>, String> {
    let Some(per_event) = hooks_by_event(host, path)? else {
        return Ok(None);
    };
    let mut hooks: Vec<Json> = Vec::new();
    for h in per_event.into_iter().flat_map(|(_, hs)| hs) {
        let cmd = h.get("command").and_then(Json::str);
        if !hooks
            .iter()
            .any(|o| o.get("command").and_then(Json::str) == cmd)
        {
            hooks.push(h);
        }
    }
    Ok(Some(hooks))
}

/// The events of `host` toolgate's hook answers that have no entry of toolgate's in the
/// file at `path` (an install older than one of them), when some event has one.
pub(crate) fn events_without_hook(host: Host, path: &Path) -> Vec<&'static str> {
    let Ok(Some(per_event)) = hooks_by_event(host, path) else {
        return Vec::new();
    };
    if per_event.iter().all(|(_, hs)| hs.is_empty()) {
        return Vec::new();
    }
    per_event
        .into_iter()
        .filter(|(_, hs)| hs.is_empty())
        .map(|(e, _)| e)
        .collect()
}

/// toolgate's hook entries in the file at `path`, event by event.
#[allow(clippy::type_complexity)]
fn hooks_by_event(
    host: Host,
    path: &Path,
) -> Result<Option<Vec<(&'static str, Vec<Json>)>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if host == Host::OpenCode {
        let command = crate::opencode::installed_command(&text)
            .ok_or("a toolgate.js that `toolgate install opencode` did not write")?;
        let hook = vec![("command".to_string(), Json::String(command))];
        return Ok(Some(vec![(
            "tool.execute.before",
            vec![Json::Object(hook)],
        )]));
    }
    let doc: Json = if text.trim().is_empty() {
        Json::Object(Vec::new())
    } else {
        serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?
    };
    let root = root_key(host);
    let mut out = Vec::new();
    for (event, _) in entries(host, Event::PreToolUse, "") {
        let groups = match doc.get(root).and_then(|h| h.get(event)) {
            None => Vec::new(),
            Some(Json::Array(g)) if flat(host) => grouped(g.clone()),
            Some(Json::Array(g)) => g.clone(),
            Some(_) => return Err(format!("`{root}.{event}` is not a list")),
        };
        let ours = groups
            .iter()
            .filter_map(|g| match g.get("hooks") {
                Some(Json::Array(hs)) => Some(hs),
                _ => None,
            })
            .flatten()
            .filter(|h| h.get("command").and_then(Json::str).is_some_and(is_ours))
            .cloned()
            .collect();
        out.push((event, ours));
    }
    Ok(Some(out))
}

/// Cursor's events that toolgate's hook answers: its shell commands, its file reads,
/// its MCP tools' calls, and (`preToolUse`) its file edits; the hook tells them apart
/// by the input's `hook_event_name`.
pub(crate) const CURSOR_EVENTS: [&str; 4] = [
    "beforeShellExecution",
    "beforeReadFile",
    "beforeMCPExecution",
    "preToolUse",
];

/// The events toolgate's hook answers in `host` for `event`, each with the entry to add
/// there.
pub(crate) fn entries(host: Host, event: Event, command: &str) -> Vec<(&'static str, Json)> {
    let (first, group) = entry(host, event, command);
    if host == Host::Cursor && event == Event::PreToolUse {
        return CURSOR_EVENTS.iter().map(|e| (*e, group.clone())).collect();
    }
    vec![(first, group)]
}

/// What an edit did to one event's entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// toolgate's entry added.
    Added,
    /// An older entry of toolgate's (with no failure guard) replaced by the new one.
    Replaced,
    /// toolgate's entry was there already: its command.
    Present(String),
    /// toolgate's entries taken out: their commands.
    Removed(Vec<String>),
    /// No entry of toolgate's to take out.
    Absent,
}

/// Adds toolgate's entries for `host`'s `event` to `doc`, a host's hooks file, or with
/// `uninstall` takes them out, keeping everything else; what changed, event by event.
/// `Err` says where the file is not the host's shape (nothing is written then).
pub(crate) fn apply(
    doc: &mut Json,
    host: Host,
    event: Event,
    command: &str,
    uninstall: bool,
) -> Result<Vec<(&'static str, Change)>, String> {
    if !matches!(doc, Json::Object(_)) {
        return Err("not a JSON object".into());
    }
    let root = root_key(host);
    let mut changes = Vec::new();
    for (name, group) in entries(host, event, command) {
        let hooks = doc
            .entry(root, Json::Object(Vec::new()))
            .filter(|h| matches!(h, Json::Object(_)))
            .ok_or_else(|| format!("`{root}` is not an object"))?;
        let Some(Json::Array(groups)) = hooks.entry(name, Json::Array(Vec::new())) else {
            return Err(format!("`{root}.{name}` is not a list"));
        };
        if flat(host) {
            *groups = grouped(std::mem::take(groups));
        }
        let change = apply_one(groups, host, group, uninstall);
        if flat(host) {
            *groups = ungrouped(std::mem::take(groups));
        }
        changes.push((name, change));
    }
    // Empty containers this run created are not left behind by an uninstall.
    if uninstall {
        if let Some(Json::Object(h)) = doc.get_mut(root) {
            h.retain(|(_, v)| !matches!(v, Json::Array(a) if a.is_empty()));
        }
        // Antigravity's named hook is toolgate's alone: gone with its last event.
        if host == Host::Agy {
            if let Json::Object(top) = doc {
                top.retain(|(k, v)| !(k == root && matches!(v, Json::Object(o) if o.is_empty())));
            }
        }
    }
    // Cursor's file names its schema's version.
    if let (true, Json::Object(top), false) = (flat(host), &mut *doc, uninstall) {
        if !top.iter().any(|(k, _)| k == "version") {
            top.insert(0, ("version".to_string(), Json::Number(1.into())));
        }
    }
    Ok(changes)
}

/// The commands of toolgate's hooks in a matcher group.
fn ours_in(group: &Json) -> Vec<String> {
    match group.get("hooks") {
        Some(Json::Array(hs)) => hs
            .iter()
            .filter_map(|h| h.get("command").and_then(Json::str))
            .filter(|c| is_ours(c))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Takes toolgate's hooks out of `groups`, and the groups they leave empty.
fn remove_ours(groups: &mut Vec<Json>) {
    for g in groups.iter_mut() {
        if let Some(Json::Array(hs)) = g.get_mut("hooks") {
            hs.retain(|h| !h.get("command").and_then(Json::str).is_some_and(is_ours));
        }
    }
    groups.retain(|g| !matches!(g.get("hooks"), Some(Json::Array(hs)) if hs.is_empty()));
}

/// [`apply`] on one event's matcher groups.
fn apply_one(groups: &mut Vec<Json>, host: Host, group: Json, uninstall: bool) -> Change {
    let found: Vec<String> = groups.iter().flat_map(ours_in).collect();
    if uninstall {
        if found.is_empty() {
            return Change::Absent;
        }
        remove_ours(groups);
        return Change::Removed(found);
    }
    // An entry of an older install (no failure guard): replaced by the new one.
    let stale = !found.is_empty()
        && groups.iter().all(|g| match g.get("hooks") {
            Some(Json::Array(hs)) => hs
                .iter()
                .filter(|h| h.get("command").and_then(Json::str).is_some_and(is_ours))
                .all(|h| !guarded(host, h)),
            _ => true,
        });
    if let (false, Some(existing)) = (stale, found.first()) {
        return Change::Present(existing.clone());
    }
    if stale {
        remove_ours(groups);
    }
    groups.push(group);
    if stale {
        Change::Replaced
    } else {
        Change::Added
    }
}
