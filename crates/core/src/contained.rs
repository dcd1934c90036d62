//! What a host that contains calls runs for a `sandbox` verdict instead of the command
//! itself: the command given to bash inside `toolgate sandbox`, with the workspace
//! writable.
//!
//! ```text
//! /path/to/toolgate sandbox --workspace /the/workspace -- /bin/bash -c -- 'COMMAND'
//! ```
//!
//! `--` before the command keeps a command that starts with `-` (`-x`, `--rcfile=…`) a
//! command: `bash -c '-x'` takes it as options instead.

use serde::Serialize;
use serde_json::Value;

use crate::shapes::quote;
use crate::{Family, Tier, ToolCall, Verdict};

/// The shell the command is given to inside the sandbox.
pub const SHELL: &str = "/bin/bash";

/// The words that run `command` contained: `toolgate` is the path of the `toolgate`
/// binary the host runs (or `toolgate`, found on its `PATH`).
pub fn argv(toolgate: &str, workspace: &str, command: &str) -> Vec<String> {
    [
        toolgate,
        "sandbox",
        "--workspace",
        workspace,
        "--",
        SHELL,
        "-c",
        "--",
        command,
    ]
    .map(str::to_string)
    .to_vec()
}

/// [`argv`] as one line for a POSIX shell (each word quoted as needed): what a host
/// whose tool takes a command line runs.
pub fn command_line(toolgate: &str, workspace: &str, command: &str) -> String {
    argv(toolgate, workspace, command)
        .iter()
        .map(|w| quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a host that contains calls runs for a `sandbox` verdict, instead of the call's
/// own command: [`argv`] and [`command_line`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sandboxed {
    /// The words to run (`toolgate`, `sandbox`, …, `/bin/bash`, `-c`, `--`, the command).
    pub argv: Vec<String>,
    /// The same as one line for a POSIX shell.
    pub command: String,
}

/// The shell command `call` runs, as the classifier read it: a shell tool's `command`
/// string, or the one shell command a host's shape makes of the call (Codex's argv
/// `command`, Gemini CLI's `run_shell_command`). `None` for anything else.
pub fn shell_command(call: &ToolCall) -> Option<String> {
    if call.family() == Family::Shell {
        if let Some(Value::String(c)) = call.args.get("command") {
            return Some(c.clone());
        }
    }
    match crate::shapes::canonical(call)?.ok()?.as_slice() {
        [one] if one.family() == Family::Shell => {
            one.args.get("command")?.as_str().map(str::to_string)
        }
        _ => None,
    }
}

/// What runs `call` contained, when `verdict` (the classifier's for it, for a host that
/// contains calls) is `sandbox`; `None` otherwise, or when the call's command cannot be
/// found: the host then treats the verdict as `ask`.
pub fn sandboxed(
    verdict: &Verdict,
    call: &ToolCall,
    toolgate: &str,
    workspace: &str,
) -> Option<Sandboxed> {
    if verdict.tier != Tier::Sandbox {
        return None;
    }
    let command = shell_command(call)?;
    Some(Sandboxed {
        argv: argv(toolgate, workspace, &command),
        command: command_line(toolgate, workspace, &command),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_last_word() {
        let line = command_line("/opt/tg/toolgate", "/w s", "-x 'a'");
        assert_eq!(
            line,
            "/opt/tg/toolgate sandbox --workspace '/w s' -- /bin/bash -c -- '-x '\\''a'\\'''"
        );
        assert_eq!(
            argv("t", "/w", "make").last().map(String::as_str),
            Some("make")
        );
    }

    #[test]
    fn only_a_sandbox_verdict_of_a_shell_command_is_sandboxed() {
        let host = crate::Policy::defaults("/w", "/h").with_sandbox_host(true);
        let run = |tool: &str, args: Value| {
            let call = ToolCall::new(tool, args);
            sandboxed(&host.classify(&call), &call, "toolgate", "/w")
        };
        let bash = run("bash", serde_json::json!({"command": "python3 t.py"}));
        assert_eq!(
            bash.map(|s| s.command).as_deref(),
            Some("toolgate sandbox --workspace /w -- /bin/bash -c -- 'python3 t.py'")
        );
        // Codex's argv command and Gemini CLI's shell tool: the command they make.
        let argv = run("shell", serde_json::json!({"command": ["python3", "t.py"]}));
        assert_eq!(
            argv.and_then(|s| s.argv.last().cloned()).as_deref(),
            Some("python3 t.py")
        );
        let gemini = run("run_shell_command", serde_json::json!({"command": "make"}));
        assert!(gemini.is_some());
        for (tool, args) in [
            ("bash", serde_json::json!({"command": "ls"})),
            ("bash", serde_json::json!({"command": "pip install x"})),
            ("bash", serde_json::json!({"command": "sudo make"})),
            ("read", serde_json::json!({"path": "/w/a"})),
        ] {
            assert_eq!(run(tool, args.clone()), None, "{tool} {args}");
        }
    }
}
