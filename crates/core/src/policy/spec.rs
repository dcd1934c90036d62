//! A read policy as JSON (its spec): what [`Policy::from_toml`] made of a file, in a form
//! that needs no TOML reader to take back. The npm package reads policy files in a
//! WebAssembly module of its own, loaded only when a policy file is given (issue 51: the
//! TOML reader, its checks and their messages are ~8 KB of the gzipped Gate); that module
//! hands the Gate's module this text, which [`Policy::from_spec`] turns back into the
//! same policy.
//!
//! ```json
//! {"workspace":"/w","home":"/h","default":"ask","edits":"auto","sandbox":true,
//!  "sandbox_network":[],"allow":["Bash(git status)"],"ask":[],"deny":[],
//!  "tools":[{"name":"my_exec","kind":"shell","keys":["cmd"]}]}
//! ```
//!
//! Rules are their source text (compiled again against the workspace and home, as
//! `from_toml` compiles them); tools are their compiled mappings. Every field is
//! required and no other is taken: a text that is not a spec is an error, never a
//! policy with a part left at its default.

use super::tools::{Kind, ToolMap};
use super::Policy;
use crate::error::Error;
use crate::fields::{self, Fields};
use crate::json_text::{Obj, WriteJson};
use crate::verdict::Tier;
use serde_json::Value;

/// The error of a text that is not a spec: it comes from the policy reader module, never
/// from a person, so it names no line of theirs.
fn not_a_spec(why: String) -> Error {
    Error::Policy {
        line: 1,
        message: format!("not a policy spec: {why}"),
    }
}

impl WriteJson for ToolMap {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .str("name", &self.name)
            .str("kind", self.kind.word())
            .field("keys", &self.keys)
            .end();
    }
}

impl Policy {
    /// The policy as its spec (see the module's documentation).
    pub fn to_spec(&self) -> String {
        let mut out = String::with_capacity(256);
        #[cfg(feature = "sandbox-verdict")]
        let network: &[String] = &self.sandbox_network;
        #[cfg(not(feature = "sandbox-verdict"))]
        let network: &[String] = &[];
        Obj::new(&mut out)
            .str("workspace", &self.workspace)
            .str("home", &self.home)
            .str("default", self.default.as_str())
            .str("edits", self.edits.as_str())
            .bool("sandbox", self.sandbox)
            .field("sandbox_network", network)
            .field("allow", &self.allow_src)
            .field("ask", &self.ask_src)
            .field("deny", &self.deny_src)
            .field("tools", &self.tools)
            .end();
        out
    }

    /// The policy of a spec [`Policy::to_spec`] wrote. A text that is not one (a field
    /// missing, unknown or of another type, a rule that does not compile) is an error.
    pub fn from_spec(text: &str) -> Result<Policy, Error> {
        let value =
            crate::json_text::parse(text).map_err(|e| not_a_spec(e.message().to_string()))?;
        let f = Fields::of(value, "policy spec").map_err(not_a_spec)?;
        read(f)
            .map_err(not_a_spec)?
            .map_err(|(src, e)| not_a_spec(format!("rule {}: {e}", crate::error::quoted(&src))))
    }
}

/// What the npm package's policy reader module answers before it takes a text of `len`
/// bytes into its memory: the error [`read_toml`] would give (`1:MESSAGE`) for a text
/// over the size limit, so a huge text is refused before it is copied.
pub fn refuse_toml_size(len: usize) -> Result<(), String> {
    crate::toml_shape::check_size(len).map_err(|(line, message)| format!("{line}:{message}"))
}

/// What the npm package's policy reader module answers for a policy file's text: the
/// policy's spec, or the error as `LINE:MESSAGE` (the line and sentence
/// [`Policy::from_toml`] gives).
pub fn read_toml(text: &str) -> Result<String, String> {
    Policy::from_toml(text)
        .map(|p| p.to_spec())
        .map_err(|e| match e {
            Error::Policy { line, message } => format!("{line}:{message}"),
            other => format!("1:{other}"),
        })
}

impl Policy {
    /// The policy (or the error) of an answer of [`read_toml`]: what `from_toml` gives
    /// for the same text.
    pub fn from_answer(answer: Result<&str, &str>) -> Result<Policy, Error> {
        match answer {
            Ok(spec) => Policy::from_spec(spec),
            Err(error) => Err(error
                .split_once(':')
                .and_then(|(line, message)| {
                    let line = line.parse().ok()?;
                    let message = message.to_string();
                    Some(Error::Policy { line, message })
                })
                .unwrap_or_else(|| {
                    not_a_spec(format!(
                        "an error without its line: {}",
                        crate::error::quoted(error)
                    ))
                })),
        }
    }
}

