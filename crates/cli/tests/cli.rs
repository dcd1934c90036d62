//! End-to-end tests of the `toolgate` binary: what an integrator sees on stdin,
//! stdout, stderr and the exit status.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{toolgate, BIN};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const WS: [&str; 4] = ["--workspace", "/home/dev/app", "--home", "/home/dev"];

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn verdicts(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

/// A file in a fresh temporary directory, removed when the test process ends.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn classify_answers_every_line_in_order_and_names_a_malformed_one() {
    let input = concat!(
        r#"{"tool":"bash","args":{"command":"ls -la"},"id":"call_1"}"#,
        "\n",
        r#"{"tool":"bash","args":{"command":"#,
        "\n",
        r#"{"tool":"bash","args":{"command":"sudo rm -rf /tmp/x"}}"#,
        "\n",
    );
    let out = toolgate(&[&["classify"], &WS[..]].concat(), input);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let v = verdicts(&out);
    assert_eq!(v.len(), 3, "3 lines in, 3 lines out: {}", stdout(&out));
    assert_eq!(v[1]["tier"], "ask");
    assert_eq!(v[1]["rule"], "input.malformed");
    let reason = v[1]["reason"].as_str().unwrap();
    assert!(reason.starts_with("line 2: "), "reason: {reason}");
    assert_eq!(v[0]["tier"], "auto", "ls -la: {}", v[0]);
    assert_eq!(v[2]["tier"], "deny", "sudo: {}", v[2]);
    assert_eq!(v[2]["rule"], "builtin.shell.priv-esc", "sudo: {}", v[2]);
}

#[test]
fn classify_keeps_counts_one_to_one_for_blank_and_odd_lines() {
    let input = "\n[1,2]\n\"bash\"\r\n{\"tool\":\"bash\",\"args\":{\"command\":\"pwd\"}}";
    let out = toolgate(&[&["classify"], &WS[..]].concat(), input);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let v = verdicts(&out);
    assert_eq!(v.len(), 4, "{}", stdout(&out));
    for (i, line) in v.iter().enumerate().take(3) {
        assert_eq!(line["rule"], "input.malformed", "line {}: {line}", i + 1);
        let want = format!("line {}: ", i + 1);
        assert!(
            line["reason"].as_str().unwrap().starts_with(&want),
            "{line}"
        );
    }
    assert_ne!(
        v[3]["rule"], "input.malformed",
        "a last line without newline counts"
    );
}

#[test]
fn classify_answers_each_line_before_the_next_arrives() {
    // An agent host may keep toolgate running and send one call at a time.
    let mut child = Command::new(BIN)
        .args([&["classify"], &WS[..]].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        while let Some(Ok(line)) = lines.next() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    for cmd in ["pwd", "sudo id"] {
        writeln!(stdin, r#"{{"tool":"bash","args":{{"command":"{cmd}"}}}}"#).unwrap();
        stdin.flush().unwrap();
        let line = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no verdict for {cmd} while stdin stays open"));
        assert!(line.starts_with("{\"tier\":"), "{line}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn classify_survives_a_closed_stdout() {
    let mut child = Command::new(BIN)
        .args([&["classify"], &WS[..]].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}\n".repeat(1000);
        for _ in 0..200 {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    drop(out); // like `toolgate classify | head -1`
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    writer.join().unwrap();
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert!(status.success(), "status {status:?}, stderr: {err}");
}

#[test]
fn bad_policy_file_exits_2_and_names_the_file_and_line() {
    let path = temp_file(
        "bad-policy.toml",
        "workspace = \"/home/dev/app\"\ndefault = \"ask\"\n[rules]\nallow = [\"Bash(npm test\"\n",
    );
    let out = toolgate(&["classify", "--policy", path.to_str().unwrap()], "");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains("bad-policy.toml"),
        "stderr names the file: {err}"
    );
    assert!(err.contains("line "), "stderr names the line: {err}");
    assert!(stdout(&out).is_empty(), "no verdicts from a bad policy");

    let bad_tier = temp_file("bad-tier.toml", "default = \"maybe\"\n");
    let out = toolgate(
        &["explain", "--policy", bad_tier.to_str().unwrap(), "ls"],
        "",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains("policy line 1"),
        "stderr names the line: {err}"
    );
}

#[test]
fn missing_policy_file_and_usage_errors_exit_2() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["classify", "--policy", "/nonexistent/p.toml"],
            "/nonexistent/p.toml",
        ),
        (vec![], "no command"),
        (vec!["classify", "--bogus"], "unexpected argument '--bogus'"),
        (vec!["explain"], "missing COMMAND"),
        (
            vec!["explain", "--call", "{not json"],
            "--call: invalid JSON",
        ),
        (vec!["bench"], "<FILE>"),
        (vec!["bench", "x.jsonl", "--seconds", "-1"], "--seconds"),
    ];
    for (args, want) in cases {
        let out = toolgate(&args, "");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "args {args:?}: stderr {err}");
        assert!(err.contains(want), "args {args:?}: stderr {err}");
        assert!(err.starts_with("toolgate: "), "args {args:?}: stderr {err}");
    }
}

