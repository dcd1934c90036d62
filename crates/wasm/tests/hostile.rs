//! The worst inputs of the bounded-cost work, through the JS API in headless Chromium:
//! the fuzzing finds that took gigabytes (a wasm module that runs out of memory aborts,
//! and the `Gate` with its pending approvals dies with it), every adversarial family at
//! 64 KiB, every nesting kind past the depth limit, and hostile policy files. The module
//! survives, the verdict is `ask` where the parse was cut short, and a request that was
//! pending before is still pending and still answerable.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../core/src/adversarial.rs"]
#[allow(dead_code)]
mod adversarial;

use js_sys::Array;
use toolgate_core::shell::MAX_DEPTH;
use toolgate_wasm::{JsGate, Policy};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

mod common;

use common::{classify, classify_many, get, js, policy, s};

wasm_bindgen_test_configure!(run_in_browser);

fn bash(command: &str, id: &str) -> JsValue {
    let call = serde_json::json!({"tool": "bash", "args": {"command": command}, "toolCallId": id});
    js(&call.to_string())
}

/// The inputs that aborted the classifier before the fix (issue #19), and nestings
/// just past the depth limit.
fn worst() -> Vec<(String, String)> {
    let mut v = vec![
        ("esac ×10".to_string(), "x>(c;(;esac(8s>(c>(;".repeat(10)),
        ("esac ×14".to_string(), "x>(c;(;esac(8s>(c>(;".repeat(14)),
        ("<( ×52".to_string(), "<(".repeat(52)),
        (">( ×52".to_string(), ">(".repeat(52)),
        (
            "mixed".to_string(),
            format!("cat {}", "<({ if '>(".repeat(20)),
        ),
    ];
    for (kind, (name, _, _, _)) in adversarial::NESTINGS.iter().enumerate() {
        if adversarial::nests_in_parser(kind) {
            let levels = MAX_DEPTH + 4;
            v.push((
                format!("{name} ×{levels}"),
                adversarial::nesting(kind, levels, true),
            ));
        }
    }
    v
}

