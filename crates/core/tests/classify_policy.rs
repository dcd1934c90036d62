//! Non-shell families, policy files, user and session rules, scopes.
#![cfg(test)]

use serde_json::json;
use toolgate_core::{Error, Policy, SessionRules, Tier, ToolCall};

fn p() -> Policy {
    Policy::defaults("/home/dev/app", "/home/dev")
}

fn call(tool: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(tool, args)
}

fn check(policy: &Policy, cases: &[(&str, &str, &str, serde_json::Value)]) {
    let mut failures = Vec::new();
    for (tier, rule, tool, args) in cases {
        let v = policy.classify(&call(tool, args.clone()));
        if v.tier.as_str() != *tier || !v.rule.ends_with(rule) {
            failures.push(format!(
                "{tool} {args}: want {tier} {rule}, got {} {} ({})",
                v.tier, v.rule, v.reason
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn read_edit_paths() {
    check(
        &p(),
        &[
            (
                "auto",
                "read-workspace",
                "read",
                json!({"path": "src/main.rs"}),
            ),
            (
                "auto",
                "read-workspace",
                "read_file",
                json!({"path": "/home/dev/app/README.md"}),
            ),
            (
                "auto",
                "read-workspace",
                "View",
                json!({"path": "./docs/../docs/guide.md"}),
            ),
            (
                "ask",
                "read-outside",
                "read",
                json!({"path": "/etc/passwd"}),
            ),
            (
                "ask",
                "read-outside",
                "read",
                json!({"path": "../other/notes.txt"}),
            ),
            (
                "ask",
                "read-outside",
                "read",
                json!({"path": "src/../../other"}),
            ),
            (
                "ask",
                "read-outside",
                "read",
                json!({"path": "/home/dev/apple/x"}),
            ),
            ("ask", "read-secret", "read", json!({"path": ".env"})),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": ".env.production"}),
            ),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": "certs/server.pem"}),
            ),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": "config/app.key"}),
            ),
            ("ask", "read-secret", "read", json!({"path": "keys/id_rsa"})),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": "deploy/id_ed25519.pub"}),
            ),
            ("ask", "read-secret", "read", json!({"path": ".ssh/config"})),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": "~/.ssh/known_hosts"}),
            ),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": ".aws/credentials"}),
            ),
            ("ask", "read-secret", "read", json!({"path": ".netrc"})),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": ".git-credentials"}),
            ),
            (
                "auto",
                "edit-workspace",
                "edit",
                json!({"path": "src/lib.rs"}),
            ),
            (
                "auto",
                "edit-workspace",
                "write",
                json!({"path": "docs/new.md", "content": "x"}),
            ),
            (
                "auto",
                "edit-workspace",
                "str_replace",
                json!({"file_path": "/home/dev/app/src/app.rs"}),
            ),
            (
                "auto",
                "edit-workspace",
                "CREATE",
                json!({"path": "notes/todo.md"}),
            ),
            (
                "ask",
                "edit-outside",
                "edit",
                json!({"path": "/home/dev/.profile"}),
            ),
            (
                "ask",
                "edit-outside",
                "edit",
                json!({"path": "/tmp/out.txt"}),
            ),
            ("ask", "edit-outside", "edit", json!({"path": "~/.bashrc"})),
            ("ask", "edit-git", "edit", json!({"path": ".git/config"})),
            (
                "ask",
                "edit-git",
                "write",
                json!({"path": "sub/.git/hooks/pre-commit"}),
            ),
            ("ask", "edit-secret", "edit", json!({"path": "config/.env"})),
            ("deny", "edit-system", "edit", json!({"path": "/etc/hosts"})),
            (
                "deny",
                "edit-system",
                "write",
                json!({"path": "/usr/bin/python3"}),
            ),
            (
                "deny",
                "edit-system",
                "edit",
                json!({"path": "/home/dev/app/../../../etc/shadow"}),
            ),
            (
                "deny",
                "edit-system",
                "edit",
                json!({"path": "/proc/sysrq-trigger"}),
            ),
            (
                "deny",
                "edit-system",
                "edit",
                json!({"path": "/sys/power/state"}),
            ),
            ("deny", "edit-system", "edit", json!({"path": "/dev/sdb"})),
            (
                "deny",
                "edit-system",
                "edit",
                json!({"path": "/lib64/libc.so.6"}),
            ),
            (
                "deny",
                "edit-system",
                "edit",
                json!({"path": "//etc//passwd"}),
            ),
        ],
    );
}

