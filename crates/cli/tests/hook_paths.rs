//! Every path through an installed hook fails closed, per host, run the way each host
//! runs it: `toolgate install` writes the entry into a settings file in a temporary
//! `$HOME`, and the command line it wrote is run through a shell (`sh -c`, as Claude
//! Code and Gemini CLI do; `bash -lc` as Codex's `$SHELL -lc`) with the host's hook JSON
//! on stdin. Each case must block (exit 2) or answer deny — or, for Claude Code where a
//! person is asked, ask — and never allow.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::BIN;
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const HOSTS: [&str; 3] = ["claude-code", "codex", "gemini"];

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-paths-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Installs `program hook HOST` for `host` in `home` and returns the command line the
/// settings file now holds.
fn installed(host: &str, home: &Path, program: &Path) -> String {
    let o = Command::new(BIN)
        .args(["install", host, "--command"])
        .arg(format!("'{}' hook {host}", program.display()))
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .current_dir(home)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (file, event) = match host {
        "claude-code" => (".claude/settings.json", "PreToolUse"),
        "codex" => (".codex/hooks.json", "PreToolUse"),
        _ => (".gemini/settings.json", "BeforeTool"),
    };
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(file)).unwrap()).unwrap();
    let hook = &v["hooks"][event][0]["hooks"][0];
    if host == "claude-code" {
        assert_eq!(hook["onFailure"], "block", "{v}");
    }
    hook["command"].as_str().unwrap().to_string()
}

