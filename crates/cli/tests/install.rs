//! `toolgate install HOST` end to end, on real settings files in a temporary `$HOME`:
//! the hook is added once (a second install changes nothing), the rest of the file keeps
//! its keys and their order, a backup is kept, `--dry-run` writes nothing, `--uninstall`
//! takes exactly the hook out, and a file it cannot read as the host's is left unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::BIN;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-install-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn install(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("install")
        .args(args)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(home)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn backups(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".toolgate-backup-")
        })
        .count()
}

const SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./.env)"]},
  "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo done"}]}]},
  "env": {"A": "1"}
}
"#;

#[test]
fn claude_code_install_is_idempotent_keeps_the_file_and_uninstalls() {
    let h = home("claude");
    let file = h.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, SETTINGS).unwrap();

    let o = install(
        &h,
        &[
            "claude-code",
            "--dry-run",
            "--command",
            "toolgate hook claude-code",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("+             \"command\": \"toolgate hook claude-code || exit 2\""),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        SETTINGS,
        "--dry-run writes nothing"
    );

    for _ in 0..2 {
        let o = install(
            &h,
            &["claude-code", "--command", "toolgate hook claude-code"],
        );
        assert!(o.status.success(), "{}", text(&o));
    }
    assert_eq!(backups(file.parent().unwrap()), 1, "one write, one backup");
    let after = std::fs::read_to_string(&file).unwrap();
    let v: Value = serde_json::from_str(&after).unwrap();
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 1, "installed once: {after}");
    // Every tool but Claude Code's own bookkeeping (TodoWrite, Task, …), which
    // toolgate would otherwise ask for as unknown tools.
    let matcher = pre[0]["matcher"].as_str().unwrap();
    assert!(
        matcher.contains("TodoWrite") && matcher.starts_with("^(?!"),
        "{matcher}"
    );
    // A hook that cannot run blocks: the guard, and Claude Code's own onFailure.
    assert_eq!(
        pre[0]["hooks"][0]["command"],
        "toolgate hook claude-code || exit 2"
    );
    assert_eq!(pre[0]["hooks"][0]["onFailure"], "block");
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "echo done"
    );
    assert_eq!(v["permissions"]["deny"][0], "Read(./.env)");
    // The user's keys keep their order.
    let order: Vec<usize> = ["\"model\"", "\"permissions\"", "\"hooks\"", "\"env\""]
        .iter()
        .map(|k| after.find(k).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{after}");

    // A hook of ours under another spelling counts as installed.
    let o = install(
        &h,
        &[
            "claude-code",
            "--command",
            "/usr/local/bin/toolgate hook claude-code --defer",
        ],
    );
    assert!(text(&o).contains("already there"), "{}", text(&o));

    let o = install(&h, &["claude-code", "--uninstall"]);
    assert!(o.status.success(), "{}", text(&o));
    // An older install (no guard, no onFailure) is replaced, once.
    let old_install = SETTINGS.replace(
        r#""PostToolUse""#,
        r#""PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/opt/toolgate hook claude-code"}]}], "PostToolUse""#,
    );
    std::fs::write(&file, &old_install).unwrap();
    let o = install(
        &h,
        &["claude-code", "--command", "toolgate hook claude-code"],
    );
    assert!(text(&o).contains("replaced"), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 1, "{v}");
    assert_eq!(pre[0]["hooks"][0]["onFailure"], "block");
    let o = install(
        &h,
        &["claude-code", "--command", "toolgate hook claude-code"],
    );
    assert!(text(&o).contains("already there"), "{}", text(&o));
    let o = install(&h, &["claude-code", "--uninstall"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let orig: Value = serde_json::from_str(SETTINGS).unwrap();
    assert_eq!(v, orig, "uninstall leaves the file as it was");
    let o = install(&h, &["claude-code", "--uninstall"]);
    assert!(text(&o).contains("nothing changed"), "{}", text(&o));
}

#[test]
fn codex_and_gemini_get_their_own_files_and_shapes() {
    let h = home("others");
    let o = install(&h, &["codex"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(h.join(".codex/hooks.json")).unwrap())
            .unwrap();
    let cmd = v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        cmd.ends_with(" hook codex || exit 2") && cmd.contains("toolgate"),
        "{cmd}"
    );
    assert!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]
            .get("onFailure")
            .is_none(),
        "onFailure is Claude Code's"
    );
    assert_eq!(
        backups(&h.join(".codex")),
        0,
        "a new file has nothing to back up"
    );

    // A project's settings are shared: they name `toolgate` on the PATH, never this
    // machine's path to it; without toolgate on the PATH the install is refused.
    let o = Command::new(BIN)
        .args(["install", "gemini", "--scope", "project"])
        .env("HOME", &h)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&h)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not on PATH"), "{}", text(&o));
    assert!(!h.join(".gemini/settings.json").exists());
    let bin_dir = Path::new(BIN).parent().unwrap();
    let o = Command::new(BIN)
        .args(["install", "gemini", "--scope", "project"])
        .env("HOME", &h)
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .current_dir(&h)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(h.join(".gemini/settings.json")).unwrap())
            .unwrap();
    let group = &v["hooks"]["BeforeTool"][0];
    assert_eq!(group["matcher"], "^(?!write_todos$).*");
    assert_eq!(
        group["hooks"][0]["command"],
        "toolgate hook gemini || exit 2"
    );
    assert_eq!(
        group["hooks"][0]["timeout"], 15000,
        "Gemini CLI's timeout is in ms"
    );
    assert!(!text(&o).contains("is a script"), "{}", text(&o));

    // npm's launcher first on the PATH (a script that starts Node): the install works
    // and says the hook will be slower than the native binary.
    let shim_dir = h.join("npm-bin");
    std::fs::create_dir_all(&shim_dir).unwrap();
    let shim = shim_dir.join("toolgate");
    std::fs::write(
        &shim,
        "#!/usr/bin/env node\nrequire('../lib/toolgate.cjs');\n",
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let project = h.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let o = Command::new(BIN)
        .args(["install", "codex", "--scope", "project", "--dry-run"])
        .env("HOME", &h)
        .env("PATH", format!("{}:/usr/bin:/bin", shim_dir.display()))
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("the toolgate on PATH is a script"),
        "{}",
        text(&o)
    );
}

