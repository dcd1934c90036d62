//! Remote answers: the host's own permission prompt put to `toolgate-server`, so that
//! the panel on any device (and the server's webhook) sees it and a person answers it
//! there while the agent CLI waits (`toolgate hook claude-code --event
//! permission-request --server URL`).
//!
//! The call is parked as a one-call run (`POST /v1/runs/{id}/park`, its marker expiring
//! when the wait ends), polled (`GET /v1/runs/{id}`), and its decision taken once
//! (`POST /v1/runs/{id}/resume`): the server binds a decision to the call's anchor and
//! lets it be taken once, so the first decision wins and a second device's is refused
//! there. What comes back is an allow only when the server says `approved` for exactly
//! the arguments asked about; a denial carries the person's message; anything else —
//! nobody answered in time (the run expired), the server down or refusing, an answer
//! that is not the server's — is no answer, and the host's own prompt asks as before.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolgate_core::ToolCall;

use crate::error::CliError;
use crate::host::{Event, Host};

/// How often the run is polled while it waits.
const POLL: Duration = Duration::from_millis(400);
/// After the wait, time for the server's own expiry to have passed (it expires the
/// marker at the park's `ttlMs`) before the decision is taken.
const GRACE: Duration = Duration::from_millis(1_500);
/// The bound on one HTTP request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// A toolgate server and the agent token the hook parks with.
pub struct Server {
    base: String,
    token: String,
    agent: ureq::Agent,
}

/// What the remote person said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remote {
    /// Approved, for exactly the arguments asked about, or for a person's edit of them
    /// (`edited`: the arguments to run instead, which the server's policy classified
    /// again); by whom, when the server says.
    Allow {
        by: Option<String>,
        edited: Option<Value>,
    },
    /// Denied, with the person's message (or the server's policy's reason).
    Deny { reason: String },
    /// No answer: why (the host asks instead).
    NoAnswer(String),
}

impl Server {
    /// A client for the server at `url` (`http://` or `https://`) with `token`.
    pub fn new(url: &str, token: &str) -> Result<Server, String> {
        let base = url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) || base.contains(' ') {
            return Err(format!(
                "--server must be an http:// or https:// URL, not {url:?}"
            ));
        }
        if token.is_empty() {
            return Err("the server's token is empty".into());
        }
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(REQUEST_TIMEOUT))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        Ok(Server {
            base: base.to_string(),
            token: token.to_string(),
            agent: ureq::Agent::new_with_config(config),
        })
    }

    /// One JSON request: the status and the body as JSON (`Null` when it is not).
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
        let url = format!("{}/{path}", self.base);
        let auth = format!("Bearer {}", self.token);
        let result = match body {
            Some(b) => {
                let req = match method {
                    "POST" => self.agent.post(&url),
                    _ => return Err(format!("no {method} with a body")),
                };
                req.header("authorization", &auth)
                    .header("content-type", "application/json")
                    .send(b.to_string().as_str())
            }
            None => self.agent.get(&url).header("authorization", &auth).call(),
        };
        // ureq's errors can quote the URL and so the server's address: only the kind.
        let mut resp = result
            .map_err(|e| format!("{path}: {}", e.to_string().replace(&self.base, "<server>")))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_to_string()
            .map_err(|e| format!("{path}: reading the answer: {e}"))?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }
}

/// The server's error code and message in an error body.
fn error_of(body: &Value) -> (String, String) {
    let e = &body["error"];
    (
        e["code"].as_str().unwrap_or("?").to_string(),
        e["message"].as_str().unwrap_or("").to_string(),
    )
}

/// Parks `call` on `server` for `session_id`, waits up to `wait` for a person's
/// decision in the panel, and takes it once. `elsewhere` is asked at each poll whether
/// the host's own prompt was answered meanwhile (why, if so): the parked run is then
/// withdrawn (`POST /v1/runs/{id}/cancel`, which the audit records with the reason), and
/// there is no answer here.
pub fn ask(
    server: &Server,
    session_id: &str,
    call: &ToolCall,
    wait: Duration,
    elsewhere: &mut dyn FnMut() -> Option<String>,
) -> Remote {
    let run_id = format!("permission-{}", crate::random::unpredictable());
    let ttl_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    let park = json!({
        "sessionId": session_id,
        "calls": [{ "toolCallId": "c1", "tool": call.tool, "args": call.args }],
        "history": "[]",
        "ttlMs": ttl_ms,
    });
    match server.call("POST", &format!("v1/runs/{run_id}/park"), Some(&park)) {
        Ok((201, _)) => {}
        // The server's policy denies the call: it cannot be parked, and is denied.
        Ok((400, body)) if error_of(&body).0 == "bad_park" => {
            return Remote::Deny {
                reason: format!("toolgate-server refused to park it: {}", error_of(&body).1),
            }
        }
        Ok((status, body)) => {
            let (code, message) = error_of(&body);
            return Remote::NoAnswer(format!(
                "toolgate-server did not park it ({status} {code}: {message})"
            ));
        }
        Err(e) => return Remote::NoAnswer(format!("toolgate-server is not reachable ({e})")),
    }
    let deadline = Instant::now() + wait + GRACE;
    let mut by = None;
    loop {
        // A poll that fails is not an answer; the wait goes on to its end.
        if let Ok((200, run)) = server.call("GET", &format!("v1/runs/{run_id}"), None) {
            match run["status"].as_str() {
                Some("awaiting_permission") => {}
                Some(_) => {
                    by = run["decision"]["decidedBy"].as_str().map(str::to_string);
                    break;
                }
                None => return Remote::NoAnswer("the server's run has no status".into()),
            }
        }
        if let Some(why) = elsewhere() {
            return withdraw(server, &run_id, &why);
        }
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(POLL);
    }
    take(server, &run_id, call, by)
}

