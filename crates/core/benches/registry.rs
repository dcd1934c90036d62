//! Registry benchmarks: request+respond with 100,000 pending, cleanup of 100,000.
//! Also prints the resident-memory growth per pending request (Linux `/proc`).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::hint::black_box;
use toolgate_core::{Decision, NewRequest, Policy};

#[path = "common/registry_workload.rs"]
mod workload;
use workload::{call, filled, verdict};

const N: usize = 100_000;

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn memory_per_pending() {
    let before = rss_kib();
    let r = filled(N);
    let after = rss_kib();
    if let (Some(b), Some(a)) = (before, after) {
        println!(
            "memory: {} pending -> RSS +{} KiB = {} bytes per pending request (entry, id index, deadline heap, text of tool/args/verdict/scopes)",
            r.size(),
            a.saturating_sub(b),
            a.saturating_sub(b) * 1024 / N as u64
        );
    }
}

fn bench(c: &mut Criterion) {
    memory_per_pending();
    let policy = Policy::defaults("/w", "/home/u");
    let mut r = filled(N);
    let one = call(N + 1);
    // Time stands still, so the 100,000 stay pending (no expiry sweep shrinks them).
    let now = 1u64;
    c.bench_function("request+respond (100k pending)", |b| {
        b.iter(|| {
            let got = r.request(NewRequest::new(one.clone(), verdict()), 60_000, now);
            let Ok(got) = got else { return };
            let anchor = r
                .get(got.id)
                .map(|p| p.anchor.to_string())
                .unwrap_or_default();
            let _ = black_box(r.respond(got.id, Decision::AllowOnce, &anchor, &policy, now));
        })
    });
    // The same, with the anchor passed in precomputed, as a UI that holds it would.
    let anchor = one.anchor();
    c.bench_function("request+respond, precomputed anchor (100k pending)", |b| {
        b.iter(|| {
            let got = r.request(NewRequest::new(one.clone(), verdict()), 60_000, now);
            let Ok(got) = got else { return };
            let _ = black_box(r.respond(got.id, Decision::AllowOnce, &anchor, &policy, now));
        })
    });
    let mut g = c.benchmark_group("cleanup");
    g.sample_size(10);
    g.bench_function("cleanup of 100k", |b| {
        b.iter_batched(
            || filled(N),
            |mut r| black_box(r.cleanup(1)),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
