//! The cost of classifying one shell command is bounded and linear in its length,
//! measured deterministically (no clocks): bytes allocated, a hard cap on the live heap and parser /
//! walker steps, counted by this test, over every adversarial family (nesting of every
//! bracket kind and keyword, here-docs, substitutions, the fuzzing find) and over
//! structured random shell, from 1 KiB up to the 64 KiB input limit.
//!
//! `cargo test -p toolgate-core --test bounded_cost -- --nocapture` prints the table.
//! (The budget's own behaviour, exhaustion → `too-complex`, is tested in `budget.rs`.)

#[path = "../src/adversarial.rs"]
#[allow(dead_code)]
mod adversarial;

use cap::Cap;
use std::alloc::System;
use toolgate_core::budget::Budget;
use toolgate_core::builtin::{analyze_with, Env};
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
        edits: Tier::Auto,
        facts: None,
        needs: None,
        trees: false,
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
/// Runs `f` with the live heap capped at `cap` bytes (an abort past it); the bytes it
/// allocated in total.
fn allocated_by<T>(cap: usize, f: impl FnOnce() -> T) -> (usize, T) {
    let (a0, live0) = (GLOBAL.total_allocated(), GLOBAL.allocated());
    let _ = GLOBAL.set_limit(live0 + cap);
    let out = f();
    let _ = GLOBAL.set_limit(usize::MAX);
    (GLOBAL.total_allocated() - a0, out)
}

/// Bytes allocated per byte of a policy file, path, URL or marker, at most (+ 64 KiB):
/// the TOML parser builds a table per `[header]` (about 100 B per byte of `[t1]`, `[t2]`, … on their own lines).
const OTHER_ALLOC_PER_BYTE: usize = 128;