#[test]
fn fetch_urls() {
    let mut cases = vec![
        (
            "auto",
            "fetch-public",
            "webfetch",
            json!({"url": "https://example.com/"}),
        ),
        (
            "auto",
            "fetch-public",
            "fetch",
            json!({"url": "http://example.org/page"}),
        ),
        (
            "auto",
            "fetch-public",
            "http_get",
            json!({"url": "https://api.github.com/"}),
        ),
        (
            "auto",
            "fetch-public",
            "WebFetch",
            json!({"url": "HTTPS://Example.COM:443/a?b#c"}),
        ),
        (
            "deny",
            "fetch-scheme",
            "webfetch",
            json!({"url": "file:///etc/passwd"}),
        ),
        (
            "deny",
            "fetch-scheme",
            "webfetch",
            json!({"url": "javascript:alert(1)"}),
        ),
        (
            "deny",
            "fetch-scheme",
            "webfetch",
            json!({"url": "data:text/html,<b>hi</b>"}),
        ),
        (
            "deny",
            "fetch-scheme",
            "webfetch",
            json!({"url": "ftp://x/y"}),
        ),
        (
            "deny",
            "fetch-scheme",
            "webfetch",
            json!({"url": "gopher://x/1"}),
        ),
        (
            "deny",
            "fetch-scheme",
            "webfetch",
            json!({"url": "FILE:///etc/passwd"}),
        ),
        (
            "deny",
            "fetch-metadata",
            "webfetch",
            json!({"url": "http://169.254.169.254/latest/meta-data/"}),
        ),
        (
            "deny",
            "fetch-metadata",
            "webfetch",
            json!({"url": "http://[fd00:ec2::254]/"}),
        ),
        (
            "deny",
            "fetch-metadata",
            "webfetch",
            json!({"url": "http://metadata.google.internal/x"}),
        ),
        (
            "deny",
            "fetch-metadata",
            "webfetch",
            json!({"url": "http://2852039166/"}),
        ),
        (
            "deny",
            "fetch-metadata",
            "webfetch",
            json!({"url": "http://0xa9fea9fe/"}),
        ),
        (
            "deny",
            "fetch-metadata",
            "webfetch",
            json!({"url": "http://[::ffff:169.254.169.254]/"}),
        ),
        ("ask", "malformed", "webfetch", json!({"url": "not a url"})),
        ("ask", "malformed", "webfetch", json!({"url": "http://"})),
    ];
    for u in [
        "http://localhost:8080/",
        "http://127.0.0.1/",
        "http://127.1/",
        "http://0/",
        "http://0.0.0.0/",
        "http://10.1.2.3/",
        "http://172.20.0.5/",
        "http://192.168.1.10/",
        "http://169.254.1.1/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://[::]/",
        "http://[fe80::1]/",
        "http://[fe80::1%25eth0]/",
        "http://[fd00::1]/",
        "http://[fc00::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[64:ff9b::127.0.0.1]/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://0x7f.0.0.1/",
        "http://017700000001/",
        "http://myhost.local/",
        "http://api.corp.internal/",
        "http://LOCALHOST/",
        "http://localhost./",
        "http://a.localhost/",
        "http://user:pw@127.0.0.1/",
        "http://example.com@127.0.0.1/",
        "http://127.0.0.1.nip.io/",
        "http://%31%32%37.0.0.1/",
        "http://intranet/",
    ] {
        cases.push(("ask", "fetch-private", "webfetch", json!({ "url": u })));
    }
    check(&p(), &cases);
}