/// The policy of a spec's fields; the inner error is a rule that does not compile.
fn read(mut f: Fields) -> Result<Result<Policy, (String, Error)>, String> {
    let strings = |v: Value| fields::array(v, fields::string);
    let tier = |v: Value| -> Result<Tier, String> {
        Tier::read(v).and_then(|t| {
            if t == Tier::Sandbox {
                Err("`sandbox` is no policy's default".into())
            } else {
                Ok(t)
            }
        })
    };
    let mut p = Policy::defaults(&f.string("workspace")?, &f.string("home")?);
    p.default = tier(f.value("default")?)?;
    p.edits = tier(f.value("edits")?)?;
    p.sandbox = match f.value("sandbox")? {
        Value::Bool(b) => b,
        other => return Err(format!("`sandbox`: {}", fields::unexpected(&other))),
    };
    let network = strings(f.value("sandbox_network")?)?;
    #[cfg(feature = "sandbox-verdict")]
    {
        p.sandbox_network = network;
    }
    #[cfg(not(feature = "sandbox-verdict"))]
    if !network.is_empty() {
        return Err("`sandbox_network` in a build without the sandbox verdict".into());
    }
    p.allow_src = strings(f.value("allow")?)?;
    p.ask_src = strings(f.value("ask")?)?;
    p.deny_src = strings(f.value("deny")?)?;
    p.tools = fields::array(f.value("tools")?, |t| {
        let mut t = Fields::of(t, "tool")?;
        let name = t.string("name")?;
        let kind = t.string("kind")?;
        let kind = Kind::of(&kind).ok_or_else(|| format!("unknown tool kind `{kind}`"))?;
        let keys = strings(t.value("keys")?)?;
        t.deny_unknown(&[])?;
        Ok(ToolMap { name, kind, keys })
    })?;
    f.deny_unknown(&[])?;
    Ok(p.compile().map(|()| p))
}

#[cfg(test)]
mod tests {
    use crate::{Policy, ToolCall};

    const TOML: &str = r#"
workspace = "/home/dev/app"
home = "/home/dev"
default = "deny"
edits = "ask"
sandbox = "off"

[rules]
allow = ["Bash(git status)", "Read(./docs/**)", "WebFetch(domain:example.com)"]
ask = ["Bash(npm publish:*)"]
deny = ["Edit(./secrets/**)"]

[tools.my_exec]
family = "shell"
command = ["cmd", "argv"]

[tools.OpenDoc]
family = "read"
path = "doc"
"#;

