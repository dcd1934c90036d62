//! Claude Code's settings files as toolgate rules: `--settings FILE` (repeatable) on
//! `classify` and `hook`, and `toolgate import claude-settings`. Real settings files in
//! a temporary project; rules read with Claude Code's meaning (`:*` prefixes, globs,
//! `//abs`, `~/`, `/` relative to the settings file's project, gitignore's any-depth
//! names, `mcp__server`), several files merged so that a deny anywhere wins.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::toolgate;
use serde_json::{json, Value};
use std::path::PathBuf;

struct Project {
    dir: PathBuf,
}

impl Project {
    fn new(name: &str) -> Project {
        let dir =
            std::env::temp_dir().join(format!("toolgate-settings-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".claude")).unwrap();
        std::fs::create_dir_all(dir.join("home")).unwrap();
        Project { dir }
    }
    fn write(&self, rel: &str, v: &Value) -> String {
        let p = self.dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, v.to_string()).unwrap();
        p.to_string_lossy().into_owned()
    }
    fn s(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn settings_rules_mean_what_they_mean_in_claude_code() {
    let p = Project::new("classify");
    let user = p.write(
        "home/.claude/settings.json",
        &json!({"permissions": {
            "allow": ["Bash(git push:*)", "Bash(npm run *)", "Read(//opt/docs/**)", "mcp__github"],
            "deny": ["Read(~/.aws/**)"]}}),
    );
    let project = p.write(
        ".claude/settings.json",
        &json!({"permissions": {
            "allow": ["Edit(/generated/**)"],
            "ask": ["mcp__github__merge_*"],
            "deny": ["Bash(git push --force:*)", "Read(.env.example)", "Write(**/*.lock)"]},
            "model": "opus"}),
    );
    let ws = p.s();
    let home = format!("{ws}/home");
    let calls = [
        (
            json!({"tool":"Bash","args":{"command":"git push origin main"}}),
            "auto",
        ),
        // The project's deny wins over the user's allow, whatever the file order.
        (
            json!({"tool":"Bash","args":{"command":"git push --force origin main"}}),
            "deny",
        ),
        (
            json!({"tool":"Bash","args":{"command":"npm run build"}}),
            "auto",
        ),
        (
            json!({"tool":"Read","args":{"file_path":"/opt/docs/guide.md"}}),
            "auto",
        ),
        (
            json!({"tool":"Read","args":{"file_path": format!("{home}/.aws/config")}}),
            "deny",
        ),
        // `/generated/**` is relative to the project that holds `.claude/`.
        (
            json!({"tool":"Write","args":{"file_path": format!("{ws}/generated/x/a.ts"),"content":""}}),
            "auto",
        ),
        // A name without a slash matches at any depth.
        (
            json!({"tool":"Read","args":{"file_path": format!("{ws}/pkg/.env.example")}}),
            "deny",
        ),
        (
            json!({"tool":"Edit","args":{"file_path": format!("{ws}/Cargo.lock"),"old_string":"a","new_string":"b"}}),
            "deny",
        ),
        (
            json!({"tool":"mcp__github__create_issue","args":{}}),
            "auto",
        ),
        (
            json!({"tool":"mcp__github__merge_pull_request","args":{}}),
            "ask",
        ),
        // Without a rule, toolgate's own verdicts stand.
        (json!({"tool":"Bash","args":{"command":"rm -rf ~"}}), "deny"),
        (
            json!({"tool":"Bash","args":{"command":"git status"}}),
            "auto",
        ),
    ];
    let input: String = calls.iter().map(|(c, _)| c.to_string() + "\n").collect();
    for order in [[&user, &project], [&project, &user]] {
        let args = [
            "classify",
            "--no-fs",
            "--workspace",
            &ws,
            "--home",
            &home,
            "--settings",
            order[0],
            "--settings",
            order[1],
        ];
        let o = toolgate(&args, &input);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got: Vec<Value> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for ((call, want), v) in calls.iter().zip(&got) {
            assert_eq!(v["tier"], *want, "{call}: {v}");
        }
    }

    // The hook reads them too.
    let payload = json!({"session_id":"s","cwd":ws,"hook_event_name":"PreToolUse",
        "tool_name":"Bash","tool_input":{"command":"npm run build"},"tool_use_id":"t"});
    let o = toolgate(
        &[
            "hook",
            "claude-code",
            "--settings",
            &project,
            "--settings",
            &user,
        ],
        &payload.to_string(),
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "allow",
        "{v}"
    );
}

#[test]
fn import_prints_a_policy_and_says_what_it_could_not_keep() {
    let p = Project::new("import");
    let file = p.write(
        ".claude/settings.json",
        &json!({"permissions": {
            "allow": ["Bash(npm run test:*)", "Agent(explorer)", "Read(/docs/**)"],
            "ask": ["WebSearch(anything)"],
            "deny": ["Read(.env)", "Skill(deploy *)"],
            "defaultMode": "acceptEdits"}}),
    );
    let o = toolgate(&["import", "claude-settings", &file], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let ws = p.s();
    for want in [
        format!(r#"allow = ["Bash(npm run test:*)", "Read({ws}/docs/**)"]"#),
        r#"ask = ["WebSearch"]"#.to_string(),
        r#"deny = ["Read(./**/.env)", "Skill"]"#.to_string(),
        "allow `Agent(explorer)` is dropped".to_string(),
        "deny `Skill(deploy *)` covers all of `Skill`".to_string(),
        "`permissions.defaultMode`".to_string(),
    ] {
        assert!(text.contains(&want), "missing {want:?} in:\n{text}");
    }
    // What it prints is a policy toolgate loads.
    let policy = p.write("imported.toml.json", &json!(null));
    std::fs::write(&policy, &text).unwrap();
    let call = json!({"tool": "Read", "args": {"file_path": format!("{ws}/.env")}}).to_string();
    let o = toolgate(
        &[
            "explain",
            "--policy",
            &policy,
            "--workspace",
            &ws,
            "--call",
            &call,
        ],
        "",
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("deny"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );

    // Bad input: a clear error, nothing half-read.
    let bad = p.write("bad.json", &json!({"permissions": {"allow": "Bash"}}));
    let o = toolgate(&["import", "claude-settings", &bad], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`permissions.allow` is not a list"));
    let o = toolgate(
        &["classify", "--settings", "/nonexistent/settings.json"],
        "",
    );
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(
        toolgate(&["import", "claude-settings"], "").status.code(),
        Some(2)
    );
    assert_eq!(
        toolgate(&["import", "cursor-rules", &file], "")
            .status
            .code(),
        Some(2)
    );
}