#[test]
fn malformed_mcp_other() {
    check(
        &p(),
        &[
            ("ask", "malformed", "bash", json!({})),
            ("ask", "malformed", "bash", json!({"command": 42})),
            ("ask", "malformed", "bash", json!({"command": null})),
            ("ask", "malformed", "bash", json!("ls")),
            ("ask", "malformed", "bash", json!(null)),
            ("ask", "malformed", "read", json!({})),
            ("ask", "malformed", "read", json!({"path": ""})),
            (
                "ask",
                "malformed",
                "fetch",
                json!({"url": ["https://example.com/"]}),
            ),
            ("ask", "malformed", "edit", json!({"path": null})),
            (
                "ask",
                "mcp",
                "mcp__github__create_issue",
                json!({"title": "bug"}),
            ),
            ("ask", "mcp", "mcp__db__query", json!({"sql": "select 1"})),
            ("ask", "other", "todo_write", json!({"todos": []})),
            ("ask", "other", "", json!({})),
        ],
    );
    let p = p();
    for v in [
        json!(null),
        json!([]),
        json!({"tool": 1}),
        json!({"args": {}}),
        json!("x"),
    ] {
        let verdict = p.classify_value(&v);
        assert_eq!(verdict.tier, Tier::Ask, "{v}");
        assert!(
            verdict.reason.starts_with("malformed tool call"),
            "{v}: {}",
            verdict.reason
        );
    }
}

const POLICY: &str = r#"
workspace = "/home/dev/app"
home = "/home/dev"
default = "ask"
[rules]
allow = ["Bash(npm run test:*)", "Bash(cargo build*)", "Bash(npm test*)", "mcp__github__get_*", "Read(/home/dev/docs/**)", "Bash(sudo ls)", "Edit(/etc/hosts)"]
ask   = ["Bash(git push*)", "WebFetch(domain:internal.example.com)", "Read(**/README.md)"]
deny  = ["Bash(terraform destroy*)", "Edit(**/.env)", "mcp__*__delete_*", "WebFetch(domain:*.evil.test)", "Bash(ls secret*)"]
"#;

#[test]
fn policy_file_rules_and_order() {
    let policy = Policy::from_toml(POLICY).unwrap();
    check(
        &policy,
        &[
            (
                "auto",
                "user.allow[0]",
                "bash",
                json!({"command": "npm run test -- --watch"}),
            ),
            (
                "ask",
                "default",
                "bash",
                json!({"command": "npm run test:unit"}),
            ),
            (
                "auto",
                "user.allow[0]",
                "bash",
                json!({"command": "npm run test"}),
            ),
            (
                "ask",
                "default",
                "bash",
                json!({"command": "npm run testing"}),
            ),
            (
                "auto",
                "user.allow[1]",
                "bash",
                json!({"command": "cargo build --release"}),
            ),
            (
                "auto",
                "user.allow[1]",
                "bash",
                json!({"command": "time cargo build"}),
            ),
            (
                "ask",
                "default",
                "bash",
                json!({"command": "npm test && rm -rf build"}),
            ),
            (
                "ask",
                "default",
                "bash",
                json!({"command": "npm test; npm publish"}),
            ),
            (
                "deny",
                "rm-root",
                "bash",
                json!({"command": "npm test && rm -rf /"}),
            ),
            (
                "ask",
                "default",
                "bash",
                json!({"command": "npm test $(curl x)"}),
            ),
            (
                "deny",
                "priv-esc",
                "bash",
                json!({"command": "npm test $(sudo id)"}),
            ),
            (
                "ask",
                "user.ask[0]",
                "bash",
                json!({"command": "git push origin main"}),
            ),
            (
                "deny",
                "user.deny[0]",
                "bash",
                json!({"command": "terraform destroy -auto-approve"}),
            ),
            (
                "deny",
                "user.deny[4]",
                "bash",
                json!({"command": "ls secrets/"}),
            ),
            ("deny", "priv-esc", "bash", json!({"command": "sudo ls"})),
            ("auto", "user.allow[3]", "mcp__github__get_issue", json!({})),
            (
                "deny",
                "user.deny[2]",
                "mcp__github__delete_repo",
                json!({}),
            ),
            ("ask", "mcp", "mcp__github__create_issue", json!({})),
            (
                "auto",
                "user.allow[4]",
                "read",
                json!({"path": "/home/dev/docs/a/b.md"}),
            ),
            ("ask", "user.ask[2]", "read", json!({"path": "README.md"})),
            (
                "deny",
                "user.deny[1]",
                "edit",
                json!({"path": "config/.env"}),
            ),
            ("deny", "edit-system", "edit", json!({"path": "/etc/hosts"})),
            (
                "ask",
                "user.ask[1]",
                "webfetch",
                json!({"url": "https://internal.example.com/x"}),
            ),
            (
                "deny",
                "user.deny[3]",
                "webfetch",
                json!({"url": "https://a.evil.test/"}),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                json!({"url": "http://169.254.169.254/"}),
            ),
        ],
    );
}

