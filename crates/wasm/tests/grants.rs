//! Grants in the browser's gate, through the JS API over the real `localStorage` and Web
//! Locks, in headless Chromium: `wasm-pack test --headless --chrome crates/wasm --test
//! grants`. A decision with a scope keeps a grant (refused, nothing decided, for a scope
//! the call did not offer); `settleWithGrants` decides a parked run the live grants of
//! its session cover (naming the grant), and nothing else: a compound line, another
//! session, a question, a revoked, expired or used-up grant leave it for a person.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Promise, Reflect, JSON};
use toolgate_wasm::{JsGate, Policy};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn s(v: &JsValue, key: &str) -> String {
    get(v, key)
        .as_string()
        .unwrap_or_else(|| panic!("{key} of {:?}", JSON::stringify(v)))
}

fn gate(session: &str) -> JsGate {
    let policy = Policy::defaults(js(r#"{"workspace":"/w","home":"/home/u"}"#)).unwrap();
    JsGate::new(
        &policy,
        js(&format!(
            r#"{{"sessionId":"{session}","owner":"grants-o"}}"#
        )),
    )
    .unwrap()
}

fn park(g: &JsGate, run_id: &str, command: &str) -> JsValue {
    let call =
        serde_json::json!({"toolCallId": "c1", "tool": "bash", "args": {"command": command}});
    let req =
        js(&serde_json::json!({"runId": run_id, "calls": [call], "history": "[]"}).to_string());
    let parked = g.park(req).unwrap();
    get(&get(&get(&parked, "run"), "marker"), "calls")
        .unchecked_into::<Array>()
        .get(0)
}

async fn decide(g: &JsGate, run_id: &str, call: &JsValue, extra: &str) -> Result<JsValue, JsValue> {
    let d = format!(
        r#"{{"decisions":[{{"toolCallId":"c1","anchor":"{}","decision":"allow"{extra}}}]}}"#,
        s(call, "anchor")
    );
    JsFuture::from(g.resume(run_id.to_string(), js(&d))).await
}

async fn settle(g: &JsGate, run_id: &str) -> JsValue {
    JsFuture::from(g.settle_with_grants(run_id.to_string()))
        .await
        .unwrap()
}

fn status(g: &JsGate, run_id: &str) -> String {
    s(&g.run(run_id).unwrap(), "status")
}

async fn sleep(ms: i32) {
    let p = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

fn live(g: &JsGate) -> Vec<JsValue> {
    g.grants()
        .unwrap()
        .unchecked_into::<Array>()
        .iter()
        .filter(|x| s(x, "state") == "live")
        .collect()
}

#[wasm_bindgen_test]
async fn grants_decide_only_what_they_cover_while_they_live() {
    web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .clear()
        .unwrap();
    let g = gate("s-1");
    // A scope the call did not offer: refused, nothing decided, nothing kept.
    let c0 = park(&g, "r0", "git push origin main");
    let refused = decide(&g, "r0", &c0, r#","scope":"Bash(git:*)""#)
        .await
        .unwrap_err();
    assert_eq!(s(&refused, "code"), "grant_refused");
    assert_eq!(status(&g, "r0"), "awaiting_permission");
    assert!(live(&g).is_empty());
    // The prefix scope for a minute: kept, listed.
    let done = decide(
        &g,
        "r0",
        &c0,
        r#","scope":"Bash(git push:*)","ttlMs":60000"#,
    )
    .await
    .unwrap();
    assert_eq!(
        s(
            &get(&done, "results").unchecked_into::<Array>().get(0),
            "outcome"
        ),
        "approved"
    );
    let grants = live(&g);
    assert_eq!(grants.len(), 1);
    let push = s(&grants[0], "id");
    assert_eq!(s(&grants[0], "rule"), "Bash(git push:*)");
    assert!(s(&grants[0], "matches").contains("git push"));
    // A covered park is decided by it, naming it; a compound line, another session, a
    // park holding a question are not.
    park(&g, "r1", "git push origin dev");
    let settled = settle(&g, "r1").await;
    let r = get(&settled, "results").unchecked_into::<Array>().get(0);
    assert_eq!(
        (s(&r, "outcome"), s(&r, "grant")),
        ("approved".into(), push.clone())
    );
    assert_eq!(status(&g, "r1"), "running");
    park(&g, "r2", "git push origin dev; rm -rf build");
    assert!(settle(&g, "r2").await.is_null());
    assert_eq!(status(&g, "r2"), "awaiting_permission");
    let other = gate("s-2");
    park(&other, "r3", "git push origin dev");
    assert!(settle(&other, "r3").await.is_null());
    assert!(live(&other).is_empty(), "another session lists none");
    let q = serde_json::json!({"runId": "r4", "history": "[]", "calls": [
        {"toolCallId": "c1", "tool": "bash", "args": {"command": "git push origin dev"}},
        {"toolCallId": "q1", "tool": "ask_user", "args": {}, "question": "Which remote?"}]});
    g.park(js(&q.to_string())).unwrap();
    assert!(settle(&g, "r4").await.is_null());
    // Revoked: asked again.
    assert!(JsFuture::from(g.revoke_grant(push.clone()))
        .await
        .unwrap()
        .as_bool()
        .unwrap());
    assert!(!JsFuture::from(g.revoke_grant("nope".into()))
        .await
        .unwrap()
        .as_bool()
        .unwrap());
    park(&g, "r5", "git push origin dev");
    assert!(settle(&g, "r5").await.is_null());
    // Single use: once.
    let c6 = park(&g, "r6", "npm publish");
    decide(
        &g,
        "r6",
        &c6,
        r#","scope":"Bash(npm publish)","singleUse":true"#,
    )
    .await
    .unwrap();
    park(&g, "r7", "npm publish");
    assert!(!settle(&g, "r7").await.is_null());
    park(&g, "r8", "npm publish");
    assert!(settle(&g, "r8").await.is_null());
    // Expired: asked again.
    let c9 = park(&g, "r9", "python deploy.py");
    decide(
        &g,
        "r9",
        &c9,
        r#","scope":"Bash(python deploy.py)","ttlMs":300"#,
    )
    .await
    .unwrap();
    park(&g, "r10", "python deploy.py");
    assert!(!settle(&g, "r10").await.is_null(), "live: decided");
    sleep(400).await;
    park(&g, "r11", "python deploy.py");
    assert!(
        settle(&g, "r11").await.is_null(),
        "expired: a person decides"
    );
    assert_eq!(status(&g, "r11"), "awaiting_permission");
    // A second settle of a decided run does nothing.
    assert!(settle(&g, "r1").await.is_null());
    // The book is in localStorage under its own key, never read as a run.
    let runs = g.runs().unwrap().unchecked_into::<Array>();
    assert!(runs.iter().all(|r| s(&r, "status") != "failed"));
    let stored = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item("toolgate:grants:grants-o")
        .unwrap()
        .unwrap();
    assert!(stored.contains("Bash(npm publish)"));
}
