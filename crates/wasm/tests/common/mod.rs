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