#[test]
fn policy_defaults_and_errors() {
    let p = Policy::from_toml("default = \"deny\"\nworkspace = \"/w\"\n").unwrap();
    assert_eq!(
        p.classify(&call("bash", json!({"command": "npm install"})))
            .tier,
        Tier::Deny
    );
    assert_eq!(
        p.classify(&call("bash", json!({"command": "ls"}))).tier,
        Tier::Auto
    );
    assert_eq!(
        p.classify(&call("bash", json!({"command": "$X"}))).tier,
        Tier::Ask,
        "dynamic stays ask"
    );
    let p = Policy::from_toml("default = \"auto\"\n").unwrap();
    assert_eq!(
        p.classify(&call("bash", json!({"command": "echo \"x"})))
            .tier,
        Tier::Ask,
        "unparseable stays ask"
    );
    assert_eq!(
        p.classify(&call("bash", json!({"command": "sudo ls"})))
            .tier,
        Tier::Deny
    );

    let cases: &[(&str, usize, &str)] = &[
        ("default = \"maybe\"\n", 1, "`default` must be"),
        ("\n\nworkspace = 3\n", 3, "invalid type"),
        ("[rules]\nallow = [\"Bash(npm test\"]\n", 2, "missing `)`"),
        (
            "[rules]\n\ndeny = [\"WebFetch(example.com)\"]\n",
            3,
            "domain:",
        ),
        ("x = 1\n", 1, "unknown field"),
        ("[rules\n", 1, ""),
        ("workspace = \"relative\"\n", 1, "absolute"),
        ("[rules]\nallow = [\"\"]\n", 2, "empty rule"),
        ("[rules]\nask = [\"Bash(:*)\"]\n", 2, "prefix"),
        (
            "\nedits = \"deny\"\n",
            2,
            "`edits` must be \"auto\" or \"ask\"",
        ),
    ];
    for (text, line, needle) in cases {
        match Policy::from_toml(text) {
            Err(Error::Policy { line: l, message }) => {
                assert_eq!(l, *line, "{text:?}: {message}");
                assert!(message.contains(needle), "{text:?}: {message}");
            }
            other => panic!("{text:?}: expected a policy error, got {other:?}"),
        }
    }
}

