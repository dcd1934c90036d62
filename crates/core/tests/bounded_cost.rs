//! The cost of classifying one shell command is bounded and linear in its length,
//! measured deterministically (no clocks): bytes allocated, a hard cap on the live heap and parser /
//! walker steps, counted by this test, over every adversarial family (nesting of every
//! bracket kind and keyword, here-docs, substitutions, the fuzzing find) and over
//! structured random shell, from 1 KiB up to the 64 KiB input limit.
//!
//! `cargo test -p toolgate-core --test bounded_cost -- --nocapture` prints the table.
//! (The budget's own behaviour, exhaustion → `too-complex`, is tested in `budget.rs`.)

#[path = "../benches/common/adversarial.rs"]
#[allow(dead_code)]
mod adversarial;

use cap::Cap;
use std::alloc::System;
use toolgate_core::budget::Budget;
use toolgate_core::rules::{analyze_with, Env};
use toolgate_core::shell::MAX_DEPTH;
use toolgate_core::{Policy, Tier, ToolCall};

/// Counts every allocation of the process and can cap the live heap: one classification
/// running past its peak limit fails its allocation and aborts the test.
#[global_allocator]
static GLOBAL: Cap<System> = Cap::new(System, usize::MAX);

/// What one classification cost.
#[derive(Debug, Clone, Copy)]
struct Cost {
    allocated: usize,
    steps: usize,
}

/// Bytes allocated (in total, not live) per byte of input, at most (plus
/// [`ALLOC_BASE`]). Each nesting level copies its text into its word and the walker's
/// part (≤ `MAX_DEPTH` levels), and `eval`/`bash -c` text is parsed again within the
/// nested-script budget, so the constant is large; it is a constant all the same, the
/// same from 64 B to 64 KiB (the worst measured is printed: about 900 at a few hundred
/// bytes, 450–700 at 64 KiB).
const ALLOC_PER_BYTE: usize = 1024;
const ALLOC_BASE: usize = 64 * 1024;
/// Parser and walker steps per byte, at most (plus [`STEPS_BASE`]): far under the
/// budget's [`STEPS_PER_BYTE`], which is only the safety net.
const STEPS_PER_INPUT_BYTE: usize = 12;
const STEPS_BASE: usize = 256;
/// Peak heap of one classification of an input up to 64 KiB.
const PEAK_LIMIT: usize = 16 * 1024 * 1024;

fn env() -> Env<'static> {
    Env {
        workspace: "/home/dev/app",
        home: "/home/dev",
        default: Tier::Ask,
        want_norm: true,
    }
}

/// The whole classification (policy, parts, verdict) and, separately, the steps the
/// built-in walk spent.
fn cost(policy: &Policy, command: &str) -> (Cost, Tier, String) {
    cost_capped(policy, command, PEAK_LIMIT)
}

/// [`cost`] with the live heap of the classification capped at `cap` bytes.
fn cost_capped(policy: &Policy, command: &str, cap: usize) -> (Cost, Tier, String) {
    let call = ToolCall::new("bash", serde_json::json!({ "command": command }));
    let (a0, live0) = (GLOBAL.total_allocated(), GLOBAL.allocated());
    // The live heap is capped while it runs: past the cap the allocation fails and
    // the test aborts. (`cap` keeps only the process-wide maximum, so the peak of one
    // call cannot be read back; the CLI's is measured by /usr/bin/time instead.)
    let _ = GLOBAL.set_limit(live0 + cap);
    let verdict = policy.classify(&call);
    let _ = GLOBAL.set_limit(usize::MAX);
    let allocated = GLOBAL.total_allocated() - a0;
    let mut budget = Budget::for_input(command.len());
    let parts = analyze_with(command, &env(), &mut budget);
    assert!(!parts.is_empty());
    let steps = budget.spent();
    let (tier, rule) = (verdict.tier, verdict.rule.to_string());
    (Cost { allocated, steps }, tier, rule)
}

fn check(name: &str, command: &str, c: Cost, failures: &mut Vec<String>) {
    let n = command.len();
    if c.allocated > ALLOC_PER_BYTE * n + ALLOC_BASE {
        failures.push(format!(
            "{name} @ {n} B: allocated {} B > {ALLOC_PER_BYTE}·len + {ALLOC_BASE}",
            c.allocated
        ));
    }
    if c.steps > STEPS_PER_INPUT_BYTE * n + STEPS_BASE {
        failures.push(format!(
            "{name} @ {n} B: {} steps > {STEPS_PER_INPUT_BYTE}·len + {STEPS_BASE}",
            c.steps
        ));
    }
}

