//! The agent hosts `toolgate hook` speaks to, and their hook input: each host's JSON
//! read into the call toolgate judges (its tool and arguments, where it runs, the
//! session and the permission mode).

use serde_json::{json, Value};

/// The hosts `toolgate hook` speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Host {
    /// Claude Code (also `claude`)
    #[value(name = "claude-code", alias = "claude")]
    ClaudeCode,
    /// Codex
    Codex,
    /// Gemini CLI (also `gemini-cli`)
    #[value(alias = "gemini-cli")]
    Gemini,
    /// GitHub Copilot CLI (also `copilot-cli`)
    #[value(alias = "copilot-cli")]
    Copilot,
    /// Antigravity CLI (also `antigravity`)
    #[value(alias = "antigravity")]
    Agy,
    /// Cursor's agent (`cursor-agent`, the editor's agent; also `cursor-agent`)
    #[value(alias = "cursor-agent")]
    Cursor,
    /// OpenCode, through toolgate's plugin (`toolgate install opencode`)
    #[value(name = "opencode", alias = "opencode-ai")]
    OpenCode,
}

/// `--event`: which of the host's hook events this hook answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Event {
    /// Before every tool call (Claude Code's and Codex's PreToolUse, Gemini CLI's
    /// BeforeTool, …)
    #[default]
    PreToolUse,
    /// Claude Code's PermissionRequest, Copilot CLI's permissionRequest: the host's own
    /// prompt, answered from toolgate-server's
    /// panel (--server)
    PermissionRequest,
}

impl Host {
    /// The host's command.
    pub(crate) fn program(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Copilot => "copilot",
            Host::Agy => "agy",
            Host::Cursor => "cursor-agent",
            Host::OpenCode => "opencode",
        }
    }

    /// The host's name on toolgate's command line (`toolgate hook WORD`).
    pub(crate) fn word(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Copilot => "copilot",
            Host::Agy => "agy",
            Host::Cursor => "cursor",
            Host::OpenCode => "opencode",
        }
    }

    /// The directory under the home that says the host is used here, where it has one
    /// of its own (Antigravity's lives in Gemini CLI's `~/.gemini`).
    pub(crate) fn home_dir(self) -> Option<&'static str> {
        match self {
            Host::ClaudeCode => Some(".claude"),
            Host::Codex => Some(".codex"),
            Host::Gemini => Some(".gemini"),
            Host::Copilot => Some(".copilot"),
            Host::Agy => None,
            Host::Cursor => Some(".cursor"),
            Host::OpenCode => Some(".config/opencode"),
        }
    }

    /// The `hook_event_name` this hook answers.
    pub(crate) fn event(self) -> &'static str {
        match self {
            Host::ClaudeCode | Host::Codex | Host::Agy => "PreToolUse",
            Host::Gemini => "BeforeTool",
            Host::Copilot => "preToolUse",
            Host::Cursor => "beforeShellExecution",
            Host::OpenCode => "tool.execute.before",
        }
    }
}

/// The host's fields this hook reads.
pub(crate) struct Input {
    /// The host's permission mode (`permission_mode`), when it says.
    pub(crate) mode: Option<String>,
    pub(crate) tool: String,
    pub(crate) args: Value,
    pub(crate) cwd: Option<String>,
    pub(crate) session_id: Option<String>,
    pub(crate) tool_use_id: Option<String>,
    pub(crate) transcript_path: Option<String>,
    /// A call toolgate's hook does not judge in this host: the host's own permissions
    /// decide (Cursor's tools other than [`CURSOR_JUDGED`]).
    pub(crate) host_decides: bool,
}

pub(crate) fn parse_input(host: Host, event: &str, text: &str) -> Result<Input, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("the input is not JSON: {e}"))?;
    let obj = v.as_object().ok_or("the input is not a JSON object")?;
    match host {
        Host::Copilot => return copilot_input(obj, event),
        Host::Agy => return agy_input(obj),
        Host::Cursor => return cursor_input(obj),
        Host::OpenCode => return opencode_input(obj),
        _ => {}
    }
    match obj.get("hook_event_name").and_then(Value::as_str) {
        Some(e) if e == event => {}
        Some(e) => return Err(format!("event `{e}` is not {event}")),
        None => return Err("no hook_event_name".into()),
    }
    let tool = obj
        .get("tool_name")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("no tool_name")?
        .to_string();
    let args = obj.get("tool_input").cloned().unwrap_or(Value::Null);
    if !args.is_object() {
        return Err("tool_input is not an object".into());
    }
    let cwd = obj
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| c.starts_with('/'))
        .map(str::to_string);
    let text_of = |k: &str| text_field(obj, k);
    Ok(Input {
        mode: text_of("permission_mode"),
        tool,
        args,
        cwd,
        session_id: text_of("session_id"),
        tool_use_id: text_of("tool_use_id"),
        transcript_path: text_of("transcript_path"),
        host_decides: false,
    })
}

