//! Park / resume through the JS API, over the real `localStorage`, in headless Chromium:
//! `wasm-pack test --headless --chrome crates/wasm --test runs`.
#![cfg(target_arch = "wasm32")]
// A test file: panicking on a broken browser is the point.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Function, Promise, Reflect, JSON};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use toolgate_core::{MemoryStore, Stored};
use toolgate_wasm::{
    ChangeSource, Gate, GateOptions, LocalStore, MarkerStore, Policy, ResumeDecision, RunStatus,
    ToolCall,
};
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

fn n(v: &JsValue, key: &str) -> f64 {
    get(v, key)
        .as_f64()
        .unwrap_or_else(|| panic!("{key} of {v:?}"))
}

fn storage() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

/// Every test starts from an empty `localStorage`.
fn fresh() {
    storage().clear().unwrap();
}

fn policy() -> Policy {
    Policy::defaults(js(r#"{"workspace":"/w","home":"/home/u"}"#)).unwrap()
}

/// `new Gate(policy, {sessionId, owner?, locks?})`.
fn gate(session: &str, owner: Option<&str>, locks: bool) -> Gate {
    let owner = owner.map_or(String::new(), |o| format!(r#","owner":"{o}""#));
    Gate::new(
        &policy(),
        js(&format!(
            r#"{{"sessionId":"{session}","locks":{locks}{owner}}}"#
        )),
    )
    .unwrap()
}

/// Two calls the default policy puts at `ask`.
const TWO_CALLS: &str = r#"[
  {"toolCallId":"call_1","tool":"bash","args":{"command":"python deploy.py"}},
  {"toolCallId":"call_2","tool":"write","args":{"path":"/tmp/notes.txt","content":"hi"}}
]"#;

fn park(g: &Gate, run_id: &str, calls: &str, history: &str) -> Result<JsValue, JsValue> {
    let req = js("{}");
    Reflect::set(&req, &"runId".into(), &run_id.into()).unwrap();
    Reflect::set(&req, &"calls".into(), &js(calls)).unwrap();
    Reflect::set(&req, &"history".into(), &history.into()).unwrap();
    g.park(req)
}

/// `{decisions}` allowing every pending call of `run`'s marker.
fn allow_all(run: &JsValue) -> JsValue {
    let calls: Array = get(&get(run, "marker"), "calls").unchecked_into();
    let decisions: Array = calls
        .iter()
        .map(|c| {
            js(&format!(
                r#"{{"toolCallId":"{}","anchor":"{}","decision":"allow"}}"#,
                s(&c, "toolCallId"),
                s(&c, "anchor")
            ))
        })
        .collect();
    let req = js("{}");
    Reflect::set(&req, &"decisions".into(), &decisions).unwrap();
    req
}

async fn resume(g: &Gate, run_id: &str, req: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(g.resume(run_id.to_string(), req)).await
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

/// A JS listener that records every change it is given (keep it alive while in use).
struct Recorder {
    seen: Rc<RefCell<Vec<JsValue>>>,
    callback: Closure<dyn FnMut(JsValue)>,
}

impl Recorder {
    fn new() -> Recorder {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let sink = seen.clone();
        let callback =
            Closure::<dyn FnMut(JsValue)>::new(move |change| sink.borrow_mut().push(change));
        Recorder { seen, callback }
    }

    fn function(&self) -> Function {
        self.callback.as_ref().unchecked_ref::<Function>().clone()
    }
}

#[wasm_bindgen_test]
async fn a_parked_run_survives_a_reload_and_resumes_once() {
    fresh();
    let history = r#"[{"role":"user","content":"deploy it"}]"#;
    {
        let tab = gate("s-1", Some("alice"), true);
        let parked = park(&tab, "r-1", TWO_CALLS, history).unwrap();
        assert_eq!(s(&parked, "stopReason"), "paused");
        let run = get(&parked, "run");
        assert_eq!(
            (s(&run, "status"), s(&run, "owner"), n(&run, "revision")),
            ("awaiting_permission".into(), "alice".into(), 1.0)
        );
        let calls: Array = get(&get(&run, "marker"), "calls").unchecked_into();
        assert_eq!(calls.length(), 2);
        assert_eq!(s(&calls.get(0), "tier"), "ask");
        assert_eq!(s(&get(&calls.get(1), "args"), "path"), "/tmp/notes.txt");
        tab.dispose();
        // The tab goes away: dropped without anything else.
    }
    // The stored document is the DESIGN §3 marker, revision inside, under one key.
    let raw = storage().get_item("toolgate:run:r-1").unwrap().unwrap();
    let doc = JSON::parse(&raw).unwrap();
    assert_eq!(
        (n(&doc, "v"), n(&doc, "revision"), s(&doc, "status")),
        (1.0, 1.0, "awaiting_permission".into())
    );
    assert_eq!(s(&doc, "history"), history);

    // The reload: a fresh gate over the same storage renders and resumes the run.
    let tab = gate("s-2", Some("alice"), true);
    let run = tab.run("r-1").unwrap();
    assert_eq!(s(&run, "status"), "awaiting_permission");
    assert_eq!(
        Array::from(&tab.runs().unwrap()).length(),
        1,
        "runs() lists it"
    );
    let calls: Array = get(&get(&run, "marker"), "calls").unchecked_into();
    let decisions = format!(
        r#"{{"decisions":[
          {{"toolCallId":"call_1","anchor":"{}","decision":"allow"}},
          {{"toolCallId":"call_2","anchor":"{}","decision":"deny","message":"not /tmp"}}]}}"#,
        s(&calls.get(0), "anchor"),
        s(&calls.get(1), "anchor")
    );
    // Another owner sees nothing and resumes nothing.
    let mallory = gate("s-3", Some("mallory"), true);
    assert!(mallory.run("r-1").unwrap().is_null());
    assert_eq!(Array::from(&mallory.runs().unwrap()).length(), 0);
    let e = resume(&mallory, "r-1", js(&decisions)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "not_found");
    // A wrong anchor changes nothing (the person can decide again).
    let bad = decisions.replace(&s(&calls.get(0), "anchor"), "0000");
    let e = resume(&tab, "r-1", js(&bad)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "anchor_mismatch");

    let out = resume(&tab, "r-1", js(&decisions)).await.unwrap();
    assert_eq!(s(&out, "history"), history);
    let results: Array = get(&out, "results").unchecked_into();
    let first = results.get(0);
    assert_eq!(
        (s(&first, "toolCallId"), s(&first, "outcome")),
        ("call_1".into(), "approved".into())
    );
    assert!(get(&first, "toolResult").is_undefined());
    assert_eq!(s(&get(&first, "args"), "command"), "python deploy.py");
    let second = results.get(1);
    assert_eq!(
        (
            s(&second, "outcome"),
            s(&second, "message"),
            s(&second, "toolResult")
        ),
        (
            "denied".into(),
            "not /tmp".into(),
            "User refused permission: not /tmp".into()
        )
    );
    let run = tab.run("r-1").unwrap();
    assert_eq!(s(&run, "status"), "running");
    assert!(get(&run, "marker").is_undefined());
    assert!(n(&run, "resumedAt") > 0.0);
    let e = resume(&tab, "r-1", js(&decisions)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "already_resumed");
    // failRun of a running run.
    let failed = tab.fail_run_js("r-1", "the tool crashed").unwrap();
    assert_eq!(
        (s(&failed, "status"), s(&failed, "lastError")),
        ("failed".into(), "the tool crashed".into())
    );
    tab.dispose();
    mallory.dispose();
}

/// Two gates over one storage race to resume one run: exactly one wins.
async fn race(locks: bool) {
    fresh();
    let a = gate("tab-a", Some("alice"), locks);
    let b = gate("tab-b", Some("alice"), locks);
    assert_eq!((a.uses_locks_js(), b.uses_locks_js()), (locks, locks));
    let run = get(&park(&a, "r-race", TWO_CALLS, "h").unwrap(), "run");
    // Both start before either settles.
    let pa = a.resume("r-race".into(), allow_all(&run));
    let pb = b.resume("r-race".into(), allow_all(&run));
    let (ra, rb) = (JsFuture::from(pa).await, JsFuture::from(pb).await);
    let (won, lost) = match (ra, rb) {
        (Ok(w), Err(l)) | (Err(l), Ok(w)) => (w, l),
        (ra, rb) => panic!("locks={locks}: expected one winner, got {ra:?} and {rb:?}"),
    };
    assert_eq!(
        Array::from(&get(&won, "results")).length(),
        2,
        "locks={locks}"
    );
    assert_eq!(s(&lost, "code"), "already_resumed", "locks={locks}");
    assert_eq!(
        s(&lost, "message"),
        "run `r-race` was already resumed",
        "locks={locks}"
    );
    assert!(lost.is_instance_of::<js_sys::Error>());
    a.dispose();
    b.dispose();
}

#[wasm_bindgen_test]
async fn two_gates_racing_to_resume_exactly_one_wins_with_web_locks() {
    race(true).await;
}

#[wasm_bindgen_test]
async fn two_gates_racing_to_resume_exactly_one_wins_by_cas_alone() {
    race(false).await;
}

#[wasm_bindgen_test]
async fn resume_waits_for_the_web_lock_of_its_run() {
    fresh();
    let g = gate("s-1", None, true);
    assert!(g.uses_locks_js(), "headless Chromium has navigator.locks");
    let run = get(&park(&g, "r-lock", TWO_CALLS, "h").unwrap(), "run");
    // Another tab holds the run's lock until `release()` is called.
    let hold = Function::new_with_args(
        "name",
        "let release; const held = new Promise(r => release = r);
         navigator.locks.request(name, () => held);
         return () => release();",
    );
    let release: Function = hold
        .call1(&JsValue::NULL, &"toolgate:run:r-lock".into())
        .unwrap()
        .unchecked_into();
    let done = Rc::new(Cell::new(false));
    let d = done.clone();
    let p = g.resume("r-lock".into(), allow_all(&run));
    let cb = Closure::<dyn FnMut(JsValue)>::new(move |_| d.set(true));
    let _ = p.then(&cb);
    sleep(50).await;
    assert!(
        !done.get(),
        "resume must wait while another holder has the lock"
    );
    assert_eq!(
        s(&g.run("r-lock").unwrap(), "status"),
        "awaiting_permission"
    );
    release.call0(&JsValue::NULL).unwrap();
    let out = JsFuture::from(p).await.unwrap();
    assert!(done.get());
    assert_eq!(s(&out, "runId"), "r-lock");
    g.dispose();
}

#[wasm_bindgen_test]
fn the_store_compare_and_swap_is_real_in_local_storage() {
    fresh();
    let store = LocalStore::new();
    let doc = |rev: u64| format!(r#"{{"v":1,"revision":{rev}}}"#);
    let put = |expected: Option<u64>, rev: u64| {
        store.put_if_revision(
            "r-cas",
            expected,
            Stored {
                revision: rev,
                value: doc(rev),
            },
        )
    };
    put(None, 1).unwrap();
    assert_eq!(store.get("r-cas").unwrap().unwrap().revision, 1);
    // Stale writers lose and change nothing.
    assert_eq!(put(None, 1).unwrap_err().code(), "store_conflict");
    assert_eq!(put(Some(2), 3).unwrap_err().code(), "store_conflict");
    put(Some(1), 2).unwrap();
    assert_eq!(put(Some(1), 2).unwrap_err().code(), "store_conflict");
    assert_eq!(
        store.delete_if_revision("r-cas", 1).unwrap_err().code(),
        "store_conflict"
    );
    // Garbage has revision 0; foreign keys are not listed.
    storage().set_item("toolgate:run:r-junk", "{{{").unwrap();
    storage().set_item("someone-else", "x").unwrap();
    assert_eq!(store.get("r-junk").unwrap().unwrap().revision, 0);
    let mut keys = store.keys().unwrap();
    keys.sort();
    assert_eq!(keys, ["r-cas", "r-junk"]);
    store.delete_if_revision("r-cas", 2).unwrap();
    assert_eq!(store.get("r-cas").unwrap(), None);
    fresh();
}

/// Fills `localStorage` with junk until not even 1 KiB more fits; returns the keys.
fn fill_storage() -> Vec<String> {
    let st = storage();
    let mut keys = Vec::new();
    let mut chunk = 1 << 20;
    while chunk >= 1024 {
        let junk = "x".repeat(chunk);
        let key = format!("junk-{}", keys.len());
        match st.set_item(&key, &junk) {
            Ok(()) => keys.push(key),
            Err(_) => chunk /= 2,
        }
    }
    keys
}

#[wasm_bindgen_test]
fn a_full_store_is_a_quota_error_and_nothing_changes() {
    fresh();
    let g = gate("s-1", None, true);
    // A run that exists before the store fills up.
    park(&g, "r-old", "[]", "old").unwrap();
    let old = storage().get_item("toolgate:run:r-old").unwrap();
    let junk = fill_storage();
    assert!(!junk.is_empty());
    let history = "h".repeat(16 * 1024);
    let e = park(&g, "r-new", TWO_CALLS, &history).unwrap_err();
    let (code, message) = (s(&e, "code"), s(&e, "message"));
    for k in &junk {
        storage().remove_item(k).unwrap();
    }
    assert_eq!(code, "quota_exceeded", "{message}");
    assert!(
        message.contains("toolgate:run:r-new") && message.contains("nothing was written"),
        "{message}"
    );
    // Nothing was written, nothing else was touched, the gate still works.
    assert_eq!(storage().get_item("toolgate:run:r-new").unwrap(), None);
    assert!(g.run("r-new").unwrap().is_null());
    assert_eq!(storage().get_item("toolgate:run:r-old").unwrap(), old);
    assert_eq!(s(&g.run("r-old").unwrap(), "status"), "awaiting_permission");
    let parked = park(&g, "r-new", TWO_CALLS, &history).unwrap();
    assert_eq!(s(&get(&parked, "run"), "status"), "awaiting_permission");
    g.dispose();
    fresh();
}

#[wasm_bindgen_test]
async fn a_corrupt_stored_marker_fails_the_run_and_resume_fails_cleanly() {
    fresh();
    let g = gate("s-1", None, true);
    // Garbage, read first by resume: the run fails, resume says why.
    storage()
        .set_item("toolgate:run:r-bad", r#"{"v":1,"run_id":"r-ba"#)
        .unwrap();
    let e = resume(&g, "r-bad", js(r#"{"decisions":[]}"#))
        .await
        .unwrap_err();
    assert_eq!(s(&e, "code"), "marker_corrupt", "{}", s(&e, "message"));
    let run = g.run("r-bad").unwrap();
    assert_eq!(s(&run, "status"), "failed");
    assert!(
        s(&run, "lastError").starts_with("corrupt permission marker: truncated"),
        "{}",
        s(&run, "lastError")
    );
    let e = resume(&g, "r-bad", js(r#"{"decisions":[]}"#))
        .await
        .unwrap_err();
    assert_eq!(s(&e, "code"), "not_awaiting_permission");

    // A real marker whose args were edited in storage: tampered, read first by run().
    let run = get(&park(&g, "r-tamper", TWO_CALLS, "h").unwrap(), "run");
    let raw = storage()
        .get_item("toolgate:run:r-tamper")
        .unwrap()
        .unwrap();
    let edited = raw.replace("python deploy.py", "python deploy.py --prod");
    assert_ne!(raw, edited);
    storage()
        .set_item("toolgate:run:r-tamper", &edited)
        .unwrap();
    let now = g.run("r-tamper").unwrap();
    assert_eq!(s(&now, "status"), "failed");
    assert!(s(&now, "lastError").contains("tampered"), "{now:?}");
    assert!(get(&now, "marker").is_undefined());
    let e = resume(&g, "r-tamper", allow_all(&run)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "not_awaiting_permission");
    // Not garbage any more: the stored record is a valid `failed` run.
    let doc = JSON::parse(
        &storage()
            .get_item("toolgate:run:r-tamper")
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(s(&doc, "status"), "failed");
    g.dispose();
}

#[wasm_bindgen_test]
async fn park_refuses_oversize_history_denied_calls_and_foreign_owners() {
    fresh();
    let g = gate("s-1", None, true);
    assert_eq!(g.owner_js(), "s-1", "the owner defaults to the session id");
    let big = "h".repeat(toolgate_core::marker::MAX_HISTORY_BYTES + 1);
    let e = park(&g, "r-big", "[]", &big).unwrap_err();
    assert_eq!(s(&e, "code"), "history_too_large", "{}", s(&e, "message"));
    assert_eq!(storage().get_item("toolgate:run:r-big").unwrap(), None);
    // The gate classifies: a call its policy denies cannot be parked for approval.
    let sudo = r#"[{"toolCallId":"c","tool":"bash","args":{"command":"sudo rm -rf /"}}]"#;
    let e = park(&g, "r-sudo", sudo, "h").unwrap_err();
    assert_eq!(s(&e, "code"), "bad_park", "{}", s(&e, "message"));
    let req = js(r#"{"runId":"r-o","owner":"bob","calls":[],"history":""}"#);
    assert_eq!(s(&g.park(req).unwrap_err(), "code"), "bad_input");
    // No pending call: the fallback marker.
    let run = get(&park(&g, "r-none", "[]", "h").unwrap(), "run");
    assert_eq!(Array::from(&get(&get(&run, "marker"), "calls")).length(), 0);
    let raw = storage().get_item("toolgate:run:r-none").unwrap().unwrap();
    assert_eq!(
        s(&get(&JSON::parse(&raw).unwrap(), "request"), "tool"),
        "unknown"
    );
    let maybe = js(r#"{"decisions":[{"toolCallId":"c","anchor":"a","decision":"maybe"}]}"#);
    let e = resume(&g, "r-none", maybe).await.unwrap_err();
    assert_eq!(s(&e, "code"), "bad_input");
    let out = resume(&g, "r-none", js(r#"{"decisions":[]}"#))
        .await
        .unwrap();
    assert_eq!(Array::from(&get(&out, "results")).length(), 0);
    g.dispose();
    let e = park(&g, "r-after", "[]", "h").unwrap_err();
    assert_eq!(s(&e, "code"), "disposed");
}

#[wasm_bindgen_test]
async fn other_gates_hear_of_park_resume_and_fail_and_dispose_closes_the_channel() {
    fresh();
    let a = gate("tab-a", Some("alice"), true);
    let b = gate("tab-b", Some("alice"), true);
    let c = gate("tab-c", Some("carol"), true);
    let (ra, rb, rc) = (Recorder::new(), Recorder::new(), Recorder::new());
    let (seen_a, seen_b, seen_c) = (&ra.seen, &rb.seen, &rc.seen);
    let off_a: Function = a.on_runs_change(ra.function()).unchecked_into();
    let _off_b = b.on_runs_change(rb.function());
    let _off_c = c.on_runs_change(rc.function());
    assert!(b.channel_open());
    let run = get(&park(&a, "r-n", TWO_CALLS, "h").unwrap(), "run");
    // Local listeners hear at once; other gates after a message hop.
    assert_eq!(seen_a.borrow().len(), 1);
    let local = seen_a.borrow()[0].clone();
    assert_eq!(
        (s(&local, "runId"), s(&local, "status"), s(&local, "source")),
        ("r-n".into(), "awaiting_permission".into(), "local".into())
    );
    sleep(50).await;
    assert_eq!(seen_b.borrow().len(), 1);
    let remote = seen_b.borrow()[0].clone();
    assert_eq!(
        (
            s(&remote, "runId"),
            s(&remote, "status"),
            s(&remote, "source"),
            n(&remote, "revision")
        ),
        (
            "r-n".into(),
            "awaiting_permission".into(),
            "remote".into(),
            1.0
        )
    );
    assert_eq!(seen_c.borrow().len(), 0, "another owner hears nothing");
    // b resumes: a hears it.
    resume(&b, "r-n", allow_all(&run)).await.unwrap();
    sleep(50).await;
    let last = seen_a.borrow().last().cloned().unwrap();
    assert_eq!(
        (s(&last, "status"), s(&last, "source")),
        ("running".into(), "remote".into())
    );
    // b heard its own resume as `local`.
    assert_eq!(
        s(&seen_b.borrow().last().cloned().unwrap(), "source"),
        "local"
    );
    let heard_by_b = seen_b.borrow().len();
    // Dispose closes b's channel and drops its listeners: it hears nothing more.
    b.dispose();
    assert!(!b.channel_open());
    assert_eq!(b.runs_listener_count(), 0);
    a.fail_run_js("r-n", "stop").unwrap();
    sleep(50).await;
    assert_eq!(seen_b.borrow().len(), heard_by_b);
    assert_eq!(
        s(&seen_a.borrow().last().cloned().unwrap(), "status"),
        "failed"
    );
    off_a.call0(&JsValue::NULL).unwrap();
    assert_eq!(a.runs_listener_count(), 0);
    a.dispose();
    c.dispose();
}

#[wasm_bindgen_test]
async fn rust_side_api_over_a_memory_store() {
    let store = Rc::new(MemoryStore::new());
    let mut opts = GateOptions::new("s-rust");
    opts.owner = Some("ui".into());
    let g = Gate::create_with_store(&policy(), opts, store.clone()).unwrap();
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h = heard.clone();
    let sub = g.subscribe_runs(move |c| h.borrow_mut().push((c.status, c.source)));
    let call = ToolCall::new("bash", serde_json::json!({"command": "make deploy"}));
    let parked = g
        .park_run("r-1", vec![("call_1".into(), call)], "h".into(), None)
        .unwrap();
    let marker = parked.run.marker.clone().unwrap();
    assert_eq!(g.list_runs().unwrap().len(), 1);
    assert_eq!(store.keys().unwrap(), ["r-1"], "not in localStorage");
    let resumed = g
        .resume_run(
            "r-1",
            vec![ResumeDecision::deny(
                "call_1",
                &marker.calls[0].anchor,
                "no",
            )],
        )
        .await
        .unwrap();
    assert_eq!(
        resumed.results[0].outcome.tool_result_text().as_deref(),
        Some("User refused permission: no")
    );
    assert_eq!(
        g.get_run("r-1").unwrap().map(|r| r.status),
        Some(RunStatus::Running)
    );
    assert_eq!(
        *heard.borrow(),
        [
            (RunStatus::AwaitingPermission, ChangeSource::Local),
            (RunStatus::Running, ChangeSource::Local)
        ]
    );
    drop(sub);
    assert_eq!(g.runs_listener_count(), 0);
}
