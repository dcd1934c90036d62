//! `toolgate doctor [HOST…]`: for each host, whether toolgate's hook is installed (in
//! the user's and the current project's settings), whether its command resolves to a
//! program that runs, whether a failure of it blocks the call, and whether the host's
//! version supports what the entry uses. Exit 0 when some hook is installed and every
//! installed one is sound, 1 otherwise.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::hook::Host;
use crate::install::{self, Json, Scope};
use crate::load::Env;
use crate::text::shown;

/// `toolgate doctor`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct DoctorArgs {
    /// The hosts to check (default: all of them)
    #[arg(value_enum, value_name = "HOST")]
    pub hosts: Vec<Host>,
}

impl DoctorArgs {
    /// The hosts named, once each, or all of them.
    pub fn hosts(&self) -> Vec<Host> {
        let mut out: Vec<Host> = Vec::new();
        for h in &self.hosts {
            if !out.contains(h) {
                out.push(*h);
            }
        }
        if out.is_empty() {
            out = <Host as clap::ValueEnum>::value_variants().to_vec();
        }
        out
    }
}

/// Claude Code's first version with `onFailure` on a hook entry (its changelog, 2.1.295).
pub const CLAUDE_ON_FAILURE: [u32; 3] = [2, 1, 295];

/// One settings file's finding.
#[derive(Debug, Default)]
struct Finding {
    lines: Vec<String>,
    installed: bool,
    sound: bool,
}

/// Runs `toolgate doctor`: the report, and whether all is well.
pub fn run(hosts: &[Host], env: &Env) -> (String, bool) {
    let mut out = String::new();
    let (mut any, mut all_sound) = (false, true);
    for &host in hosts {
        let word = install::host_word(host);
        let version = host_version(host);
        let mut seen: Vec<PathBuf> = Vec::new();
        for scope in [Scope::User, Scope::Project] {
            let Ok(path) = install::settings_file(host, scope, env) else {
                continue;
            };
            // In the home directory the project's settings are the user's.
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            let f = check(host, &path, version.as_ref());
            any |= f.installed;
            all_sound &= !f.installed || f.sound;
            let _ = writeln!(out, "{word} ({}): {}", scope_word(scope), path.display());
            for l in f.lines {
                let _ = writeln!(out, "  {l}");
            }
        }
        let _ = match &version {
            Ok((v, _)) => writeln!(out, "  {word} on PATH: {}", shown(v)),
            Err(why) => writeln!(out, "  {word} version: {}", shown(why)),
        };
        for line in mode_lines(host, env) {
            let _ = writeln!(out, "  {}", shown(&line));
        }
    }
    if !any {
        out.push_str("no toolgate hook is installed: toolgate install claude-code|codex|gemini\n");
    }
    let ok = any && all_sound;
    out.push_str(if ok {
        "ok\n"
    } else {
        "problems found (above)\n"
    });
    (out, ok)
}