fn every_adversarial_family() {
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let mut failures = Vec::new();
    println!(
        "{:<28} {:>6} {:>12} {:>8} {:>7} {:>7}  rule",
        "input", "bytes", "allocated", "steps", "B/byte", "st/byte"
    );
    for size in [1024, 4096, 16 * 1024, adversarial::LIMIT] {
        for input in adversarial::inputs(size) {
            let (c, tier, rule) = cost(&policy, &input.command);
            if size == adversarial::LIMIT {
                println!(
                    "{:<28} {:>6} {:>12} {:>8} {:>7.1} {:>7.2}  {} {}",
                    input.name,
                    size,
                    c.allocated,
                    c.steps,
                    c.allocated as f64 / size as f64,
                    c.steps as f64 / size as f64,
                    tier.as_str(),
                    rule
                );
            }
            check(input.name, &input.command, c, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn structured_random_shell() {
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let mut failures = Vec::new();
    let mut worst = (0.0f64, 0.0f64);
    for seed in 1..=64u64 {
        // Sizes from 64 B to 64 KiB, several seeds each.
        let size = 64usize << (seed % 11);
        let command = adversarial::generated(size, seed);
        let (c, _, _) = cost(&policy, &command);
        worst.0 = worst.0.max(c.allocated as f64 / size as f64);
        worst.1 = worst.1.max(c.steps as f64 / size as f64);
        check(
            &format!("generated seed {seed}"),
            &command,
            c,
            &mut failures,
        );
    }
    println!(
        "generated: worst {:.1} B allocated and {:.2} steps per input byte",
        worst.0, worst.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn the_fuzzing_find() {
    // 200 bytes of this took 12 s and 7.3 GB (an empty word at the nesting limit, read
    // again and again); the reduced form and the fuzz input's length.
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    for reps in [9, 10, 14, 200] {
        let command = "x>(c;(;esac(8s>(c>(;".repeat(reps);
        // Capped at 1 MiB of live heap (an abort past it).
        let (c, tier, rule) = cost_capped(&policy, &command, 1024 * 1024);
        assert_eq!(tier, Tier::Ask, "{reps} reps: {rule}");
        let mut failures = Vec::new();
        check("fuzz find", &command, c, &mut failures);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

fn nestings_around_the_depth_limit() {
    // Every bracket kind and keyword, from one level to past `MAX_DEPTH` (the levels
    // that count toward it differ by kind: `$(` counts two), closed and unclosed, and
    // as deep as fits in 64 KiB. Past the limit the parse ends (too complex): never a
    // retry, never `auto`. `if` and `while` bodies do not nest in the parser, and quoted
    // levels double in length, so those never reach the limit within 64 KiB.
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let mut failures = Vec::new();
    println!(
        "{:<10} {:>8} {:>9} {:>9}  deepest verdict",
        "nesting", "worst B", "B/byte", "st/byte"
    );
    for (kind, (name, _, _, _)) in adversarial::NESTINGS.iter().enumerate() {
        let nests = adversarial::nests_in_parser(kind);
        let mut worst = (0usize, 0.0f64, 0.0f64);
        let mut record = |command: &str, c: Cost, failures: &mut Vec<String>| {
            let n = command.len() as f64;
            worst.0 = worst.0.max(command.len());
            worst.1 = worst.1.max(c.allocated as f64 / n);
            worst.2 = worst.2.max(c.steps as f64 / n);
            check(name, command, c, failures);
        };
        for levels in 1..=MAX_DEPTH + 8 {
            for closed in [true, false] {
                let command = adversarial::nesting(kind, levels, closed);
                let (c, tier, rule) = cost(&policy, &command);
                if levels > MAX_DEPTH && nests && tier == Tier::Auto {
                    failures.push(format!("{name} ×{levels}: auto past the depth limit"));
                }
                if levels > MAX_DEPTH && nests && closed && !rule.ends_with("too-complex") {
                    failures.push(format!("{name} ×{levels}: {rule}, not too-complex"));
                }
                record(&command, c, &mut failures);
            }
        }
        let deep = adversarial::nesting(kind, adversarial::LIMIT, true);
        let (c, tier, rule) = cost(&policy, &deep);
        if tier == Tier::Auto && nests {
            failures.push(format!("{name} ({} B): auto", deep.len()));
        }
        record(&deep, c, &mut failures);
        println!(
            "{:<10} {:>8} {:>9.1} {:>9.2}  {} {} ({} B)",
            name,
            worst.0,
            worst.1,
            worst.2,
            tier.as_str(),
            rule,
            deep.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One test, so that no other test of this binary allocates while a call is measured.
#[test]
fn classifying_costs_linear_allocations_and_steps_and_bounded_peak() {
    the_fuzzing_find();
    nestings_around_the_depth_limit();
    every_adversarial_family();
    structured_random_shell();
}
