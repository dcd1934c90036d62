//! A shell call's arguments beside its command: where it runs and how.
//!
//! Hosts run a shell tool in a directory of the call's own choosing (Codex's and
//! OpenAI's `workdir` / `working_directory`, Gemini CLI's `dir_path` and older
//! `directory`, ACP's `cwd`): the command is judged as `cd DIR` followed by it, so
//! `echo x > pre-commit` with `dir_path: ".git/hooks"` is the hook it writes. Arguments
//! known to change nothing about what runs (a description, a timeout, a background
//! flag, an output limit) are ignored; any other argument could change where or how
//! the command runs (an environment, a user, another shell) and makes the call `ask`,
//! naming it.

use super::combine::{malformed, str_arg};
use crate::call::{json_kind, ToolCall};
use crate::rule_id::RuleId;
use crate::verdict::{Tier, Verdict};
use serde_json::Value;
use std::borrow::Cow;

/// The arguments naming the directory the command runs in.
const WORKDIR_KEYS: &[&str] = &[
    "cwd",
    "workdir",
    "working_directory",
    "directory",
    "dir_path",
];

/// Arguments that change nothing about what the command does: descriptions and
/// justifications, timeouts, background and output limits, and approval hints (Claude
/// Code's Bash, Codex's shell and exec_command, Gemini CLI's run_shell_command,
/// OpenHands, Cline, Cursor, ACP).
const INERT_KEYS: &[&str] = &[
    "description",
    "explanation",
    "justification",
    "thought",
    "timeout",
    "timeout_ms",
    "yield_time_ms",
    "max_output_tokens",
    "outputByteLimit",
    "run_in_background",
    "is_background",
    "background",
    "tty",
    "login",
    "prefix_rule",
    "sandbox_permissions",
    "with_escalated_permissions",
    "dangerouslyDisableSandbox",
    "requires_approval",
    "require_user_approval",
    "security_risk",
    "sessionId",
    "type",
    // Copilot CLI's `bash`: how long to wait for output, and whether it runs on in the
    // background (its `shellId`, a shell it started before, is not inert: that
    // shell's directory is unknown).
    "mode",
    "detach",
    "initial_wait",
];

/// The command a shell call runs, as one script: `cd DIR` on a line of its own before
/// the command when the call names a working directory, and where the call's own
/// `command` is in it (`[prefix, prefix + len]`: the command's spans shift by it). `Err` is the verdict of a call whose
/// arguments cannot be judged: malformed, or an argument that could change where or
/// how it runs.
pub(super) fn shell_script(call: &ToolCall) -> Result<(Cow<'_, str>, [usize; 2]), Verdict> {
    let cmd = str_arg(call, &["command"])?;
    let Some(obj) = call.args.as_object() else {
        return Err(malformed("`args` must be an object"));
    };
    if obj.len() == 1 {
        return Ok((Cow::Borrowed(cmd), [0, cmd.len()]));
    }
    let mut dir: Option<(&str, &str)> = None;
    let mut words = String::new();
    for (key, value) in obj {
        let k = key.as_str();
        if k == "command" || value.is_null() {
            continue;
        }
        if WORKDIR_KEYS.contains(&k) {
            let Value::String(d) = value else {
                return Err(malformed(&format!(
                    "`{k}` must be a string, not {}",
                    json_kind(value)
                )));
            };
            match dir {
                Some((k0, d0)) if d0 != d => {
                    return Err(unsure(format!(
                        "the call names two working directories (`{k0}` and `{k}`)"
                    )))
                }
                _ if !d.is_empty() => dir = Some((k, d)),
                _ => {}
            }
            continue;
        }
        if INERT_KEYS.contains(&k) {
            continue;
        }
        match (k, value) {
            // OpenHands: `is_input: true` types the command into a running process.
            ("is_input", Value::Bool(false)) => continue,
            // Codex's exec_command: the shell that runs `cmd`.
            ("shell", Value::String(s))
                if matches!(s.rsplit('/').next(), Some("bash" | "sh" | "zsh" | "dash")) =>
            {
                continue
            }
            // ACP's terminal: the program's arguments after `command`.
            ("args", Value::Array(items)) => {
                for item in items {
                    let Value::String(w) = item else {
                        return Err(malformed(&format!(
                            "`args` must hold strings, not {}",
                            json_kind(item)
                        )));
                    };
                    words.push(' ');
                    words.push_str(&quote(w));
                }
                continue;
            }
            ("env", Value::Array(a)) if a.is_empty() => continue,
            ("env", Value::Object(o)) if o.is_empty() => continue,
            _ => {}
        }
        return Err(unsure(format!(
            "argument `{k}` beside the command could change where or how it runs"
        )));
    }
    let Some((_, dir)) = dir else {
        return Ok((
            if words.is_empty() {
                Cow::Borrowed(cmd)
            } else {
                Cow::Owned(format!("{cmd}{words}"))
            },
            [0, cmd.len()],
        ));
    };
    // `~` as a host that expands it would (judged as home: a host that does not
    // expand it runs in a workspace directory named `~`, which is less).
    let line = match dir.strip_prefix("~/") {
        Some(rest) => format!("cd ~/{}\n", quote(rest)),
        None if dir == "~" => "cd ~\n".to_string(),
        None => format!("cd {}\n", quote(dir)),
    };
    let prefix = line.len();
    Ok((
        Cow::Owned(format!("{line}{cmd}{words}")),
        [prefix, cmd.len()],
    ))
}

fn unsure(why: String) -> Verdict {
    Verdict::new(Tier::Ask, RuleId::ShellArgs, why)
}

/// `s` as one shell word in single quotes.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `v`, classified from the script [`shell_script`] built, with its spans back in the
/// call's own `command` (`len` bytes after `prefix`): a span in the `cd` line or in
/// the words appended after the command has none.
pub(super) fn unshift(mut v: Verdict, [prefix, len]: [usize; 2]) -> Verdict {
    let shift = |s: Option<[usize; 2]>| match s {
        Some([a, b]) if a >= prefix && b <= prefix + len => Some([a - prefix, b - prefix]),
        _ => None,
    };
    v.span = shift(v.span);
    for p in &mut v.parts {
        p.span = shift(p.span);
    }
    v
}
