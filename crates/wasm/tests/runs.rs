//! Park / resume through the JS API, over the real `localStorage`, in headless Chromium:
//! `wasm-pack test --headless --chrome crates/wasm --test runs`.
#![cfg(target_arch = "wasm32")]
// A test file: panicking on a broken browser is the point.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Function, Promise, Reflect, JSON};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use toolgate_core::wire::ParkCallRequest;
use toolgate_core::{MemoryStore, Stored};
use toolgate_wasm::{
    ChangeSource, Gate, GateOptions, JsGate, LocalStore, MarkerStore, Policy, ResumeDecision,
    ResumeGuarantee, RunStatus, ToolCall, CLAIMS_DB, CLAIMS_STORE,
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

/// Every test starts from an empty `localStorage` and no IndexedDB `toolgate` (the
/// resume claims). Gates still open from an earlier test close their connection on
/// `versionchange`; a connection closed by `dispose()` while a background prune still
/// runs closes when it ends (`blocked` meanwhile), so the delete waits, up to 5 s.
async fn fresh() {
    storage().clear().unwrap();
    let delete = Function::new_with_args(
        "name",
        "return new Promise((resolve, reject) => {
           const req = indexedDB.deleteDatabase(name);
           req.onsuccess = () => resolve();
           req.onerror = () => reject(req.error);
           req.onblocked = () => setTimeout(
             () => reject(new Error('deleteDatabase blocked for 5 s: a connection stayed open')), 5000);
         });",
    );
    let p: Promise = delete
        .call1(&JsValue::NULL, &CLAIMS_DB.into())
        .unwrap()
        .unchecked_into();
    JsFuture::from(p).await.unwrap();
}

