//! The hook's side of the `sandbox` verdict: may this host's call run inside `toolgate
//! sandbox`, and the command that does. Claude Code and Codex take a PreToolUse
//! `updatedInput` that replaces the tool's arguments, so a `Bash` call whose only
//! reason to ask is that it runs code is answered `allow` with its command wrapped:
//!
//! ```text
//! /path/to/toolgate sandbox --workspace /the/workspace -- /bin/bash -c -- 'COMMAND'
//! ```
//!
//! (`toolgate_core::contained` builds it.)
//!
//! It is not done (the call is judged as for a host without the sandbox, as before)
//! when the host sandboxes its commands itself (nesting bubblewrap in its sandbox
//! would fail), when bubblewrap cannot build a sandbox here, or when anything needed
//! cannot be read.

use serde_json::Value;
use std::path::Path;

/// Why a host's own settings say it sandboxes the call, or cannot be read; `Ok(())`
/// when it does not.
pub type HostCheck = Result<(), String>;

/// Does Claude Code sandbox its `Bash` tool itself? Its settings' `sandbox.enabled`
/// (managed, user, project and local settings files; a file that is there but cannot
/// be read or parsed counts as yes: the hook cannot know).
pub fn claude_code_sandboxes(cwd: Option<&str>, home: Option<&str>) -> HostCheck {
    let mut files = vec!["/etc/claude-code/managed-settings.json".to_string()];
    if let Some(h) = home {
        files.push(format!("{h}/.claude/settings.json"));
    }
    if let Some(c) = cwd {
        files.push(format!("{c}/.claude/settings.json"));
        files.push(format!("{c}/.claude/settings.local.json"));
    }
    json_settings(&files, |v| {
        match v.get("sandbox").and_then(|s| s.get("enabled")) {
            None | Some(Value::Bool(false)) => None,
            Some(_) => Some("turns Claude Code's own sandbox on (sandbox.enabled)".into()),
        }
    })
}

/// Does Copilot CLI run its shell commands in its own sandbox (`sandbox.enabled` in
/// its user `settings.json`, `settings.local.json` or `config.json` under
/// `$COPILOT_HOME` (`~/.copilot`), or the repository's `.github/copilot/settings.json`
/// and `settings.local.json`)? A file that is there but cannot be read or parsed counts
/// as yes. (`copilot --sandbox` turns it on for a session where no file says so: the
/// hook cannot see that, and `toolgate sandbox` inside it then refuses to run, 125.)
pub fn copilot_sandboxes(
    copilot_home: Option<&str>,
    cwd: Option<&str>,
    home: Option<&str>,
) -> HostCheck {
    let user = copilot_home
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .or_else(|| home.map(|h| format!("{h}/.copilot")));
    let mut files = Vec::new();
    if let Some(u) = user {
        for f in ["settings.json", "settings.local.json", "config.json"] {
            files.push(format!("{u}/{f}"));
        }
    }
    if let Some(c) = cwd {
        files.push(format!("{c}/.github/copilot/settings.json"));
        files.push(format!("{c}/.github/copilot/settings.local.json"));
    }
    json_settings(&files, |v| {
        match v.get("sandbox").and_then(|s| s.get("enabled")) {
            None | Some(Value::Bool(false)) => None,
            Some(_) => Some("turns Copilot CLI's own sandbox on (sandbox.enabled)".into()),
        }
    })
}

