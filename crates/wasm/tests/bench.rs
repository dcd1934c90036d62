//! Chromium benchmark (prints numbers; asserts nothing about time). Runs only when built
//! with `TOOLGATE_BENCH=1`:
//! `TOOLGATE_BENCH=1 wasm-pack test --release --headless --chrome crates/wasm --test bench`
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Promise, Reflect};
use serde_json::json;
use toolgate_core::{Decision, NewRequest, Registry, RegistryConfig, Tier, ToolCall, Verdict};
use toolgate_wasm::{CryptoIds, JsGate, Policy};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const N: usize = 100_000;
const OPS: usize = 100_000;

fn enabled() -> bool {
    if option_env!("TOOLGATE_BENCH").is_none() {
        console_log!("bench skipped (build with TOOLGATE_BENCH=1 to run it)");
        return false;
    }
    true
}

fn now() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

fn wasm_memory_bytes() -> f64 {
    let mem: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let buf = mem.buffer();
    Reflect::get(&buf, &"byteLength".into())
        .unwrap()
        .as_f64()
        .unwrap()
}

fn call(i: usize) -> ToolCall {
    ToolCall::new("bash", json!({ "command": format!("rm -rf build/{i}") }))
}

fn verdict() -> Verdict {
    Verdict::new(Tier::Ask, "default", "not on any list")
}

#[wasm_bindgen_test]
fn registry_in_wasm() {
    if !enabled() {
        return;
    }
    let policy = toolgate_core::Policy::defaults("/w", "/home/u");
    let mem0 = wasm_memory_bytes();
    let mut r = Registry::new(
        "bench",
        RegistryConfig::default(),
        CryptoIds::new().unwrap(),
    );
    let t0 = now();
    for i in 0..N {
        let _ = r
            .request(NewRequest::new(call(i), verdict()), 60_000, 1)
            .unwrap();
    }
    let fill_ms = now() - t0;
    let mem1 = wasm_memory_bytes();
    let one = call(N + 1);
    let t0 = now();
    for _ in 0..OPS {
        let got = r
            .request(NewRequest::new(one.clone(), verdict()), 60_000, 1)
            .unwrap();
        let anchor = r.get(got.id).unwrap().anchor.to_string();
        r.respond(got.id, Decision::AllowOnce, &anchor, &policy, 1)
            .unwrap();
    }
    let op_us = (now() - t0) * 1000.0 / OPS as f64;
    let t0 = now();
    let c = r.cleanup(2);
    let cleanup_ms = now() - t0;
    assert_eq!(c.settled.len(), N);
    let t0 = now();
    drop(c);
    let drop_ms = now() - t0;
    console_log!(
        "chromium registry: fill {N} in {fill_ms:.1} ms; request+respond with {N} pending: {op_us:.3} µs/op; \
         cleanup of {N}: {cleanup_ms:.1} ms (+{drop_ms:.1} ms to free the settled list); \
         wasm memory growth {:.0} bytes per pending request (memory.buffer.byteLength delta / {N})",
        (mem1 - mem0) / N as f64
    );
}

#[wasm_bindgen_test]
async fn gate_in_wasm() {
    if !enabled() {
        return;
    }
    let policy =
        Policy::defaults(js_sys::JSON::parse(r#"{"workspace":"/w","home":"/home/u"}"#).unwrap())
            .unwrap();
    let gate = JsGate::new(
        &policy,
        js_sys::JSON::parse(r#"{"sessionId":"bench","timeoutMs":600000}"#).unwrap(),
    )
    .unwrap();
    let mem0 = wasm_memory_bytes();
    let promises = Array::new();
    let t0 = now();
    for i in 0..N {
        let c = js_sys::JSON::parse(&format!(
            r#"{{"tool":"bash","args":{{"command":"rm -rf build/{i}"}}}}"#
        ))
        .unwrap();
        promises.push(&gate.check(c));
    }
    let fill_ms = now() - t0;
    let mem1 = wasm_memory_bytes();
    // check + respond with 100k pending, through the gate (waiter, timer, listeners).
    let anchor = toolgate_core::anchor("bash", &json!({"command": "make deploy"}));
    let t0 = now();
    for _ in 0..OPS {
        let fut = gate
            .check_call(
                ToolCall::new("bash", json!({"command": "make deploy"})),
                None,
            )
            .unwrap();
        let id = fut.id().unwrap().to_string();
        gate.respond_to(&id, Decision::AllowOnce, &anchor).unwrap();
    }
    let op_us = (now() - t0) * 1000.0 / OPS as f64;
    // The JS-facing methods: respond() with a JS decision object, and check() with a
    // JS call object returning a Promise (these stay pending until the cleanup below).
    let c = js_sys::JSON::parse(r#"{"tool":"bash","args":{"command":"make deploy"}}"#).unwrap();
    let response = js_sys::JSON::parse(&format!(
        r#"{{"decision":"allow_once","anchor":"{anchor}"}}"#
    ))
    .unwrap();
    let js_ops = 20_000;
    let t0 = now();
    for _ in 0..js_ops {
        let fut = gate
            .check_call(
                ToolCall::new("bash", json!({"command": "make deploy"})),
                None,
            )
            .unwrap();
        gate.respond(&fut.id().unwrap().to_string(), response.clone())
            .unwrap();
    }
    let js_respond_us = (now() - t0) * 1000.0 / js_ops as f64;
    let t0 = now();
    for _ in 0..js_ops {
        promises.push(&gate.check(c.clone()));
    }
    let js_check_us = (now() - t0) * 1000.0 / js_ops as f64;
    let t0 = now();
    let counts = gate.cleanup_counts();
    let cleanup_ms = now() - t0;
    let all = JsFuture::from(Promise::all(&promises));
    all.await.unwrap();
    let resolved_ms = now() - t0;
    console_log!(
        "chromium gate: {N} checks in {fill_ms:.1} ms; check_call+respond_to with {N} pending: {op_us:.2} µs/op; \
         check_call + JS respond(): {js_respond_us:.2} µs/op; JS check() (Promise out): {js_check_us:.2} µs/op; \
         cleanup of {} pending checks: {cleanup_ms:.1} ms (all {} Promises resolved after {resolved_ms:.1} ms); \
         wasm memory growth {:.0} bytes per pending check (incl. waiter, future, Promise glue)",
        counts.approvals,
        promises.length(),
        (mem1 - mem0) / N as f64
    );
    gate.dispose().unwrap();
}