/// What toolgate's `ask` and `sandbox` verdicts become in `host`, as its settings here
/// say (the same reading the hook makes).
fn mode_lines(host: Host, env: &Env) -> Vec<String> {
    use crate::contained as c;
    let (cwd, home) = (
        env.cwd.as_ref().map(|p| p.to_string_lossy().into_owned()),
        env.home.as_deref(),
    );
    let cwd = cwd.as_deref();
    let var = |k: &str| std::env::var(k).ok();
    let ask = match host {
        Host::ClaudeCode => match claude_mode(cwd, home) {
            Some(m) if crate::hook::unattended(Some(&m)).is_some() => format!(
                "mode: permissions.defaultMode = {m}: nobody answers an ask there, so an ask is a deny"
            ),
            Some(m) => format!("mode: permissions.defaultMode = {m}: an ask is Claude Code's prompt"),
            None => "mode: default: an ask is Claude Code's prompt".into(),
        },
        Host::Codex => {
            let policies = c::codex_settings(var("CODEX_HOME").as_deref(), cwd, home, "approval_policy", false);
            let said = match &policies {
                Ok(p) if p.is_empty() => "approval_policy not set".to_string(),
                Ok(p) => p.iter().map(|(f, v)| format!("{f}: approval_policy = {v}")).collect::<Vec<_>>().join(", "),
                Err(e) => format!("its config cannot be read ({e})"),
            };
            format!("mode: {said}: an ask is a deny (a Codex hook cannot ask; --codex-ask prompt hands patches to its prompt under \"untrusted\")")
        }
        Host::Gemini => "mode: an ask is Gemini CLI's prompt where it runs interactively (0.36.0 and later, read from its process on Linux); headless (-p, a prompt argument, no terminal, CI) or older, a deny".into(),
        Host::Copilot => "mode: an ask is Copilot CLI's prompt (a deny in -p and autopilot)".into(),
        Host::Agy => "mode: an ask is agy's prompt (force_ask)".into(),
        Host::Cursor => "mode: an ask is a deny (Cursor's auto-review runs a hook's ask unasked)".into(),
        Host::OpenCode => "mode: an ask is refused (an OpenCode plugin cannot ask)".into(),
    };
    let own = match host {
        Host::ClaudeCode => c::claude_code_sandboxes(cwd, home),
        Host::Codex => c::codex_unsandboxed(var("CODEX_HOME").as_deref(), cwd, home),
        Host::Gemini => c::gemini_sandboxes(cwd, home, &var),
        Host::Copilot => c::copilot_sandboxes(var("COPILOT_HOME").as_deref(), cwd, home),
        Host::OpenCode => Ok(()),
        Host::Agy | Host::Cursor => Err("this host's calls are not rewritten".into()),
    };
    let sandbox = match own.and_then(|()| crate::sandbox::probe()) {
        Ok(_) => "sandbox verdicts: run contained in toolgate sandbox".to_string(),
        Err(why) => format!("sandbox verdicts: asked ({why})"),
    };
    let mut lines = vec![ask, sandbox];
    let remote = match host {
        Host::ClaudeCode => {
            home.map(|h| (format!("{h}/.claude/settings.json"), "PermissionRequest"))
        }
        Host::Codex => var("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .or_else(|| home.map(|h| format!("{h}/.codex")))
            .map(|d| (format!("{d}/hooks.json"), "PermissionRequest")),
        Host::Copilot => var("COPILOT_HOME")
            .filter(|v| !v.is_empty())
            .or_else(|| home.map(|h| format!("{h}/.copilot")))
            .map(|d| (format!("{d}/hooks/toolgate.json"), "permissionRequest")),
        _ => None,
    };
    if let Some(cmd) = remote.and_then(|(file, event)| remote_hook(&file, event)) {
        lines.push(format!(
            "remote answers: its prompt goes to toolgate-server first (its permission request hook: {cmd})"
        ));
    }
    lines
}

/// The command of toolgate's permission request hook (`event`) in the hooks or
/// settings file at `file`, if there is one.
fn remote_hook(file: &str, event: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    v["hooks"][event]
        .as_array()?
        .iter()
        .filter_map(|g| g["hooks"].as_array())
        .flatten()
        .filter_map(|h| h["command"].as_str())
        .find(|c| install::is_ours(c) && c.contains("permission-request"))
        .map(str::to_string)
}

/// Claude Code's `permissions.defaultMode` as its user, project and local settings set
/// it (the last one that says wins).
fn claude_mode(cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    let mut files = Vec::new();
    if let Some(h) = home {
        files.push(format!("{h}/.claude/settings.json"));
    }
    if let Some(c) = cwd {
        files.push(format!("{c}/.claude/settings.json"));
        files.push(format!("{c}/.claude/settings.local.json"));
    }
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter_map(|t| {
            serde_json::from_str::<serde_json::Value>(&crate::contained::without_comments(&t)).ok()
        })
        .filter_map(|v| v["permissions"]["defaultMode"].as_str().map(str::to_string))
        .next_back()
}

fn scope_word(s: Scope) -> &'static str {
    match s {
        Scope::User => "user",
        Scope::Project => "project",
    }
}