/// The host's own prompt was answered: the parked run is cancelled with `why`, so the
/// panel stops showing it and the audit says so. A decision the panel made meanwhile
/// stands on the server, but the host has its answer already: none here either way.
fn withdraw(server: &Server, run_id: &str, why: &str) -> Remote {
    let body = json!({ "reason": why });
    match server.call("POST", &format!("v1/runs/{run_id}/cancel"), Some(&body)) {
        Ok((200, _)) => Remote::NoAnswer(format!(
            "{why}; the request in toolgate's panel is withdrawn"
        )),
        Ok((status, body)) => {
            let (code, message) = error_of(&body);
            Remote::NoAnswer(format!(
                "{why}; withdrawing it from toolgate's panel failed ({status} {code}: {message})"
            ))
        }
        Err(e) => Remote::NoAnswer(format!(
            "{why}; withdrawing it from toolgate's panel failed ({e})"
        )),
    }
}

/// Whether Claude Code's own prompt for a call was answered while its
/// `PermissionRequest` hook waits. Claude Code shows its prompt and runs the hook side by
/// side; the first answer wins, a later one is dropped, and the hook is not told (2.1.332:
/// the hook's result is used only while the prompt is still unclaimed). What it does
/// write is its transcript (`transcript_path`, JSON lines): the assistant's `tool_use`
/// block for the call, then, once the call ran or was refused, a `tool_result` for that
/// `tool_use_id`. The watch reads the transcript as it grows: the call is the last
/// `tool_use` whose name and input are the call's that has no result yet when the hook
/// starts (an identical earlier call already has one); a result for it is the answer.
pub struct TerminalWatch {
    path: std::path::PathBuf,
    tool: String,
    input: String,
    /// Bytes read so far (complete lines only).
    offset: u64,
    /// The call's `tool_use` id, once seen.
    id: Option<String>,
    answered: bool,
}

impl TerminalWatch {
    /// A watch on the transcript at `path` for `call`.
    pub fn new(path: &std::path::Path, call: &ToolCall) -> TerminalWatch {
        let mut w = TerminalWatch {
            path: path.to_path_buf(),
            tool: call.tool.clone(),
            input: toolgate_core::canonical_json(&call.args),
            offset: 0,
            id: None,
            answered: false,
        };
        w.read();
        // A call already answered when the hook starts is an earlier one.
        if w.answered {
            w.id = None;
            w.answered = false;
        }
        w
    }

    /// Has the call's result been written since the hook started?
    pub fn answered(&mut self) -> bool {
        if !self.answered {
            self.read();
        }
        self.answered
    }

