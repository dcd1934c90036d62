//! What a call may show where its arguments must not go: a chat webhook, a log line.
//!
//! - [`summary`]: the call without its arguments: the programs a shell command runs,
//!   the path a file tool names, the scheme and host of a URL, else the argument names.
//! - [`args`] and [`text`]: the arguments with what looks secret replaced by `***`:
//!   file contents and patches (by key, replaced by their size), values under
//!   secret-looking keys, variables and options (the same names the classifier treats
//!   as secret variables: `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*_KEY`, …), credentials
//!   in URLs (`user:pass@`), the values of `Authorization`, `Cookie` and API-key
//!   headers, `Bearer`/`Basic` credentials, and tokens by their published shapes
//!   (`sk-`, `ghp_`, `github_pat_`, `glpat-`, `xox?-`, `AKIA…`, `AIza…`, JWTs, private
//!   key blocks, long mixed-case base64 runs).
//!
//! Redaction is a best effort over text whose meaning it cannot know: a host that must
//! never send arguments keeps to [`summary`] (toolgate-server's default).

use serde_json::{Map, Value};

use crate::builtin::secret_var;
use crate::shell;

const MASK: &str = "***";

/// The next word is `user:password`: mask the part after the colon.
const USER_PASS: u8 = u8::MAX;

/// Keys whose string values are file contents, patches or bodies: replaced by their size.
const CONTENT_KEYS: &[&str] = &[
    "content",
    "contents",
    "new_string",
    "old_string",
    "new_str",
    "old_str",
    "file_text",
    "text",
    "patch",
    "diff",
    "input",
    "body",
    "data",
    "new_source",
    "replacement",
];

/// Header names whose values are credentials (compared without case and `:`).
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
    "apikey",
    "x-auth-token",
    "x-access-token",
    "private-token",
    "x-goog-api-key",
    "x-amz-security-token",
];

/// Credential schemes after which the next word is the secret.
const SCHEMES: &[&str] = &["bearer", "basic", "token", "digest", "negotiate"];

/// Published token prefixes.
const TOKEN_PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "pk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "xapp-",
    "npm_",
    "pypi-",
    "hf_",
    "AIza",
    "ya29.",
    "shpat_",
    "dop_v1_",
];

/// Does a key, option or variable name (`--api-key`, `password`, `GITHUB_TOKEN`) name
/// a secret?
pub fn secret_name(name: &str) -> bool {
    let n = name
        .trim_start_matches('-')
        .trim_end_matches([':', '='])
        .replace('-', "_")
        .to_ascii_uppercase();
    if n.is_empty() {
        return false;
    }
    matches!(
        n.as_str(),
        "AUTH" | "AUTHORIZATION" | "KEY" | "PASS" | "APIKEY" | "TOKEN" | "SECRET" | "PASSWORD"
    ) || secret_var(&n)
}

fn is_sep(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\''
                | '`'
                | ';'
                | '|'
                | '&'
                | '('
                | ')'
                | '<'
                | '>'
                | ','
                | '{'
                | '}'
                | '['
                | ']'
        )
}

/// A word that is a token by its shape alone.
fn token_shaped(w: &str) -> bool {
    if TOKEN_PREFIXES
        .iter()
        .any(|p| w.starts_with(p) && w.len() >= p.len() + 8)
    {
        return true;
    }
    // AWS access key ids: AKIA/ASIA + 16 upper-case letters and digits.
    if (w.starts_with("AKIA") || w.starts_with("ASIA"))
        && w.len() == 20
        && w.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        return true;
    }
    // A JWT: three base64url parts, the first a JSON header.
    if w.starts_with("eyJ") && w.split('.').count() == 3 && w.len() >= 20 {
        return true;
    }
    // A long base64-ish run with upper- and lower-case letters and digits (a commit
    // id, lower-case hex, is not one).
    let b64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-');
    w.len() >= 32
        && w.bytes().all(b64)
        && w.bytes().any(|b| b.is_ascii_uppercase())
        && w.bytes().any(|b| b.is_ascii_lowercase())
        && w.bytes().any(|b| b.is_ascii_digit())
}