/// Does Gemini CLI run its tools in a sandbox of its own (a container, or Seatbelt on
/// macOS), where `toolgate sandbox` could not nest (nor, in a container, be found)?
/// Inside it `SANDBOX` names it; `GEMINI_SANDBOX`, or `tools.sandbox` (before 0.x:
/// `sandbox`) in the system, user or project settings, turn it on. A settings file
/// that is there but cannot be read or parsed counts as yes. (`gemini -s` re-runs the
/// CLI, and so its hooks, inside the sandbox: `SANDBOX` is then set.)
pub fn gemini_sandboxes(
    cwd: Option<&str>,
    home: Option<&str>,
    var: &dyn Fn(&str) -> Option<String>,
) -> HostCheck {
    let on = |s: &str| !matches!(s.trim(), "" | "false" | "0");
    if let Some(s) = var("SANDBOX").filter(|s| !s.is_empty()) {
        return Err(format!(
            "Gemini CLI runs inside its own sandbox (SANDBOX={s})"
        ));
    }
    if let Some(s) = var("GEMINI_SANDBOX").filter(|s| on(s)) {
        return Err(format!(
            "GEMINI_SANDBOX={s} turns Gemini CLI's own sandbox on"
        ));
    }
    let mut files = vec![var("GEMINI_CLI_SYSTEM_SETTINGS_PATH").unwrap_or_else(|| {
        if cfg!(target_os = "macos") {
            "/Library/Application Support/GeminiCli/settings.json".into()
        } else {
            "/etc/gemini-cli/settings.json".into()
        }
    })];
    if let Some(h) = home {
        files.push(format!("{h}/.gemini/settings.json"));
    }
    if let Some(c) = cwd {
        files.push(format!("{c}/.gemini/settings.json"));
    }
    json_settings(&files, |v| {
        let setting = v.pointer("/tools/sandbox").or_else(|| v.get("sandbox"));
        match setting {
            None | Some(Value::Bool(false) | Value::Null) => None,
            Some(Value::String(s)) if !on(s) => None,
            Some(other) => Some(format!(
                "turns Gemini CLI's own sandbox on (tools.sandbox = {other})"
            )),
        }
    })
}

/// Reads each JSON settings file of `files` that exists and asks `sandboxes` of it:
/// the first file whose setting turns the host's own sandbox on, or that cannot be read
/// or parsed, is the error.
fn json_settings(files: &[String], sandboxes: impl Fn(&Value) -> Option<String>) -> HostCheck {
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{file}: {e}")),
        };
        let v: Value =
            serde_json::from_str(&without_comments(&text)).map_err(|e| format!("{file}: {e}"))?;
        if let Some(why) = sandboxes(&v) {
            return Err(format!("{file} {why}"));
        }
    }
    Ok(())
}

/// `text` with its `//` and `/* */` comments blanked out (outside strings): the hosts
/// write and read their settings as JSON with comments (Copilot CLI's `config.json`
/// starts with two `//` lines; Gemini CLI reads comments too). Newlines are kept, so
/// an error's line is the file's.
pub fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_string, mut escaped) = (false, false);
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The values `key` takes in Codex's configuration, each with its file: the user's
/// `config.toml` (`codex_home`, `$CODEX_HOME`, else `~/.codex`), at its top and in its
/// active `profile`, then the project's `.codex/config.toml`. A file that does not
/// exist says nothing, except the user's when `user_required`; one that cannot be read
/// or parsed is an error (the caller cannot know what it says).
pub fn codex_settings(
    codex_home: Option<&str>,
    cwd: Option<&str>,
    home: Option<&str>,
    key: &str,
    user_required: bool,
) -> Result<Vec<(String, Value)>, String> {
    let codex_home = codex_home
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .or_else(|| home.map(|h| format!("{h}/.codex")))
        .ok_or("no $CODEX_HOME or $HOME to find Codex's config.toml")?;
    let mut files = vec![format!("{codex_home}/config.toml")];
    if let Some(cwd) = cwd {
        files.push(format!("{cwd}/.codex/config.toml"));
    }
    let mut out = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && (i > 0 || !user_required) => {
                continue
            }
            Err(e) => return Err(format!("{file}: {e}")),
        };
        let v: Value = basic_toml::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
        let profile = v
            .get("profile")
            .and_then(Value::as_str)
            .and_then(|p| v.get("profiles")?.get(p)?.get(key));
        for value in [v.get(key), profile].into_iter().flatten() {
            out.push((file.clone(), value.clone()));
        }
    }
    Ok(out)
}

/// Does Codex run its commands without a sandbox of its own? Only with `sandbox_mode =
/// "danger-full-access"` ([`codex_settings`]); any other mode, or none (Codex's
/// default sandboxes), means Codex contains the command itself.
pub fn codex_unsandboxed(
    codex_home: Option<&str>,
    cwd: Option<&str>,
    home: Option<&str>,
) -> HostCheck {
    let modes = codex_settings(codex_home, cwd, home, "sandbox_mode", false)?;
    if let Some((file, mode)) = modes
        .iter()
        .find(|(_, m)| m.as_str() != Some("danger-full-access"))
    {
        return Err(format!(
            "{file} sets sandbox_mode = {mode}: Codex sandboxes the command itself"
        ));
    }
    if modes.is_empty() {
        return Err(
            "Codex sandboxes its commands itself (no sandbox_mode = \"danger-full-access\")".into(),
        );
    }
    Ok(())
}

