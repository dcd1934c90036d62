//! Decoys and parser differentials: a read / edit call naming two files (`path` and
//! `file_path`), URLs whose authority reads two ways (`\` before `@`), and URLs with
//! tab / LF / CR inside (removed by WHATWG parsers), URLs with too few or too many
//! slashes after a special scheme (skipped by WHATWG parsers) and hosts spelled with
//! characters IDNA maps to ASCII (`。`, fullwidth, circled letters, soft hyphens,
//! zero-width characters). The strictest reading wins.
#![cfg(test)]

use proptest::prelude::*;
use serde_json::json;
use toolgate_core::url::{classify_url, map_host, url_readings, UrlClass};
use toolgate_core::{Policy, SessionRules, Tier, ToolCall};

fn p() -> Policy {
    Policy::defaults("/home/dev/app", "/home/dev")
}

fn call(tool: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(tool, args)
}

/// `(tier, rule suffix, tool, args)`: every failure is listed, not only the first.
fn check(policy: &Policy, session: &SessionRules, cases: &[(&str, &str, &str, serde_json::Value)]) {
    let mut failures = Vec::new();
    for (tier, rule, tool, args) in cases {
        let c = call(tool, args.clone());
        let v = policy.classify_with(&c, session);
        if v.tier.as_str() != *tier || !v.rule.ends_with(rule) {
            failures.push(format!(
                "{tool} {args}: want {tier} {rule}, got {} {} ({})",
                v.tier, v.rule, v.reason
            ));
        }
        if session.is_empty() {
            let raw = json!({"tool": tool, "args": args});
            if policy.classify_value(&raw) != v {
                failures.push(format!("{tool} {args}: classify_value disagrees"));
            }
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
fn path_and_file_path_the_strictest_wins() {
    check(
        &p(),
        &SessionRules::new(),
        &[
            // The bypasses: a harmless `path` hid the real `file_path`.
            (
                "deny",
                "edit-system",
                "write",
                json!({"path": "notes.md", "file_path": "/etc/cron.d/x"}),
            ),
            (
                "ask",
                "edit-outside",
                "edit",
                json!({"path": "notes.md", "file_path": "/home/dev/.bashrc"}),
            ),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": "src/x", "file_path": "/home/dev/.ssh/id_rsa"}),
            ),
            // The same with the decoy in the other key.
            (
                "deny",
                "edit-system",
                "write",
                json!({"file_path": "notes.md", "path": "/etc/cron.d/x"}),
            ),
            (
                "deny",
                "edit-system",
                "str_replace",
                json!({"path": "/home/dev/app/.git/config", "file_path": "/usr/bin/ls"}),
            ),
            (
                "ask",
                "edit-git",
                "create",
                json!({"path": "src/a.rs", "file_path": ".git/hooks/pre-commit"}),
            ),
            (
                "ask",
                "read-secret",
                "view",
                json!({"path": "README.md", "file_path": ".env"}),
            ),
            (
                "ask",
                "read-outside",
                "read_file",
                json!({"path": "README.md", "file_path": "../other/x"}),
            ),
            // One key present but not a string: fail closed.
            (
                "ask",
                "malformed",
                "edit",
                json!({"path": "src/a.rs", "file_path": null}),
            ),
            (
                "ask",
                "malformed",
                "read",
                json!({"path": "src/a.rs", "file_path": ["/etc/shadow"]}),
            ),
            (
                "ask",
                "malformed",
                "write",
                json!({"path": 1, "file_path": "src/a.rs"}),
            ),
            (
                "ask",
                "malformed",
                "edit",
                json!({"path": "", "file_path": "src/a.rs"}),
            ),
            // Negative controls: unchanged.
            (
                "auto",
                "read-workspace",
                "read",
                json!({"path": "src/a.rs", "file_path": "src/a.rs"}),
            ),
            (
                "auto",
                "edit-workspace",
                "edit",
                json!({"path": "src/a.rs", "file_path": "src/a.rs"}),
            ),
            (
                "auto",
                "edit-workspace",
                "edit",
                json!({"path": "src/a.rs", "file_path": "/home/dev/app/src/a.rs"}),
            ),
            (
                "auto",
                "edit-workspace",
                "write",
                json!({"path": "src/a.rs", "file_path": "src/b.rs"}),
            ),
            (
                "auto",
                "read-workspace",
                "read",
                json!({"path": "src/a.rs"}),
            ),
            (
                "auto",
                "edit-workspace",
                "str_replace",
                json!({"file_path": "src/a.rs"}),
            ),
            ("ask", "malformed", "read", json!({"other": "src/a.rs"})),
        ],
    );
}

#[test]
fn path_decoy_does_not_ride_an_allow_rule() {
    let mut s = SessionRules::new();
    s.add(Tier::Auto, "Edit(/home/dev/app/notes.md)").unwrap();
    s.add(Tier::Auto, "Read(/home/dev/app/src/**)").unwrap();
    check(
        &p(),
        &s,
        &[
            (
                "auto",
                "session.allow[0]",
                "edit",
                json!({"path": "notes.md"}),
            ),
            (
                "ask",
                "edit-outside",
                "edit",
                json!({"path": "notes.md", "file_path": "/home/dev/.bashrc"}),
            ),
            (
                "ask",
                "read-secret",
                "read",
                json!({"path": "src/x", "file_path": "/home/dev/.ssh/id_rsa"}),
            ),
        ],
    );
    // A deny rule on either file decides.
    let mut d = SessionRules::new();
    d.add(Tier::Deny, "Edit(/home/dev/app/secret/**)").unwrap();
    check(
        &p(),
        &d,
        &[(
            "deny",
            "session.deny[0]",
            "edit",
            json!({"path": "src/a.rs", "file_path": "secret/x"}),
        )],
    );
}

#[test]
fn path_scopes_only_when_the_keys_agree() {
    let p = p();
    let single = p.scopes(&call("edit", json!({"path": "src/a.rs"})));
    assert_eq!(
        single,
        vec![
            "Edit(/home/dev/app/src/a.rs)".to_string(),
            "Edit(/home/dev/app/src/**)".to_string()
        ]
    );
    assert_eq!(
        p.scopes(&call(
            "edit",
            json!({"path": "src/a.rs", "file_path": "src/a.rs"})
        )),
        single
    );
    assert_eq!(
        p.scopes(&call(
            "edit",
            json!({"path": "src/a.rs", "file_path": "/home/dev/app/src/a.rs"})
        )),
        single
    );
    for args in [
        json!({"path": "notes.md", "file_path": "/home/dev/.bashrc"}),
        json!({"path": "src/a.rs", "file_path": "src/b.rs"}),
        json!({"path": "src/a.rs", "file_path": null}),
    ] {
        assert!(p.scopes(&call("edit", args.clone())).is_empty(), "{args}");
    }
}

#[test]
fn backslash_before_at_reads_both_hosts() {
    check(
        &p(),
        &SessionRules::new(),
        &[
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                json!({"url": "http://example.com\\@169.254.169.254/latest/meta-data/"}),
            ),
            (
                "ask",
                "fetch-private",
                "webfetch",
                json!({"url": "http://example.com\\@127.0.0.1:8080/admin"}),
            ),
            (
                "ask",
                "fetch-private",
                "fetch",
                json!({"url": "https://example.com\\@10.0.0.1?x=1"}),
            ),
            (
                "deny",
                "fetch-metadata",
                "http_get",
                json!({"url": "http://a.example\\b@c\\@metadata.google.internal#x"}),
            ),
            // WHATWG reading internal, literal reading public: still ask.
            (
                "ask",
                "fetch-private",
                "webfetch",
                json!({"url": "http://127.0.0.1\\@example.com/"}),
            ),
            // Negative controls.
            (
                "auto",
                "fetch-public",
                "webfetch",
                json!({"url": "https://example.com/x"}),
            ),
            (
                "auto",
                "fetch-public",
                "webfetch",
                json!({"url": "https://example.com/a\\b@127.0.0.1"}),
            ),
            (
                "auto",
                "fetch-public",
                "webfetch",
                json!({"url": "https://example.com/?q=\\@127.0.0.1"}),
            ),
            (
                "ask",
                "fetch-private",
                "webfetch",
                json!({"url": "http://example.com@127.0.0.1/"}),
            ),
        ],
    );
}

#[test]
fn backslash_decoy_does_not_ride_a_domain_rule() {
    let mut s = SessionRules::new();
    s.add(Tier::Auto, "WebFetch(domain:example.com)").unwrap();
    check(
        &p(),
        &s,
        &[
            (
                "auto",
                "session.allow[0]",
                "webfetch",
                json!({"url": "http://example.com/admin"}),
            ),
            (
                "ask",
                "fetch-private",
                "webfetch",
                json!({"url": "http://example.com\\@127.0.0.1:8080/admin"}),
            ),
        ],
    );
    // A deny rule on the host curl would reach decides, whatever the WHATWG host.
    let mut d = SessionRules::new();
    d.add(Tier::Deny, "WebFetch(domain:evil.example)").unwrap();
    check(
        &p(),
        &d,
        &[(
            "deny",
            "session.deny[0]",
            "webfetch",
            json!({"url": "https://good.example\\@evil.example/"}),
        )],
    );
    // No domain scope when the readings disagree on the host.
    let p = p();
    assert!(p
        .scopes(&call(
            "webfetch",
            json!({"url": "http://example.com\\@127.0.0.1:8080/admin"})
        ))
        .is_empty());
    assert_eq!(
        p.scopes(&call("webfetch", json!({"url": "https://example.com/x"}))),
        vec!["WebFetch(domain:example.com)".to_string()]
    );
    assert_eq!(
        p.scopes(&call(
            "webfetch",
            json!({"url": "https://example.com/a\\b"})
        )),
        vec!["WebFetch(domain:example.com)".to_string()]
    );
}

#[test]
fn tab_lf_cr_are_removed_like_whatwg() {
    check(
        &p(),
        &SessionRules::new(),
        &[
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                json!({"url": "http://169.254.\n169.254/"}),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                json!({"url": "http://169.\t254.169.254/latest"}),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                json!({"url": "http://metadata.google.inter\r\nnal/"}),
            ),
            (
                "deny",
                "fetch-scheme",
                "webfetch",
                json!({"url": "fi\nle:///etc/passwd"}),
            ),
            (
                "deny",
                "fetch-scheme",
                "fetch",
                json!({"url": "java\tscript:alert(1)"}),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                json!({"url": "\u{1}\u{7f} http://169.254.169.254/ \u{0}"}),
            ),
            (
                "ask",
                "fetch-private",
                "webfetch",
                json!({"url": "ht\ttp://127.0.0.1/"}),
            ),
            (
                "ask",
                "fetch-private",
                "webfetch",
                json!({"url": "http://local\nhost:8080/"}),
            ),
            // The text as given is malformed: the strictest reading (ask) stays.
            (
                "ask",
                "malformed",
                "webfetch",
                json!({"url": "https://exa\nmple.com/"}),
            ),
            // Negative controls.
            (
                "auto",
                "fetch-public",
                "webfetch",
                json!({"url": "https://example.com/x"}),
            ),
            (
                "auto",
                "fetch-public",
                "webfetch",
                json!({"url": " https://example.com/x\n"}),
            ),
            (
                "auto",
                "fetch-public",
                "webfetch",
                json!({"url": "https://example.com/a\tb?c\nd"}),
            ),
        ],
    );
}