#[test]
fn session_rules_and_scopes() {
    let p = p();
    let push = call("bash", json!({"command": "git push origin main"}));
    assert_eq!(p.classify(&push).tier, Tier::Ask);
    let scopes = p.scopes(&push);
    assert_eq!(
        scopes,
        vec![
            "Bash(git push origin main)".to_string(),
            "Bash(git push:*)".to_string()
        ]
    );

    let mut s = SessionRules::new();
    s.add(Tier::Auto, &scopes[0]).unwrap();
    assert_eq!(p.classify_with(&push, &s).tier, Tier::Auto);
    let other = call("bash", json!({"command": "git push origin dev"}));
    assert_eq!(
        p.classify_with(&other, &s).tier,
        Tier::Ask,
        "exact scope is not broader"
    );
    s.add(Tier::Auto, &scopes[1]).unwrap();
    assert_eq!(p.classify_with(&other, &s).tier, Tier::Auto);
    assert_eq!(
        p.classify_with(&call("bash", json!({"command": "git pushx"})), &s)
            .tier,
        Tier::Ask
    );
    assert_eq!(
        p.classify_with(&call("bash", json!({"command": "git push && rm x"})), &s)
            .tier,
        Tier::Ask
    );

    // An exact scope of a compound command covers exactly that command line.
    let compound = call("bash", json!({"command": "npm test && rm -rf build"}));
    let sc = p.scopes(&compound);
    assert_eq!(sc, vec!["Bash(npm test && rm -rf build)".to_string()]);
    let mut s2 = SessionRules::new();
    s2.add(Tier::Auto, &sc[0]).unwrap();
    assert_eq!(p.classify_with(&compound, &s2).tier, Tier::Auto);
    assert_eq!(
        p.classify_with(
            &call("bash", json!({"command": "npm test && rm -rf /"})),
            &s2
        )
        .tier,
        Tier::Deny
    );

    // Session deny.
    let mut s3 = SessionRules::new();
    s3.add(Tier::Deny, "Bash(git push:*)").unwrap();
    assert_eq!(p.classify_with(&push, &s3).tier, Tier::Deny);

    // No scopes for hard deny, dynamic or unparseable commands.
    for cmd in ["sudo ls", "$X", "echo \"x"] {
        assert!(
            p.scopes(&call("bash", json!({ "command": cmd })))
                .is_empty(),
            "{cmd}"
        );
    }
    assert_eq!(
        p.scopes(&call("read", json!({"path": "/etc/passwd"}))),
        vec!["Read(/etc/passwd)".to_string(), "Read(/etc/**)".to_string()]
    );
    assert_eq!(
        p.scopes(&call("webfetch", json!({"url": "http://localhost:3000/x"}))),
        vec!["WebFetch(domain:localhost)".to_string()]
    );
    assert_eq!(
        p.scopes(&call("mcp__github__create_issue", json!({}))),
        vec!["mcp__github__create_issue".to_string()]
    );
}

/// `edits = "ask"` makes every edit inside the workspace ask; protected, secret and
/// outside paths ask either way; system files stay denied.
#[test]
fn edits_setting() {
    let auto = Policy::from_toml("workspace = \"/w\"\nhome = \"/h\"\n").unwrap();
    let ask = Policy::from_toml("workspace = \"/w\"\nhome = \"/h\"\nedits = \"ask\"\n").unwrap();
    assert_eq!(auto.edits_tier(), Tier::Auto);
    assert_eq!(ask.edits_tier(), Tier::Ask);
    assert_eq!(
        Policy::defaults("/w", "/h")
            .with_edits(Tier::Ask)
            .edits_tier(),
        Tier::Ask
    );
    let edit = |path: &str| call("write", json!({"path": path, "content": "x"}));
    for (path, with_auto, with_ask, rule) in [
        ("src/a.rs", Tier::Auto, Tier::Ask, "edit-workspace"),
        (".vscode/tasks.json", Tier::Ask, Tier::Ask, "edit-protected"),
        (
            ".github/workflows/ci.yml",
            Tier::Ask,
            Tier::Ask,
            "edit-protected",
        ),
        // `.envrc` is protected, and a secret by name (`.env*`) before that.
        (".envrc", Tier::Ask, Tier::Ask, "edit-secret"),
        (
            ".claude/agents/x.md",
            Tier::Ask,
            Tier::Ask,
            "edit-protected",
        ),
        // A project's copy of an agent's settings: a person is asked (the user's own,
        // where toolgate's hook is, are never an agent's to write).
        (
            ".claude/settings.json",
            Tier::Ask,
            Tier::Ask,
            "edit-protected",
        ),
        (
            "/h/.claude/settings.json",
            Tier::Deny,
            Tier::Deny,
            "self-approval",
        ),
        (".git/hooks/pre-commit", Tier::Ask, Tier::Ask, "edit-git"),
        (".env", Tier::Ask, Tier::Ask, "edit-secret"),
        ("/h/.zshrc", Tier::Ask, Tier::Ask, "edit-outside"),
        ("/etc/hosts", Tier::Deny, Tier::Deny, "edit-system"),
    ] {
        let a = auto.classify(&edit(path));
        let b = ask.classify(&edit(path));
        assert_eq!(
            (a.tier, b.tier),
            (with_auto, with_ask),
            "{path}: {} / {}",
            a.reason,
            b.reason
        );
        assert!(
            a.rule.ends_with(rule) && b.rule.ends_with(rule),
            "{path}: {} {}",
            a.rule,
            b.rule
        );
    }
    // Shell writes alike: the same setting makes every workspace write ask.
    let sh = |cmd: &str| call("bash", json!({ "command": cmd }));
    for cmd in [
        "echo x > out.txt",
        "cat <<'EOF' > new.py\nprint(1)\nEOF",
        "ls | tee out.txt",
        "touch a.txt",
        "mkdir -p tests/unit",
        "sed -i 's/a/b/' src/a.rs",
        "cp a.txt b.txt",
        "mv a.txt b.txt",
        "git add src/a.rs",
    ] {
        let a = auto.classify(&sh(cmd));
        let b = ask.classify(&sh(cmd));
        assert_eq!(
            (a.tier, b.tier),
            (Tier::Auto, Tier::Ask),
            "{cmd}: {} / {}",
            a.reason,
            b.reason
        );
    }
    for cmd in [
        "echo x > .vscode/tasks.json",
        "echo x > ../x",
        "sed -i 1d .env",
    ] {
        assert_eq!(auto.classify(&sh(cmd)).tier, Tier::Ask, "{cmd}");
    }
}

