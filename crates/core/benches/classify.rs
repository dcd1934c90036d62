//! Criterion benchmarks of the classifier.
//!
//! - `corpus`: every call of the public corpus (`../shared/corpus/public.jsonl`,
//!   falling back to `tests/corpus/own.jsonl`), one iteration = the whole file;
//!   throughput is in calls.
//! - `adversarial`: one hostile 64 KiB shell command per benchmark (64 KiB of `$(`,
//!   of quotes, deeply nested substitutions, a long here-doc, …, and one input over
//!   the limit): the time per input is read off directly.
//!
//! `cargo bench -p toolgate-core --bench classify` (add `-- adversarial` for one group).
//! For plain figures without criterion: `toolgate bench-adversarial` (see `scripts/bench`).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use toolgate_core::{Policy, ToolCall};

#[path = "../src/adversarial.rs"]
#[allow(dead_code)] // each user takes what it needs of the shared inputs
mod adversarial;

fn policy() -> Policy {
    Policy::defaults("/home/dev/app", "/home/dev")
}

/// The calls of the public corpus, or of the own corpus when the public one is absent.
fn corpus_calls() -> (String, Vec<ToolCall>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        root.join("../shared/corpus/public.jsonl"),
        root.join("tests/corpus/own.jsonl"),
    ];
    for path in candidates {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let calls: Vec<ToolCall> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| {
                let tool = v.get("tool")?.as_str()?.to_string();
                let args = v.get("args").cloned().unwrap_or(Value::Null);
                Some(ToolCall::new(tool, args))
            })
            .collect();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return (name, calls);
    }
    (String::from("none"), Vec::new())
}

fn corpus(c: &mut Criterion) {
    let policy = policy();
    let (name, calls) = corpus_calls();
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Elements(calls.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            for call in &calls {
                black_box(policy.classify(black_box(call)));
            }
        })
    });
    group.finish();
}

fn adversarial(c: &mut Criterion) {
    let policy = policy();
    let mut group = c.benchmark_group("adversarial");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let mut inputs = adversarial::inputs(adversarial::LIMIT);
    inputs.push(adversarial::over_limit());
    for input in inputs {
        let call = ToolCall::new("bash", serde_json::json!({ "command": input.command }));
        group.throughput(Throughput::Bytes(input.command.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(input.name), &call, |b, call| {
            b.iter(|| black_box(policy.classify(black_box(call))))
        });
    }
    group.finish();
}

criterion_group!(benches, corpus, adversarial);
criterion_main!(benches);