/// The host's shell running `cmd` with `input` on stdin, optionally under `prefix`
/// (`setpriv …`, `prlimit …`).
fn run_as_host(host: &str, cmd: &str, input: &str, home: &Path, prefix: &[&str]) -> Output {
    let (shell, flag) = if host == "codex" {
        ("bash", "-lc")
    } else {
        ("sh", "-c")
    };
    let mut argv: Vec<&str> = prefix.to_vec();
    argv.extend([shell, flag, cmd]);
    let mut child = Command::new(argv[0])
        .args(&argv[1..])
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .current_dir(home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

/// One call in `host`'s hook JSON.
fn input(host: &str, cwd: &str, mode: &str, tool: &str, args: Value) -> String {
    match host {
        "gemini" => json!({
            "session_id": "s", "transcript_path": "/t.json", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-11-28T08:00:00Z",
            "tool_name": tool, "tool_input": args,
        }),
        _ => json!({
            "session_id": "s", "transcript_path": null, "cwd": cwd,
            "permission_mode": mode, "hook_event_name": "PreToolUse", "model": "m",
            "tool_name": tool, "tool_input": args, "tool_use_id": "u1", "turn_id": "t",
        }),
    }
    .to_string()
}

/// The outcome as one word: `block` (exit 2), or the decision (`allow`, `ask`, `deny`,
/// `none` for an empty answer).
fn outcome(o: &Output) -> String {
    if o.status.code() == Some(2) {
        return "block".into();
    }
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout {} stderr {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    if text.trim().is_empty() {
        return "none".into();
    }
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    v.pointer("/hookSpecificOutput/permissionDecision")
        .or_else(|| v.get("decision"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// A copy of the toolgate binary in `dir`, executable by anyone.
fn copy_of_toolgate(dir: &Path) -> PathBuf {
    let bin = dir.join("toolgate");
    std::fs::copy(BIN, &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[test]
fn an_installed_hook_that_cannot_run_blocks_in_every_host() {
    for host in HOSTS {
        let home = temp(&format!("cannot-{host}"));
        let bin_dir = temp(&format!("bin-{host}"));
        let bin = copy_of_toolgate(&bin_dir);
        let cmd = installed(host, &home, &bin);
        let ws = home.join("app");
        std::fs::create_dir_all(&ws).unwrap();
        let call = input(
            host,
            ws.to_str().unwrap(),
            "default",
            if host == "gemini" {
                "run_shell_command"
            } else {
                "Bash"
            },
            json!({"command": "rm -rf ~/important"}),
        );
        // It runs: an answer, not allow.
        let o = run_as_host(host, &cmd, &call, &home, &[]);
        assert_ne!(outcome(&o), "allow", "{host}");

        // A thread limit: toolgate cannot start its worker (or the shell cannot start
        // toolgate). As root the limit does not hold, so the hook runs as nobody.
        let limited: Vec<&str> = if is_root() {
            vec![
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "prlimit",
                "--nproc=2",
            ]
        } else {
            vec!["prlimit", "--nproc=2"]
        };
        let o = run_as_host(host, &cmd, &call, &home, &limited);
        let got = outcome(&o);
        assert!(
            got == "block" || got == "deny",
            "{host} under a thread limit: {got}: {}",
            String::from_utf8_lossy(&o.stdout)
        );

        // Killed by a signal (a stand-in that kills itself, as a host's timeout or the
        // OOM killer would).
        std::fs::write(&bin, "#!/bin/sh\nkill -KILL $$\n").unwrap();
        let o = run_as_host(host, &cmd, &call, &home, &[]);
        assert_eq!(outcome(&o), "block", "{host} killed");

        // Removed (moved, upgraded, `cargo clean`, a teammate's machine): exit 127.
        std::fs::remove_file(&bin).unwrap();
        let o = run_as_host(host, &cmd, &call, &home, &[]);
        assert_eq!(outcome(&o), "block", "{host} removed");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("toolgate"),
            "the reason names it: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let _ = std::fs::remove_dir_all(&home);
        let _ = std::fs::remove_dir_all(&bin_dir);
    }
}

/// The other paths the fail-closed issue found, per host, through the installed
/// command line: bypass and don't-ask modes, each host's working-directory argument
/// into `.git/hooks`, `.gemini` and `~/.cargo`, a session in `$HOME` and in `/`, and the
/// agent running `toolgate decide`. Where a person is asked (Claude Code in its default
/// mode) `ask` is right; everywhere else `deny` or a block.
#[test]
fn each_fail_closed_path_per_host_through_the_installed_command() {
    for host in HOSTS {
        let home = temp(&format!("table-{host}"));
        let bin_dir = temp(&format!("table-bin-{host}"));
        let bin = copy_of_toolgate(&bin_dir);
        let cmd = installed(host, &home, &bin);
        let ws = home.join("app");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        let ws = ws.to_str().unwrap().to_string();
        let h = home.to_str().unwrap().to_string();
        let shell_tool = match host {
            "gemini" => "run_shell_command",
            _ => "Bash",
        };
        let write_tool = match host {
            "gemini" => "write_file",
            _ => "Write",
        };
        // (case, cwd, mode, tool, args); Claude Code may answer ask where `asks`.
        let mut cases: Vec<(String, String, &str, &str, Value, bool)> = vec![
            (
                "toolgate decide".into(),
                ws.clone(),
                "default",
                shell_tool,
                json!({"command": "toolgate decide cc-1 allow"}),
                false,
            ),
            (
                "session in $HOME writes ~/.gitconfig".into(),
                h.clone(),
                "default",
                write_tool,
                json!({"file_path": format!("{h}/.gitconfig"), "content": "[core]\npager = sh -c x\n"}),
                true,
            ),
            (
                "session in / writes ~/.local/bin/ls".into(),
                "/".into(),
                "default",
                write_tool,
                json!({"file_path": format!("{h}/.local/bin/ls"), "content": "x"}),
                true,
            ),
        ];
        if host != "gemini" {
            for mode in ["bypassPermissions", "dontAsk"] {
                cases.push((
                    format!("{mode}: git push --force"),
                    ws.clone(),
                    mode,
                    "Bash",
                    json!({"command": "git push --force origin main"}),
                    false,
                ));
            }
        }
        let dir_key = match host {
            "gemini" => Some("dir_path"),
            "codex" => Some("workdir"),
            _ => None,
        };
        if let Some(key) = dir_key {
            for (dir, c) in [
                (".git/hooks", "echo x > pre-commit"),
                (".gemini", "echo '{}' > settings.json"),
                (&*format!("{h}/.cargo"), "echo x >> config.toml"),
            ] {
                cases.push((
                    format!("{key}={dir}: {c}"),
                    ws.clone(),
                    "default",
                    shell_tool,
                    json!({"command": c, key: dir}),
                    false,
                ));
            }
        } else {
            cases.push((
                "cd .git/hooks && echo x > pre-commit".into(),
                ws.clone(),
                "default",
                "Bash",
                json!({"command": "cd .git/hooks && echo x > pre-commit"}),
                true,
            ));
        }
        for (name, cwd, mode, tool, args, asks) in cases {
            let o = run_as_host(host, &cmd, &input(host, &cwd, mode, tool, args), &home, &[]);
            let got = outcome(&o);
            let ok =
                got == "deny" || got == "block" || (asks && host == "claude-code" && got == "ask");
            assert!(
                ok,
                "{host}: {name}: {got}: {}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
        let _ = std::fs::remove_dir_all(&home);
        let _ = std::fs::remove_dir_all(&bin_dir);
    }
}

/// `toolgate doctor` on real settings files in a temporary `$HOME`: missing, installed
/// and sound, unresolvable (the binary removed), and without the failure guard (an
/// older install), each said, with exit 1 unless every installed hook is sound.
#[test]
fn doctor_reports_each_hooks_state() {
    let home = temp("doctor");
    let doctor = |path: &str| {
        Command::new(BIN)
            .args(["doctor"])
            .env("HOME", &home)
            .env("PATH", path)
            .env_remove("CODEX_HOME")
            .current_dir(&home)
            .output()
            .unwrap()
    };
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let o = doctor("/usr/bin:/bin");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("missing: no settings file"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("no toolgate hook is installed"),
        "{}",
        text(&o)
    );

    let bin_dir = temp("doctor-bin");
    let bin = copy_of_toolgate(&bin_dir);
    for host in HOSTS {
        installed(host, &home, &bin);
    }
    let o = doctor("/usr/bin:/bin");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("blocks on failure: `|| exit 2` and \"onFailure\""),
        "{}",
        text(&o)
    );
    assert_eq!(text(&o).matches("resolves: ").count(), 3, "{}", text(&o));

    // An older install: no guard, no onFailure (Gemini's entry rewritten by hand).
    let gemini = home.join(".gemini/settings.json");
    let old = std::fs::read_to_string(&gemini)
        .unwrap()
        .replace(" || exit 2", "");
    std::fs::write(&gemini, old).unwrap();
    let o = doctor("/usr/bin:/bin");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("NO FAILURE GUARD"), "{}", text(&o));

    // Claude Code's entry without onFailure: no failure guard (its timeout kill
    // would let the call through).
    let claude = home.join(".claude/settings.json");
    let old = std::fs::read_to_string(&claude)
        .unwrap()
        .replace(",\n            \"onFailure\": \"block\"", "");
    assert!(!old.contains("onFailure"), "{old}");
    std::fs::write(&claude, old).unwrap();
    let o = doctor("/usr/bin:/bin");
    assert_eq!(
        text(&o).matches("NO FAILURE GUARD").count(),
        2,
        "{}",
        text(&o)
    );

    // The binary removed: unresolvable.
    std::fs::remove_file(&bin).unwrap();
    let o = doctor("/usr/bin:/bin");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(text(&o).matches("UNRESOLVABLE").count(), 3, "{}", text(&o));

    // A project's entry names `toolgate` on the PATH: resolvable only where it is.
    let project = home.join("app");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"toolgate hook claude-code || exit 2","onFailure":"block"}]}]}}"#,
    )
    .unwrap();
    let run_in = |path: String| {
        Command::new(BIN)
            .args(["doctor", "claude-code"])
            .env("HOME", &home)
            .env("PATH", path)
            .current_dir(&project)
            .output()
            .unwrap()
    };
    let o = run_in("/usr/bin:/bin".into());
    assert!(
        text(&o).contains("`toolgate` is not on PATH"),
        "{}",
        text(&o)
    );
    let real_dir = Path::new(BIN).parent().unwrap().display().to_string();
    let o = run_in(format!("{real_dir}:/usr/bin:/bin"));
    assert!(
        text(&o).contains(&format!("resolves: {real_dir}/toolgate")),
        "{}",
        text(&o)
    );
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&bin_dir);
}