/// `c` is `lexical` without file-system facts and `with_facts` with `facts`.
fn lexical_then_facts(
    p: &Policy,
    facts: &toolgate_core::facts::FsFacts,
    c: &toolgate_core::ToolCall,
    lexical: Tier,
    with_facts: Tier,
) {
    let a = p.classify(c);
    let b = p.classify_with_facts(c, &SessionRules::default(), facts);
    assert_eq!(
        (a.tier, b.tier),
        (lexical, with_facts),
        "{c:?}: {} / {}",
        a.reason,
        b.reason
    );
}

/// With file-system facts a write through a symbolic link is judged as its target too
/// (an edit tool's or a shell's); without them paths are lexical.
#[test]
fn writes_through_symbolic_links() {
    use toolgate_core::facts::FsFacts;
    let p = Policy::defaults("/w", "/h");
    let facts = FsFacts::new()
        .with_link("/w/out.txt", "/h/.bashrc")
        .with_link("/w/hooks", ".git/hooks")
        .with_link("/w/up", "..")
        .with_link("/w/loop", "/w/loop")
        .with_link("/w/docs", "src/docs");
    let sh = |cmd: &str| call("bash", json!({ "command": cmd }));
    for (c, lexical, with_facts) in [
        (sh("echo x > out.txt"), Tier::Auto, Tier::Ask),
        (sh("ls | tee -a out.txt"), Tier::Auto, Tier::Ask),
        (sh("sed -i 1d out.txt"), Tier::Auto, Tier::Ask),
        (sh("cp a.txt out.txt"), Tier::Auto, Tier::Ask),
        (sh("echo x > hooks/pre-commit"), Tier::Auto, Tier::Ask),
        (sh("touch up/x.txt"), Tier::Auto, Tier::Ask),
        (sh("echo x > loop/x"), Tier::Auto, Tier::Ask),
        (sh("echo x > docs/a.md"), Tier::Auto, Tier::Auto),
        (sh("echo x > src/a.md"), Tier::Auto, Tier::Auto),
        (
            call("write", json!({"path": "out.txt", "content": "x"})),
            Tier::Auto,
            Tier::Ask,
        ),
        (
            call("edit", json!({"path": "/w/hooks/post-merge"})),
            Tier::Auto,
            Tier::Ask,
        ),
        (
            call("edit", json!({"path": "/w/docs/b.md"})),
            Tier::Auto,
            Tier::Auto,
        ),
    ] {
        lexical_then_facts(&p, &facts, &c, lexical, with_facts);
    }
}

