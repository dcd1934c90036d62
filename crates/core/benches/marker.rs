//! Park + resume of a run whose history is 100 KB, over the in-memory store:
//! encode + CAS write at park, read + checked decode + anchor checks + CAS write at resume.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use toolgate_core::{
    anchor, Marker, MemoryStore, Park, ParkCall, ResumeDecision, Runs, Tier, ToolCall, Verdict,
};

const HISTORY_BYTES: usize = 100 * 1024;

fn park_request(history: &str) -> Park {
    Park {
        run_id: "r-bench".to_string(),
        session_id: "s-bench".to_string(),
        owner: "bench".to_string(),
        calls: vec![ParkCall {
            tool_call_id: "call_1".to_string(),
            call: ToolCall::new("bash", json!({"command": "rm -rf build && npm test"})),
            verdict: Verdict::new(Tier::Ask, "default.ask", "rm is not on the read-only list"),
        }],
        history: history.to_string(),
        ttl_ms: None,
        parked_by: None,
    }
}

fn bench(c: &mut Criterion) {
    // A message-history-like payload with quotes and newlines to escape.
    let line = "{\"role\":\"assistant\",\"content\":\"ran `ls`\\n\"}\n";
    let history: String = line.repeat(HISTORY_BYTES / line.len() + 1)[..HISTORY_BYTES].to_string();
    let decision = [ResumeDecision::allow(
        "call_1",
        anchor("bash", &json!({"command": "rm -rf build && npm test"})),
    )];

    let mut group = c.benchmark_group("marker");
    group.throughput(Throughput::Bytes(HISTORY_BYTES as u64));
    group.bench_function("park+resume 100KB history", |b| {
        b.iter(|| {
            let runs = Runs::new(MemoryStore::new());
            let parked = runs.park(park_request(&history), 1_000);
            let resumed = runs.resume("r-bench", "bench", &decision, 2_000);
            black_box((parked.is_ok(), resumed.map(|r| r.history.len())))
        })
    });
    let encoded = Marker::park(
        &park_request(&history),
        &toolgate_core::marker::AnyHistory,
        1,
        1_000,
    )
    .map(|m| m.encode());
    if let Ok(Ok(text)) = encoded {
        group.bench_function("decode 100KB marker", |b| {
            b.iter(|| black_box(Marker::decode(black_box(&text)).is_ok()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
