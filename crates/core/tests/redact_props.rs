//! Property tests of redaction (what a webhook may carry): a secret placed where
//! commands carry secrets never survives, whatever text surrounds it; redacting twice
//! changes nothing more.

use proptest::prelude::*;
use toolgate_core::redact;

/// A secret: 12 to 40 letters and digits with at least one of each, so it cannot be
/// found in the surrounding text by accident (checked below).
fn secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9]{12,40}".prop_filter("letters and digits", |s| {
        s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

/// Text around it: words, quotes, pipes, newlines, URLs, options.
fn noise() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            "[a-z]{1,8}",
            Just(" ".to_string()),
            Just("'".to_string()),
            Just("\"".to_string()),
            Just(" | ".to_string()),
            Just("\n".to_string()),
            Just(" -H ".to_string()),
            Just(" --data ".to_string()),
            Just("https://example.com/x?y=1".to_string()),
            Just("=".to_string()),
            Just(":".to_string()),
        ],
        0..12,
    )
    .prop_map(|v| v.concat())
}

fn places(secret: &str) -> Vec<String> {
    vec![
        format!("curl -H 'Authorization: Bearer {secret}' https://api.x"),
        format!("curl -H \"authorization: token {secret}\" x"),
        format!("curl -H 'X-Api-Key: {secret}' x"),
        format!("curl -H 'Cookie: sid={secret}' x"),
        format!("curl https://user:{secret}@example.com/repo.git"),
        format!("git clone https://x-access-token:{secret}@github.com/o/r"),
        format!("GITHUB_TOKEN={secret} gh pr list"),
        format!("export OPENAI_API_KEY=\"{secret}\""),
        format!("mysql --password={secret} db"),
        format!("tool --api-key {secret} run"),
        format!("curl -u admin:{secret} x"),
        format!("echo ghp_{secret}"),
        format!("echo sk-{secret}"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_placed_secret_never_survives(s in secret(), before in noise(), after in noise()) {
        for place in places(&s) {
            let text = format!("{before} ; {place} ; {after}");
            prop_assume!(!before.contains(&s) && !after.contains(&s));
            let out = redact::text(&text);
            prop_assert!(!out.contains(&s), "{text:?} → {out:?}");
            prop_assert_eq!(redact::text(&out), out.clone(), "twice: {:?}", text);
            let args = redact::args(&serde_json::json!({"command": text.clone()}));
            prop_assert!(!args.to_string().contains(&s));
            let summary = redact::summary(&serde_json::json!({"command": text.clone()}));
            prop_assert!(!summary.contains(&s), "{summary}");
        }
    }

    #[test]
    fn any_text_redacts_without_panic_and_settles(t in "\\PC{0,200}") {
        let once = redact::text(&t);
        prop_assert_eq!(redact::text(&once), once);
        let _ = redact::summary(&serde_json::json!({"command": t.clone(), "url": t}));
    }
}