/// With facts a read through a symbolic link is judged as its target (`..` after a
/// link leaves the link's target, as the kernel takes it); without them it is lexical.
#[test]
fn reads_through_symbolic_links() {
    use toolgate_core::facts::FsFacts;
    let p = Policy::defaults("/w", "/h");
    let facts = FsFacts::new()
        .with_link("/w/notes.txt", "/h/.ssh/id_rsa")
        .with_link("/w/keys", "/h/.ssh/sub")
        .with_link("/w/cfg", "../etc/app")
        .with_link("/w/readme", "README.md")
        .with_link("/w/loop", "/w/loop");
    let sh = |cmd: &str| call("bash", json!({ "command": cmd }));
    for (c, lexical, with_facts) in [
        (sh("cat notes.txt"), Tier::Auto, Tier::Ask),
        (sh("head -5 < notes.txt"), Tier::Auto, Tier::Ask),
        (sh("grep x src/a.py notes.txt"), Tier::Auto, Tier::Ask),
        (sh("cd keys && cat config"), Tier::Auto, Tier::Ask),
        (sh("cat keys/../config"), Tier::Auto, Tier::Ask),
        (sh("cat loop/x"), Tier::Auto, Tier::Ask),
        (sh("sed -n 1p notes.txt"), Tier::Auto, Tier::Ask),
        (sh("cp notes.txt b.txt"), Tier::Auto, Tier::Ask),
        (sh("cat readme cfg/app.toml"), Tier::Auto, Tier::Auto),
        (sh("cat src/../README.md"), Tier::Auto, Tier::Auto),
        (
            call("read", json!({"path": "notes.txt"})),
            Tier::Auto,
            Tier::Ask,
        ),
        (
            call("read", json!({"path": "cfg/x"})),
            Tier::Auto,
            Tier::Ask,
        ),
        (
            call("read", json!({"path": "readme"})),
            Tier::Auto,
            Tier::Auto,
        ),
    ] {
        lexical_then_facts(&p, &facts, &c, lexical, with_facts);
    }
}

/// A recursive read is read-only when the host walked its trees (as the program
/// walks them) and found no secret file; a tree not walked, one with a secret or a
/// link to one, `-R`/`-L`, and a command that also writes a file ask.
#[test]
fn recursive_reads_with_walked_trees() {
    use toolgate_core::facts::{FsFacts, Tree};
    let p = Policy::defaults("/w", "/h");
    let none = SessionRules::default();
    let sh = |cmd: &str| call("bash", json!({ "command": cmd }));
    let tree = |root: &str, hidden: bool, ignore: bool| Tree {
        root: root.to_string(),
        hidden,
        ignore,
    };
    let facts = FsFacts::new()
        .with_tree(tree("/w", true, false), ["/w/a.py", "/w/src/b.py"])
        .with_tree(tree("/w", false, true), ["/w/a.py"])
        .with_tree(tree("/w", true, true), ["/w/a.py"])
        .with_tree(tree("/w/src", true, false), ["/w/src/b.py"])
        .with_tree(tree("/w/conf", true, false), ["/w/conf/.env"]);
    for (cmd, lexical, with_facts) in [
        ("grep -r TODO .", Tier::Ask, Tier::Auto),
        ("grep -rn TODO", Tier::Ask, Tier::Auto),
        ("grep -rn -e TODO src", Tier::Ask, Tier::Auto),
        ("grep -d recurse TODO src", Tier::Ask, Tier::Auto),
        ("rg TODO", Tier::Ask, Tier::Auto),
        ("rg -n TODO .", Tier::Ask, Tier::Auto),
        ("rg --hidden TODO", Tier::Ask, Tier::Auto),
        ("rg -uu TODO", Tier::Ask, Tier::Auto),
        ("grep -r TODO conf", Tier::Ask, Tier::Ask),
        ("grep -r TODO tests", Tier::Ask, Tier::Ask),
        ("grep -R TODO src", Tier::Ask, Tier::Ask),
        ("rg -L TODO", Tier::Ask, Tier::Ask),
        ("rg TODO src/../conf", Tier::Ask, Tier::Ask),
        ("grep -r TODO $D", Tier::Ask, Tier::Ask),
        ("grep -r TODO . > out.txt", Tier::Ask, Tier::Ask),
        (": > .gitignore && rg TODO", Tier::Ask, Tier::Ask),
        ("rg TODO | tee .ignore", Tier::Ask, Tier::Ask),
        ("grep -r TODO .env", Tier::Ask, Tier::Ask),
    ] {
        lexical_then_facts(&p, &facts, &sh(cmd), lexical, with_facts);
    }
    // A link under the root to a secret: grep -r does not follow it, but it asks.
    let linked = FsFacts::new()
        .with_link("/w/docs/k.txt", "/h/.ssh/id_rsa")
        .with_tree(tree("/w/docs", true, false), ["/w/docs/a.md"]);
    let v = p.classify_with_facts(&sh("grep -r TODO docs"), &none, &linked);
    assert_eq!(v.tier, Tier::Ask, "{}", v.reason);
}

