//! Hostile shell inputs (the adversarial benchmark's, at 16 KiB and 64 KiB) never crash
//! the classifier — no panic, no stack overflow — and always yield a verdict whose spans
//! fit the command. Times are measured by the benchmarks, not here; the only clock is a
//! watchdog far above any linear cost, so a runaway (exponential) parse fails with the
//! input's name instead of hanging the test run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::mpsc;
use std::time::Duration;
use toolgate_core::{Policy, Tier, ToolCall, Verdict};

/// Far above the linear cost of 64 KiB even in a debug build.
const WATCHDOG: Duration = Duration::from_secs(60);

#[path = "../src/adversarial.rs"]
#[allow(dead_code)] // each user takes what it needs of the shared inputs
mod adversarial;

fn classify(command: &str) -> Verdict {
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    policy.classify(&ToolCall::new(
        "bash",
        serde_json::json!({ "command": command }),
    ))
}

fn spans_fit(command: &str, v: &Verdict) -> bool {
    let fits = |s: Option<[usize; 2]>| s.is_none_or(|[a, b]| a <= b && command.get(a..b).is_some());
    fits(v.span) && v.parts.iter().all(|p| fits(p.span))
}

#[test]
fn adversarial_inputs_yield_a_verdict() {
    for size in [adversarial::LIMIT / 4, adversarial::LIMIT] {
        for input in adversarial::inputs(size) {
            let (tx, rx) = mpsc::channel();
            let command = input.command.clone();
            // A thread of its own: the default 2 MiB stack, closer to wasm's than main's.
            std::thread::spawn(move || {
                let _ = tx.send(classify(&command));
            });
            let v = rx.recv_timeout(WATCHDOG).unwrap_or_else(|_| {
                panic!(
                    "{} ({size} bytes): no verdict after {WATCHDOG:?} (runaway parse?)",
                    input.name
                )
            });
            assert!(
                spans_fit(&input.command, &v),
                "{} ({size} bytes): span {:?} does not fit",
                input.name,
                v.span
            );
        }
    }
}

#[test]
fn over_the_limit_is_ask_too_long() {
    let input = adversarial::over_limit();
    let v = classify(&input.command);
    assert_eq!(v.tier, Tier::Ask, "{}: {v:?}", input.name);
    assert!(
        v.rule.ends_with("too-long"),
        "{}: rule {}",
        input.name,
        v.rule
    );
}