#[test]
fn policy_file_values_and_flag_overrides() {
    let path = temp_file(
        "policy.toml",
        "workspace = \"/srv/site\"\nhome = \"/home/dev\"\ndefault = \"ask\"\n[rules]\nallow = [\"Bash(npm test*)\"]\n",
    );
    let policy = path.to_str().unwrap();
    let calls = concat!(
        r#"{"tool":"read","args":{"path":"/srv/site/index.html"}}"#,
        "\n",
        r#"{"tool":"bash","args":{"command":"npm test"}}"#,
        "\n",
        r#"{"tool":"bash","args":{"command":"npm test && rm -rf build"}}"#,
        "\n",
    );
    let out = toolgate(&["classify", "--policy", policy], calls);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let tiers: Vec<Value> = verdicts(&out).iter().map(|v| v["tier"].clone()).collect();
    assert_eq!(tiers, ["auto", "auto", "ask"], "{}", stdout(&out));

    // --workspace wins over the file's workspace.
    let out = toolgate(
        &[
            "classify",
            "--policy",
            policy,
            "--workspace",
            "/home/dev/app",
        ],
        calls,
    );
    let v = verdicts(&out);
    assert_eq!(
        v[0]["tier"], "ask",
        "/srv/site is no longer the workspace: {}",
        v[0]
    );
}

#[test]
fn explain_shows_the_parts_and_marks_the_span() {
    let command = "git status && sudo rm -rf /tmp/x";
    let out = toolgate(&[&["explain"], &WS[..], &[command]].concat(), "");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(text.contains("verdict: deny"), "{text}");
    assert!(text.contains("builtin.shell.priv-esc"), "{text}");
    assert!(text.contains("parts (2"), "{text}");
    assert!(text.contains("auto  git status"), "{text}");
    assert!(text.contains("deny  sudo rm -rf /tmp/x"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(command))
        .unwrap_or_else(|| panic!("command not shown: {text}"));
    let carets = lines[at + 1];
    let col = lines[at].find("sudo").unwrap();
    assert_eq!(carets.find('^'), Some(col), "caret under `sudo`:\n{text}");
    assert_eq!(carets.trim(), "^^^^", "{text}");
}

#[test]
fn explain_a_whole_call() {
    let call = r#"{"tool":"webfetch","args":{"url":"http://169.254.169.254/latest/meta-data/"}}"#;
    let out = toolgate(&[&["explain"], &WS[..], &["--call", call]].concat(), "");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(text.contains("verdict: deny"), "{text}");
    assert!(text.contains("169.254.169.254"), "{text}");
}

#[test]
fn explain_never_prints_raw_control_characters() {
    let out = toolgate(
        &[&["explain"], &WS[..], &["echo \u{1b}[2J hi"]].concat(),
        "",
    );
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("\\u{1b}[2J"), "{text}");
}

