//! The JS boundary of `Gate`, in headless Chromium:
//! `wasm-pack test --headless --chrome crates/wasm`.
#![cfg(target_arch = "wasm32")]
// A test file: panicking on a broken browser is the point (clippy only exempts #[test] fns).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Function, Promise};
use std::cell::Cell;
use std::rc::Rc;
use toolgate_wasm::{Gate, JsGate};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

mod common;

use common::{classify, get, js, policy, s};

wasm_bindgen_test_configure!(run_in_browser);

fn gate(timeout_ms: u32) -> JsGate {
    let opts = js(&format!(
        r#"{{"sessionId":"s-1","timeoutMs":{timeout_ms}}}"#
    ));
    JsGate::new(&policy(), opts).unwrap()
}

/// A call the (default) policy puts at `ask`.
fn ask_call(n: usize) -> JsValue {
    js(&format!(
        r#"{{"tool":"bash","args":{{"command":"python deploy.py --n {n}"}},"toolCallId":"call_{n}"}}"#
    ))
}

async fn sleep(ms: i32) {
    let p = Promise::new(&mut |resolve, _| {
        let w = web_sys::window().unwrap();
        w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

/// Whether a Promise has settled yet (without waiting for it).
fn settled_flag(p: &Promise) -> Rc<Cell<bool>> {
    let flag = Rc::new(Cell::new(false));
    let f = flag.clone();
    let cb = Closure::<dyn FnMut(JsValue)>::new(move |_| f.set(true));
    let _ = p.then(&cb);
    cb.forget();
    flag
}

#[wasm_bindgen_test]
async fn respond_resolves_the_awaited_promise() {
    let g = gate(60_000);
    let p = g.check(ask_call(1));
    let pending = g.pending().unwrap();
    let pending: Array = pending.unchecked_into();
    assert_eq!(pending.length(), 1);
    let req = pending.get(0);
    assert_eq!(s(&req, "toolCallId"), "call_1");
    assert_eq!(s(&req, "tool"), "bash");
    assert_eq!(s(&get(&req, "verdict"), "tier"), "ask");
    assert_eq!(s(&req, "id").len(), 32);
    assert!(get(&req, "deadlineMs").as_f64().unwrap() > get(&req, "createdMs").as_f64().unwrap());
    let changes = Rc::new(Cell::new(0));
    let c = changes.clone();
    let listener = Closure::<dyn FnMut()>::new(move || c.set(c.get() + 1));
    let off: Function = g
        .on_change(listener.as_ref().unchecked_ref::<Function>().clone())
        .unwrap()
        .unchecked_into();
    let response = js(&format!(
        r#"{{"decision":"allow_once","anchor":"{}"}}"#,
        s(&req, "anchor")
    ));
    assert_eq!(g.respond(&s(&req, "id"), response).unwrap(), 1);
    let out = JsFuture::from(p).await.unwrap();
    assert_eq!(s(&out, "outcome"), "approved");
    assert_eq!(s(&out, "toolCallId"), "call_1");
    assert_eq!(s(&get(&out, "verdict"), "tier"), "ask");
    assert_eq!(changes.get(), 1);
    assert!(
        g.after_tool_call("call_1").unwrap(),
        "the approval reserved a slot"
    );
    assert!(!g.after_tool_call("call_1").unwrap(), "claimed once");
    off.call0(&JsValue::NULL).unwrap();
    assert_eq!(g.listener_count().unwrap(), 0);
    assert_eq!((g.size().unwrap(), g.pending_timers().unwrap()), (0, 0));
}

#[wasm_bindgen_test]
async fn deny_resolves_with_the_message_and_a_late_respond_throws_with_code() {
    let g = gate(60_000);
    let p = g.check(ask_call(2));
    let req = g.pending().unwrap().unchecked_into::<Array>().get(0);
    let (id, anchor) = (s(&req, "id"), s(&req, "anchor"));
    // A wrong anchor is refused and changes nothing.
    let e = g
        .respond(&id, js(r#"{"decision":"allow_once","anchor":"00"}"#))
        .unwrap_err();
    assert_eq!(s(&e, "code"), "anchor_mismatch");
    assert!(e.is_instance_of::<js_sys::Error>());
    let deny = js(&format!(
        r#"{{"decision":"deny","anchor":"{anchor}","message":"not now"}}"#
    ));
    g.respond(&id, deny).unwrap();
    let out = JsFuture::from(p).await.unwrap();
    assert_eq!(
        (s(&out, "outcome"), s(&out, "message")),
        ("denied".into(), "not now".into())
    );
    let again = js(&format!(
        r#"{{"decision":"allow_once","anchor":"{anchor}"}}"#
    ));
    let e = g.respond(&id, again).unwrap_err();
    assert_eq!(
        (s(&e, "code"), s(&e, "message")),
        ("already_resolved".into(), "already resolved: denied".into())
    );
    let e = g
        .respond("nope", js(r#"{"decision":"deny","anchor":""}"#))
        .unwrap_err();
    assert_eq!(s(&e, "code"), "unknown_id");
    let e = g
        .respond(&id, js(r#"{"decision":"maybe","anchor":""}"#))
        .unwrap_err();
    assert_eq!(s(&e, "code"), "bad_input");
}

#[wasm_bindgen_test]
async fn a_real_timer_expires_a_request() {
    let g = gate(30);
    assert_eq!(g.pending_timers().unwrap(), 0);
    let p = g.check(ask_call(3));
    assert_eq!(g.pending_timers().unwrap(), 1);
    let id = s(&g.pending().unwrap().unchecked_into::<Array>().get(0), "id");
    let out = JsFuture::from(p).await.unwrap();
    assert_eq!(s(&out, "outcome"), "expired");
    assert_eq!(s(&out, "id"), id);
    assert_eq!((g.size().unwrap(), g.pending_timers().unwrap()), (0, 0));
    let e = g
        .respond(&id, js(r#"{"decision":"allow_once","anchor":""}"#))
        .unwrap_err();
    assert_eq!(s(&e, "message"), "already resolved: expired");
}

#[wasm_bindgen_test]
async fn cleanup_resolves_1000_concurrent_checks_as_cancelled() {
    let g = gate(60_000);
    let promises: Array = (0..1000)
        .map(|n| JsValue::from(g.check(ask_call(n))))
        .collect();
    assert_eq!(g.size().unwrap(), 1000);
    let counts = g.cleanup().unwrap();
    assert_eq!(get(&counts, "approvals").as_f64(), Some(1000.0));
    assert_eq!(g.size().unwrap(), 0);
    assert_eq!(g.pending_timers().unwrap(), 0);
    let outs: Array = JsFuture::from(Promise::all(&promises))
        .await
        .unwrap()
        .unchecked_into();
    assert_eq!(outs.length(), 1000);
    for out in outs.iter() {
        assert_eq!(s(&out, "outcome"), "cancelled");
    }
    // The gate stays usable after cleanup.
    let p = g.check(ask_call(5000));
    assert_eq!(g.size().unwrap(), 1);
    g.dispose().unwrap();
    assert_eq!(s(&JsFuture::from(p).await.unwrap(), "outcome"), "cancelled");
}

#[wasm_bindgen_test]
async fn dispose_leaves_no_timers_listeners_or_pending_promises() {
    let g = gate(40);
    let changes = Rc::new(Cell::new(0));
    let c = changes.clone();
    let listener = Closure::<dyn FnMut()>::new(move || c.set(c.get() + 1));
    let _off = g.on_change(listener.as_ref().unchecked_ref::<Function>().clone());
    let p = g.check(ask_call(4));
    let q = g.ask("Which branch?".into(), None);
    let flag = settled_flag(&p);
    assert_eq!(
        (
            g.size().unwrap(),
            g.pending_timers().unwrap(),
            changes.get()
        ),
        (2, 1, 2)
    );
    g.dispose().unwrap();
    assert_eq!(
        (
            g.size().unwrap(),
            g.pending_timers().unwrap(),
            g.listener_count().unwrap()
        ),
        (0, 0, 0)
    );
    assert!(g.disposed().unwrap());
    assert_eq!(s(&JsFuture::from(p).await.unwrap(), "outcome"), "cancelled");
    assert!(flag.get());
    assert_eq!(s(&JsFuture::from(q).await.unwrap(), "outcome"), "cancelled");
    let after_dispose = changes.get();
    // Past the old deadline: no timer fires, no listener is called.
    sleep(80).await;
    assert_eq!(changes.get(), after_dispose);
    // New work is refused with a code; dispose is idempotent.
    let e = JsFuture::from(g.check(ask_call(5))).await.unwrap_err();
    assert_eq!(s(&e, "code"), "disposed");
    g.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn questions_resolve_to_answers() {
    let g = gate(60_000);
    let q = g.ask("Which branch?".into(), None);
    let list: Array = g.questions().unwrap().unchecked_into();
    let item = list.get(0);
    assert_eq!(s(&item, "question"), "Which branch?");
    g.answer(&s(&item, "id"), "main".into()).unwrap();
    let out = JsFuture::from(q).await.unwrap();
    assert_eq!(
        (s(&out, "outcome"), s(&out, "answer")),
        ("answered".into(), "main".into())
    );
    let e = g.answer(&s(&item, "id"), "dev".into()).unwrap_err();
    assert_eq!(s(&e, "code"), "already_resolved");
    let short = g.ask("Quick?".into(), Some(js(r#"{"timeoutMs":10}"#)));
    assert_eq!(
        s(&JsFuture::from(short).await.unwrap(), "outcome"),
        "expired"
    );
}

#[wasm_bindgen_test]
async fn deny_all_pending_and_bad_input() {
    let g = gate(60_000);
    let a = g.check(ask_call(6));
    assert_eq!(
        g.deny_all_pending("the user sent a new message").unwrap(),
        1
    );
    let out = JsFuture::from(a).await.unwrap();
    assert_eq!(
        (s(&out, "outcome"), s(&out, "message")),
        ("denied".into(), "the user sent a new message".into())
    );
    let e = JsFuture::from(g.check(js(r#"{"args":{}}"#)))
        .await
        .unwrap_err();
    assert_eq!(s(&e, "code"), "bad_input");
    let e = JsGate::new(&policy(), js(r#"{"timeoutMs":5}"#))
        .err()
        .unwrap();
    assert_eq!(s(&e, "code"), "bad_input");
}

#[wasm_bindgen_test]
fn ids_are_random_and_sessions_are_separate() {
    let a = gate(60_000);
    let b = gate(60_000);
    let _pa = a.check(ask_call(7));
    let _pb = b.check(ask_call(7));
    let ra = a.pending().unwrap().unchecked_into::<Array>().get(0);
    let rb = b.pending().unwrap().unchecked_into::<Array>().get(0);
    assert_ne!(s(&ra, "id"), s(&rb, "id"));
    assert_eq!(s(&ra, "anchor"), s(&rb, "anchor"));
    let response = js(&format!(
        r#"{{"decision":"allow_once","anchor":"{}"}}"#,
        s(&ra, "anchor")
    ));
    let e = b.respond(&s(&ra, "id"), response).unwrap_err();
    assert_eq!(s(&e, "code"), "unknown_id");
    assert_eq!((a.size().unwrap(), b.size().unwrap()), (1, 1));
    a.dispose().unwrap();
    b.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn rust_side_api() {
    let g =
        JsGate::from(Gate::create(&policy(), toolgate_wasm::GateOptions::new("s-rust")).unwrap());
    let hits = Rc::new(Cell::new(0));
    let h = hits.clone();
    let sub = g.subscribe(move || h.set(h.get() + 1));
    let call = toolgate_wasm::ToolCall::new("bash", serde_json::json!({"command": "make deploy"}));
    let fut = g.check_call(call, None).unwrap();
    let p = g.pending_requests();
    assert_eq!(p.len(), 1);
    g.respond_to(
        &p[0].id.to_string(),
        toolgate_wasm::Decision::AllowOnce,
        &p[0].anchor.to_string(),
    )
    .unwrap();
    assert_eq!(fut.await.outcome, toolgate_wasm::Outcome::Approved);
    assert_eq!(hits.get(), 2);
    drop(sub);
    assert_eq!(g.listener_count().unwrap(), 0);
}

/// File-system facts through the JS API: `fsNeeds` lists what to look up,
/// `classifyWithFacts` and `check({…, facts})` judge a path through a link as its
/// target and a walked recursive read as read-only; malformed facts throw.
#[wasm_bindgen_test]
async fn file_system_facts_through_the_js_api() {
    let p = policy();
    let needs = p
        .fs_needs(js(
            r#"{"tool":"bash","args":{"command":"cat notes.txt; rg x src"}}"#,
        ))
        .unwrap();
    let paths: Vec<String> = Array::from(&get(&needs, "paths"))
        .iter()
        .map(|v| v.as_string().unwrap())
        .collect();
    assert_eq!(paths, ["/w/notes.txt"]);
    let trees = Array::from(&get(&needs, "trees"));
    assert_eq!(s(&trees.get(0), "root"), "/w/src");
    assert_eq!(get(&trees.get(0), "ignore").as_bool(), Some(true));

    let cat = r#"{"tool":"bash","args":{"command":"cat notes.txt"}}"#;
    let link = js(r#"{"links":{"/w/notes.txt":"/home/u/.ssh/id_rsa"}}"#);
    assert_eq!(s(&classify(&p, js(cat)), "tier"), "auto");
    assert_eq!(
        s(&p.classify_with_facts(js(cat), link).unwrap(), "tier"),
        "ask"
    );
    let rg = r#"{"tool":"bash","args":{"command":"rg x src"}}"#;
    let walked =
        js(r#"{"trees":[{"root":"/w/src","hidden":false,"ignore":true,"files":["/w/src/a.py"]}]}"#);
    assert_eq!(s(&classify(&p, js(rg)), "tier"), "ask");
    assert_eq!(
        s(&p.classify_with_facts(js(rg), walked).unwrap(), "tier"),
        "auto"
    );
    let e = p
        .classify_with_facts(js(cat), js(r#"{"links":[1],"bogus":true}"#))
        .unwrap_err();
    assert_eq!(s(&e, "code"), "bad_input", "{e:?}");

    // Gate.check: the same call is held only when its facts say so.
    let g = gate(60_000);
    let plain = JsFuture::from(g.check(js(cat)));
    assert_eq!(s(&plain.await.unwrap(), "outcome"), "approved");
    let held = g.check(js(
        r#"{"tool":"bash","args":{"command":"cat notes.txt"},"facts":{"links":{"/w/notes.txt":"/home/u/.ssh/id_rsa"}}}"#,
    ));
    assert_eq!(g.size().unwrap(), 1);
    g.dispose().unwrap();
    let _ = JsFuture::from(held).await;
}