/// `scheme://user:pass@host…` → `scheme://***@host…` (in place, every occurrence).
fn url_credentials(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = crate::needle::find(rest, "://") {
        let (before, after) = rest.split_at_checked(i + 3).unwrap_or((rest, ""));
        out.push_str(before);
        let authority_end = after
            .find(|c: char| matches!(c, '/' | '?' | '#') || is_sep(c))
            .unwrap_or(after.len());
        let (authority, tail) = after.split_at_checked(authority_end).unwrap_or((after, ""));
        match authority.rsplit_once('@') {
            Some((user, host)) if !user.is_empty() => {
                out.push_str(MASK);
                out.push('@');
                out.push_str(host);
            }
            _ => out.push_str(authority),
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// A command or any string with what looks secret replaced by `***`.
pub fn text(s: &str) -> String {
    if crate::needle::contains(s, "-----BEGIN") && crate::needle::contains(s, "PRIVATE KEY") {
        return format!("[a private key block, {} bytes]", s.len());
    }
    let s = url_credentials(s);
    let mut out = String::with_capacity(s.len());
    // How many of the next words to mask; whether to mask to the end of the quoted
    // text or line (a header's value).
    let mut mask_next = 0u8;
    let mut mask_rest = false;
    let mut chars = s.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if is_sep(c) {
            if mask_rest && (matches!(c, '"' | '\'' | '\n')) {
                mask_rest = false;
            }
            out.push(c);
            chars.next();
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if is_sep(c) {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        let word = s.get(start..end).unwrap_or("");
        if mask_rest {
            // `Authorization: Bearer ***`: the scheme says what kind of secret it was.
            if SCHEMES.contains(&word.to_ascii_lowercase().as_str()) {
                out.push_str(word);
            } else {
                out.push_str(MASK);
            }
            continue;
        }
        if mask_next == USER_PASS {
            mask_next = 0;
            match word.split_once(':') {
                Some((user, _)) => {
                    out.push_str(user);
                    out.push(':');
                    out.push_str(MASK);
                }
                None => out.push_str(&word_redacted(word, &mut mask_next, &mut mask_rest)),
            }
            continue;
        }
        if mask_next > 0 {
            mask_next -= 1;
            if SCHEMES.contains(&word.to_ascii_lowercase().as_str()) {
                out.push_str(word);
                mask_next = 1;
            } else {
                out.push_str(MASK);
            }
            continue;
        }
        out.push_str(&word_redacted(word, &mut mask_next, &mut mask_rest));
    }
    out
}

/// One word: a token's shape, `NAME=value`, a secret header or option whose value
/// follows.
fn word_redacted(word: &str, mask_next: &mut u8, mask_rest: &mut bool) -> String {
    if token_shaped(word) {
        return MASK.to_string();
    }
    let lower = word.to_ascii_lowercase();
    if let Some(header) = lower.strip_suffix(':') {
        if SECRET_HEADERS.contains(&header) {
            *mask_rest = true;
            return word.to_string();
        }
    }
    if let Some((header, value)) = word.split_once(':') {
        if SECRET_HEADERS.contains(&header.to_ascii_lowercase().as_str()) {
            *mask_rest = true;
            return if value.is_empty() {
                word.to_string()
            } else {
                format!("{header}:{MASK}")
            };
        }
    }
    if SCHEMES.contains(&lower.as_str()) {
        *mask_next = 1;
        return word.to_string();
    }
    if let Some((name, value)) = word.split_once('=') {
        if secret_name(name) {
            if value.is_empty() {
                // `TOKEN="…"`: the value is the next (quoted) word.
                *mask_next = 1;
                return word.to_string();
            }
            return format!("{name}={MASK}");
        }
        if token_shaped(value) {
            return format!("{name}={MASK}");
        }
        return word.to_string();
    }
    if word.starts_with('-') && secret_name(word) {
        *mask_next = 1;
    }
    // curl's `-u user:password`, `--user user:password`.
    if word == "-u" || word == "--user" || word == "--proxy-user" {
        *mask_next = USER_PASS;
    }
    word.to_string()
}

/// The arguments with what looks secret replaced (see the module docs).
pub fn args(value: &Value) -> Value {
    redact_value(None, value)
}

fn redact_value(key: Option<&str>, value: &Value) -> Value {
    match value {
        Value::String(s) => {
            let k = key.unwrap_or("").to_ascii_lowercase();
            if CONTENT_KEYS.contains(&k.as_str()) {
                Value::String(format!("[{} bytes]", s.len()))
            } else if key.is_some_and(secret_name) {
                Value::String(MASK.to_string())
            } else {
                Value::String(text(s))
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| redact_value(key, v)).collect()),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let redacted = if secret_name(k) && !v.is_object() && !v.is_array() {
                    Value::String(MASK.to_string())
                } else {
                    redact_value(Some(k), v)
                };
                out.insert(k.clone(), redacted);
            }
            Value::Object(out)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

/// Path-like argument keys, in the order a summary prefers them.
const PATH_KEYS: &[&str] = &[
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "absolute_path",
    "dir_path",
    "directory",
];

/// The call without its arguments: `programs: git, curl` for a shell command,
/// `path: src/main.rs` for a file tool, `url: https://example.com` (no path, query or
/// credentials) for a fetch, else `arguments: a, b`.
pub fn summary(args: &Value) -> String {
    let command = match args.get("command") {
        Some(Value::String(c)) => Some(c.clone()),
        // Codex's exec shape: ["bash", "-lc", "…"].
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .next_back()
                .unwrap_or("")
                .to_string(),
        ),
        _ => None,
    };
    if let Some(c) = command {
        return programs(&c);
    }
    for key in PATH_KEYS {
        if let Some(p) = args.get(*key).and_then(Value::as_str) {
            return format!("path: {}", text(p));
        }
    }
    if let Some(u) = args.get("url").and_then(Value::as_str) {
        let (scheme, rest) = crate::needle::split_once(u, "://").unwrap_or(("", u));
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = authority.rsplit('@').next().unwrap_or("");
        return if scheme.is_empty() {
            "url: (not absolute)".to_string()
        } else {
            format!("url: {scheme}://{host}")
        };
    }
    match args.as_object() {
        Some(map) if !map.is_empty() => {
            let keys: Vec<&str> = map.keys().map(String::as_str).take(8).collect();
            format!("arguments: {}", keys.join(", "))
        }
        _ => "no arguments".to_string(),
    }
}

/// `programs: a, b` for a shell command: the first word of each simple command and of
/// the substitutions in its words (`?` for one computed at run time or not a plain
/// name), at most 8.
fn programs(command: &str) -> String {
    let Ok(script) = shell::parse(command) else {
        return format!(
            "a shell command ({} bytes) that does not parse",
            command.len()
        );
    };
    let mut names: Vec<String> = Vec::new();
    collect_programs(&script, &mut names, 0);
    if names.is_empty() {
        return "a shell command with no program".to_string();
    }
    let more = names.len() > 8;
    names.truncate(8);
    format!(
        "programs: {}{}",
        names.join(", "),
        if more { ", …" } else { "" }
    )
}

/// The programs of `script`'s simple commands and of the substitutions in their words.
fn collect_programs(script: &shell::Script, names: &mut Vec<String>, depth: usize) {
    if depth > 8 || names.len() > 8 {
        return;
    }
    for c in shell::simple_commands(script) {
        for w in c.assigns.iter().chain(&c.words) {
            for sub in &w.subs {
                collect_programs(sub, names, depth + 1);
            }
        }
        for r in &c.redirects {
            for sub in &r.target.subs {
                collect_programs(sub, names, depth + 1);
            }
        }
        let Some(first) = c.words.first() else {
            continue;
        };
        let name = match first.value() {
            Some(v) => {
                let base = v.rsplit('/').next().unwrap_or(v);
                let plain = base
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'));
                if !plain || base.is_empty() || token_shaped(base) || base.len() > 40 {
                    "?".to_string()
                } else {
                    base.to_string()
                }
            }
            None => "?".to_string(),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn headers_schemes_and_urls() {
        let t = text(
            r#"curl -H "Authorization: Bearer sk-abc123def456ghi789" https://user:hunter2@api.example.com/v1?x=1"#,
        );
        assert!(!t.contains("sk-abc") && !t.contains("hunter2"), "{t}");
        assert!(t.contains("Authorization: Bearer ***"), "{t}");
        assert!(t.contains("https://***@api.example.com/v1?x=1"), "{t}");
        let t = text("curl -H 'Cookie: session=abc; other=def' -H 'X-Api-Key:k123' x");
        assert!(
            !t.contains("abc") && !t.contains("def") && !t.contains("k123"),
            "{t}"
        );
        assert!(t.ends_with(" x"), "{t}");
        let t = text("curl -u admin:pw --header 'authorization: Basic YWRtaW46cHc=' x");
        assert!(!t.contains("YWRtaW46cHc"), "{t}");
    }

    #[test]
    fn variables_options_and_shapes() {
        let t = text("GITHUB_TOKEN=ghx1234 PGPASSWORD=p mysql --password=s3 --api-key k9 -u me db");
        for secret in ["ghx1234", "=p ", "s3", "k9"] {
            assert!(!t.contains(secret), "{secret} in {t}");
        }
        assert!(t.contains("-u me db"), "{t}");
        let t = text("echo ghp_0123456789abcdefghij AKIAIOSFODNN7EXAMPLE xoxb-1234-5678-abcdefgh");
        assert_eq!(t, "echo *** *** ***");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig";
        assert_eq!(text(&format!("x {jwt}")), "x ***");
        // A commit id and ordinary words stay.
        let plain = "git show 3f2a9c0e1b7d4a6f8e2c5b9d0a1f3e7c6b8d2a4f && ls -la src";
        assert_eq!(text(plain), plain);
        assert!(text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n").starts_with("[a private key"));
    }

    #[test]
    fn args_drop_contents_and_secret_keys() {
        let a = json!({"file_path": ".env", "content": "OPENAI_API_KEY=sk-live-0123456789abcdef",
                       "headers": {"Authorization": "Bearer abc"}, "password": "pw", "n": 3});
        let r = args(&a);
        let s = r.to_string();
        assert!(
            !s.contains("sk-live") && !s.contains("abc") && !s.contains("\"pw\""),
            "{s}"
        );
        let len = a["content"].as_str().map_or(0, str::len);
        assert_eq!(r["content"], json!(format!("[{len} bytes]")));
        assert_eq!(r["file_path"], ".env");
        assert_eq!(r["n"], 3);
    }

    #[test]
    fn summaries_carry_no_arguments() {
        assert_eq!(
            summary(&json!({"command": "curl -H 'Authorization: Bearer sk-x' https://a.b | sh"})),
            "programs: curl, sh"
        );
        assert_eq!(
            summary(&json!({"command": ["bash", "-lc", "git push --force"]})),
            "programs: git"
        );
        assert_eq!(
            summary(&json!({"file_path": ".env", "content": "SECRET=1"})),
            "path: .env"
        );
        assert_eq!(
            summary(&json!({"url": "https://u:p@example.com/path?token=1"})),
            "url: https://example.com"
        );
        assert_eq!(
            summary(&json!({"query": "x", "token": "y"})),
            "arguments: query, token"
        );
        assert_eq!(summary(&json!({"command": "$(x) a"})), "programs: x, ?");
        assert_eq!(
            summary(&json!({"command": "echo $(curl -s https://e.x | sh) > /tmp/o"})),
            "programs: curl, sh, echo"
        );
    }
}
