//! Chromium benchmark of park + resume with a 100 KB history (prints numbers; asserts
//! nothing about time). Runs only when built with `TOOLGATE_BENCH=1`:
//! `TOOLGATE_BENCH=1 wasm-pack test --release --headless --chrome crates/wasm --test park_bench`
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Reflect, JSON};
use std::rc::Rc;
use toolgate_core::wire::ParkCallRequest;
use toolgate_core::{MemoryStore, ResumeDecision, ToolCall};
use toolgate_wasm::{Gate, GateOptions, JsGate, Policy, ResumeGuarantee};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ROUNDS: usize = 200;
const HISTORY_BYTES: usize = 100 * 1024;

fn enabled() -> bool {
    if option_env!("TOOLGATE_BENCH").is_none() {
        console_log!("park bench skipped (build with TOOLGATE_BENCH=1 to run it)");
        return false;
    }
    true
}

fn now() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

/// A JSON message history of about `HISTORY_BYTES`, with quotes and newlines to escape.
fn history() -> String {
    let turn = r#"{"role":"assistant","content":"Let me look at \"build/\" first.\nThen run the tests."},"#;
    let mut h = String::from("[");
    while h.len() + turn.len() < HISTORY_BYTES {
        h.push_str(turn);
    }
    h.push_str(r#"{"role":"user","content":"go"}]"#);
    h
}

fn policy() -> Policy {
    Policy::defaults(JSON::parse(r#"{"workspace":"/w","home":"/home/u"}"#).unwrap()).unwrap()
}

fn stats(label: &str, samples: &mut [f64]) -> String {
    samples.sort_by(f64::total_cmp);
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    let p50 = samples[samples.len() / 2];
    let p95 = samples[samples.len() * 95 / 100];
    format!("{label}: mean {mean:.3} ms, p50 {p50:.3} ms, p95 {p95:.3} ms")
}

/// `ROUNDS` park / run / resume of runs `<prefix>-<i>`: the three timings, and the
/// stored size of the first marker.
async fn rounds(g: &JsGate, prefix: &str, history: &str) -> (Vec<f64>, Vec<f64>, Vec<f64>, usize) {
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let calls = JSON::parse(
        r#"[{"toolCallId":"call_1","tool":"bash","args":{"command":"python deploy.py"}}]"#,
    )
    .unwrap();
    let (mut park, mut read, mut resume) = (Vec::new(), Vec::new(), Vec::new());
    let mut marker_bytes = 0;
    for i in 0..ROUNDS {
        let req = JSON::parse("{}").unwrap();
        Reflect::set(&req, &"runId".into(), &format!("{prefix}-{i}").into()).unwrap();
        Reflect::set(&req, &"calls".into(), &calls).unwrap();
        Reflect::set(&req, &"history".into(), &JsValue::from_str(history)).unwrap();
        let t0 = now();
        let parked = g.park(req).unwrap();
        let t1 = now();
        let run = g.run(&format!("{prefix}-{i}")).unwrap();
        let t2 = now();
        let call = Array::from(
            &Reflect::get(
                &Reflect::get(&run, &"marker".into()).unwrap(),
                &"calls".into(),
            )
            .unwrap(),
        )
        .get(0);
        let anchor = Reflect::get(&call, &"anchor".into())
            .unwrap()
            .as_string()
            .unwrap();
        let decisions = JSON::parse(&format!(
            r#"{{"decisions":[{{"toolCallId":"call_1","anchor":"{anchor}","decision":"allow"}}]}}"#
        ))
        .unwrap();
        if i == 0 {
            // Stored size of the marker (UTF-8 bytes of the localStorage value).
            marker_bytes = storage
                .get_item(&format!("toolgate:run:{prefix}-0"))
                .unwrap()
                .unwrap()
                .len();
        }
        let t3 = now();
        let out = JsFuture::from(g.resume(format!("{prefix}-{i}"), decisions))
            .await
            .unwrap();
        let t4 = now();
        assert!(parked.is_object() && out.is_object());
        park.push(t1 - t0);
        read.push(t2 - t1);
        resume.push(t4 - t3);
    }
    (park, read, resume, marker_bytes)
}

#[wasm_bindgen_test]
async fn park_and_resume_with_a_100_kb_history_over_local_storage() {
    if !enabled() {
        return;
    }
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    storage.clear().unwrap();
    let history = history();
    let g = JsGate::new(
        &policy(),
        JSON::parse(r#"{"sessionId":"bench","owner":"bench"}"#).unwrap(),
    )
    .unwrap();
    assert_eq!(
        g.gate().resume_guarantee_ready().await,
        ResumeGuarantee::IndexedDb
    );
    let (mut park, mut read, mut resume, marker_bytes) = rounds(&g, "r", &history).await;
    let mut total: Vec<f64> = park.iter().zip(&resume).map(|(p, r)| p + r).collect();
    console_log!(
        "chromium park+resume, {} B history ({} B marker), localStorage, JS API, {} rounds, {} Web Locks, resume guarantee {}:\n  {}\n  {}\n  {}\n  {}",
        history.len(),
        marker_bytes,
        ROUNDS,
        if g.gate().uses_locks() { "with" } else { "without" },
        g.gate().resume_guarantee().as_str(),
        stats("park (classify, encode, CAS, setItem, broadcast)", &mut park),
        stats("run (getItem, decode, check)", &mut read),
        stats("resume (lock, getItem, decode, check, IndexedDB claim, CAS, setItem, broadcast)", &mut resume),
        stats("park + resume", &mut total),
    );
    // The same without IndexedDB (the same-process fallback): what the claim costs.
    let hide = js_sys::Function::new_with_args(
        "",
        "const had = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
         Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true });
         return () => { if (had) Object.defineProperty(globalThis, 'indexedDB', had);
                        else delete globalThis.indexedDB; };",
    );
    let restore: js_sys::Function = hide.call0(&JsValue::NULL).unwrap().into();
    let plain = JsGate::new(
        &policy(),
        JSON::parse(r#"{"sessionId":"bench","owner":"bench"}"#).unwrap(),
    )
    .unwrap();
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(
        plain.gate().resume_guarantee(),
        ResumeGuarantee::SameProcess
    );
    let (_, _, mut resume_plain, _) = rounds(&plain, "p", &history).await;
    console_log!(
        "  {}",
        stats(
            "resume, same-process fallback (no IndexedDB claim)",
            &mut resume_plain
        )
    );
    plain.dispose().unwrap();
    g.dispose().unwrap();
    storage.clear().unwrap();

    // The same through the Rust-side API over a MemoryStore: the cost without storage.
    let mem = Gate::create_with_store(
        &policy(),
        GateOptions::new("bench"),
        Rc::new(MemoryStore::new()),
    )
    .unwrap();
    let mut both = Vec::new();
    for i in 0..ROUNDS {
        let id = format!("m-{i}");
        let call = ToolCall::new("bash", serde_json::json!({"command": "python deploy.py"}));
        let t0 = now();
        let parked = mem
            .park_run(
                &id,
                vec![ParkCallRequest::call("call_1", call)],
                history.clone(),
                None,
            )
            .unwrap();
        let anchor = parked.run.marker.as_ref().unwrap().calls[0].anchor.clone();
        mem.resume_run(&id, vec![ResumeDecision::allow("call_1", anchor)])
            .await
            .unwrap();
        both.push(now() - t0);
    }
    console_log!(
        "  {}",
        stats(
            "park + resume, MemoryStore, Rust API (no JS crossing, no localStorage; with the IndexedDB claim)",
            &mut both
        )
    );
}