#[test]
fn special_scheme_slashes_are_skipped_like_whatwg() {
    let u = |url: &str| json!({ "url": url });
    check(
        &p(),
        &SessionRules::new(),
        &[
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:/169.254.169.254/"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:169.254.169.254/"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:///169.254.169.254/"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:\\\\169.254.169.254/"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:\\169.254.169.254/"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:/\\169.254.169.254/latest"),
            ),
            (
                "deny",
                "fetch-metadata",
                "fetch",
                u("https:/metadata.google.internal/"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("HTTP:metadata.google.internal/x"),
            ),
            (
                "deny",
                "fetch-metadata",
                "webfetch",
                u("http:////[fd00:ec2::254]/"),
            ),
            // Ask either way; the strict reading (malformed) is first on the tie.
            ("ask", "malformed", "webfetch", u("http:/127.0.0.1:8080/")),
            ("ask", "malformed", "webfetch", u("http:localhost/")),
            // The strict reading (exactly `//`) is malformed: the strictest (ask) stays.
            ("ask", "malformed", "webfetch", u("http:/example.com/")),
            ("ask", "malformed", "webfetch", u("https:example.com/")),
            // Negative controls.
            (
                "auto",
                "fetch-public",
                "webfetch",
                u("https://example.com/x"),
            ),
            (
                "auto",
                "fetch-public",
                "webfetch",
                u("https:///example.com/x"),
            ),
        ],
    );
}