/// The command line that runs `command` through bash inside `toolgate sandbox` with
/// `workspace` writable and `hosts` reachable over HTTPS: what the host runs instead of
/// `command`.
pub fn wrap(
    toolgate: &Path,
    workspace: &str,
    hosts: &[String],
    command: &str,
) -> Result<String, String> {
    let exe = toolgate
        .to_str()
        .ok_or_else(|| format!("the path of toolgate is not UTF-8: {}", toolgate.display()))?;
    Ok(toolgate_core::contained::command_line(
        exe, workspace, hosts, command,
    ))
}

/// The tool arguments with their `command` replaced by [`wrap`]'s; every other key
/// kept (Claude Code's `description`, `timeout`, `run_in_background`).
pub fn rewritten(
    args: &Value,
    toolgate: &Path,
    workspace: &str,
    hosts: &[String],
) -> Result<Value, String> {
    let command = args
        .get("command")
        .and_then(Value::as_str)
        .ok_or("the call has no command string to run in the sandbox")?;
    let mut out = args.clone();
    if let Some(obj) = out.as_object_mut() {
        obj.insert(
            "command".into(),
            Value::String(wrap(toolgate, workspace, hosts, command)?),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_command_is_one_word_whatever_it_holds() {
        for cmd in [
            "pytest -x",
            "echo 'a b' \"$HOME\" `id` $(id) ; rm x",
            "it's",
            "'",
            "''\\''",
            "a\nb",
            "",
            "-x",
            "--rcfile=/x -i",
        ] {
            let line = wrap(Path::new("/opt/tg/toolgate"), "/w s", &[], cmd).unwrap();
            // bash splits the line back into exactly these words.
            let out = std::process::Command::new("bash")
                .args(["-c", &format!("printf '%s\\0' {line}")])
                .output()
                .unwrap();
            let words: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .split_terminator('\0')
                .map(str::to_string)
                .collect();
            assert_eq!(
                words,
                [
                    "/opt/tg/toolgate",
                    "sandbox",
                    "--workspace",
                    "/w s",
                    "--",
                    "/bin/bash",
                    "-c",
                    "--",
                    cmd
                ],
                "{cmd:?}"
            );
        }
    }

    #[test]
    fn a_command_that_starts_with_a_dash_is_a_command() {
        // Without the `--`, bash takes `--version` as its option and prints its version.
        let out = std::process::Command::new("/bin/bash")
            .args(["-c", "--", "--version"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(127));
        assert!(String::from_utf8_lossy(&out.stderr).contains("command not found"));
        let words = toolgate_core::contained::argv("/t", "/w", &[], "--version");
        assert_eq!(words[5..], ["/bin/bash", "-c", "--", "--version"]);
    }

    #[test]
    fn only_the_command_changes() {
        let args = json!({"command": "make", "description": "build", "timeout": 5});
        let out = rewritten(&args, Path::new("/t"), "/w", &[]).unwrap();
        assert_eq!(out["description"], "build");
        assert_eq!(out["timeout"], 5);
        assert_eq!(
            out["command"],
            "/t sandbox --workspace /w -- /bin/bash -c -- make"
        );
        assert!(rewritten(&json!({"cmd": "make"}), Path::new("/t"), "/w", &[]).is_err());
    }

    #[test]
    fn comments_are_blanked_but_strings_kept() {
        let text = "// a\n{ \"u\": \"http://x/*y*/\", /* b\n c */ \"k\": \"a\\\"//\" } // z";
        let v: Value = serde_json::from_str(&without_comments(text)).unwrap();
        assert_eq!(v, json!({"u": "http://x/*y*/", "k": "a\"//"}));
        assert_eq!(without_comments(text).lines().count(), text.lines().count());
    }

    #[test]
    fn hosts_that_sandbox_themselves() {
        let dir = std::env::temp_dir().join(format!("tg-contained-{}", std::process::id()));
        let home = dir.join("home");
        let cwd = dir.join("proj");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        let (h, c) = (home.to_str(), cwd.to_str());
        assert!(claude_code_sandboxes(c, h).is_ok());
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"sandbox":{"enabled":false}}"#,
        )
        .unwrap();
        assert!(claude_code_sandboxes(c, h).is_ok());
        std::fs::write(
            cwd.join(".claude/settings.local.json"),
            r#"{"sandbox":{"enabled":true}}"#,
        )
        .unwrap();
        assert!(claude_code_sandboxes(c, h)
            .unwrap_err()
            .contains("sandbox.enabled"));
        std::fs::write(cwd.join(".claude/settings.local.json"), "{not json").unwrap();
        assert!(claude_code_sandboxes(c, h).is_err());
        // Codex: no file or no mode is Codex's own sandbox; only full access is not.
        assert!(codex_unsandboxed(None, c, h).is_err());
        std::fs::write(
            home.join(".codex/config.toml"),
            "sandbox_mode = \"workspace-write\"\n",
        )
        .unwrap();
        assert!(codex_unsandboxed(None, c, h).is_err());
        std::fs::write(
            home.join(".codex/config.toml"),
            "sandbox_mode = \"danger-full-access\"\n",
        )
        .unwrap();
        assert!(codex_unsandboxed(None, c, h).is_ok());
        std::fs::create_dir_all(cwd.join(".codex")).unwrap();
        std::fs::write(
            cwd.join(".codex/config.toml"),
            "sandbox_mode = \"read-only\"\n",
        )
        .unwrap();
        assert!(codex_unsandboxed(None, c, h).is_err());
        // Gemini CLI: its variables, then its settings.
        let none = |_: &str| None;
        assert!(gemini_sandboxes(c, h, &none).is_ok());
        let inside = |k: &str| (k == "SANDBOX").then(|| "sandbox-exec".to_string());
        assert!(gemini_sandboxes(c, h, &inside)
            .unwrap_err()
            .contains("SANDBOX"));
        let off = |k: &str| (k == "GEMINI_SANDBOX").then(|| "false".to_string());
        assert!(gemini_sandboxes(c, h, &off).is_ok());
        let docker = |k: &str| (k == "GEMINI_SANDBOX").then(|| "docker".to_string());
        assert!(gemini_sandboxes(c, h, &docker).is_err());
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(
            home.join(".gemini/settings.json"),
            r#"{"tools":{"sandbox":false}}"#,
        )
        .unwrap();
        assert!(gemini_sandboxes(c, h, &none).is_ok());
        std::fs::write(
            home.join(".gemini/settings.json"),
            r#"{"tools":{"sandbox":"podman"}}"#,
        )
        .unwrap();
        assert!(gemini_sandboxes(c, h, &none)
            .unwrap_err()
            .contains("tools.sandbox"));
        std::fs::write(home.join(".gemini/settings.json"), r#"{"sandbox":true}"#).unwrap();
        assert!(gemini_sandboxes(c, h, &none).is_err());
        std::fs::write(home.join(".gemini/settings.json"), "{not json").unwrap();
        assert!(gemini_sandboxes(c, h, &none).is_err());
        // Copilot CLI: its user files ($COPILOT_HOME first), then the repository's; its
        // own config.json has comments.
        assert!(copilot_sandboxes(None, c, h).is_ok());
        std::fs::create_dir_all(home.join(".copilot")).unwrap();
        std::fs::write(
            home.join(".copilot/config.json"),
            "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"firstLaunchAt\": \"2026-11-29T02:02:02.322Z\"\n}\n",
        )
        .unwrap();
        assert!(copilot_sandboxes(None, c, h).is_ok());
        std::fs::write(
            home.join(".copilot/config.json"),
            r#"{"sandbox":{"enabled":true}}"#,
        )
        .unwrap();
        assert!(copilot_sandboxes(None, c, h)
            .unwrap_err()
            .contains("sandbox.enabled"));
        let elsewhere = dir.join("copilot-home");
        assert!(copilot_sandboxes(elsewhere.to_str(), c, h).is_ok());
        std::fs::create_dir_all(cwd.join(".github/copilot")).unwrap();
        std::fs::write(cwd.join(".github/copilot/settings.local.json"), "{not json").unwrap();
        assert!(copilot_sandboxes(elsewhere.to_str(), c, h).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