    /// Reads the lines added since the last read.
    fn read(&mut self) {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut bytes = Vec::new();
        // At most 64 MiB a read; the rest waits for the next poll.
        if f.take(64 << 20).read_to_end(&mut bytes).is_err() {
            return;
        }
        let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        self.offset += end as u64 + 1;
        for line in bytes.get(..end).unwrap_or_default().split(|b| *b == b'\n') {
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let blocks = v["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for b in &blocks {
                match (v["type"].as_str(), b["type"].as_str()) {
                    (Some("assistant"), Some("tool_use"))
                        if b["name"].as_str() == Some(self.tool.as_str())
                            && toolgate_core::canonical_json(&b["input"]) == self.input =>
                    {
                        self.id = b["id"].as_str().map(str::to_string);
                        self.answered = false;
                    }
                    (Some("user"), Some("tool_result"))
                        if self.id.is_some() && b["tool_use_id"].as_str() == self.id.as_deref() =>
                    {
                        self.answered = true;
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Takes the run's decision once (`resume`): the answer for the call.
fn take(server: &Server, run_id: &str, call: &ToolCall, by: Option<String>) -> Remote {
    let (status, body) = match server.call(
        "POST",
        &format!("v1/runs/{run_id}/resume"),
        Some(&json!({})),
    ) {
        Ok(r) => r,
        Err(e) => return Remote::NoAnswer(format!("taking the decision failed ({e})")),
    };
    if status != 200 {
        let (code, message) = error_of(&body);
        return Remote::NoAnswer(match code.as_str() {
            "awaiting_permission" => "nobody answered in toolgate's panel in time".to_string(),
            _ => format!("taking the decision failed ({status} {code}: {message})"),
        });
    }
    let result = &body["results"][0];
    let who = by
        .as_deref()
        .map(|b| format!(" by {b}"))
        .unwrap_or_default();
    let asked = toolgate_core::canonical_json(&call.args);
    let edited_from = result.get("editedFrom");
    match result["outcome"].as_str() {
        Some("approved")
            if edited_from.is_none()
                && toolgate_core::canonical_json(&result["args"]) == asked
                && result["toolCallId"] == "c1" =>
        {
            Remote::Allow { by, edited: None }
        }
        // A person's edit of exactly the call asked about.
        Some("approved")
            if edited_from.is_some_and(|f| toolgate_core::canonical_json(f) == asked)
                && result["args"].is_object()
                && result["toolCallId"] == "c1" =>
        {
            Remote::Allow {
                by,
                edited: Some(result["args"].clone()),
            }
        }
        Some("approved") => {
            Remote::NoAnswer("the server approved other arguments than the ones asked about".into())
        }
        Some("denied") => Remote::Deny {
            reason: match result["message"].as_str().filter(|m| !m.is_empty()) {
                Some(m) => format!("denied in toolgate's panel{who}: {m}"),
                None => format!("denied in toolgate's panel{who}"),
            },
        },
        Some("expired") => Remote::NoAnswer("nobody answered in toolgate's panel in time".into()),
        other => Remote::NoAnswer(format!(
            "the server's answer is not a decision ({})",
            other.unwrap_or("no outcome")
        )),
    }
}

/// `--event permission-request`'s options on the hook command: the server and the
/// token's file (the token itself stays out of the settings file).
pub fn install_options(
    event: Event,
    host: Host,
    uninstall: bool,
    server: Option<&str>,
    token_file: Option<&std::path::Path>,
) -> Result<String, CliError> {
    let usage = |m: &str| Err(CliError::Usage(m.to_string()));
    match (event, host) {
        (Event::PreToolUse, _) if server.is_some() || token_file.is_some() => {
            usage("--server and --token-file are for --event permission-request")
        }
        (Event::PreToolUse, _) => Ok(String::new()),
        (Event::PermissionRequest, Host::ClaudeCode | Host::Codex | Host::Copilot) if uninstall => {
            Ok(" --event permission-request".into())
        }
        (Event::PermissionRequest, Host::ClaudeCode | Host::Codex | Host::Copilot) => {
            let (Some(url), Some(file)) = (server, token_file) else {
                return usage("--event permission-request needs --server URL and --token-file F");
            };
            Server::new(url, "-").map_err(CliError::Usage)?;
            let file = std::path::absolute(file)
                .map_err(CliError::io(format!("finding {}", file.display())))?;
            let token = std::fs::read_to_string(&file)
                .map_err(CliError::io(format!("reading {}", file.display())))?;
            if token.trim().is_empty() {
                return Err(CliError::Runs(format!("{} is empty", file.display())));
            }
            let q = toolgate_core::shapes::quote;
            Ok(format!(
                " --event permission-request --server {} --token-file {}",
                q(url),
                q(&file.to_string_lossy())
            ))
        }
        (Event::PermissionRequest, _) => {
            usage("--event permission-request is for claude-code, codex and copilot")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn tool_use(id: &str, command: &str) -> String {
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command, "description": "d"}}]}})
        .to_string()
    }

    fn tool_result(id: &str) -> String {
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok", "is_error": false}]}})
        .to_string()
    }

    #[test]
    fn the_watch_sees_only_this_calls_result_written_after_the_hook_started() {
        let path =
            std::env::temp_dir().join(format!("toolgate-watch-{}.jsonl", std::process::id()));
        let call = ToolCall::new(
            "Bash",
            json!({"description": "d", "command": "make deploy"}),
        );
        let append = |line: &str, newline: bool| {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .unwrap();
            write!(f, "{line}{}", if newline { "\n" } else { "" }).unwrap();
        };
        let _ = std::fs::remove_file(&path);
        // An identical earlier call, answered; then this one, waiting.
        append(&tool_use("toolu_1", "make deploy"), true);
        append(&tool_result("toolu_1"), true);
        append(&tool_use("toolu_2", "make deploy"), true);
        let mut w = TerminalWatch::new(&path, &call);
        assert!(!w.answered());
        append(&tool_result("toolu_9"), true);
        append(&tool_use("toolu_3", "ls"), true);
        assert!(!w.answered());
        // A line still being written is not read yet.
        let result = tool_result("toolu_2");
        let (head, tail) = result.split_at(20);
        append(head, false);
        assert!(!w.answered());
        append(tail, true);
        assert!(w.answered());

        // Only the earlier call in the transcript when the hook starts: not this one.
        let _ = std::fs::remove_file(&path);
        append(&tool_use("toolu_1", "make deploy"), true);
        append(&tool_result("toolu_1"), true);
        let mut w = TerminalWatch::new(&path, &call);
        assert!(!w.answered());
        append(&tool_use("toolu_4", "make deploy"), true);
        assert!(!w.answered());
        append(&tool_result("toolu_4"), true);
        assert!(w.answered());

        // No transcript: never answered.
        let _ = std::fs::remove_file(&path);
        let mut w = TerminalWatch::new(&path, &call);
        assert!(!w.answered());
    }
}