fn policy() -> Policy {
    Policy::defaults(js(r#"{"workspace":"/w","home":"/home/u"}"#)).unwrap()
}

/// `new Gate(policy, {sessionId, owner?, locks?})`.
fn gate(session: &str, owner: Option<&str>, locks: bool) -> JsGate {
    let owner = owner.map_or(String::new(), |o| format!(r#","owner":"{o}""#));
    JsGate::new(
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

fn park(g: &JsGate, run_id: &str, calls: &str, history: &str) -> Result<JsValue, JsValue> {
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

async fn resume(g: &JsGate, run_id: &str, req: JsValue) -> Result<JsValue, JsValue> {
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
    fresh().await;
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
        tab.dispose().unwrap();
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
    let failed = tab.fail_run("r-1", "the tool crashed").unwrap();
    assert_eq!(
        (s(&failed, "status"), s(&failed, "lastError")),
        ("failed".into(), "the tool crashed".into())
    );
    tab.dispose().unwrap();
    mallory.dispose().unwrap();
}

/// Two gates over one storage race to resume one run: exactly one wins.
async fn race(locks: bool) {
    fresh().await;
    let a = gate("tab-a", Some("alice"), locks);
    let b = gate("tab-b", Some("alice"), locks);
    assert_eq!(
        (a.uses_locks().unwrap(), b.uses_locks().unwrap()),
        (locks, locks)
    );
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
    a.dispose().unwrap();
    b.dispose().unwrap();
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
    fresh().await;
    let g = gate("s-1", None, true);
    assert!(
        g.uses_locks().unwrap(),
        "headless Chromium has navigator.locks"
    );
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
    g.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn the_store_compare_and_swap_is_real_in_local_storage() {
    fresh().await;
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
    fresh().await;
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
async fn a_full_store_is_a_quota_error_and_nothing_changes() {
    fresh().await;
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
    g.dispose().unwrap();
    fresh().await;
}

#[wasm_bindgen_test]
async fn a_corrupt_stored_marker_fails_the_run_and_resume_fails_cleanly() {
    fresh().await;
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
    g.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn park_refuses_oversize_history_denied_calls_and_foreign_owners() {
    fresh().await;
    let g = gate("s-1", None, true);
    assert_eq!(
        g.owner().unwrap(),
        "s-1",
        "the owner defaults to the session id"
    );
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
    g.dispose().unwrap();
    let e = park(&g, "r-after", "[]", "h").unwrap_err();
    assert_eq!(s(&e, "code"), "disposed");
}

/// `gate.resume` with a person's edit: the gate's policy classifies it again (an edit
/// it denies is `edit_refused` and the run still waits, its record untouched); an
/// allowed edit resumes once with the edited `args` and `editedFrom`, in the run's
/// decision too (through the IndexedDB claim path, as in every browser).
#[wasm_bindgen_test]
async fn an_edit_is_classified_again_and_resumes_with_the_edited_call() {
    fresh().await;
    let g = gate("s-1", None, true);
    let one = r#"[{"toolCallId":"c1","tool":"bash","args":{"command":"python deploy.py"}}]"#;
    let run = get(&park(&g, "r-edit", one, "h").unwrap(), "run");
    let anchor = s(
        &get(&get(&run, "marker"), "calls")
            .unchecked_into::<Array>()
            .get(0),
        "anchor",
    );
    let edit = |command: &str| {
        js(&format!(
            r#"{{"decisions":[{{"toolCallId":"c1","anchor":"{anchor}","decision":"allow","args":{{"command":"{command}"}}}}]}}"#
        ))
    };
    let before = storage().get_item("toolgate:run:r-edit").unwrap();
    let e = resume(&g, "r-edit", edit("sudo python deploy.py"))
        .await
        .unwrap_err();
    assert_eq!(s(&e, "code"), "edit_refused", "{}", s(&e, "message"));
    assert_eq!(storage().get_item("toolgate:run:r-edit").unwrap(), before);
    let out = resume(&g, "r-edit", edit("python deploy.py --dry-run"))
        .await
        .unwrap();
    let r = Array::from(&get(&out, "results")).get(0);
    assert_eq!(s(&r, "outcome"), "approved");
    assert_eq!(s(&get(&r, "args"), "command"), "python deploy.py --dry-run");
    assert_eq!(s(&get(&r, "editedFrom"), "command"), "python deploy.py");
    let after = g.run("r-edit").unwrap();
    let decided = Array::from(&get(&get(&after, "decision"), "calls")).get(0);
    assert_eq!(
        s(&get(&decided, "editedFrom"), "command"),
        "python deploy.py"
    );
    let again = resume(&g, "r-edit", edit("python deploy.py --dry-run")).await;
    assert!(again.is_err(), "resumed twice");
}

#[wasm_bindgen_test]
async fn other_gates_hear_of_park_resume_and_fail_and_dispose_closes_the_channel() {
    fresh().await;
    let a = gate("tab-a", Some("alice"), true);
    let b = gate("tab-b", Some("alice"), true);
    let c = gate("tab-c", Some("carol"), true);
    let (ra, rb, rc) = (Recorder::new(), Recorder::new(), Recorder::new());
    let (seen_a, seen_b, seen_c) = (&ra.seen, &rb.seen, &rc.seen);
    let off_a: Function = a.on_runs_change(ra.function()).unwrap().unchecked_into();
    let _off_b = b.on_runs_change(rb.function()).unwrap();
    let _off_c = c.on_runs_change(rc.function()).unwrap();
    assert!(b.channel_open().unwrap());
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
    b.dispose().unwrap();
    assert!(!b.channel_open().unwrap());
    assert_eq!(b.runs_listener_count().unwrap(), 0);
    a.fail_run("r-n", "stop").unwrap();
    sleep(50).await;
    assert_eq!(seen_b.borrow().len(), heard_by_b);
    assert_eq!(
        s(&seen_a.borrow().last().cloned().unwrap(), "status"),
        "failed"
    );
    off_a.call0(&JsValue::NULL).unwrap();
    assert_eq!(a.runs_listener_count().unwrap(), 0);
    a.dispose().unwrap();
    c.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn rust_side_api_over_a_memory_store() {
    let store = Rc::new(MemoryStore::new());
    let mut opts = GateOptions::new("s-rust");
    opts.owner = Some("ui".into());
    let g = JsGate::from(Gate::create_with_store(&policy(), opts, store.clone()).unwrap());
    let heard = Rc::new(RefCell::new(Vec::new()));
    let h = heard.clone();
    let sub = g.subscribe_runs(move |c| h.borrow_mut().push((c.status, c.source)));
    let call = ToolCall::new("bash", serde_json::json!({"command": "make deploy"}));
    let parked = g
        .park_run(
            "r-1",
            vec![ParkCallRequest::call("call_1", call)],
            "h".into(),
            None,
        )
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
    assert_eq!(g.runs_listener_count().unwrap(), 0);
}

// ---- Exactly once across processes: the IndexedDB claim -------------------------

/// A store that serves a frozen copy of some records: what a tab in another renderer
/// process sees while `localStorage` has not yet propagated a write to it. Its writes
/// go to its own copy (as a stale process's would), compare-and-swapped against it.
/// With `write_through`, its reads are stale until it writes, and its writes reach the
/// real store (and meet its compare-and-swap).
struct StaleStore {
    inner: LocalStore,
    frozen: RefCell<std::collections::HashMap<String, Option<Stored>>>,
    write_through: bool,
}

impl StaleStore {
    fn freeze(key: &str, record: Option<Stored>) -> Rc<StaleStore> {
        let frozen = std::iter::once((key.to_string(), record)).collect();
        Rc::new(StaleStore {
            inner: LocalStore::new(),
            frozen: RefCell::new(frozen),
            write_through: false,
        })
    }
}

impl MarkerStore for StaleStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, toolgate_core::Error> {
        match self.frozen.borrow().get(key) {
            Some(record) => Ok(record.clone()),
            None => self.inner.get(key),
        }
    }
    fn put_if_revision(
        &self,
        key: &str,
        expected: Option<u64>,
        new: Stored,
    ) -> Result<(), toolgate_core::Error> {
        let mut frozen = self.frozen.borrow_mut();
        match frozen.get_mut(key) {
            Some(_) if self.write_through => {
                // Its write reached the real store: from now on it reads that.
                frozen.remove(key);
                self.inner.put_if_revision(key, expected, new)
            }
            Some(record) => {
                let found = record.as_ref().map(|r| r.revision);
                if found != expected {
                    return Err(toolgate_core::Error::StoreConflict {
                        key: key.to_string(),
                        expected,
                        found,
                    });
                }
                *record = Some(new);
                Ok(())
            }
            None => self.inner.put_if_revision(key, expected, new),
        }
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), toolgate_core::Error> {
        self.inner.delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, toolgate_core::Error> {
        self.inner.keys()
    }
}

/// A gate of owner `alice` over `store`.
fn gate_over(session: &str, store: Rc<dyn MarkerStore>) -> JsGate {
    let mut opts = GateOptions::new(session);
    opts.owner = Some("alice".into());
    JsGate::from(Gate::create_with_store(&policy(), opts, store).unwrap())
}

/// Replaces `globalThis.indexedDB` by `value` until the returned function is called.
fn replace_indexed_db(value: &JsValue) -> Function {
    Function::new_with_args(
        "value",
        "const had = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
         Object.defineProperty(globalThis, 'indexedDB', { value, configurable: true, writable: true });
         return () => { if (had) Object.defineProperty(globalThis, 'indexedDB', had);
                        else delete globalThis.indexedDB; };",
    )
    .call1(&JsValue::NULL, value)
    .unwrap()
    .unchecked_into()
}

/// Runs `body(store)` on toolgate's claims store (same schema as the crate's) in one
/// readwrite transaction; resolves with what `body` returns once it commits.
async fn with_claims(body: &str) -> JsValue {
    let run = Function::new_with_args(
        "db_name, store_name",
        &format!(
            "return new Promise((resolve, reject) => {{
               const open = indexedDB.open(db_name, 1);
               open.onupgradeneeded = () => open.result
                 .createObjectStore(store_name, {{ keyPath: 'key' }})
                 .createIndex('claimedAt', 'claimedAt');
               open.onerror = () => reject(open.error);
               open.onsuccess = () => {{
                 const db = open.result;
                 const tx = db.transaction(store_name, 'readwrite');
                 const store = tx.objectStore(store_name);
                 let out;
                 const req = ((store) => {{ {body} }})(store);
                 if (req) req.onsuccess = () => {{ out = req.result; }};
                 tx.oncomplete = () => {{ db.close(); resolve(out); }};
                 tx.onabort = () => {{ db.close(); reject(tx.error); }};
               }};
             }});"
        ),
    );
    let p: Promise = run
        .call2(&JsValue::NULL, &CLAIMS_DB.into(), &CLAIMS_STORE.into())
        .unwrap()
        .unchecked_into();
    JsFuture::from(p).await.unwrap()
}

/// Every claim key, sorted.
async fn claim_keys() -> Vec<String> {
    let keys = with_claims("return store.getAllKeys();").await;
    Array::from(&keys)
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect()
}

const DAY_MS: f64 = 24.0 * 60.0 * 60.0 * 1000.0;

#[wasm_bindgen_test]
async fn a_stale_marker_read_in_another_process_loses_by_the_indexeddb_claim() {
    fresh().await;
    let a = gate("tab-a", Some("alice"), true);
    assert_eq!(
        a.gate().resume_guarantee_ready().await,
        ResumeGuarantee::IndexedDb
    );
    assert_eq!(a.resume_guarantee().unwrap(), "indexeddb");
    let run = get(&park(&a, "r-stale", TWO_CALLS, "h").unwrap(), "run");
    // What another process's copy of localStorage still holds after a's resume.
    let before = LocalStore::new().get("r-stale").unwrap();
    assert_eq!(before.as_ref().map(|r| r.revision), Some(1));
    resume(&a, "r-stale", allow_all(&run)).await.unwrap();
    assert!(a.claims_open().unwrap());
    let keys = claim_keys().await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let parts: Vec<&str> = keys[0].split(':').collect();
    assert_eq!((parts[0], parts[1], parts[2].len()), ("r-stale", "1", 16));
    assert_eq!(
        s(&a.run("r-stale").unwrap(), "status"),
        "running",
        "a's own view is current"
    );

    // Tab b in another process takes the lock after a released it, but reads the old
    // marker (revision 1, awaiting permission): its CAS alone would succeed.
    let stale = StaleStore::freeze("r-stale", before.clone());
    let b = gate_over("tab-b", stale.clone());
    assert_eq!(
        s(&b.run("r-stale").unwrap(), "status"),
        "awaiting_permission"
    );
    let e = resume(&b, "r-stale", allow_all(&run)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "already_resumed", "{}", s(&e, "message"));
    assert_eq!(s(&e, "message"), "run `r-stale` was already resumed");
    // b cleared nothing: its copy still holds the marker, and it still loses.
    assert_eq!(stale.get("r-stale").unwrap(), before);
    let e = resume(&b, "r-stale", allow_all(&run)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "already_resumed");

    // The same stale tab without IndexedDB (same-process guarantee) resumes a second
    // time: the double resume the claim prevents.
    let restore = replace_indexed_db(&JsValue::UNDEFINED);
    let c = gate_over("tab-c", StaleStore::freeze("r-stale", before));
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(c.gate().resume_guarantee(), ResumeGuarantee::SameProcess);
    assert!(resume(&c, "r-stale", allow_all(&run)).await.is_ok());
    for g in [a, b, c] {
        g.dispose().unwrap();
    }
}

#[wasm_bindgen_test]
async fn a_won_claim_on_a_record_that_moved_on_clears_nothing() {
    fresh().await;
    let a = gate("tab-a", Some("alice"), true);
    let run = get(&park(&a, "r-moved", TWO_CALLS, "h").unwrap(), "run");
    let before = LocalStore::new().get("r-moved").unwrap();
    // Another process fails the run (no claim: failRun is not a resume)...
    a.fail_run("r-moved", "stop").unwrap();
    // ...and this one still reads the marker: it wins the claim, but the marker write
    // meets the real revision and loses; core says what the run is now.
    let stale = Rc::new(StaleStore {
        write_through: true,
        ..Rc::try_unwrap(StaleStore::freeze("r-moved", before))
            .ok()
            .unwrap()
    });
    let b = gate_over("tab-b", stale);
    let e = resume(&b, "r-moved", allow_all(&run)).await.unwrap_err();
    assert_eq!(
        s(&e, "code"),
        "not_awaiting_permission",
        "{}",
        s(&e, "message")
    );
    assert_eq!(s(&a.run("r-moved").unwrap(), "status"), "failed");
    // The claim stays: a process still seeing that marker must not win it either.
    assert_eq!(claim_keys().await.len(), 1);
    a.dispose().unwrap();
    b.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn a_re_park_of_the_same_run_id_is_a_new_claim_and_bad_decisions_claim_nothing() {
    fresh().await;
    let g = gate("s-1", Some("alice"), true);
    let run = get(&park(&g, "r-re", TWO_CALLS, "first").unwrap(), "run");
    // A wrong anchor fails before the claim: nothing is claimed, the person can retry.
    let calls: Array = get(&get(&run, "marker"), "calls").unchecked_into();
    let bad = js(&format!(
        r#"{{"decisions":[{{"toolCallId":"call_1","anchor":"0000","decision":"allow"}},
             {{"toolCallId":"call_2","anchor":"{}","decision":"allow"}}]}}"#,
        s(&calls.get(1), "anchor")
    ));
    let e = resume(&g, "r-re", bad).await.unwrap_err();
    assert_eq!(s(&e, "code"), "anchor_mismatch");
    assert!(claim_keys().await.is_empty());
    resume(&g, "r-re", allow_all(&run)).await.unwrap();

    // Parked again (running → awaiting, revision 3): a new claim, resumes once.
    let run = get(&park(&g, "r-re", TWO_CALLS, "second").unwrap(), "run");
    assert_eq!(n(&run, "revision"), 3.0);
    resume(&g, "r-re", allow_all(&run)).await.unwrap();
    let e = resume(&g, "r-re", allow_all(&run)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "already_resumed");

    // The record is deleted (localStorage wiped, or the run forgotten) and the id is
    // parked afresh at revision 1 again: the old `r-re:1:…` claim does not block it.
    storage().remove_item("toolgate:run:r-re").unwrap();
    let run = get(&park(&g, "r-re", TWO_CALLS, "third").unwrap(), "run");
    assert_eq!(n(&run, "revision"), 1.0);
    resume(&g, "r-re", allow_all(&run)).await.unwrap();

    let keys = claim_keys().await;
    let revisions: Vec<&str> = keys.iter().map(|k| k.split(':').nth(1).unwrap()).collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert_eq!(
        (
            revisions.iter().filter(|r| **r == "1").count(),
            revisions.contains(&"3")
        ),
        (2, true),
        "{keys:?}"
    );
    g.dispose().unwrap();
}

#[wasm_bindgen_test]
async fn without_indexeddb_resume_falls_back_to_same_process_and_says_so() {
    fresh().await;
    // No indexedDB at all (a worker without it, an opaque origin): known at once.
    let restore = replace_indexed_db(&JsValue::UNDEFINED);
    let (a, b) = (
        gate("tab-a", Some("alice"), true),
        gate("tab-b", Some("alice"), true),
    );
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(a.resume_guarantee().unwrap(), "same-process");
    assert!(a
        .resume_guarantee_reason()
        .unwrap()
        .unwrap()
        .contains("no indexedDB"));
    assert_eq!(
        b.gate().resume_guarantee_ready().await,
        ResumeGuarantee::SameProcess
    );
    // Today's behaviour: Web Lock + CAS, one winner.
    let run = get(&park(&a, "r-fb", TWO_CALLS, "h").unwrap(), "run");
    let (ra, rb) = (
        JsFuture::from(a.resume("r-fb".into(), allow_all(&run))).await,
        JsFuture::from(b.resume("r-fb".into(), allow_all(&run))).await,
    );
    let lost = match (ra, rb) {
        (Ok(_), Err(l)) | (Err(l), Ok(_)) => l,
        other => panic!("expected one winner: {other:?}"),
    };
    assert_eq!(s(&lost, "code"), "already_resumed");
    assert!(!a.claims_open().unwrap() && !b.claims_open().unwrap());
    a.dispose().unwrap();
    b.dispose().unwrap();

    // indexedDB exists but cannot be opened (some private modes): known after the
    // first attempt, and resume still works.
    let broken = Function::new_no_args(
        "return Object.create(IDBFactory.prototype, { open: { value() {
           throw new DOMException('IndexedDB is disabled in this mode', 'InvalidStateError'); } } });",
    )
    .call0(&JsValue::NULL)
    .unwrap();
    let restore = replace_indexed_db(&broken);
    let g = gate("s-1", Some("alice"), true);
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(g.resume_guarantee().unwrap(), "indexeddb", "not known yet");
    let run = get(&park(&g, "r-fb2", TWO_CALLS, "h").unwrap(), "run");
    let ready: JsValue = JsFuture::from(g.resume_guarantee_ready()).await.unwrap();
    assert_eq!(ready.as_string().unwrap(), "same-process");
    assert_eq!(g.resume_guarantee().unwrap(), "same-process");
    let why = g.resume_guarantee_reason().unwrap().unwrap();
    assert!(why.starts_with("indexedDB.open(\"toolgate\")"), "{why}");
    resume(&g, "r-fb2", allow_all(&run)).await.unwrap();
    let e = resume(&g, "r-fb2", allow_all(&run)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "already_resumed");
    g.dispose().unwrap();
    assert!(
        claim_keys().await.is_empty(),
        "nothing was claimed without IndexedDB"
    );
}

#[wasm_bindgen_test]
async fn old_claims_are_pruned_and_dispose_closes_the_database() {
    fresh().await;
    let now = js_sys::Date::now();
    let put = |key: &str, age_days: f64| {
        format!(
            "return store.put({{ key: '{key}', runId: 'r-old', revision: 1, claimedAt: {} }});",
            now - age_days * DAY_MS
        )
    };
    // Older than the longest marker TTL (7 days): guards nothing any more.
    with_claims(&put("r-old:1:0000000000000000", 8.0)).await;
    // Younger: its marker may still be alive somewhere; kept.
    with_claims(&put("r-old:2:0000000000000000", 6.0)).await;
    let g = gate("s-1", Some("alice"), true);
    assert!(!g.claims_open().unwrap(), "opened on first need only");
    let run = get(&park(&g, "r-p", TWO_CALLS, "h").unwrap(), "run");
    // The first claim of a connection prunes in the background.
    resume(&g, "r-p", allow_all(&run)).await.unwrap();
    assert!(g.claims_open().unwrap());
    let mut keys = Vec::new();
    for _ in 0..50 {
        keys = claim_keys().await;
        if keys.len() == 2 {
            break;
        }
        sleep(10).await;
    }
    assert!(keys.iter().any(|k| k.starts_with("r-p:1:")), "{keys:?}");
    assert!(
        keys.contains(&"r-old:2:0000000000000000".to_string()),
        "{keys:?}"
    );
    assert_eq!(keys.len(), 2, "{keys:?}");
    // On demand.
    with_claims(&put("r-old:3:0000000000000000", 30.0)).await;
    let pruned = JsFuture::from(g.prune_resume_claims()).await.unwrap();
    assert_eq!(pruned.as_f64(), Some(1.0));
    assert_eq!(g.prune_resume_claims().await.unwrap(), 0);
    assert_eq!(claim_keys().await.len(), 2);

    g.dispose().unwrap();
    assert!(!g.claims_open().unwrap());
    assert_eq!(
        s(
            &resume(&g, "r-p", allow_all(&run)).await.unwrap_err(),
            "code"
        ),
        "disposed"
    );
    fresh().await;
}

/// `localStorage`, whose next `arm`ed write fails as a full store would.
struct FullOnce {
    inner: LocalStore,
    armed: Cell<bool>,
}

impl MarkerStore for FullOnce {
    fn get(&self, key: &str) -> Result<Option<Stored>, toolgate_core::Error> {
        self.inner.get(key)
    }
    fn put_if_revision(
        &self,
        key: &str,
        expected: Option<u64>,
        new: Stored,
    ) -> Result<(), toolgate_core::Error> {
        if self.armed.replace(false) {
            return Err(toolgate_core::Error::QuotaExceeded {
                key: key.to_string(),
                bytes: new.value.len(),
            });
        }
        self.inner.put_if_revision(key, expected, new)
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), toolgate_core::Error> {
        self.inner.delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, toolgate_core::Error> {
        self.inner.keys()
    }
}

#[wasm_bindgen_test]
async fn a_won_claim_whose_marker_write_fails_is_given_back() {
    fresh().await;
    let store = Rc::new(FullOnce {
        inner: LocalStore::new(),
        armed: Cell::new(false),
    });
    let g = gate_over("s-1", store.clone());
    let run = get(&park(&g, "r-q", TWO_CALLS, "h").unwrap(), "run");
    // The claim is won, then clearing the marker fails: nothing changed, and the claim
    // must not make the run unresumable.
    store.armed.set(true);
    let e = resume(&g, "r-q", allow_all(&run)).await.unwrap_err();
    assert_eq!(s(&e, "code"), "quota_exceeded", "{}", s(&e, "message"));
    assert_eq!(s(&g.run("r-q").unwrap(), "status"), "awaiting_permission");
    assert!(claim_keys().await.is_empty(), "the claim was given back");
    resume(&g, "r-q", allow_all(&run)).await.unwrap();
    assert_eq!(claim_keys().await.len(), 1);
    g.dispose().unwrap();
}

/// Waits until `cond` holds, at most `ms` (a loaded machine can delay a message hop or
/// a timer); the assertion after it says what was expected.
async fn until(cond: impl Fn() -> bool, ms: i32) {
    let mut waited = 0;
    while !cond() && waited < ms {
        sleep(10).await;
        waited += 10;
    }
}

/// Posts what another gate posts after writing run `run_id` at `revision`.
fn post_note(run_id: &str, owner: &str, revision: u32) {
    let post = Function::new_with_args(
        "runId, owner, revision",
        "const c = new BroadcastChannel('toolgate');
         c.postMessage({type: 'toolgate.run', runId, owner, status: 'awaiting_permission', revision});
         c.close();",
    );
    post.call3(
        &JsValue::NULL,
        &run_id.into(),
        &owner.into(),
        &revision.into(),
    )
    .unwrap();
}

/// What Chromium fires in a tab once another process's write has reached it.
fn storage_event(key: &str) {
    let fire = Function::new_with_args(
        "key",
        "window.dispatchEvent(new StorageEvent('storage', {key, storageArea: localStorage}));",
    );
    fire.call1(&JsValue::NULL, &key.into()).unwrap();
}

/// Chromium propagates a `localStorage` write to other renderer processes after the
/// writer's BroadcastChannel message may already have arrived: a listener told then
/// would poll, see nothing new, and wait for the next poll (5 s). The gate holds such a
/// note until the write is visible (the `storage` event), or delivers it after 1 s.
#[wasm_bindgen_test]
async fn a_note_that_overtakes_its_write_waits_for_the_write() {
    fresh().await;
    let b = gate("tab-b", Some("alice"), true);
    let rb = Recorder::new();
    let _off = b.on_runs_change(rb.function()).unwrap();
    // The note arrives; the record is not here yet.
    post_note("r-late", "alice", 1);
    sleep(50).await;
    assert_eq!(
        rb.seen.borrow().len(),
        0,
        "told before the write is visible"
    );
    // The write arrives (the storage event fires): delivered at once, once.
    storage()
        .set_item("toolgate:run:r-late", r#"{"revision":1}"#)
        .unwrap();
    storage_event("toolgate:run:other");
    assert_eq!(
        rb.seen.borrow().len(),
        0,
        "another key's write is not this one"
    );
    storage_event("toolgate:run:r-late");
    assert_eq!(rb.seen.borrow().len(), 1);
    let heard = rb.seen.borrow()[0].clone();
    assert_eq!(
        (
            s(&heard, "runId"),
            s(&heard, "source"),
            n(&heard, "revision")
        ),
        ("r-late".into(), "remote".into(), 1.0)
    );
    sleep(1_100).await;
    assert_eq!(
        rb.seen.borrow().len(),
        1,
        "the fallback timer was cancelled"
    );
    // A note whose write is already visible is delivered as soon as it arrives.
    post_note("r-late", "alice", 1);
    until(|| rb.seen.borrow().len() >= 2, 3_000).await;
    assert_eq!(rb.seen.borrow().len(), 2);
    // A write that never fires a storage event here: delivered after the wait anyway
    // (not before 1 s, whatever the machine).
    post_note("r-never", "alice", 3);
    sleep(500).await;
    assert_eq!(rb.seen.borrow().len(), 2);
    until(|| rb.seen.borrow().len() >= 3, 5_000).await;
    assert_eq!(rb.seen.borrow().len(), 3);
    assert_eq!(s(&rb.seen.borrow()[2], "runId"), "r-never");
    // dispose drops a waiting note with its timer.
    post_note("r-gone", "alice", 1);
    sleep(50).await;
    b.dispose().unwrap();
    sleep(1_100).await;
    assert_eq!(rb.seen.borrow().len(), 3);
}

#[wasm_bindgen_test]
async fn finished_runs_are_forgotten_or_pruned_and_other_gates_hear_it() {
    fresh().await;
    let a = gate("tab-a", Some("alice"), true);
    let b = gate("tab-b", Some("alice"), true);
    let rb = Recorder::new();
    let _off = b.on_runs_change(rb.function()).unwrap();
    // r-done: parked, resumed, completed. r-wait: still awaiting permission.
    let run = get(&park(&a, "r-done", TWO_CALLS, "h").unwrap(), "run");
    resume(&a, "r-done", allow_all(&run)).await.unwrap();
    a.complete_run("r-done").unwrap();
    park(&a, "r-wait", TWO_CALLS, "h").unwrap();
    a.start_run("r-run").unwrap();
    // Active runs cannot be forgotten.
    let e = a.forget_run("r-wait").unwrap_err();
    assert_eq!(s(&e, "code"), "run_still_active", "{}", s(&e, "message"));
    assert_eq!(s(&a.forget_run("r-nope").unwrap_err(), "code"), "not_found");
    // Not old enough yet; then everything finished goes, active runs stay.
    assert_eq!(a.prune_runs(60_000.0).unwrap(), 0);
    let e = a.prune_runs(-1.0).unwrap_err();
    assert_eq!(s(&e, "code"), "bad_input");
    // b has heard the 5 changes before the prune (2 parks, resume, complete, start).
    until(|| rb.seen.borrow().len() >= 5, 3_000).await;
    let heard = rb.seen.borrow().len();
    assert_eq!(heard, 5);
    assert_eq!(a.prune_runs(0.0).unwrap(), 1);
    assert_eq!(storage().get_item("toolgate:run:r-done").unwrap(), None);
    assert!(storage().get_item("toolgate:run:r-wait").unwrap().is_some());
    assert!(storage().get_item("toolgate:run:r-run").unwrap().is_some());
    until(|| rb.seen.borrow().len() > heard, 3_000).await;
    sleep(50).await; // and no second notice
    let seen = rb.seen.borrow();
    assert_eq!(seen.len(), heard + 1, "b hears the deletion once");
    let last = seen.last().unwrap();
    assert_eq!(
        (
            s(last, "runId"),
            s(last, "status"),
            get(last, "gone").as_bool()
        ),
        ("r-done".into(), "completed".into(), Some(true))
    );
    drop(seen);
    // forgetRun: a failed run goes at once.
    a.fail_run("r-wait", "stop").unwrap();
    a.forget_run("r-wait").unwrap();
    assert_eq!(storage().get_item("toolgate:run:r-wait").unwrap(), None);
    let ids: Vec<String> = Array::from(&a.runs().unwrap())
        .iter()
        .map(|r| s(&r, "runId"))
        .collect();
    assert_eq!(ids, ["r-run"]);
}
