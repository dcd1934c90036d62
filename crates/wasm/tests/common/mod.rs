//! Helpers shared by the browser test files (each `mod common;`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use js_sys::Reflect;
use toolgate_wasm::Policy;
use wasm_bindgen::prelude::*;

/// A JS value from JSON text.
pub fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

/// `v[key]`.
pub fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

/// `v[key]` as a string (a panic naming the key when it is not one).
pub fn s(v: &JsValue, key: &str) -> String {
    get(v, key)
        .as_string()
        .unwrap_or_else(|| panic!("{key} of {v:?}"))
}

/// The built-in policy for workspace `/w` and home `/home/u`.
pub fn policy() -> Policy {
    Policy::defaults(js(r#"{"workspace":"/w","home":"/home/u"}"#)).unwrap()
}

/// `policy.classify(call)` as the package defines it (web/gate/verdict.js): the call's
/// `JSON.stringify` text into `classifyFields` (`"null"` when it has none), the fields
/// read back as that JavaScript reads them (`toolgate_core::verdict::fields_to_json`).
pub fn classify(p: &Policy, call: JsValue) -> JsValue {
    let text = js_sys::JSON::stringify(&call)
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_else(|| "null".into());
    let fields = p.classify_fields(&text).unwrap();
    js(&toolgate_core::verdict::fields_to_json(&fields, false).expect("the fields read back"))
}

/// `policy.classifyMany(calls)` as the package defines it (see [`classify`]).
pub fn classify_many(p: &Policy, calls: JsValue) -> Result<JsValue, JsValue> {
    let text = js_sys::JSON::stringify(&calls)
        .unwrap()
        .as_string()
        .unwrap();
    let fields = p.classify_many_fields(&text)?;
    Ok(js(
        &toolgate_core::verdict::fields_to_json(&fields, true).expect("the fields read back")
    ))
}
