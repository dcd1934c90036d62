//! `Policy`: the classifier, compiled once.

use crate::error::into_error;
use crate::js::{from_js, to_js, DefaultsJs};
use std::rc::Rc;
use toolgate_core as tg;
use wasm_bindgen::prelude::*;

/// A compiled policy (built-in rules plus the user's allow / ask / deny lists).
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct Policy {
    inner: Rc<tg::Policy>,
}

impl Policy {
    pub fn from_core(policy: tg::Policy) -> Policy {
        Policy {
            inner: Rc::new(policy),
        }
    }
    pub fn core(&self) -> &tg::Policy {
        &self.inner
    }
    pub(crate) fn shared(&self) -> Rc<tg::Policy> {
        self.inner.clone()
    }
}

#[wasm_bindgen]
impl Policy {
    /// Parses a TOML policy file; throws an `Error` naming the line (`code: "policy"`).
    #[wasm_bindgen(js_name = fromToml)]
    pub fn from_toml(text: &str) -> Result<Policy, JsValue> {
        tg::Policy::from_toml(text)
            .map(Policy::from_core)
            .map_err(into_error)
    }

    /// The built-in policy for a workspace and home directory.
    pub fn defaults(
        #[wasm_bindgen(unchecked_param_type = "PolicyDefaults")] options: JsValue,
    ) -> Result<Policy, JsValue> {
        let o: DefaultsJs =
            from_js(options, "Policy.defaults({workspace, home})").map_err(into_error)?;
        Ok(Policy::from_core(tg::Policy::defaults(
            &o.workspace,
            &o.home,
        )))
    }

    /// Classifies `{tool, args}`; a malformed call is `ask`, never an exception.
    #[wasm_bindgen(unchecked_return_type = "Verdict")]
    pub fn classify(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolCall")] call: JsValue,
    ) -> Result<JsValue, JsValue> {
        let value: serde_json::Value =
            from_js(call, "classify(call)").unwrap_or(serde_json::Value::Null);
        to_js(&self.inner.classify_value(&value)).map_err(into_error)
    }

    /// The always-allow scopes a prompt may offer for this call, narrowest first.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn scopes(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolCall")] call: JsValue,
    ) -> Result<JsValue, JsValue> {
        let call: tg::ToolCall = from_js(call, "scopes(call)").map_err(into_error)?;
        to_js(&self.inner.scopes(&call)).map_err(into_error)
    }

    #[wasm_bindgen(getter)]
    pub fn workspace(&self) -> String {
        self.inner.workspace().to_string()
    }
}
