//! Any bytes as a policy file either compile or give an error naming a line; a compiled
//! policy classifies without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_core::{Error, Policy, ToolCall};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Policy::from_toml(&text) {
        Ok(p) => {
            let _ = p.classify(&ToolCall::new("bash", serde_json::json!({ "command": "ls; rm -rf x" })));
        }
        Err(Error::Policy { line, .. }) => assert!(line >= 1),
        Err(other) => panic!("policy errors must name a line: {other:?}"),
    }
});