    fn calls() -> Vec<ToolCall> {
        [
            ("bash", r#"{"command":"git status"}"#),
            ("bash", r#"{"command":"npm publish --tag x"}"#),
            ("bash", r#"{"command":"rm -rf /"}"#),
            ("my_exec", r#"{"cmd":"ls docs"}"#),
            ("my_exec", r#"{"argv":["curl","http://10.0.0.1"]}"#),
            ("opendoc", r#"{"doc":"/etc/shadow"}"#),
            ("read", r#"{"path":"docs/a.md"}"#),
            (
                "edit",
                r#"{"path":"secrets/k","old_string":"a","new_string":"b"}"#,
            ),
            ("webfetch", r#"{"url":"https://example.com/x"}"#),
            ("unknown_tool", r#"{}"#),
        ]
        .into_iter()
        .map(|(tool, args)| ToolCall::new(tool, serde_json::from_str(args).unwrap()))
        .collect()
    }

    /// A TOML basic string of `s` (every character escaped as `\uXXXX` or
    /// `\UXXXXXXXX`, so quotes, backslashes, control characters and any Unicode
    /// reach the spec's JSON strings).
    fn basic(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            out.push_str(&format!("\\U{:08X}", u32::from(c)));
        }
        out.push('"');
        out
    }

    proptest::proptest! {
        /// Any policy a file can give (settings, rules with any text in them, `[tools]`
        /// mappings) reads back from its spec to a policy that writes the same spec and
        /// classifies every call alike.
        #[test]
        fn any_policy_reads_back_from_its_spec(
            ws in proptest::sample::select(vec!["/w", "/home/dev/app", "/tmp/x y/é"]),
            default in proptest::sample::select(vec!["auto", "ask", "deny"]),
            edits in proptest::sample::select(vec!["auto", "ask"]),
            sandbox in proptest::sample::select(vec!["on", "off"]),
            rules in proptest::collection::vec((0..3usize, proptest::sample::select(vec![
                "Bash(git status)", "Bash(npm run:*)", "Read(./docs/**)", "Edit(/etc/**)",
                "WebFetch(domain:example.com)", "mcp__srv__tool", "Bash", "Read(~/.ssh/**)",
            ]), "[a-z\"\\\u{0}-\u{1f}\u{e9}\u{202e} ]{0,6}"), 0..8),
            tools in proptest::collection::vec((
                "[a-zA-Z_]{1,8}",
                proptest::sample::select(vec![("shell", "command"), ("read", "path"), ("edit", "path"), ("list", "path"), ("search", "path"), ("fetch", "url")]),
                proptest::collection::vec("[a-z_\"\u{e9}]{1,5}", 1..3),
            ), 0..4),
        ) {
            let mut toml = format!(
                "workspace = {}\nhome = \"/home/dev\"\ndefault = \"{default}\"\nedits = \"{edits}\"\nsandbox = \"{sandbox}\"\n[rules]\n",
                basic(ws)
            );
            for (list, name) in [(0, "allow"), (1, "ask"), (2, "deny")] {
                let items: Vec<String> = rules
                    .iter()
                    .filter(|(l, _, _)| *l == list)
                    .map(|(_, rule, extra)| {
                        // A rule with text of any kind inside its parentheses.
                        let rule = match rule.strip_suffix(')') {
                            Some(head) if !extra.contains(')') => format!("{head}{extra})"),
                            _ => rule.to_string(),
                        };
                        basic(&rule)
                    })
                    .collect();
                toml.push_str(&format!("{name} = [{}]\n", items.join(", ")));
            }
            for (name, (family, key), keys) in &tools {
                let keys: Vec<String> = keys.iter().map(|k| basic(k)).collect();
                toml.push_str(&format!("[tools.{name}]\nfamily = \"{family}\"\n{key} = [{}]\n", keys.join(", ")));
            }
            // Not every generated file is a policy (a tool named twice, a rule that
            // does not parse); those that are must survive their spec.
            if let Ok(p) = Policy::from_toml(&toml) {
                let spec = p.to_spec();
                let back = Policy::from_spec(&spec);
                proptest::prop_assert!(back.is_ok(), "{spec}: {back:?}");
                let back = back.unwrap();
                proptest::prop_assert_eq!(back.to_spec(), spec.clone());
                let mut calls = calls();
                for (name, (family, _), keys) in &tools {
                    let arg = if *family == "fetch" { "https://example.com/x" } else if *family == "shell" { "rm -rf /" } else { "/etc/passwd" };
                    calls.push(ToolCall::new(name.as_str(), serde_json::json!({ keys[0].as_str(): arg })));
                }
                for call in calls {
                    proptest::prop_assert_eq!(back.classify(&call), p.classify(&call), "{:?}", call);
                }
            }
        }
    }

    #[test]
    fn a_spec_reads_back_to_the_same_policy() {
        for toml in [TOML, "", "default = \"auto\"\n"] {
            let p = Policy::from_toml(toml).unwrap();
            let spec = p.to_spec();
            let back = Policy::from_spec(&spec).unwrap();
            assert_eq!(back.to_spec(), spec);
            for call in calls() {
                assert_eq!(back.classify(&call), p.classify(&call), "{call:?}");
            }
        }
    }

    #[test]
    fn an_answer_gives_what_from_toml_gives() {
        for toml in [
            TOML,
            "default = \"never\"\n",
            "\n\n[rules]\nallow = [\"Bash(ls\"]\n",
            "[tools.bash]\nfamily = \"shell\"\ncommand = \"cmd\"\n",
            "x = [[[\n",
        ] {
            let answer = super::read_toml(toml);
            let got = Policy::from_answer(answer.as_deref().map_err(String::as_str));
            match (Policy::from_toml(toml), got) {
                (Ok(want), Ok(got)) => assert_eq!(got.to_spec(), want.to_spec()),
                (Err(want), Err(got)) => {
                    assert_eq!(got, want);
                    assert_eq!(got.to_string(), want.to_string());
                }
                (want, got) => panic!("{toml}: {want:?} {got:?}"),
            }
        }
        assert!(matches!(
            Policy::from_answer(Err("two: a message")),
            Err(crate::Error::Policy { line: 1, message }) if message.starts_with("not a policy spec")
        ));
    }

    #[test]
    fn what_is_not_a_spec_is_an_error() {
        let spec = Policy::from_toml(TOML).unwrap().to_spec();
        let mut broken = vec![
            String::new(),
            "[]".to_string(),
            spec.replace("\"default\":\"deny\"", "\"default\":\"sandbox\""),
            spec.replace("\"edits\":\"ask\"", "\"edits\":\"maybe\""),
            spec.replace("\"sandbox\":false", "\"sandbox\":\"off\""),
            spec.replace("\"kind\":\"shell\"", "\"kind\":\"exec\""),
            spec.replace("Bash(git status)", "Bash(git status"),
            spec.replace("\"home\"", "\"homes\""),
            spec.replace("{\"workspace\"", "{\"extra\":1,\"workspace\""),
            spec.replace("\"keys\":[\"doc\"]", "\"keys\":[\"doc\"],\"more\":true"),
        ];
        broken.push(spec.replace("\"allow\":", "\"allowed\":"));
        for text in broken {
            assert_ne!(text, spec);
            match Policy::from_spec(&text) {
                Err(crate::Error::Policy { message, .. }) => {
                    assert!(message.starts_with("not a policy spec: "), "{message}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
