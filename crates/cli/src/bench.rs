//! `toolgate bench` (throughput over a file of calls) and `toolgate bench-adversarial`
//! (time per hostile input, to show the cost is bounded and linear).

use crate::error::CliError;
use serde_json::Value;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use toolgate_core::{Policy, Tier, ToolCall};

use toolgate_core::adversarial;

/// Calls classified between two looks at the clock.
const CLOCK_EVERY: usize = 1024;

/// The calls of a JSON-lines file, parsed once. Keys other than `tool`, `args` and
/// `run` (the corpus's `expect`, `rule`, `note`) are ignored; blank lines are skipped.
#[derive(Debug, Default)]
pub struct Calls {
    pub calls: Vec<ToolCall>,
    /// The `run` of each call (its agent run), beside `calls`; `(no run)` when absent.
    pub runs: Vec<String>,
    /// `line N: why` for each line that is not a tool call.
    pub skipped: Vec<String>,
}

pub fn load_calls(text: &str) -> Calls {
    let mut out = Calls::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                out.skipped
                    .push(format!("line {}: invalid JSON: {e}", i + 1));
                continue;
            }
        };
        match ToolCall::from_value(&value) {
            Ok(call) => {
                out.calls.push(call);
                out.runs.push(match value.get("run") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => String::from("(no run)"),
                    Some(other) => other.to_string(),
                });
            }
            Err(_) => out
                .skipped
                .push(format!("line {}: no string \"tool\"", i + 1)),
        }
    }
    out
}

/// Default run time of `toolgate bench`.
pub const BENCH_SECONDS: f64 = 3.0;
/// Default time per input of `toolgate bench-adversarial`.
pub const ADVERSARIAL_SECONDS: f64 = 0.2;

/// `toolgate bench`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// JSON lines of tool calls
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
    /// How long to run, in seconds (0, 3600]
    #[arg(long, value_name = "S", default_value_t = BENCH_SECONDS, value_parser = seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    #[command(flatten)]
    pub policy: crate::load::PolicyOpts,
}

/// `toolgate bench-adversarial`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct AdversarialArgs {
    /// Seconds per input, in (0, 3600]
    #[arg(long, value_name = "S", default_value_t = ADVERSARIAL_SECONDS, value_parser = seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    #[command(flatten)]
    pub policy: crate::load::PolicyOpts,
}

/// A number of seconds in (0, 3600].
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!(
            "expected a number of seconds in (0, 3600], got `{s}`"
        )),
    }
}

/// Runs `toolgate bench`; returns the report, whose last line is
/// `classifications_per_sec=N`.
pub fn bench(policy: &Policy, file: &Path, seconds: f64) -> Result<String, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(CliError::io(format!("reading {}", file.display())))?;
    let Calls { calls, skipped, .. } = load_calls(&text);
    if calls.is_empty() {
        return Err(CliError::Usage(format!(
            "bench: {} has no tool calls (JSON lines {{\"tool\":…,\"args\":…}})",
            file.display()
        )));
    }
    let mut tiers = [0usize; 3];
    for call in &calls {
        tiers[tier_index(policy.classify(call).tier)] += 1;
    }

    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut count: u64 = 0;
    let mut i = 0;
    let elapsed = loop {
        for _ in 0..CLOCK_EVERY {
            black_box(policy.classify(black_box(&calls[i])));
            i += 1;
            if i == calls.len() {
                i = 0;
            }
        }
        count += CLOCK_EVERY as u64;
        let elapsed = start.elapsed();
        if elapsed >= budget {
            break elapsed;
        }
    };
    let per_sec = count as f64 / elapsed.as_secs_f64();

    let mut s = String::new();
    let _ = writeln!(s, "file: {}", file.display());
    let _ = writeln!(
        s,
        "calls: {}, lines skipped: {}",
        calls.len(),
        skipped.len()
    );
    for why in skipped.iter().take(5) {
        let _ = writeln!(s, "  skipped {why}");
    }
    let _ = writeln!(
        s,
        "tiers: auto={} ask={} deny={} (workspace {}, home {})",
        tiers[0],
        tiers[1],
        tiers[2],
        policy.workspace(),
        policy.home()
    );
    let _ = writeln!(s, "threads: 1");
    let _ = writeln!(s, "seconds: {:.3}", elapsed.as_secs_f64());
    let _ = writeln!(s, "classifications: {count}");
    let _ = writeln!(s, "mean_ns_per_call: {:.0}", 1e9 / per_sec);
    let _ = writeln!(s, "classifications_per_sec={per_sec:.0}");
    Ok(s)
}

/// The index of `t` in an `[auto, ask, deny]` count. A `sandbox` verdict counts with
/// the asks: it is one for every host that does not run it contained.
pub fn tier_index(t: Tier) -> usize {
    match t {
        Tier::Auto => 0,
        Tier::Sandbox | Tier::Ask => 1,
        Tier::Deny => 2,
    }
}

/// The mean time of one classification of `call`: at least 3 runs, then as many as
/// fit in `budget` (after one warm-up run, whose verdict is returned).
fn time_call(policy: &Policy, call: &ToolCall, budget: Duration) -> (Duration, u64, Tier, String) {
    let verdict = policy.classify(call);
    let start = Instant::now();
    let mut runs: u64 = 0;
    loop {
        black_box(policy.classify(black_box(call)));
        runs += 1;
        let elapsed = start.elapsed();
        if (runs >= 3 && elapsed >= budget) || runs >= 1_000_000 {
            let mean = elapsed.checked_div(u32::try_from(runs).unwrap_or(u32::MAX));
            return (
                mean.unwrap_or(elapsed),
                runs,
                verdict.tier,
                verdict.rule.into_owned(),
            );
        }
    }
}

