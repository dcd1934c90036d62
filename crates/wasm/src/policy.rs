//! `Policy`: the classifier, compiled once.

use crate::error::into_error;
use crate::js::{from_js, to_js, verdict_to_js, DefaultsJs, FactsJs};
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
    pub(crate) fn from_shared(inner: Rc<tg::Policy>) -> Policy {
        Policy { inner }
    }
    pub(crate) fn shared(&self) -> Rc<tg::Policy> {
        self.inner.clone()
    }
}

/// `{tool, args}` as a call; anything else back as the value `classify` judges (`ask`).
fn call_of(call: JsValue) -> Result<tg::ToolCall, serde_json::Value> {
    let value: serde_json::Value = from_js(call, "call").unwrap_or(serde_json::Value::Null);
    tg::ToolCall::from_value(&value).map_err(|_| value)
}

#[wasm_bindgen]
impl Policy {
    /// Parses a TOML policy file; throws an `Error` naming the line (`code: "policy"`).
    /// The file is read by the policy reader, a module of its own
    /// (`toolgate_policy_bg.wasm`) loaded the first time a file is read: the npm
    /// package's entries define this method over it. This module alone has no TOML
    /// reader (issue 51) and throws `code: "no_policy_reader"`, unless built with the
    /// `policy-toml` feature (the demo).
    #[wasm_bindgen(js_name = fromToml)]
    pub fn from_toml(text: &str) -> Result<Policy, JsValue> {
        #[cfg(feature = "policy-toml")]
        {
            crate::poison::install();
            crate::poison::check()?;
            tg::Policy::from_toml(text)
                .map(Policy::from_core)
                .map_err(into_error)
        }
        #[cfg(not(feature = "policy-toml"))]
        {
            let _ = text;
            Err(into_error(crate::GateError::NoPolicyReader))
        }
    }

    /// The policy of what the policy reader answered for a file: its spec (`ok`) or
    /// its error (`toolgate_core::policy::read_toml`). The package's `fromToml`. Not in
    /// a build with `policy-toml`, whose `fromToml` reads the file itself.
    #[cfg(not(feature = "policy-toml"))]
    #[wasm_bindgen(js_name = fromPolicyReader, skip_typescript)]
    pub fn from_policy_reader(ok: bool, answer: &str) -> Result<Policy, JsValue> {
        crate::poison::install();
        crate::poison::check()?;
        tg::Policy::from_answer(if ok { Ok(answer) } else { Err(answer) })
            .map(Policy::from_core)
            .map_err(into_error)
    }

    /// The built-in policy for a workspace and home directory.
    pub fn defaults(
        #[wasm_bindgen(unchecked_param_type = "PolicyDefaults")] options: JsValue,
    ) -> Result<Policy, JsValue> {
        crate::poison::install();
        crate::poison::check()?;
        let o = DefaultsJs::decode(options).map_err(into_error)?;
        Ok(Policy::from_core(tg::Policy::defaults(
            &o.workspace,
            &o.home,
        )))
    }

    /// `classify` as the package's JavaScript calls it (web/gate/verdict.js): the
    /// call's JSON text (`JSON.stringify`'s) in, the verdict as fields
    /// (`Verdict::write_fields`) out, which the JavaScript reads into the verdict object.
    /// A text the reader refuses (a lone surrogate) is a malformed call, as in `classify`.
    #[wasm_bindgen(js_name = classifyFields, skip_typescript)]
    pub fn classify_fields(&self, call: &str) -> Result<String, JsValue> {
        crate::poison::check()?;
        let value = tg::json_text::parse(call).unwrap_or(serde_json::Value::Null);
        let mut out = String::with_capacity(256);
        self.inner.classify_owned(value).write_fields(&mut out);
        Ok(out)
    }

    /// `classifyMany` as the package's JavaScript calls it: the array's JSON text in,
    /// the number of verdicts and each verdict's fields out.
    #[wasm_bindgen(js_name = classifyManyFields, skip_typescript)]
    pub fn classify_many_fields(&self, calls: &str) -> Result<String, JsValue> {
        crate::poison::check()?;
        let calls = tg::json_text::parse(calls)
            .map_err(|e| {
                crate::GateError::BadInput(format!("classifyMany(calls): {}", e.message()))
            })
            .and_then(|v| {
                tg::fields::array(v, Ok)
                    .map_err(|e| crate::GateError::BadInput(format!("classifyMany(calls): {e}")))
            })
            .map_err(into_error)?;
        let mut out = String::with_capacity(256 * calls.len() + 8);
        tg::Verdict::write_count_field(&mut out, calls.len());
        for c in calls {
            self.inner.classify_owned(c).write_fields(&mut out);
        }
        Ok(out)
    }

    /// What the verdict for `{tool, args}` depends on in the file system: the paths
    /// and trees a host with one looks up for `classifyWithFacts` (or `Gate.check`'s
    /// `facts`). A malformed call needs nothing.
    #[wasm_bindgen(js_name = fsNeeds, unchecked_return_type = "FsNeeds")]
    pub fn fs_needs(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolCall")] call: JsValue,
    ) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let needs = match call_of(call) {
            Ok(c) => self.inner.fs_needs(&c),
            Err(_) => tg::facts::FsNeeds::default(),
        };
        to_js(&needs).map_err(into_error)
    }

    /// `classify` with what the host found on its file system: a path through a
    /// symbolic link is judged as the file it names, and a recursive read whose walked
    /// trees hold no secret file is read-only. Throws on malformed facts.
    #[wasm_bindgen(js_name = classifyWithFacts, unchecked_return_type = "Verdict")]
    pub fn classify_with_facts(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolCall")] call: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FsFacts")] facts: JsValue,
    ) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let facts = FactsJs::decode(facts, "classifyWithFacts(call, facts)").map_err(into_error)?;
        let facts = facts.into_core();
        let verdict = match call_of(call) {
            Ok(c) => self
                .inner
                .classify_with_facts(&c, &tg::SessionRules::default(), &facts),
            Err(value) => self.inner.classify_value(&value),
        };
        verdict_to_js(&verdict).map_err(into_error)
    }

    /// The always-allow scopes a prompt may offer for this call, narrowest first.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn scopes(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ToolCall")] call: JsValue,
    ) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let value: serde_json::Value = from_js(call, "scopes(call)").map_err(into_error)?;
        let call = tg::ToolCall::from_owned(value)
            .map_err(|e| into_error(crate::GateError::BadInput(format!("scopes(call): {e}"))))?;
        to_js(&self.inner.scopes(&call)).map_err(into_error)
    }

    #[wasm_bindgen(getter)]
    pub fn workspace(&self) -> Result<String, JsValue> {
        crate::poison::check()?;
        Ok(self.inner.workspace().to_string())
    }
}