#[wasm_bindgen_test]
async fn the_worst_inputs_are_ask_and_leave_the_gate_and_its_pending_requests_intact() {
    let p = policy();
    let g = JsGate::new(&p, js(r#"{"sessionId":"s-hostile","timeoutMs":60000}"#)).unwrap();
    // A request pending before the hostile ones arrive.
    let first = g.check(bash("python deploy.py", "call_before"));
    let before = g.pending().unwrap().unchecked_into::<Array>().get(0);
    let (id, anchor) = (s(&before, "id"), s(&before, "anchor"));

    for (name, command) in worst() {
        let v = classify(&p, bash(&command, "x"));
        assert_eq!(s(&v, "tier"), "ask", "{name}: {v:?}");
        assert!(
            s(&v, "rule").starts_with("builtin.shell."),
            "{name}: {}",
            s(&v, "rule")
        );
        // Through the gate: held as an ask request beside the first one.
        let _held = g.check(bash(&command, &format!("call_{name}")));
    }
    let n = worst().len() as u32;
    assert_eq!(
        g.size().unwrap(),
        1 + n,
        "every hostile call is pending beside the first"
    );
    let still = g.pending().unwrap().unchecked_into::<Array>();
    assert!(
        still.iter().any(|r| s(&r, "id") == id),
        "the request pending before is still there"
    );

    // Every adversarial family at 64 KiB: a verdict, never an abort.
    for input in adversarial::inputs(adversarial::LIMIT) {
        let v = classify(&p, bash(&input.command, "y"));
        let tier = s(&v, "tier");
        assert!(
            ["auto", "ask", "deny"].contains(&tier.as_str()),
            "{}",
            input.name
        );
    }

    // The module is alive: the first request is still answerable, once.
    let response = js(&format!(
        r#"{{"decision":"allow_once","anchor":"{anchor}"}}"#
    ));
    assert_eq!(g.respond(&id, response).unwrap(), 1);
    let out = JsFuture::from(first).await.unwrap();
    assert_eq!(s(&out, "outcome"), "approved");
    assert_eq!(g.deny_all_pending("done").unwrap(), n);
    assert_eq!(g.size().unwrap(), 0);
    g.dispose().unwrap();
}

#[wasm_bindgen_test]
fn hostile_policy_files_throw_a_policy_error_naming_a_line() {
    for text in [
        format!("x = {}{}", "[".repeat(100_000), "]".repeat(100_000)),
        format!("x = {}1{}", "{a=".repeat(50_000), "}".repeat(50_000)),
        format!("\n[{}b]\n", "a.".repeat(30_000)),
        "#".repeat(300 * 1024),
    ] {
        let e = from_toml(&text).err().unwrap();
        assert_eq!(s(&e, "code"), "policy", "{e:?}");
        assert!(get(&e, "message").as_string().unwrap().contains("line"));
    }
    // And the module still classifies.
    let v = classify(&policy(), bash("ls", "z"));
    assert_eq!(s(&v, "tier"), "auto");
}

/// The Gate has the hosts' tool shapes and a policy's `[tools]` mappings, as the native
/// hosts do: a mapped tool is judged as its family, a bad mapping refused naming its line.
#[wasm_bindgen_test]
fn a_tools_mapping_is_judged_as_its_family() {
    let p = from_toml(
        "default = \"ask\"\nworkspace = \"/w\"\n\n[tools.my_exec]\nfamily = \"shell\"\ncommand = \"cmd\"\n",
    )
    .unwrap();
    let call = |args: &str| {
        let v = classify(
            &p,
            js_sys::JSON::parse(&format!("{{\"tool\":\"my_exec\",\"args\":{args}}}")).unwrap(),
        );
        (s(&v, "tier"), s(&v, "rule"))
    };
    assert_eq!(
        call(r#"{"cmd":"rm -rf /"}"#),
        ("deny".into(), "builtin.shell.rm-root".into())
    );
    assert_eq!(call(r#"{"cmd":"ls"}"#).0, "auto");
    assert_eq!(call(r#"{"command":"ls"}"#).0, "ask");
    // Codex's argv `shell`, a host shape.
    let v = classify(
        &p,
        js_sys::JSON::parse(r#"{"tool":"shell","args":{"command":["rm","-rf","/"]}}"#).unwrap(),
    );
    assert_eq!(s(&v, "tier"), "deny");
    let e = from_toml("[tools.bash]\nfamily = \"shell\"\ncommand = \"cmd\"\n")
        .err()
        .unwrap();
    assert_eq!(s(&e, "code"), "policy", "{e:?}");
    assert!(get(&e, "message").as_string().unwrap().contains("line"));
}

/// `classifyMany` answers each call as `classify` does, a malformed one `ask`, in one
/// crossing; what is not an array is `bad_input`.
#[wasm_bindgen_test]
fn classify_many_answers_each_call_as_classify_does() {
    let p = policy();
    let calls = js(
        r#"[{"tool":"bash","args":{"command":"ls"}},{"tool":"bash","args":{"command":"rm -rf /"}},
            {"tool":"read","args":{"path":"/home/u/.ssh/id_rsa"}},7,{"tool":"shell","args":{"command":["git","status"]}}]"#,
    );
    let many = classify_many(&p, calls.clone()).unwrap();
    let many: js_sys::Array = many.dyn_into().unwrap();
    let calls: js_sys::Array = calls.dyn_into().unwrap();
    assert_eq!(many.length(), calls.length());
    for i in 0..calls.length() {
        let one = classify(&p, calls.get(i));
        assert_eq!(
            js_sys::JSON::stringify(&one).unwrap().as_string(),
            js_sys::JSON::stringify(&many.get(i)).unwrap().as_string(),
            "call {i}"
        );
    }
    let tiers: Vec<String> = (0..many.length())
        .map(|i| s(&many.get(i), "tier"))
        .collect();
    assert_eq!(tiers, ["auto", "deny", "ask", "ask", "auto"]);
    let e = classify_many(&p, js(r#"{"tool":"bash"}"#)).err().unwrap();
    assert_eq!(s(&e, "code"), "bad_input", "{e:?}");
}

/// The Gate's own inputs read by hand: a missing or mistyped field is `bad_input`
/// naming it; facts with an unknown field are refused, never read as none.
#[wasm_bindgen_test]
fn options_and_facts_are_checked_field_by_field() {
    let p = policy();
    for (options, says) in [
        (r#"{}"#, "missing field `sessionId`"),
        (r#"{"sessionId":3}"#, "`sessionId` must be a string"),
        (
            r#"{"sessionId":"s","timeoutMs":-1}"#,
            "`timeoutMs` must be a whole number",
        ),
        (
            r#"{"sessionId":"s","locks":"yes"}"#,
            "`locks` must be true or false",
        ),
        (r#""s""#, "expected an object"),
    ] {
        let e = JsGate::new(&p, js(options)).err().unwrap();
        assert_eq!(s(&e, "code"), "bad_input", "{options}");
        assert!(s(&e, "message").contains(says), "{options}: {e:?}");
    }
    let call = js(r#"{"tool":"read","args":{"path":"/w/a.txt"}}"#);
    for (facts, says) in [
        (r#"{"link":{}}"#, "unknown field `link`"),
        (
            r#"{"trees":[{"root":"/w","hidden":true,"ignore":false}]}"#,
            "`files` is missing",
        ),
        (
            r#"{"trees":[{"root":"/w","hidden":true,"ignore":false,"files":[],"x":1}]}"#,
            "unknown field `x`",
        ),
        (r#"{"links":{"/w/a.txt":7}}"#, "target must be a string"),
    ] {
        let e = p
            .classify_with_facts(call.clone(), js(facts))
            .err()
            .unwrap();
        assert_eq!(s(&e, "code"), "bad_input", "{facts}");
        assert!(s(&e, "message").contains(says), "{facts}: {e:?}");
    }
    let v = p
        .classify_with_facts(call, js(r#"{"links":{"/w/a.txt":"/home/u/.ssh/id_rsa"}}"#))
        .unwrap();
    assert_eq!(s(&v, "tier"), "ask");
}

/// `Policy.fromToml` as the npm package's entries define it: the policy reader's answer
/// (here the same code, native to the test) handed to the Gate's module.
fn from_toml(text: &str) -> Result<Policy, JsValue> {
    match toolgate_core::policy::read_toml(text) {
        Ok(spec) => Policy::from_policy_reader(true, &spec),
        Err(error) => Policy::from_policy_reader(false, &error),
    }
}

/// The Gate's module alone reads no policy file: `fromToml` throws `no_policy_reader`.
#[wasm_bindgen_test]
fn the_module_alone_reads_no_policy_file() {
    let e = Policy::from_toml("default = \"ask\"\n").err().unwrap();
    assert_eq!(s(&e, "code"), "no_policy_reader", "{e:?}");
}
