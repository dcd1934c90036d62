//! Any bytes as a shell command parse or fail cleanly, and always classify to a verdict
//! whose tier is the strictest of its parts and whose spans lie inside the command.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_core::{shell, Policy, ToolCall};

fuzz_target!(|data: &[u8]| {
    let cmd = String::from_utf8_lossy(data);
    let _ = shell::parse(&cmd);
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let v = policy.classify(&ToolCall::new("bash", serde_json::json!({ "command": cmd })));
    for p in &v.parts {
        assert!(p.tier <= v.tier, "part {p:?} stricter than verdict {v:?}");
        if let Some([a, b]) = p.span {
            assert!(a <= b && b <= cmd.len(), "span {a}..{b} outside {}", cmd.len());
        }
    }
});
