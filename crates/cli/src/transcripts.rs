//! The tool calls of an agent's own session log, for `toolgate report`: what toolgate
//! would have allowed, asked and denied in sessions run before it was installed.
//!
//! | format | where the host writes it | a tool call is |
//! | --- | --- | --- |
//! | toolgate's | — | a line `{"tool":…,"args":…,"run":…}` |
//! | Claude Code transcript | `~/.claude/projects/PROJECT/SESSION.jsonl` | a `tool_use` block in an `assistant` line's `message.content`; `sessionId` and `cwd` on the line |
//! | Codex rollout | `~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl` | a `response_item` line whose `payload` is a `function_call` (`arguments`: JSON text), a `custom_tool_call` (`apply_patch`'s `input`) or a `local_shell_call`; the session id and `cwd` from `session_meta` / `turn_context` |
//! | Gemini CLI chat | `~/.gemini/tmp/PROJECT/chats/session-….json` | one JSON document: each `messages[].toolCalls[]` `{name, args}`; `sessionId` |
//!
//! Lines of another kind (messages, tool results, metadata) are not tool calls and are
//! passed over; a line that is not JSON is reported as skipped.

use serde_json::{json, Value};
use toolgate_core::ToolCall;

/// The calls found, each with its run (session) and working directory.
#[derive(Debug, Default)]
pub struct Found {
    pub format: String,
    pub calls: Vec<(ToolCall, String, Option<String>)>,
    pub skipped: Vec<String>,
}

/// Reads the calls of `text`, whichever of the formats it is.
pub fn read(text: &str) -> Found {
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        if doc.get("messages").is_some_and(Value::is_array) {
            return gemini(&doc);
        }
    }
    let mut found = Found::default();
    let (mut session, mut cwd): (Option<String>, Option<String>) = (None, None);
    let mut kinds = [0usize; 3];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                found
                    .skipped
                    .push(format!("line {}: invalid JSON: {e}", i + 1));
                continue;
            }
        };
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        if let Some(tool) = s(&v, "tool") {
            kinds[0] += 1;
            let run = match v.get("run") {
                Some(Value::String(r)) => r.clone(),
                Some(Value::Null) | None => "(no run)".to_string(),
                Some(other) => other.to_string(),
            };
            let args = v.get("args").cloned().unwrap_or(Value::Null);
            found.calls.push((ToolCall::new(tool, args), run, None));
            continue;
        }
        match s(&v, "type").as_deref() {
            // Claude Code.
            Some("assistant") => {
                let blocks = v.pointer("/message/content").and_then(Value::as_array);
                for b in blocks.into_iter().flatten() {
                    if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    kinds[1] += 1;
                    let tool = s(b, "name").unwrap_or_default();
                    let args = b.get("input").cloned().unwrap_or(Value::Null);
                    let run = s(&v, "sessionId").unwrap_or_else(|| "(no session)".into());
                    found
                        .calls
                        .push((ToolCall::new(tool, args), run, s(&v, "cwd")));
                }
            }
            // Codex.
            Some("session_meta") => {
                session = v
                    .pointer("/payload/id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                cwd = v
                    .pointer("/payload/cwd")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or(cwd);
            }
            Some("turn_context") => {
                cwd = v
                    .pointer("/payload/cwd")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or(cwd);
            }
            Some("response_item") => {
                let Some(p) = v.get("payload") else { continue };
                let call = match s(p, "type").as_deref() {
                    Some("function_call") => {
                        let args = match p.get("arguments") {
                            Some(Value::String(t)) => serde_json::from_str(t)
                                .unwrap_or_else(|_| json!({ "arguments": t })),
                            Some(other) => other.clone(),
                            None => Value::Null,
                        };
                        Some(ToolCall::new(s(p, "name").unwrap_or_default(), args))
                    }
                    Some("custom_tool_call") => Some(ToolCall::new(
                        s(p, "name").unwrap_or_default(),
                        json!({ "input": p.get("input").cloned().unwrap_or(Value::Null) }),
                    )),
                    Some("local_shell_call") => Some(ToolCall::new(
                        "local_shell",
                        json!({ "action": p.get("action").cloned().unwrap_or(Value::Null) }),
                    )),
                    _ => None,
                };
                if let Some(call) = call {
                    kinds[2] += 1;
                    let run = session.clone().unwrap_or_else(|| "(no session)".into());
                    found.calls.push((call, run, cwd.clone()));
                }
            }
            _ => {}
        }
    }
    found.format = String::from(match kinds {
        [0, 0, 0] => "no tool calls",
        [_, 0, 0] => "toolgate JSON lines",
        [0, _, 0] => "Claude Code transcript",
        [0, 0, _] => "Codex rollout",
        _ => "mixed",
    });
    found
}

/// The most session logs one report reads from a directory.
pub const MAX_LOGS: usize = 10_000;

/// Every log (`*.jsonl`, `*.json`) under `dir`, read in path order: the calls of all, a
/// line skipped names its file. A directory with more than [`MAX_LOGS`] logs is refused
/// (name a smaller one), as is one with none.
pub fn read_dir(dir: &std::path::Path) -> Result<Found, String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("report: reading {}: {e}", d.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            // Symbolic links are not followed: a log folder holds files.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && path
                    .extension()
                    .is_some_and(|e| e == "jsonl" || e == "json")
            {
                files.push(path);
                if files.len() > MAX_LOGS {
                    return Err(format!(
                        "report: {} holds over {MAX_LOGS} logs; name a smaller directory",
                        dir.display()
                    ));
                }
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(format!(
            "report: {} holds no session logs (*.jsonl, *.json)",
            dir.display()
        ));
    }
    let mut all = Found::default();
    let mut formats: Vec<String> = Vec::new();
    for f in &files {
        let shown = f.display();
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                all.skipped.push(format!("{shown}: {e}"));
                continue;
            }
        };
        let found = read(&text);
        if !found.calls.is_empty() && !formats.contains(&found.format) {
            formats.push(found.format.clone());
        }
        all.calls.extend(found.calls);
        all.skipped
            .extend(found.skipped.into_iter().map(|s| format!("{shown}: {s}")));
    }
    all.format = format!("{} logs: {}", files.len(), formats.join(", "));
    Ok(all)
}

fn gemini(doc: &Value) -> Found {
    let run = doc
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or("(no session)")
        .to_string();
    let mut found = Found {
        format: "Gemini CLI chat".to_string(),
        ..Found::default()
    };
    let messages = doc.get("messages").and_then(Value::as_array);
    for m in messages.into_iter().flatten() {
        let calls = m.get("toolCalls").and_then(Value::as_array);
        for c in calls.into_iter().flatten() {
            let tool = c.get("name").and_then(Value::as_str).unwrap_or_default();
            let args = c.get("args").cloned().unwrap_or(Value::Null);
            found
                .calls
                .push((ToolCall::new(tool, args), run.clone(), None));
        }
    }
    found
}