/// The mean time of reading `text` as a policy file, and whether it read.
fn time_policy(text: &str, budget: Duration) -> (Duration, bool) {
    let read = Policy::from_toml(text).is_ok();
    let start = Instant::now();
    let mut runs: u32 = 0;
    loop {
        black_box(Policy::from_toml(black_box(text)).is_ok());
        runs += 1;
        let elapsed = start.elapsed();
        if (runs >= 3 && elapsed >= budget) || runs >= 100_000 {
            return (elapsed.checked_div(runs).unwrap_or(elapsed), read);
        }
    }
}

/// Runs `toolgate bench-adversarial`: every adversarial family at 16 KiB and 64 KiB
/// (the ratio shows linearity: ≈4 when linear), plus the over-limit input, then hostile
/// policy files at 64 KiB and 256 KiB (ratio ≈4 too). The last
/// line is `worst_us_per_input=…`: the slowest mean time of one classification.
pub fn bench_adversarial(policy: &Policy, seconds_per_input: f64) -> String {
    let budget = Duration::from_secs_f64(seconds_per_input);
    let call = |command: &str| ToolCall::new("bash", serde_json::json!({ "command": command }));
    let small = adversarial::inputs(adversarial::LIMIT / 4);
    let big = adversarial::inputs(adversarial::LIMIT);

    let mut s = String::new();
    let _ = writeln!(
        s,
        "# mean time of one classification; ratio = time@64KiB / time@16KiB (≈4 when linear)"
    );
    let _ = writeln!(
        s,
        "{:<28} {:>6} {:>5}  {:<32} {:>10} {:>10} {:>6} {:>8}",
        "input", "bytes", "tier", "rule", "us@16KiB", "us@64KiB", "ratio", "ns/byte"
    );
    let mut worst = (Duration::ZERO, String::new());
    for (sm, bg) in small.iter().zip(&big) {
        let (t16, _, _, _) = time_call(policy, &call(&sm.command), budget);
        let (t64, _, tier, rule) = time_call(policy, &call(&bg.command), budget);
        let ratio = t64.as_secs_f64() / t16.as_secs_f64().max(1e-12);
        let _ = writeln!(
            s,
            "{:<28} {:>6} {:>5}  {:<32} {:>10.1} {:>10.1} {:>6.1} {:>8.2}",
            bg.name,
            bg.command.len(),
            tier.as_str(),
            rule,
            micros(t16),
            micros(t64),
            ratio,
            t64.as_secs_f64() * 1e9 / bg.command.len() as f64
        );
        if t64 > worst.0 {
            worst = (t64, bg.name.to_string());
        }
    }
    let over = adversarial::over_limit();
    let (t, _, tier, rule) = time_call(policy, &call(&over.command), budget);
    let _ = writeln!(
        s,
        "{:<28} {:>6} {:>5}  {:<32} {:>10} {:>10.1} {:>6} {:>8.2}",
        over.name,
        over.command.len(),
        tier.as_str(),
        rule,
        "-",
        micros(t),
        "-",
        t.as_secs_f64() * 1e9 / over.command.len() as f64
    );
    if t > worst.0 {
        worst = (t, over.name.to_string());
    }
    // Hostile policy files at 64 KiB and 256 KiB (the limit): ratio ≈4 when linear.
    let _ = writeln!(
        s,
        "{:<28} {:>6} {:>5}  {:<32} {:>10} {:>10} {:>6} {:>8}",
        "policy file", "bytes", "read", "", "us@64KiB", "us@256KiB", "ratio", "ns/byte"
    );
    let max = toolgate_core::toml_shape::MAX_POLICY_BYTES;
    let quarter = adversarial::policy_files(max / 4);
    for ((name, sm), (_, bg)) in quarter.iter().zip(adversarial::policy_files(max)) {
        let (t64, _) = time_policy(sm, budget);
        let (t256, read) = time_policy(&bg, budget);
        let _ = writeln!(
            s,
            "{:<28} {:>6} {:>5}  {:<32} {:>10.1} {:>10.1} {:>6.1} {:>8.2}",
            name,
            bg.len(),
            if read { "ok" } else { "error" },
            "",
            micros(t64),
            micros(t256),
            t256.as_secs_f64() / t64.as_secs_f64().max(1e-12),
            t256.as_secs_f64() * 1e9 / bg.len() as f64
        );
    }
    let _ = writeln!(
        s,
        "worst_us_per_input={:.1} input={:?}",
        micros(worst.0),
        worst.1
    );
    s
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_calls_and_names_skipped_lines() {
        let text = "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"},\"expect\":\"auto\"}\n\n{\"args\":{}}\nnope\n{\"tool\":\"read\"}\n";
        let calls = load_calls(text);
        assert_eq!(
            calls.calls,
            vec![
                ToolCall::new("bash", serde_json::json!({"command": "ls"})),
                ToolCall::new("read", Value::Null),
            ]
        );
        assert_eq!(calls.skipped.len(), 2, "{:?}", calls.skipped);
        assert!(calls.skipped[0].starts_with("line 3: no string \"tool\""));
        assert!(calls.skipped[1].starts_with("line 4: invalid JSON"));
    }

    #[test]
    fn adversarial_inputs_have_the_stated_sizes() {
        for size in [adversarial::LIMIT / 4, adversarial::LIMIT] {
            for input in adversarial::inputs(size) {
                assert_eq!(input.command.len(), size, "{}", input.name);
            }
        }
        assert_eq!(
            adversarial::over_limit().command.len(),
            adversarial::LIMIT + 1
        );
    }
}