/// What a person reads is what is there: `toolgate runs` escapes terminal controls and
/// bidirectional characters in a parked call's command, reason and session; a runs
/// database URL's password never reaches the hook's reason; `--timeout-ms` above the
/// host's own kill timeout is clamped (the answer comes before the kill).
#[test]
fn human_facing_output_hides_nothing_and_leaks_nothing() {
    let home = temp("output");
    let db = format!("sqlite:{}/runs.db", home.display());
    let call = json!({
        "session_id": "s\u{1b}]0;owned\u{7}", "transcript_path": "/t", "cwd": home.to_str().unwrap(),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "npm publish \u{1b}[2K\u{1b}[1A\u{202e}txt.exe"},
        "tool_use_id": "u1",
    })
    .to_string();
    let o = common::toolgate(
        &["hook", "claude-code", "--defer", "--database", &db],
        &call,
    );
    assert_eq!(
        outcome(&o),
        "defer",
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = common::toolgate(&["runs", "--database", &db], "");
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(listed.contains("npm publish"), "{listed}");
    assert!(
        !listed.contains('\u{1b}') && !listed.contains('\u{202e}') && !listed.contains('\u{7}'),
        "{listed:?}"
    );
    assert!(
        listed.contains("\\u{1b}") && listed.contains("\\u{202e}"),
        "{listed}"
    );

    let url = "postgres://toolgate:hunter2-secret@127.0.0.1:1/runs?connect_timeout=1";
    let o = common::toolgate(
        &["hook", "claude-code", "--defer", "--database", url],
        &call,
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!all.contains("hunter2"), "{all}");
    assert_ne!(outcome(&o), "allow");

    // A classification that takes longer than the clamped bound is answered, not
    // killed: the bound for Gemini CLI is 12 s whatever --timeout-ms says, so a host
    // that never closes stdin gets an answer after 12 s (and its own 15 s kill never
    // comes).
    let started = std::time::Instant::now();
    let mut child = Command::new(BIN)
        .args(["hook", "gemini", "--timeout-ms", "600000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let _stdin = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed().as_secs_f64();
    assert!((11.0..15.0).contains(&took), "answered after {took} s");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    let _ = std::fs::remove_dir_all(&home);
}

/// `toolgate install` writes a settings file as a careful editor would: its mode and
/// owner kept, a symbolic link written through to its target (the link kept), a link
/// to nothing refused, no temporary file left behind, and concurrent installs into one
/// file each kept (they take turns).
#[test]
fn install_keeps_mode_owner_and_links_and_takes_turns() {
    use std::os::unix::fs::MetadataExt;
    let home = temp("careful");
    let file = home.join("dotfiles/claude.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"model\": \"opus\"}\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&file, Some(4321), Some(4321)).unwrap();
    }
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&file, home.join(".claude/settings.json")).unwrap();
    let install = |args: &[&str]| {
        Command::new(BIN)
            .arg("install")
            .args(args)
            .env("HOME", &home)
            .current_dir(&home)
            .output()
            .unwrap()
    };
    let o = install(&["claude-code", "--command", "toolgate hook claude-code"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let link = home.join(".claude/settings.json");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("toolgate hook claude-code") && text.contains("opus"),
        "{text}"
    );
    let m = std::fs::metadata(&file).unwrap();
    assert_eq!(m.permissions().mode() & 0o777, 0o640);
    if is_root() {
        assert_eq!((m.uid(), m.gid()), (4321, 4321));
    }
    let leftovers: Vec<String> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("toolgate-") && !n.contains("backup"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // A link to nothing: refused, nothing created.
    let dangling = home.join("dangling.json");
    std::os::unix::fs::symlink(home.join("nowhere/x.json"), &dangling).unwrap();
    let o = install(&["gemini", "--file", dangling.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(!home.join("nowhere").exists());

    // Concurrent installs of two hosts into one file: both entries survive, each round.
    for round in 0..10 {
        let shared = home.join(format!("shared-{round}.json"));
        std::fs::write(&shared, "{}\n").unwrap();
        let f = shared.to_str().unwrap().to_string();
        let spawn = |host: &str| {
            Command::new(BIN)
                .args(["install", host, "--file", &f, "--command"])
                .arg(format!("toolgate hook {host}"))
                .env("HOME", &home)
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        };
        let (mut a, mut b) = (spawn("claude-code"), spawn("gemini"));
        assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&shared).unwrap()).unwrap();
        assert!(
            v["hooks"]["PreToolUse"].is_array() && v["hooks"]["BeforeTool"].is_array(),
            "round {round}: {v}"
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