/// What a verdict depends on: the paths judged and the trees walked, as the host must
/// look them up.
#[test]
fn needs_list_paths_and_trees() {
    use toolgate_core::facts::Tree;
    let p = Policy::defaults("/w", "/h");
    let sh = |cmd: &str| call("bash", json!({ "command": cmd }));
    let n = p.fs_needs(&sh("cat a.txt keys/../config > out.md; rg -. x src"));
    assert!(n.paths.iter().any(|p| p == "/w/a.txt"), "{n:?}");
    assert!(n.paths.iter().any(|p| p == "/w/keys/../config"), "{n:?}");
    assert!(n.paths.iter().any(|p| p == "/w/out.md"), "{n:?}");
    assert!(n.trees.contains(&Tree {
        root: "/w/src".into(),
        hidden: true,
        ignore: true
    }));
    let n = p.fs_needs(&sh("cd sub || true; grep -r x"));
    let roots: Vec<&str> = n.trees.iter().map(|t| t.root.as_str()).collect();
    assert_eq!(roots, ["/w", "/w/sub"]);
    // Each path and tree once, in order, however often and in whatever order the
    // command names them.
    let n = p.fs_needs(&sh(
        "cat b a b; cat a; grep -r x src; grep -r y src; rg z src",
    ));
    assert_eq!(n.paths, ["/w/a", "/w/b"], "{n:?}");
    let trees: Vec<(&str, bool, bool)> = n
        .trees
        .iter()
        .map(|t| (t.root.as_str(), t.hidden, t.ignore))
        .collect();
    assert_eq!(
        trees,
        [("/w/src", false, true), ("/w/src", true, false)],
        "{n:?}"
    );
    let n = p.fs_needs(&call("edit", json!({"path": "src/../a.md"})));
    assert!(n.paths.iter().any(|p| p == "/w/src/../a.md"), "{n:?}");
    assert!(p.fs_needs(&sh("echo hi")).is_empty());
}

/// With facts a glob may match a symbolic link to a secret: it reads lexically safe
/// names only when the host walked the tree under it (to the glob's depth) and found
/// no link that resolves to one.
#[test]
fn globs_with_links_under_them() {
    use toolgate_core::facts::{FsFacts, Tree};
    let p = Policy::defaults("/w", "/h");
    let sh = |cmd: &str| call("bash", json!({ "command": cmd }));
    let walked = |root: &str| Tree {
        root: root.to_string(),
        hidden: true,
        ignore: false,
    };
    let facts = FsFacts::new()
        .with_link("/w/lnk/notes.txt", "/h/.ssh/id_rsa")
        .with_link("/w/deep/a/b/k.txt", "/h/.ssh/id_rsa")
        .with_tree(walked("/w"), ["/w/a.txt"])
        .with_tree(walked("/w/lnk"), ["/w/lnk/notes.txt"])
        .with_tree(walked("/w/src"), ["/w/src/a.py"])
        .with_tree(walked("/w/deep"), ["/w/deep/a/b/k.txt"]);
    for (cmd, lexical, with_facts) in [
        ("cat lnk/*.txt", Tier::Auto, Tier::Ask),
        ("cat */*.txt", Tier::Auto, Tier::Ask),
        (
            "for f in lnk/*.txt; do cat \"$f\"; done",
            Tier::Auto,
            Tier::Ask,
        ),
        ("cat src/*.py", Tier::Auto, Tier::Auto),
        ("cat *.txt", Tier::Auto, Tier::Auto),
        ("cat deep/*/*.txt", Tier::Auto, Tier::Auto),
        ("cat deep/*/*/*.txt", Tier::Auto, Tier::Ask),
        ("cat docs/*.md", Tier::Auto, Tier::Ask),
    ] {
        lexical_then_facts(&p, &facts, &sh(cmd), lexical, with_facts);
    }
    let n = p.fs_needs(&sh("cat src/*.py"));
    assert!(n.trees.contains(&walked("/w/src")), "{n:?}");
}