fn check(host: Host, path: &Path, version: Result<&(String, [u32; 3]), &String>) -> Finding {
    let mut f = Finding::default();
    let hooks = match install::our_hooks(host, path) {
        Ok(None) => {
            f.lines.push("missing: no settings file".into());
            return f;
        }
        Ok(Some(h)) if h.is_empty() => {
            f.lines.push("missing: no toolgate hook in it".into());
            return f;
        }
        Ok(Some(h)) => h,
        Err(why) => {
            f.lines.push(format!(
                "unreadable: {why} (the host may not read it either)"
            ));
            return f;
        }
    };
    f.installed = true;
    f.sound = true;
    let unhooked = crate::hooks_file::events_without_hook(host, path);
    if !unhooked.is_empty() {
        f.sound = false;
        f.lines.push(format!(
            "NOT EVERY EVENT: no toolgate hook on {} (an older install); run `toolgate \
             install {}` again",
            unhooked.join(", "),
            install::host_word(host)
        ));
    }
    for h in &hooks {
        let cmd = h.get("command").and_then(Json::str).unwrap_or("");
        f.lines.push(format!("installed: {}", shown(cmd)));
        match resolve(cmd) {
            Ok(p) => f
                .lines
                .push(format!("resolves: {}", shown(&p.display().to_string()))),
            Err(why) => {
                f.sound = false;
                f.lines.push(format!("UNRESOLVABLE: {}", shown(&why)));
            }
        }
        if install::guarded(host, h) {
            f.lines.push(
                match host {
                    Host::ClaudeCode => {
                        "blocks on failure: `|| exit 2` and \"onFailure\": \"block\""
                    }
                    _ => "blocks on failure: `|| exit 2`",
                }
                .into(),
            );
        } else {
            f.sound = false;
            f.lines.push(format!(
                "NO FAILURE GUARD: a hook that cannot run lets the call through; run `toolgate \
                 install {}` again",
                install::host_word(host)
            ));
        }
        if host == Host::ClaudeCode && h.get("onFailure").is_some() {
            match version {
                Ok((v, n)) if *n >= CLAUDE_ON_FAILURE => f.lines.push(format!(
                    "Claude Code {v} honours onFailure (2.1.295 and later)"
                )),
                Ok((v, _)) => {
                    f.sound = false;
                    f.lines.push(format!(
                        "OLD HOST: Claude Code {v} ignores onFailure (2.1.295 and later have \
                         it): a hook its timeout kills lets the call through; upgrade"
                    ));
                }
                Err(_) => f.lines.push(
                    "Claude Code's version is unknown (claude is not on PATH): onFailure needs \
                     2.1.295 or later"
                        .into(),
                ),
            }
        }
    }
    f
}

/// The program a hook command runs: its first word, unquoted, as the shell finds it
/// (a path as it is, a name on `$PATH`), and it must be an executable file.
fn resolve(cmd: &str) -> Result<PathBuf, String> {
    let first = first_word(cmd).ok_or("an empty command")?;
    if first.contains('/') {
        let p = PathBuf::from(&first);
        return if is_executable(&p) {
            Ok(p)
        } else {
            Err(format!(
                "{first} is not an executable file (moved or deleted?)"
            ))
        };
    }
    crate::which::on_path(&first).ok_or_else(|| format!("`{first}` is not on PATH"))
}

/// The first shell word of `cmd` with its quotes removed (`'/a b/toolgate' hook x`).
fn first_word(cmd: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = cmd.trim_start().chars();
    let mut quote: Option<char> = None;
    for c in chars.by_ref() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => break,
            (_, c) => out.push(c),
        }
    }
    (!out.is_empty()).then_some(out)
}

use toolgate_fs::is_executable;

/// `HOST --version` on `$PATH`, within 10 seconds: the version as printed and as
/// numbers.
fn host_version(host: Host) -> Result<(String, [u32; 3]), String> {
    let program = host.program();
    let path = crate::which::on_path(program).ok_or(format!("`{program}` is not on PATH"))?;
    let mut child = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("running {} --version: {e}", path.display()))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} --version did not answer", path.display()));
            }
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("reading {} --version: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let numbers = parse_version(&text)
        .ok_or_else(|| format!("{} --version printed no version: {text:?}", path.display()))?;
    Ok((text, numbers))
}

/// The first `X.Y.Z` in `text` (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`).
pub fn parse_version(text: &str) -> Option<[u32; 3]> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find_map(|w| {
            let mut it = w.split('.').map(|n| n.parse::<u32>().ok());
            match (it.next(), it.next(), it.next()) {
                (Some(Some(a)), Some(Some(b)), Some(Some(c))) => Some([a, b, c]),
                _ => None,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_words() {
        assert_eq!(parse_version("2.1.332 (Claude Code)"), Some([2, 1, 332]));
        assert_eq!(parse_version("codex-cli 0.171.0"), Some([0, 171, 0]));
        assert_eq!(parse_version("no version"), None);
        assert_eq!(
            first_word("'/a b/toolgate' hook x || exit 2").as_deref(),
            Some("/a b/toolgate")
        );
        assert_eq!(first_word("toolgate hook x").as_deref(), Some("toolgate"));
        assert!([2, 1, 294] < CLAUDE_ON_FAILURE && [2, 2, 0] > CLAUDE_ON_FAILURE);
    }
}