/// Hostile policy files, paths, URLs and stored markers: each parse allocates at most a
/// constant per input byte, under a live-heap cap, and ends in a value or an error.
fn the_other_parsers() {
    let mut failures = Vec::new();
    let mut rows: Vec<(String, usize, f64)> = Vec::new();
    let mut measure = |name: &str, len: usize, allocated: usize, failures: &mut Vec<String>| {
        rows.push((name.to_string(), len, allocated as f64 / len as f64));
        if allocated > OTHER_ALLOC_PER_BYTE * len + 64 * 1024 {
            failures.push(format!(
                "{name}: {allocated} B allocated for {len} B of input"
            ));
        }
    };
    // Policy files, up to the 256 KiB limit (and past it).
    let mib = toolgate_core::toml_shape::MAX_POLICY_BYTES;
    let policies: Vec<(&str, String)> = vec![
        (
            "toml [[[",
            format!("x = {}{}", "[".repeat(mib / 2 - 4), "]".repeat(mib / 2 - 4)),
        ),
        (
            "toml {a={a=",
            format!("x = {}1{}", "{a=".repeat(mib / 5), "}".repeat(mib / 5)),
        ),
        ("toml [a.a.a]", format!("[{}b]", "a.".repeat(mib / 2 - 2))),
        (
            "toml a.a.a = 1",
            format!("{} = 1", "a.".repeat(mib / 2 - 4)),
        ),
        (
            "toml 32-deep arrays",
            format!("x = [{}{}]\n", "[".repeat(31), "]".repeat(31)).repeat(mib / 72),
        ),
        (
            "toml many tables",
            (0..mib / 9).map(|i| format!("[t{i}]\n")).collect(),
        ),
        ("toml many [[t]]", "[[t]]\n".repeat(mib / 6)),
        (
            "toml many keys",
            (0..mib / 10).map(|i| format!("k{i}=1\n")).collect(),
        ),
        (
            "toml many rules",
            format!(
                "[rules]\nallow = [{}]\n",
                (0..mib / 20)
                    .map(|i| format!("\"Bash(c{i} *)\","))
                    .collect::<String>()
            ),
        ),
        (
            "toml unclosed '''",
            format!("x = '''{}", "'".repeat(mib / 2)),
        ),
        (
            "toml escaped quotes",
            format!("x = \"{}", "\\\"".repeat(mib / 2 - 4)),
        ),
        ("toml over the limit", "#".repeat(mib + 1)),
    ];
    for (name, text) in &policies {
        let (allocated, r) = allocated_by(64 * 1024 * 1024, || Policy::from_toml(text));
        match &r {
            Err(toolgate_core::Error::Policy { line, .. }) if *line >= 1 => {}
            Err(e) => failures.push(format!("{name}: an error without a line: {e:?}")),
            Ok(_) if text.len() > mib => failures.push(format!("{name}: accepted")),
            Ok(_) => {}
        }
        measure(name, text.len(), allocated, &mut failures);
    }
    // Paths and URLs: 64 KiB of the shapes the readers branch on, and one byte more.
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let k = adversarial::LIMIT;
    let args: Vec<(&str, &str, String)> = vec![
        ("read", "path", "../".repeat(k / 3)),
        ("read", "path", "./".repeat(k / 2)),
        ("read", "path", "/".repeat(k)),
        ("read", "path", format!("~{}", "a/".repeat(k / 2 - 1))),
        ("edit", "path", ".env/".repeat(k / 5)),
        ("read", "path", "a".repeat(k + 1)),
        ("webfetch", "url", format!("http://{}", "\\".repeat(k - 7))),
        (
            "webfetch",
            "url",
            format!("http:{}", "/\\".repeat(k / 2 - 3)),
        ),
        ("webfetch", "url", format!("http://{}x", "@".repeat(k - 8))),
        (
            "webfetch",
            "url",
            format!("http://{}", "%2e".repeat(k / 3 - 3)),
        ),
        (
            "webfetch",
            "url",
            format!("http://{}", "\u{3002}".repeat(k / 3 - 3)),
        ),
        ("webfetch", "url", format!("http://[{}", ":".repeat(k - 8))),
        (
            "webfetch",
            "url",
            format!("http://a.com/{}", "\t".repeat(k - 13)),
        ),
        ("webfetch", "url", format!("https://{}", "a".repeat(k - 8))),
        ("webfetch", "url", format!("https://{}", "a".repeat(k))),
    ];
    for (tool, key, value) in &args {
        let call = ToolCall::new(*tool, serde_json::json!({ *key: value }));
        let (allocated, v) = allocated_by(16 * 1024 * 1024, || policy.classify(&call));
        if value.len() > k && v.rule != "builtin.too-long" {
            failures.push(format!("{tool} {key} of {} B: {}", value.len(), v.rule));
        }
        let head: String = value.chars().take(9).collect();
        measure(
            &format!("{tool} {key} {head:?}"),
            value.len(),
            allocated,
            &mut failures,
        );
    }
    // Stored markers and run records, up to their 1 MiB limit.
    let mmax = toolgate_core::marker::MAX_MARKER_BYTES;
    let markers: Vec<(&str, String)> = vec![
        ("marker [[[", "[".repeat(mmax)),
        ("marker {\"a\":{\"a\":", "{\"a\":".repeat(mmax / 5)),
        (
            "marker long string",
            format!("{{\"v\":1,\"x\":\"{}\"}}", "a".repeat(mmax - 16)),
        ),
        (
            "marker \\u escapes",
            format!("{{\"v\":1,\"x\":\"{}\"}}", "\\u0041".repeat(mmax / 6 - 3)),
        ),
        (
            "marker many keys",
            format!(
                "{{\"v\":1,{}\"z\":0}}",
                (0..mmax / 12)
                    .map(|i| format!("\"k{i}\":0,"))
                    .collect::<String>()
            ),
        ),
        ("marker over 1 MiB", " ".repeat(mmax + 1)),
    ];
    for (name, text) in &markers {
        let (allocated, (m, r)) = allocated_by(64 * 1024 * 1024, || {
            (
                toolgate_core::Marker::decode(text).is_ok(),
                toolgate_core::Run::decode(text, &toolgate_core::marker::AnyHistory).is_ok(),
            )
        });
        if m || r {
            failures.push(format!("{name}: decoded"));
        }
        measure(name, text.len(), allocated, &mut failures);
    }
    for (name, len, per_byte) in &rows {
        println!("{name:<36} {len:>8} B {per_byte:>7.1} B allocated per byte");
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
    the_other_parsers();
}
