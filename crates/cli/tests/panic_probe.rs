//! A panic in the classifier answers that line `ask` (`builtin.internal-error`) and the
//! stream goes on. Needs the test-only feature that makes the core panic on its marker
//! input: `cargo test -p toolgate-cli --features panic-probe --test panic_probe`
//! (a stage of `scripts/test`).
#![cfg(feature = "panic-probe")]

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};
use toolgate_core::PANIC_PROBE;

const BIN: &str = env!("CARGO_BIN_EXE_toolgate");

fn classify(extra: &[&str], lines: &[String]) -> (Vec<Value>, String, bool) {
    let mut child = Command::new(BIN)
        .args([
            "classify",
            "--workspace",
            "/home/dev/app",
            "--home",
            "/home/dev",
        ])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = lines.join("\n") + "\n";
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let verdicts = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        verdicts,
        String::from_utf8(out.stderr).unwrap(),
        out.status.success(),
    )
}

fn bash(cmd: &str) -> String {
    serde_json::json!({"tool": "bash", "args": {"command": cmd}}).to_string()
}

#[test]
fn a_panicking_line_asks_and_every_line_is_answered_in_order() {
    let lines = vec![
        bash("ls -la"),
        bash(&format!("echo {PANIC_PROBE}")),
        bash("cat .env"),
        bash(&format!("ls; echo {PANIC_PROBE}")),
        bash("rm -rf /"),
        bash("git status"),
    ];
    for extra in [&[][..], &["--fs"][..]] {
        let (v, stderr, ok) = classify(extra, &lines);
        assert!(ok, "{extra:?}: the process failed: {stderr}");
        assert_eq!(v.len(), lines.len(), "{extra:?}: {v:?}");
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
            "{extra:?}"
        );
        let reason = v[1]["reason"].as_str().unwrap();
        assert!(reason.contains("the classifier failed"), "{reason}");
        assert!(stderr.contains("panic-probe"), "{stderr}");
    }
}
