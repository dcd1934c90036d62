//! `toolgate report` on the hosts' own session logs (fixtures in `tests/fixtures`, one
//! per host, in each host's format): every tool call is found, judged with the log's
//! working directory as the workspace (unless `--workspace` names one), and grouped by
//! session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::toolgate;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn report(args: &[&str]) -> String {
    let o = toolgate(args, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn a_claude_code_transcript_is_reported_with_its_own_cwd() {
    let file = fixture("claude-transcript.jsonl");
    let out = report(&["report", &file, "--home", "/home/dev"]);
    for want in [
        "(Claude Code transcript)",
        "calls: 10, runs: 1, lines skipped: 0",
        "tiers: auto 4 (40.0 %), ask 5 (50.0 %), deny 1 (10.0 %)",
        "builtin.shell.rm-root",
        "cat .env | grep DATABASE_URL",
        "git push --force origin main",
    ] {
        assert!(out.contains(want), "missing {want:?}:\n{out}");
    }
    // The transcript's cwd (/home/dev/app) is the workspace: its Read and Edit of
    // src/date.rs are auto. Another workspace makes them reads and edits outside.
    let elsewhere = report(&[
        "report",
        &file,
        "--home",
        "/home/dev",
        "--workspace",
        "/srv/other",
    ]);
    assert!(
        elsewhere.contains("tiers: auto 2 (20.0 %), ask 7 (70.0 %), deny 1 (10.0 %)"),
        "{elsewhere}"
    );
}

#[test]
fn a_codex_rollout_and_a_gemini_chat_are_reported() {
    let out = report(&[
        "report",
        &fixture("codex-rollout.jsonl"),
        "--home",
        "/home/dev",
    ]);
    for want in [
        "(Codex rollout)",
        "calls: 7, runs: 1",
        "tiers: auto 3 (42.9 %), ask 2 (28.6 %), deny 2 (28.6 %)",
        "builtin.edit-system",
        "builtin.shell.rm-root",
    ] {
        assert!(out.contains(want), "missing {want:?}:\n{out}");
    }
    let out = report(&[
        "report",
        &fixture("gemini-chat.json"),
        "--home",
        "/home/dev",
        "--workspace",
        "/home/dev/app",
    ]);
    for want in [
        "(Gemini CLI chat)",
        "calls: 4, runs: 1",
        "tiers: auto 1 (25.0 %), ask 2 (50.0 %), deny 1 (25.0 %)",
        "builtin.read-secret",
    ] {
        assert!(out.contains(want), "missing {want:?}:\n{out}");
    }
}

/// A directory of logs (a host's session folder) is read whole: every log under it, each
/// session a run; a directory with none is a usage error.
#[test]
fn a_directory_of_session_logs_is_reported_whole() {
    let dir = format!("{}/tests/fixtures", env!("CARGO_MANIFEST_DIR"));
    let out = report(&["report", &dir, "--home", "/home/dev"]);
    for want in [
        "(3 logs: Claude Code transcript, Codex rollout, Gemini CLI chat)",
        "calls: 21, runs: 3, lines skipped: 0",
    ] {
        assert!(out.contains(want), "missing {want:?}:\n{out}");
    }
    let empty = std::env::temp_dir().join(format!("toolgate-empty-logs-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let o = toolgate(&["report", empty.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds no session logs"));
    let _ = std::fs::remove_dir(&empty);
}
