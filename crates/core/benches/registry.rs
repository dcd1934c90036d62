//! Registry benchmarks: request+respond with 100,000 pending, cleanup of 100,000.
//! Also prints the resident-memory growth per pending request (Linux `/proc`).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::json;
use std::hint::black_box;
use toolgate_core::{
    Decision, Error, NewRequest, Policy, Registry, RegistryConfig, Tier, ToolCall, Verdict,
};

const N: usize = 100_000;

/// A fast, non-cryptographic id source (splitmix64) — benchmarks only.
fn ids() -> impl FnMut() -> Result<u128, Error> {
    let mut s = 0x1234_5678_9abc_def0u64;
    move || {
        let mut next = || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Ok((u128::from(next()) << 64) | u128::from(next()))
    }
}

fn call(i: usize) -> ToolCall {
    ToolCall::new("bash", json!({ "command": format!("rm -rf build/{i}") }))
}

fn verdict() -> Verdict {
    Verdict::new(Tier::Ask, "default", "not on any list")
}

fn filled(n: usize) -> Registry {
    let mut r = Registry::new("bench", RegistryConfig::default(), ids());
    for i in 0..n {
        let _ = r.request(NewRequest::new(call(i), verdict()), 60_000, 0);
    }
    r
}

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
            "memory: {} pending -> RSS +{} KiB = {} bytes per pending request (incl. call args, verdict, anchor, index)",
            r.size(),
            a.saturating_sub(b),
            a.saturating_sub(b) * 1024 / N as u64
        );
    }
    println!(
        "sizes: Pending {} B inline (+ heap for tool, args, verdict strings, 64-byte anchor)",
        std::mem::size_of::<toolgate_core::Pending>()
    );
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
            let anchor = r.get(got.id).map(|p| p.anchor.clone()).unwrap_or_default();
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
