//! `toolgate grants`: lists the grants in a runs database (live ones; every one kept
//! with --all; as JSON), revokes one, and says so when there is none.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::toolgate;
use serde_json::{json, Value};
use toolgate_core::{Grant, GrantOrigin, GrantRequest, Policy, ToolCall};
use toolgate_store::{now_ms, open, StoreOptions};

#[test]
fn lists_and_revokes_grants() {
    let dir = std::env::temp_dir().join(format!("toolgate-cli-grants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = format!("sqlite:{}", dir.join("runs.db").display());
    let store = open(&db, StoreOptions::default()).unwrap();
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let now = now_ms();
    for (id, cmd, rule, single) in [
        ("g-push", "git push origin main", "Bash(git push:*)", false),
        ("g-pub", "npm publish", "Bash(npm publish)", true),
    ] {
        let call = ToolCall::new("Bash", json!({ "command": cmd }));
        let req = GrantRequest {
            rule: rule.into(),
            ttl_ms: Some(3_600_000),
            single_use: single,
        };
        let origin = GrantOrigin {
            id,
            owner: "local",
            session_id: "chat-1",
            by: Some("alice"),
            run_id: "r",
            tool_call_id: "c",
        };
        let g = Grant::give(&policy, &call, &req, origin, now).unwrap();
        store.add_grant(&g, now).unwrap();
    }
    let cli = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--database", &db]);
        let o = toolgate(&all, "");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, _) = cli(&["grants"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("g-push  Bash(git push:*)"), "{out}");
    assert!(out.contains("single use"), "{out}");
    assert!(
        out.contains("matches `git push` with any arguments after it"),
        "{out}"
    );
    let (_, json_out, _) = cli(&["grants", "--json"]);
    let listed: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(listed[0]["state"], "live");
    assert_eq!(listed.as_array().unwrap().len(), 2);

    let (code, out, _) = cli(&["grants", "--revoke", "g-push"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("revoked grant g-push"), "{out}");
    let (_, out, _) = cli(&["grants", "--revoke", "g-push"]);
    assert!(out.contains("already revoked"), "{out}");
    let (code, _, err) = cli(&["grants", "--revoke", "g-none"]);
    assert_ne!(code, Some(0));
    assert!(err.contains("no grant g-none"), "{err}");
    assert!(!store.use_grant("local", "g-push", now_ms()).unwrap());
    let (_, out, _) = cli(&["grants"]);
    assert!(!out.contains("g-push"), "{out}");
    let (_, out, _) = cli(&["grants", "--all"]);
    assert!(out.contains("g-push  Bash(git push:*)  revoked"), "{out}");
    // Another owner sees none of them.
    let (_, out, _) = cli(&["grants", "--owner", "bob"]);
    assert_eq!(out, "no live grants\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