#[test]
fn bench_prints_the_rate_last() {
    let calls = temp_file(
        "calls.jsonl",
        concat!(
            r#"{"tool":"bash","args":{"command":"ls"},"expect":"auto","note":"ignored"}"#,
            "\n\n",
            r#"{"tool":"read","args":{"path":"src/main.rs"}}"#,
            "\n",
            r#"{"args":{"command":"no tool"}}"#,
            "\n",
        ),
    );
    let file = calls.to_str().unwrap();
    let out = toolgate(
        &[&["bench", file, "--seconds", "0.2"], &WS[..]].concat(),
        "",
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let last = text.lines().last().unwrap();
    let rate: f64 = last
        .strip_prefix("classifications_per_sec=")
        .unwrap_or_else(|| panic!("last line: {last}"))
        .parse()
        .unwrap();
    assert!(rate > 0.0, "{text}");
    assert!(text.contains("calls: 2, lines skipped: 1"), "{text}");
    assert!(
        text.contains("skipped line 4: no string \"tool\""),
        "{text}"
    );
}

#[test]
fn help_and_version() {
    let out = toolgate(&["--help"], "");
    assert_eq!(out.status.code(), Some(0));
    for sub in [
        "classify",
        "explain",
        "report",
        "bench",
        "bench-adversarial",
        "hook",
        "install",
        "doctor",
        "import",
        "runs",
        "decide",
        "completions",
        "EXIT STATUS",
    ] {
        assert!(stdout(&out).contains(sub), "help mentions {sub}");
    }
    // Each subcommand's help is generated from its own options.
    for (sub, wants) in [
        (
            "classify",
            &["--policy", "--workspace", "--settings", "--no-fs"][..],
        ),
        (
            "hook",
            &[
                "--timeout-ms",
                "--codex-ask",
                "--defer",
                "--no-fs",
                "claude-code",
            ][..],
        ),
        ("install", &["--scope", "--dry-run", "--uninstall"][..]),
        ("decide", &["--message", "allow"][..]),
    ] {
        let out = toolgate(&[sub, "--help"], "");
        assert_eq!(out.status.code(), Some(0), "{sub}");
        for w in wants {
            assert!(stdout(&out).contains(w), "{sub} --help mentions {w}");
        }
    }
    // Completions for the shells people use, naming the subcommands and options.
    for shell in ["bash", "zsh", "fish"] {
        let out = toolgate(&["completions", shell], "");
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(
            script.contains("toolgate")
                && script.contains("doctor")
                && script.contains("timeout-ms"),
            "{shell}: {}",
            &script[..script.len().min(300)]
        );
    }
    assert_eq!(
        toolgate(&["completions", "tcsh"], "").status.code(),
        Some(2)
    );
    let out = toolgate(&["--version"], "");
    let version = stdout(&out);
    let commit = version
        .strip_prefix(&format!("toolgate {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("{version:?}"));
    // This checkout's commit, maybe with -dirty (`unknown` only outside a git checkout).
    let in_git = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .is_ok_and(|o| o.status.success());
    let sha = commit.trim_end_matches("-dirty");
    assert!(
        if in_git {
            sha.len() == 12 && sha.bytes().all(|b| b.is_ascii_hexdigit())
        } else {
            commit == "unknown"
        },
        "{version:?}"
    );
}

#[test]
fn report_counts_a_log_and_refuses_bad_input_with_a_usage_error() {
    let log = temp_file(
        "report.jsonl",
        concat!(
            r#"{"tool":"bash","args":{"command":"sed -n '1,5p' f.py"},"run":"r1"}"#,
            "\n",
            r#"{"tool":"bash","args":{"command":"python reproduce.py"},"run":"r1"}"#,
            "\n",
            r#"{"tool":"bash","args":{"command":"python reproduce.py"},"run":"r2"}"#,
            "\n",
        ),
    );
    let path = log.to_str().unwrap();
    let o = toolgate(
        &["report", path, "--top", "3", WS[0], WS[1], WS[2], WS[3]],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("calls: 3, runs: 2, lines skipped: 0"), "{out}");
    assert!(
        out.contains("tiers: auto 1 (33.3 %), ask 2 (66.7 %), deny 0 (0.0 %)"),
        "{out}"
    );
    assert!(
        out.contains("      2   66.7 %  python reproduce.py"),
        "{out}"
    );

    let o = toolgate(&["report"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("<FILE|SESSION_LOG|DIR>"),
        "{}",
        stderr(&o)
    );
    let o = toolgate(&["report", path, "--top", "0"], "");
    assert_eq!(o.status.code(), Some(2));
    let o = toolgate(&["report", "/nonexistent/log.jsonl"], "");
    assert_eq!(o.status.code(), Some(1));
    let empty = temp_file("empty.jsonl", "\n");
    let o = toolgate(&["report", empty.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has no tool calls"), "{}", stderr(&o));
}

/// `classify` and `explain` look the file system up when the workspace is a directory
/// on this machine (the calls are this machine's), unless `--no-fs`; a workspace that
/// does not exist here is judged as written unless `--fs`.
#[test]
fn file_system_facts_are_on_when_the_workspace_exists_here() {
    let dir = std::env::temp_dir().join(format!("toolgate-cli-fs-{}", std::process::id()));
    let (ws, home) = (dir.join("ws"), dir.join("home"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap();
    let _ = std::fs::remove_file(ws.join("notes.txt"));
    std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), ws.join("notes.txt")).unwrap();
    let (ws, home) = (ws.to_str().unwrap(), home.to_str().unwrap());
    let line = r#"{"tool":"bash","args":{"command":"cat notes.txt"}}"#.to_string() + "\n";
    let tier = |extra: &[&str], ws: &str| {
        let mut args = vec!["classify", "--workspace", ws, "--home", home];
        args.extend(extra);
        let o = toolgate(&args, &line);
        assert!(o.status.success(), "{}", stderr(&o));
        verdicts(&o)[0]["tier"].as_str().unwrap().to_string()
    };
    assert_eq!(
        tier(&[], ws),
        "ask",
        "the planted link is followed by default"
    );
    assert_eq!(tier(&["--fs"], ws), "ask");
    assert_eq!(
        tier(&["--no-fs"], ws),
        "auto",
        "--no-fs judges the path as written"
    );
    let elsewhere = "/nonexistent/toolgate/ws";
    assert_eq!(
        tier(&[], elsewhere),
        "auto",
        "a workspace not on this machine"
    );
    let explain = |extra: &[&str]| {
        let mut args = vec!["explain", "--workspace", ws, "--home", home];
        args.extend(extra);
        args.push("cat notes.txt");
        stdout(&toolgate(&args, ""))
    };
    assert!(explain(&[]).contains("ask"), "{}", explain(&[]));
    assert!(
        explain(&["--no-fs"]).contains("auto"),
        "{}",
        explain(&["--no-fs"])
    );
    let o = toolgate(&["bench", "x.jsonl", "--no-fs"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A panic in the classifier answers that line `ask` (`builtin.internal-error`) and the
/// stream goes on. Needs the core's test-only feature that panics on its marker input:
/// `cargo test -p toolgate-cli --features panic-probe --test cli panic` (a stage of
/// `scripts/test`).
#[cfg(feature = "panic-probe")]
#[test]
fn panic_probe_a_panicking_line_asks_and_every_line_is_answered_in_order() {
    let bash =
        |cmd: &str| serde_json::json!({"tool": "bash", "args": {"command": cmd}}).to_string();
    let probe = toolgate_core::PANIC_PROBE;
    let lines = [
        bash("ls -la"),
        bash(&format!("echo {probe}")),
        bash("cat .env"),
        bash(&format!("ls; echo {probe}")),
        bash("rm -rf /"),
        bash("git status"),
    ];
    let input = lines.join("\n") + "\n";
    for fs in [false, true] {
        let mut args = vec!["classify"];
        args.extend(WS);
        if fs {
            args.push("--fs");
        }
        let o = toolgate(&args, &input);
        assert!(o.status.success(), "fs={fs}: {}", stderr(&o));
        let v = verdicts(&o);
        let got: Vec<(&str, &str)> = v
            .iter()
            .map(|v| (v["tier"].as_str().unwrap(), v["rule"].as_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("auto", "builtin.shell.readonly"),
                ("ask", "builtin.internal-error"),
                ("ask", "builtin.shell.secret-file"),
                ("ask", "builtin.internal-error"),
                ("deny", "builtin.shell.rm-root"),
                ("auto", "builtin.shell.readonly"),
            ],
            "fs={fs}"
        );
        let reason = v[1]["reason"].as_str().unwrap();
        assert!(reason.contains("the classifier failed"), "{reason}");
        assert!(stderr(&o).contains("panic-probe"), "{}", stderr(&o));
    }
}