/// The non-empty string at `key` of a host's input.
pub(crate) fn text_field(obj: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Copilot CLI's `preToolUse` input: `{sessionId, timestamp, cwd, toolName, toolArgs}`
/// (as Copilot CLI 1.0.102 sends it to its hooks); it names no event and no permission
/// mode (Copilot CLI denies an `ask` itself where nobody is watching: `-p`, autopilot).
/// `toolArgs` is an object, or the same as a JSON string (its docs); a freeform tool's
/// text (`apply_patch`) is `{"input": TEXT}`.
fn copilot_input(obj: &serde_json::Map<String, Value>, event: &str) -> Result<Input, String> {
    let text_of = |k: &str| text_field(obj, k);
    let named = text_of("hookEventName")
        .or_else(|| text_of("hook_event_name"))
        .or_else(|| text_of("hookName"));
    match named {
        Some(e) if !e.eq_ignore_ascii_case(event) => {
            return Err(format!("event `{e}` is not {event}"))
        }
        // The permission request names itself (`hookName`, Copilot CLI 1.0.102); an
        // input that does not is not one.
        None if event == "permissionRequest" => return Err("no hookName".into()),
        _ => {}
    }
    let tool = text_of("toolName").ok_or("no toolName")?;
    // `toolArgs` in preToolUse, `toolInput` in permissionRequest.
    let args = match obj.get("toolArgs").or_else(|| obj.get("toolInput")) {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) | Err(_) => json!({ "input": s }),
        },
        None | Some(Value::Null) => json!({}),
        Some(_) => return Err("toolArgs is not an object".into()),
    };
    Ok(Input {
        mode: None,
        tool,
        args,
        cwd: text_of("cwd").filter(|c| c.starts_with('/')),
        session_id: text_of("sessionId"),
        tool_use_id: None,
        transcript_path: None,
        host_decides: false,
    })
}

/// Antigravity's `run_command` arguments that change nothing about what runs (whether it
/// blocks, how long it waits, the model's own claim that it is safe).
const AGY_INERT: &[&str] = &["Blocking", "WaitMsBeforeAsync", "SafeToAutoRun"];

/// Antigravity CLI's `PreToolUse` input for its shell tool, protojson:
/// `{"toolCall": {"name": "run_command", "args": {"CommandLine": …, "Cwd": …}},
/// "workspacePaths": […]}` (as safe-chains' live check of agy 1.1.2 records it:
/// michaeldhopkins/safe-chains `src/targets/agy.rs`). The command is judged as a shell
/// call: `Cwd` as its working directory, the first workspace path as the session's; any
/// other argument but [`AGY_INERT`] asks, naming it.
fn agy_input(obj: &serde_json::Map<String, Value>) -> Result<Input, String> {
    let call = obj
        .get("toolCall")
        .and_then(Value::as_object)
        .ok_or("no toolCall")?;
    match call.get("name").and_then(Value::as_str) {
        Some("run_command") | None => {}
        Some(other) => return Err(format!("tool `{other}` is not run_command")),
    }
    let given = call
        .get("args")
        .and_then(Value::as_object)
        .ok_or("toolCall.args is not an object")?;
    let mut args = serde_json::Map::new();
    for (k, v) in given {
        match k.as_str() {
            "CommandLine" => {
                args.insert("command".into(), v.clone());
            }
            "Cwd" => {
                args.insert("cwd".into(), v.clone());
            }
            k if AGY_INERT.contains(&k) => {}
            _ => {
                args.insert(k.clone(), v.clone());
            }
        }
    }
    if !args.get("command").is_some_and(Value::is_string) {
        return Err("no toolCall.args.CommandLine".into());
    }
    let cwd = obj
        .get("workspacePaths")
        .and_then(Value::as_array)
        .and_then(|w| w.first())
        .and_then(Value::as_str)
        .filter(|c| c.starts_with('/'))
        .map(str::to_string);
    Ok(Input {
        mode: None,
        tool: "bash".into(),
        args: Value::Object(args),
        cwd,
        session_id: None,
        tool_use_id: None,
        transcript_path: None,
        host_decides: false,
    })
}

/// Cursor's agent tools that `preToolUse` is judged for: its file edits (`Write`
/// `{path, contents}`, `StrReplace`, `Delete`, `EditNotebook`) and content searches
/// (`Grep`, `Glob`), which no event of their own covers. Its shell commands, file reads
/// and MCP tools have their own events; any other tool (its to-do list, plans,
/// sub-agents, web search) is left to Cursor's own permissions.
pub(crate) const CURSOR_JUDGED: &[&str] = &[
    "Write",
    "StrReplace",
    "Delete",
    "EditNotebook",
    "Grep",
    "Glob",
];

