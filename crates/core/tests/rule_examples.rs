//! Every built-in rule's examples (`rule_id::EXAMPLES`): the calls it must decide and
//! the calls it must not, with the default policy. Every rule has an entry; every rule
//! but the length limits (tested in `bounded_cost.rs`) has a call it decides.
#![cfg(test)]
#![allow(clippy::expect_used)]

use serde_json::json;
use toolgate_core::rule_id::{RuleId, EXAMPLES};
use toolgate_core::{Policy, ToolCall, Verdict};

fn classify(p: &Policy, example: &str) -> Verdict {
    let call = match example.split_once(':') {
        Some(("read", path)) => ToolCall::new("read", json!({ "path": path })),
        Some(("edit", path)) => ToolCall::new(
            "edit",
            json!({ "path": path, "old_string": "a", "new_string": "b" }),
        ),
        Some(("fetch", url)) => ToolCall::new("webfetch", json!({ "url": url })),
        Some(("mcp", name)) => ToolCall::new(name, json!({})),
        Some(("tool", name)) => ToolCall::new(name, json!({})),
        Some(("json", call)) => {
            ToolCall::from_value(&serde_json::from_str(call).expect("an example call"))
                .expect("a tool call")
        }
        _ => ToolCall::new("bash", json!({ "command": example })),
    };
    p.classify(&call)
}

#[test]
fn every_rule_decides_its_examples_and_not_the_others() {
    let plain = Policy::defaults("/home/dev/app", "/home/dev");
    // `builtin.sandbox` comes only from a policy whose host contains such calls.
    let host = plain.clone().with_sandbox_host(true);
    // `builtin.sandbox.registry` only where the policy names registries too.
    let registries = Policy::from_toml(
        "workspace = \"/home/dev/app\"\nhome = \"/home/dev\"\nsandbox_network = [\"npm\", \"pypi\"]",
    )
    .expect("a policy")
    .with_sandbox_host(true);
    let mut bad = Vec::new();
    for id in RuleId::ALL {
        let p = match id {
            RuleId::Sandbox => &host,
            RuleId::SandboxRegistry => &registries,
            _ => &plain,
        };
        let Some((_, yes, no)) = EXAMPLES.iter().find(|(e, _, _)| *e == id) else {
            bad.push(format!("{id}: no examples"));
            continue;
        };
        // The length limits are tested in `bounded_cost.rs`; an internal error only
        // comes from a host's boundary (crates/cli/tests/cli.rs, panic_probe_…).
        let limits = matches!(
            id,
            RuleId::TooLong | RuleId::ShellTooLong | RuleId::InternalError
        );
        if yes.is_empty() && !limits {
            bad.push(format!("{id}: no call it decides"));
        }
        for example in *yes {
            let v = classify(p, example);
            if v.rule != id.as_str() {
                bad.push(format!(
                    "{id} must decide {example:?}: got {} ({})",
                    v.rule, v.reason
                ));
            }
        }
        for example in *no {
            let v = classify(p, example);
            if v.rule == id.as_str() {
                bad.push(format!("{id} must not decide {example:?} ({})", v.reason));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