#[test]
fn idna_mapped_hosts_are_read() {
    let metadata = [
        "http://metadata\u{3002}google\u{3002}internal/",
        "http://169\u{3002}254\u{3002}169\u{3002}254/",
        "http://169\u{ff0e}254\u{ff0e}169\u{ff0e}254/",
        "http://169\u{ff61}254\u{ff61}169\u{ff61}254/",
        "http://metadata\u{ff0e}google\u{ff61}internal/",
        "http://meta\u{ad}data.google.internal/",
        "http://meta\u{200b}data.google.internal/",
        "http://meta\u{200c}data.google.internal/",
        "http://meta\u{200d}data.google.internal/",
        "http://meta\u{2060}data.google.internal/",
        "http://\u{feff}metadata.google.internal/",
        "http://169.254.\u{200b}169.254/",
        // Fullwidth ASCII, lower and upper case, and fullwidth digits.
        "http://\u{ff4d}\u{ff45}\u{ff54}\u{ff41}data.google.internal/",
        "http://\u{ff2d}\u{ff25}\u{ff34}\u{ff21}DATA.google.internal/",
        "http://\u{ff11}\u{ff16}\u{ff19}.254.169.254/",
        // Circled letters, lower and upper case.
        "http://\u{24dc}\u{24d4}\u{24e3}\u{24d0}data.google.internal/",
        "http://\u{24c2}\u{24ba}\u{24c9}\u{24b6}data.google.internal/",
        // A trailing (fullwidth) dot.
        "http://metadata.google.internal\u{ff0e}/",
        "http://metadata.google.internal\u{3002}/",
        "http://169.254.169.254\u{3002}/latest",
        // Percent-encoded U+3002 (decoded before IDNA).
        "http://169%E3%80%82254%E3%80%82169%E3%80%82254/",
        // Both bypasses at once.
        "http:/metadata\u{3002}google\u{3002}internal/",
    ];
    let mut cases: Vec<(&str, &str, &str, serde_json::Value)> = metadata
        .iter()
        .map(|url| ("deny", "fetch-metadata", "webfetch", json!({ "url": url })))
        .collect();
    let u = |url: &str| json!({ "url": url });
    cases.extend([
        (
            "ask",
            "fetch-private",
            "webfetch",
            u("http://127\u{3002}0\u{3002}0\u{3002}1/"),
        ),
        (
            "ask",
            "fetch-private",
            "webfetch",
            u("http://local\u{ad}host/"),
        ),
        // Other non-ASCII hosts keep failing closed (ask), mapped or not.
        (
            "ask",
            "malformed",
            "webfetch",
            u("https://m\u{fc}nchen.de/"),
        ),
        (
            "ask",
            "malformed",
            "webfetch",
            u("https://\u{ff45}xample.com/"),
        ),
        // Negative control.
        (
            "auto",
            "fetch-public",
            "webfetch",
            u("https://example.com/x"),
        ),
    ]);
    check(&p(), &SessionRules::new(), &cases);
}