/// Cursor's hook input, by its `hook_event_name` (Cursor's docs' samples, as
/// safe-chains and Cupcake quote them: michaeldhopkins/safe-chains
/// `src/targets/cursor.rs`, cupcake.eqtylab.io's Cursor reference):
/// - `beforeShellExecution` `{command, cwd}`: a shell call;
/// - `beforeReadFile` `{file_path, content, attachments}`: a read of `file_path`;
/// - `beforeMCPExecution` `{tool_name, tool_input, url | command}`: an MCP tool's call,
///   `mcp__cursor__NAME` (Cursor does not name the server), `tool_input` an object or
///   the same as a JSON string;
/// - `preToolUse` `{tool_name, tool_input, tool_use_id}`: one of [`CURSOR_JUDGED`], or
///   left to Cursor (`host_decides`).
///
/// Each also has `{conversation_id, generation_id, workspace_roots}`: the workspace is
/// the first root; a `cwd` elsewhere is judged as the command's directory (`cd DIR`
/// before it). Any other event is an error (the hook denies).
fn cursor_input(obj: &serde_json::Map<String, Value>) -> Result<Input, String> {
    let text_of = |k: &str| text_field(obj, k);
    let event = text_of("hook_event_name").unwrap_or_else(|| "beforeShellExecution".into());
    let root = obj
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|w| w.first())
        .and_then(Value::as_str)
        .filter(|r| r.starts_with('/'))
        .map(str::to_string);
    let dir = text_of("cwd").filter(|c| c.starts_with('/'));
    let tool_input = || -> Result<Value, String> {
        match obj.get("tool_input") {
            Some(Value::Object(o)) => Ok(Value::Object(o.clone())),
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(v @ Value::Object(_)) => Ok(v),
                _ => Err("tool_input is not a JSON object".into()),
            },
            None | Some(Value::Null) => Ok(json!({})),
            Some(_) => Err("tool_input is not an object".into()),
        }
    };
    let mut host_decides = false;
    let (tool, args) = match event.as_str() {
        "beforeShellExecution" => {
            let command = obj
                .get("command")
                .and_then(Value::as_str)
                .ok_or("no command")?;
            let mut args = serde_json::Map::new();
            args.insert("command".into(), Value::String(command.to_string()));
            if let (Some(d), Some(r)) = (&dir, &root) {
                if d != r {
                    args.insert("cwd".into(), Value::String(d.clone()));
                }
            }
            ("bash".to_string(), Value::Object(args))
        }
        "beforeReadFile" => {
            let path = text_of("file_path").ok_or("no file_path")?;
            ("read".to_string(), json!({ "file_path": path }))
        }
        "beforeMCPExecution" => {
            let name = text_of("tool_name").ok_or("no tool_name")?;
            let tool = if name.to_ascii_lowercase().starts_with("mcp__") {
                name
            } else {
                format!("mcp__cursor__{name}")
            };
            (tool, tool_input()?)
        }
        "preToolUse" => {
            let name = text_of("tool_name").ok_or("no tool_name")?;
            host_decides = !CURSOR_JUDGED.contains(&name.as_str());
            (name, tool_input()?)
        }
        e => {
            return Err(format!(
                "event `{e}` is not one toolgate's Cursor hook answers"
            ))
        }
    };
    Ok(Input {
        mode: None,
        tool,
        args,
        cwd: root.or(dir),
        session_id: text_of("conversation_id"),
        tool_use_id: text_of("tool_use_id").or_else(|| text_of("generation_id")),
        transcript_path: text_of("transcript_path"),
        host_decides,
    })
}

/// What toolgate's OpenCode plugin sends: `{tool, sessionID, callID, args, directory,
/// worktree}` (`tool.execute.before`'s input and output, and the plugin's context). The
/// workspace is `directory`, where OpenCode resolves relative paths.
fn opencode_input(obj: &serde_json::Map<String, Value>) -> Result<Input, String> {
    let tool = text_field(obj, "tool")
        .filter(|t| !t.is_empty())
        .ok_or("no tool")?;
    let args = obj.get("args").cloned().unwrap_or(Value::Null);
    if !args.is_object() {
        return Err("args is not an object".into());
    }
    Ok(Input {
        mode: None,
        tool,
        args,
        cwd: text_field(obj, "directory").filter(|c| c.starts_with('/')),
        session_id: text_field(obj, "sessionID"),
        tool_use_id: text_field(obj, "callID"),
        transcript_path: None,
        host_decides: false,
    })
}

/// The `permission_mode` of a hook input, read leniently: an input that fails to parse
/// as the host's may still say it.
pub(crate) fn mode_of(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("permission_mode")?.as_str().map(str::to_string)
}