/// Copilot CLI: a hooks file of toolgate's own (`~/.copilot/hooks/toolgate.json`,
/// `$COPILOT_HOME`, or the project's `.github/hooks/toolgate.json`) in the nested shape
/// Copilot CLI reads, with its timeout in seconds and its bookkeeping tools left out;
/// idempotent; `--uninstall` leaves no hook; `doctor copilot` sees it.
#[test]
fn copilot_cli_gets_a_hooks_file_of_its_own() {
    let h = home("copilot");
    let o = install(&h, &["copilot"]);
    assert!(o.status.success(), "{}", text(&o));
    let file = h.join(".copilot/hooks/toolgate.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let group = &v["hooks"]["preToolUse"][0];
    let hook = &group["hooks"][0];
    let cmd = hook["command"].as_str().unwrap();
    assert!(
        cmd.ends_with(" hook copilot || exit 2") && cmd.contains("toolgate"),
        "{cmd}"
    );
    assert_eq!(hook["timeoutSec"], 30, "{v}");
    let matcher = group["matcher"].as_str().unwrap();
    assert!(
        matcher.contains("read_bash")
            && !matcher.contains("|bash|")
            && !matcher.contains("write_bash"),
        "{matcher}"
    );
    let again = install(&h, &["copilot"]);
    assert!(text(&again).contains("already there"), "{}", text(&again));
    let doctor = Command::new(BIN)
        .args(["doctor", "copilot"])
        .env("HOME", &h)
        .current_dir(&h)
        .output()
        .unwrap();
    assert!(
        text(&doctor).contains(&file.display().to_string()),
        "{}",
        text(&doctor)
    );
    let o = install(&h, &["copilot", "--uninstall"]);
    assert!(o.status.success(), "{}", text(&o));
    let left: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(left["hooks"].get("preToolUse").is_none(), "{left}");
    // $COPILOT_HOME moves the user's file.
    let elsewhere = h.join("copilot-home");
    let o = Command::new(BIN)
        .args(["install", "copilot"])
        .env("HOME", &h)
        .env("COPILOT_HOME", &elsewhere)
        .current_dir(&h)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(elsewhere.join("hooks/toolgate.json").is_file());
}

/// Antigravity CLI: a named hook `toolgate` at the top of `~/.gemini/config/hooks.json`
/// (project: `.agents/hooks.json`) for `run_command`, beside the user's own named
/// hooks, which are kept; `--uninstall` takes the name out.
#[test]
fn antigravity_gets_a_named_hook_beside_the_users_own() {
    let h = home("agy");
    let file = h.join(".gemini/config/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let theirs = r#"{"lint":{"PostToolUse":[{"matcher":"run_command","hooks":[{"type":"command","command":"./lint.sh"}]}]}}"#;
    std::fs::write(&file, theirs).unwrap();
    let o = install(&h, &["agy"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        v["lint"]["PostToolUse"][0]["hooks"][0]["command"],
        "./lint.sh"
    );
    let group = &v["toolgate"]["PreToolUse"][0];
    assert_eq!(group["matcher"], "run_command");
    let cmd = group["hooks"][0]["command"].as_str().unwrap();
    assert!(cmd.ends_with(" hook agy || exit 2"), "{cmd}");
    assert!(v.get("hooks").is_none(), "{v}");
    assert!(text(&install(&h, &["agy"])).contains("already there"));
    let o = install(&h, &["agy", "--uninstall"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(
        v.get("toolgate").is_none() && v.get("lint").is_some(),
        "{v}"
    );
}

/// Cursor: a flat entry under `hooks.beforeShellExecution` in `~/.cursor/hooks.json`,
/// with the file's `version: 1`, beside the user's own entries, which are kept.
#[test]
fn cursor_gets_a_flat_entry_beside_the_users_own() {
    let h = home("cursor");
    let file = h.join(".cursor/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, r#"{"hooks":{"beforeShellExecution":[{"command":"./audit.sh"}],"afterFileEdit":[{"command":"fmt"}]}}"#).unwrap();
    let o = install(&h, &["cursor"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["version"], 1, "{v}");
    let list = v["hooks"]["beforeShellExecution"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{v}");
    assert_eq!(list[0]["command"], "./audit.sh");
    let ours = list[1].clone();
    assert!(
        ours["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook cursor || exit 2"),
        "{v}"
    );
    assert_eq!(
        (&ours["timeout"], &ours["failClosed"]),
        (&json!(30), &json!(true)),
        "{v}"
    );
    assert!(
        ours.get("hooks").is_none() && ours.get("matcher").is_none(),
        "{v}"
    );
    assert_eq!(v["hooks"]["afterFileEdit"][0]["command"], "fmt");
    // The same entry on its file reads, MCP calls and (preToolUse) edits.
    for event in ["beforeReadFile", "beforeMCPExecution", "preToolUse"] {
        assert_eq!(v["hooks"][event], json!([ours]), "{event}: {v}");
    }
    assert!(text(&install(&h, &["cursor"])).contains("already there"));
    let o = install(&h, &["cursor", "--uninstall"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        v["hooks"],
        json!({"beforeShellExecution": [{"command": "./audit.sh"}], "afterFileEdit": [{"command": "fmt"}]}),
        "{v}"
    );
    // An older install (the shell's event only): doctor says so, and the next install
    // adds the others.
    let older = json!({"version": 1, "hooks": {"beforeShellExecution": [ours]}});
    std::fs::write(&file, older.to_string()).unwrap();
    let doctor = || {
        Command::new(BIN)
            .args(["doctor", "cursor"])
            .env("HOME", &h)
            .current_dir(&h)
            .output()
            .unwrap()
    };
    let o = doctor();
    assert!(
        o.status.code() == Some(1)
            && text(&o).contains(
                "NOT EVERY EVENT: no toolgate hook on beforeReadFile, beforeMCPExecution, preToolUse"
            ),
        "{}",
        text(&o)
    );
    let o = install(&h, &["cursor"]);
    assert!(
        o.status.success()
            && text(&o)
                .contains("to hooks.beforeReadFile, hooks.beforeMCPExecution, hooks.preToolUse"),
        "{}",
        text(&o)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["hooks"]["beforeShellExecution"], json!([ours]), "{v}");
    assert_eq!(v["hooks"]["preToolUse"], json!([ours]), "{v}");
    assert!(
        !text(&doctor()).contains("NOT EVERY EVENT"),
        "{}",
        text(&doctor())
    );
}

/// OpenCode: toolgate's plugin file in `~/.config/opencode/plugins/` (or
/// `$XDG_CONFIG_HOME`'s), with the hook command in it; a second install changes
/// nothing, another command replaces toolgate's file, a file toolgate did not write is
/// refused unchanged, and `--uninstall` removes only toolgate's.
#[test]
fn opencode_gets_toolgates_plugin_file() {
    let h = home("opencode");
    let file = h.join(".config/opencode/plugins/toolgate.js");
    let o = install(&h, &["opencode"]);
    assert!(o.status.success(), "{}", text(&o));
    let js = std::fs::read_to_string(&file).unwrap();
    assert!(
        js.starts_with("// Written by `toolgate install opencode`"),
        "{js}"
    );
    let line = js
        .lines()
        .find(|l| l.starts_with("const INSTALLED_COMMAND = "))
        .unwrap();
    assert!(
        line.ends_with(" hook opencode || exit 2\";") && line.contains(BIN),
        "{line}"
    );
    assert!(js.contains("export default { id: \"toolgate\", server };"));
    assert!(text(&install(&h, &["opencode"])).contains("already there"));
    let o = install(
        &h,
        &["opencode", "--command", "/opt/toolgate hook opencode"],
    );
    assert!(text(&o).contains("replaced"), "{}", text(&o));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("\"/opt/toolgate hook opencode || exit 2\""));
    // The doctor reads the command back from the file.
    let d = Command::new(BIN)
        .args(["doctor", "opencode"])
        .env("HOME", &h)
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(&h)
        .output()
        .unwrap();
    assert!(
        text(&d).contains("installed: /opt/toolgate hook opencode || exit 2")
            && text(&d).contains("UNRESOLVABLE"),
        "{}",
        text(&d)
    );
    let o = install(&h, &["opencode", "--uninstall"]);
    assert!(o.status.success() && !file.exists(), "{}", text(&o));
    // A plugin of the same name that toolgate did not write.
    std::fs::write(&file, "export default {};\n").unwrap();
    for args in [&["opencode"][..], &["opencode", "--uninstall"][..]] {
        let o = install(&h, args);
        assert!(!o.status.success(), "{}", text(&o));
        assert!(text(&o).contains("did not write"), "{}", text(&o));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "export default {};\n"
        );
    }
    // $XDG_CONFIG_HOME is OpenCode's configuration root when it is set.
    let xdg = h.join("xdg");
    let o = Command::new(BIN)
        .args(["install", "opencode", "--dry-run"])
        .env("HOME", &h)
        .env("XDG_CONFIG_HOME", &xdg)
        .current_dir(&h)
        .output()
        .unwrap();
    assert!(
        text(&o).contains(&format!("{}/opencode/plugins/toolgate.js", xdg.display()))
            && !xdg.exists(),
        "{}",
        text(&o)
    );
}

/// Claude Code's PermissionRequest hook (remote answers): its own entry beside the
/// PreToolUse one, the server and the token's file on its command (the token itself
/// never in the settings file), a longer timeout; its options are checked.
#[test]
fn claude_code_permission_request_entry() {
    let h = home("permission-request");
    let file = h.join(".claude/settings.json");
    let token = h.join("agent.token");
    std::fs::write(&token, "agent-secret-0123456789\n").unwrap();
    let token = token.to_string_lossy().into_owned();
    assert!(install(&h, &["claude-code"]).status.success());
    let pr = [
        "claude-code",
        "--event",
        "permission-request",
        "--server",
        "https://agents.example.com",
        "--token-file",
        token.as_str(),
    ];
    let o = install(&h, &pr);
    assert!(o.status.success(), "{}", text(&o));
    let settings = std::fs::read_to_string(&file).unwrap();
    assert!(!settings.contains("agent-secret"), "{settings}");
    let v: Value = serde_json::from_str(&settings).unwrap();
    let group = &v["hooks"]["PermissionRequest"][0];
    assert_eq!(group["matcher"], "*", "{v}");
    let entry = &group["hooks"][0];
    let cmd = entry["command"].as_str().unwrap();
    assert!(
        cmd.contains(" hook claude-code --event permission-request --server https://agents.example.com --token-file ")
            && cmd.contains(&token)
            && cmd.ends_with(" || exit 2"),
        "{cmd}"
    );
    assert_eq!(
        (&entry["timeout"], &entry["onFailure"]),
        (&json!(120), &json!("block"))
    );
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 1, "{v}");
    assert!(text(&install(&h, &pr)).contains("already there"));
    for (args, says) in [
        (
            vec!["claude-code", "--event", "permission-request"],
            "needs --server URL and --token-file",
        ),
        (
            vec![
                "gemini",
                "--event",
                "permission-request",
                "--server",
                "http://x",
                "--token-file",
                token.as_str(),
            ],
            "is for claude-code, codex and copilot",
        ),
        (
            vec!["claude-code", "--server", "http://x"],
            "are for --event permission-request",
        ),
        (
            vec![
                "claude-code",
                "--event",
                "permission-request",
                "--server",
                "x",
                "--token-file",
                token.as_str(),
            ],
            "http:// or https://",
        ),
        (
            vec![
                "claude-code",
                "--event",
                "permission-request",
                "--server",
                "http://x",
                "--token-file",
                "/nonexistent/t",
            ],
            "reading /nonexistent/t",
        ),
    ] {
        let o = install(&h, &args);
        assert!(!o.status.success(), "{args:?}");
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
    let o = install(
        &h,
        &[
            "claude-code",
            "--event",
            "permission-request",
            "--uninstall",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(v["hooks"].get("PermissionRequest").is_none(), "{v}");
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 1, "{v}");
    // Copilot CLI: its permissionRequest event, a regular expression matcher, seconds.
    let mut cp = pr.to_vec();
    cp[0] = "copilot";
    let o = install(&h, &cp);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(h.join(".copilot/hooks/toolgate.json")).unwrap(),
    )
    .unwrap();
    let entry = &v["hooks"]["permissionRequest"][0];
    assert_eq!(entry["matcher"], ".*", "{v}");
    assert_eq!(entry["hooks"][0]["timeoutSec"], 120, "{v}");
    assert!(entry["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .contains(" hook copilot --event permission-request --server "));
    // Codex: its PermissionRequest event in its hooks.json, Claude Code's shape.
    let mut cx = pr.to_vec();
    cx[0] = "codex";
    let o = install(&h, &cx);
    assert!(o.status.success(), "{}", text(&o));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(h.join(".codex/hooks.json")).unwrap())
            .unwrap();
    let entry = &v["hooks"]["PermissionRequest"][0];
    assert_eq!(
        (&entry["matcher"], &entry["hooks"][0]["timeout"]),
        (&json!("*"), &json!(120)),
        "{v}"
    );
    assert!(entry["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .contains(" hook codex --event permission-request --server "));
    for host in ["claude-code", "codex", "copilot"] {
        let o = Command::new(BIN)
            .args(["doctor", host])
            .env("HOME", &h)
            .env_remove("CODEX_HOME")
            .env_remove("COPILOT_HOME")
            .current_dir(&h)
            .output()
            .unwrap();
        let remote = text(&o).contains("remote answers: its prompt goes to toolgate-server first");
        // Claude Code's was uninstalled above.
        assert_eq!(remote, host != "claude-code", "{host}: {}", text(&o));
    }
}

/// `install --all`: each host used here (its command on PATH or its directory in the
/// home) gets toolgate's hook, the others are skipped; with none found it says so and
/// fails; `--all` takes no host, file or command. `doctor` says what an ask and a
/// sandbox verdict become in each host, from its settings.
#[test]
fn install_all_finds_the_hosts_used_here() {
    let h = home("all");
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    std::fs::create_dir_all(h.join(".config/opencode")).unwrap();
    std::fs::write(
        h.join(".claude/settings.json"),
        r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#,
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("HOME", &h)
            .env("PATH", "/usr/bin:/bin")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CODEX_HOME")
            .current_dir(&h)
            .output()
            .unwrap()
    };
    let o = run(&["install", "--all"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("claude-code (")
            && out.contains("added `")
            && out.contains("opencode (")
            && out.contains("codex: not found here (skipped)"),
        "{out}"
    );
    assert!(h.join(".config/opencode/plugins/toolgate.js").exists());
    assert!(std::fs::read_to_string(h.join(".claude/settings.json"))
        .unwrap()
        .contains(" hook claude-code || exit 2"));
    let d = text(&run(&["doctor", "claude-code", "cursor"]));
    assert!(
        d.contains(
            "defaultMode = bypassPermissions: nobody answers an ask there, so an ask is a deny"
        ) && d.contains("mode: an ask is a deny (Cursor's")
            && d.contains("sandbox verdicts: asked (this host's calls are not rewritten)"),
        "{d}"
    );
    let o = run(&["install", "--all", "--uninstall"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!h.join(".config/opencode/plugins/toolgate.js").exists());
    for args in [
        &["install", "--all", "claude-code"][..],
        &["install", "--all", "--file", "x.json"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    }
    let empty = home("all-empty");
    let o = Command::new(BIN)
        .args(["install", "--all"])
        .env("HOME", &empty)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&empty)
        .output()
        .unwrap();
    assert!(
        !o.status.success() && text(&o).contains("no agent CLI found"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_file_it_cannot_read_as_settings_is_left_unchanged() {
    let h = home("bad");
    let file = h.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for bad in [
        "{\"hooks\": [1]}",
        "[1, 2]",
        "{\"a\": ",
        "{\"hooks\": {\"PreToolUse\": {}}}",
    ] {
        std::fs::write(&file, bad).unwrap();
        let o = install(&h, &["claude-code"]);
        assert_eq!(o.status.code(), Some(1), "{bad}: {}", text(&o));
        assert!(text(&o).contains("nothing changed"), "{}", text(&o));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), bad);
    }
    assert_eq!(backups(file.parent().unwrap()), 0);
    for args in [
        &["nope"][..],
        &[][..],
        &["codex", "--scope", "team"][..],
        &["codex", "--fs"][..],
    ] {
        assert_eq!(install(&h, args).status.code(), Some(2), "{args:?}");
    }
}