#[test]
fn map_host_maps_only_the_listed_characters() {
    assert_eq!(
        map_host("\u{ff2d}e\u{ad}t\u{200b}a\u{24d3}\u{24b6}ta\u{3002}x\u{ff0e}y\u{ff61}z\u{feff}"),
        "Metadata.x.y.z"
    );
    assert_eq!(map_host("\u{ff01}\u{ff5e}"), "!~");
    assert_eq!(map_host("\u{24cf}\u{24e9}"), "zz");
    assert_eq!(map_host("m\u{fc}nchen.de"), "m\u{fc}nchen.de");
    assert_eq!(map_host("example.com"), "example.com");
}

#[test]
fn url_readings_are_distinct_and_whatwg_first() {
    assert_eq!(
        url_readings("https://example.com/x"),
        vec![UrlClass::Public {
            host: "example.com".into()
        }]
    );
    assert_eq!(
        url_readings("http://example.com\\@169.254.169.254/"),
        vec![
            UrlClass::Public {
                host: "example.com".into()
            },
            UrlClass::Metadata {
                host: "169.254.169.254".into()
            }
        ]
    );
    assert!(matches!(
        classify_url("http://example.com\\@169.254.169.254/"),
        UrlClass::Metadata { .. }
    ));
    assert!(matches!(
        classify_url("http://169.254.\n169.254/"),
        UrlClass::Metadata { .. }
    ));
    assert!(matches!(
        classify_url("fi\nle:///etc/passwd"),
        UrlClass::Scheme { .. }
    ));
    // The WHATWG reading names the host when the readings tie.
    assert_eq!(
        classify_url("http:\\\\127.0.0.1\\"),
        UrlClass::Internal {
            host: "127.0.0.1".into(),
            why: "a loopback address"
        }
    );
    // The strict reading first, then the one that skips slashes / maps the host.
    assert_eq!(
        url_readings("http:/169.254.169.254/"),
        vec![
            UrlClass::Malformed { why: "no host" },
            UrlClass::Metadata {
                host: "169.254.169.254".into()
            }
        ]
    );
    assert_eq!(
        classify_url("http://metadata\u{3002}google\u{3002}internal/"),
        UrlClass::Metadata {
            host: "metadata.google.internal".into()
        }
    );
    assert!(!url_readings("").is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Naming a second file never makes a read / edit call weaker than either file alone.
    #[test]
    fn two_paths_never_weaker_than_either(
        tool in prop::sample::select(vec!["read", "edit", "write", "str_replace"]),
        a in prop::sample::select(vec!["src/a.rs", "notes.md", "/etc/cron.d/x", "/home/dev/.bashrc", "~/.ssh/id_rsa", ".env", ".git/config", "../x", "/usr/lib/y", ""]),
        b in prop::sample::select(vec!["src/a.rs", "notes.md", "/etc/passwd", "/home/dev/.aws/credentials", "docs/x.md", "/tmp/x", "id_ed25519"]),
    ) {
        let p = p();
        let both = p.classify(&call(tool, json!({"path": a, "file_path": b}))).tier;
        let ta = p.classify(&call(tool, json!({"path": a}))).tier;
        let tb = p.classify(&call(tool, json!({"file_path": b}))).tier;
        prop_assert_eq!(both, ta.max(tb), "{} {} {}", tool, a, b);
    }

    /// Inserting tab / LF / CR into a URL never makes it weaker.
    #[test]
    fn tab_lf_cr_never_weaken_a_url(
        url in prop::sample::select(vec![
            "http://169.254.169.254/latest", "http://127.0.0.1:8080/", "file:///etc/passwd",
            "http://10.0.0.1/", "http://metadata.google.internal/", "https://example.com/x",
            "http://example.com\\@127.0.0.1/",
        ]),
        at in 0usize..40,
        ch in prop::sample::select(vec!['\t', '\n', '\r']),
    ) {
        let p = p();
        let at = at.min(url.len());
        let mut spliced = url.to_string();
        spliced.insert(at, ch);
        let plain = p.classify(&call("webfetch", json!({"url": url}))).tier;
        let with = p.classify(&call("webfetch", json!({"url": spliced}))).tier;
        prop_assert!(with >= plain, "{:?}: {} < {}", spliced, with, plain);
    }
}
