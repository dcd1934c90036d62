//! The answer of the classifier: a tier, the rule that decided, a reason and where.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The rule of a question ([`Verdict::question`]): a pending call with it is answered,
/// never approved.
pub const QUESTION_RULE: &str = "toolgate.question";

/// How a tool call is treated. Ordered: the strictest wins (`Deny > Ask > Sandbox >
/// Auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Run it without asking.
    Auto,
    /// Run it now without asking, contained by `toolgate sandbox` (no network, writes
    /// only in the workspace, secrets withheld). Only a policy whose host runs such
    /// calls contained gives it ([`crate::Policy::with_sandbox_host`]); a host that
    /// cannot contain the call treats it as [`Tier::Ask`].
    Sandbox,
    /// A human must approve it first.
    Ask,
    /// Refuse it; the model receives an error and pivots.
    Deny,
}

impl Tier {
    /// The lowercase name used in JSON and in policy files.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Auto => "auto",
            Tier::Sandbox => "sandbox",
            Tier::Ask => "ask",
            Tier::Deny => "deny",
        }
    }

    /// A tier from its JSON value (a string), with serde's words for what is wrong.
    pub fn read(value: serde_json::Value) -> Result<Tier, String> {
        match value {
            serde_json::Value::String(s) => Tier::parse(&s).ok_or_else(|| {
                format!("unknown variant `{s}`, expected one of `auto`, `sandbox`, `ask`, `deny`")
            }),
            other => Err(format!(
                "invalid type: {}, expected string or map",
                crate::fields::unexpected(&other)
            )),
        }
    }

    /// Parses `auto`, `sandbox`, `ask` or `deny`.
    pub fn parse(s: &str) -> Option<Tier> {
        match s {
            "auto" => Some(Tier::Auto),
            "sandbox" => Some(Tier::Sandbox),
            "ask" => Some(Tier::Ask),
            "deny" => Some(Tier::Deny),
            _ => None,
        }
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One simple command of a shell command line, classified on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// The tier this part gets.
    pub tier: Tier,
    /// The source text of the simple command (a slice of the original string, or of
    /// the decoded nested script for `bash -c '…'`). Once the parts' texts together
    /// reach four times the command and 4 KiB (thousands of parts over one long span,
    /// as `eval "…"` nests), a part's text is its first 80 bytes (on a character
    /// boundary) and `…`.
    pub text: String,
    /// The rule that decided it.
    pub rule: Cow<'static, str>,
    /// Why.
    pub reason: Cow<'static, str>,
    /// Byte range in the original command string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
}

/// The classifier's answer for one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// `auto`, `ask` or `deny`.
    pub tier: Tier,
    /// Stable id of the deciding rule, e.g. `builtin.shell.priv-esc`, `user.allow[0]`.
    pub rule: Cow<'static, str>,
    /// One human sentence.
    pub reason: Cow<'static, str>,
    /// Byte range in the shell command that decided it, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
    /// Every simple command of a shell command, each with its own tier.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

impl Verdict {
    /// A verdict with no span and no parts.
    pub fn new(
        tier: Tier,
        rule: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Verdict {
        Verdict {
            tier,
            rule: rule.into(),
            reason: reason.into(),
            span: None,
            parts: Vec::new(),
        }
    }

    /// A question for the person (`question`, non-empty, at most
    /// [`crate::marker::MAX_QUESTION_BYTES`]) parked beside the calls waiting for
    /// approval: its rule is [`QUESTION_RULE`], its reason the question. It is answered
    /// (or declined), never approved: the tool it stands for never runs, the model gets
    /// the answer as its result.
    pub fn question(question: impl Into<Cow<'static, str>>) -> Verdict {
        Verdict::new(Tier::Ask, QUESTION_RULE, question)
    }

    /// True when this verdict comes from the built-in hard-deny list, which nothing
    /// (no allow rule, no human approval) may override.
    pub fn is_hard_deny(&self) -> bool {
        crate::rule_id::is_hard_deny(self.tier == Tier::Deny, &self.rule)
    }
}

impl Verdict {
    /// The verdict as JSON text, exactly as `serde_json::to_string` writes it (the same
    /// fields, order and escapes), appended to `out` in one pass: what a host that
    /// classifies many calls takes across a boundary (toolgate-wasm's `classify`). Most
    /// strings have nothing to escape and are copied whole.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"tier\":\"");
        out.push_str(self.tier.as_str());
        out.push_str("\",\"rule\":");
        crate::call::push_json_str(out, &self.rule);
        out.push_str(",\"reason\":");
        crate::call::push_json_str(out, &self.reason);
        json_span(out, self.span);
        if !self.parts.is_empty() {
            out.push_str(",\"parts\":[");
            for (i, p) in self.parts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"tier\":\"");
                out.push_str(p.tier.as_str());
                out.push_str("\",\"text\":");
                crate::call::push_json_str(out, &p.text);
                out.push_str(",\"rule\":");
                crate::call::push_json_str(out, &p.rule);
                out.push_str(",\"reason\":");
                crate::call::push_json_str(out, &p.reason);
                json_span(out, p.span);
                out.push('}');
            }
            out.push(']');
        }
        out.push('}');
    }
}

impl Verdict {
    /// A verdict from its JSON value, field by field (no serde-derived decoder where
    /// the WebAssembly build reads one); unknown fields are ignored, as the derived
    /// decoder does.
    pub fn read(value: serde_json::Value) -> Result<Verdict, String> {
        use crate::fields::{self, Fields};
        let mut f = Fields::of(value, "struct Verdict")?;
        Ok(Verdict {
            tier: Tier::read(f.value("tier")?)?,
            rule: f.string("rule")?.into(),
            reason: f.string("reason")?.into(),
            span: f.opt("span", fields::span)?,
            parts: match f.take("parts") {
                None => Vec::new(),
                Some(v) => fields::array(v, |v| {
                    let mut f = Fields::of(v, "struct Part")?;
                    Ok(Part {
                        tier: Tier::read(f.value("tier")?)?,
                        text: f.string("text")?,
                        rule: f.string("rule")?.into(),
                        reason: f.string("reason")?.into(),
                        span: f.opt("span", fields::span)?,
                    })
                })?,
            },
        })
    }
}

fn json_span(out: &mut String, span: Option<[usize; 2]>) {
    if let Some([a, b]) = span {
        out.push_str(",\"span\":[");
        json_uint(out, a);
        out.push(',');
        json_uint(out, b);
        out.push(']');
    }
}

fn json_uint(out: &mut String, n: usize) {
    if n >= 10 {
        json_uint(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tier() -> impl Strategy<Value = Tier> {
        prop_oneof![
            Just(Tier::Auto),
            Just(Tier::Sandbox),
            Just(Tier::Ask),
            Just(Tier::Deny)
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        // Every escape class: quotes, backslashes, all controls, DEL, non-ASCII.
        prop_oneof![
            ".*",
            proptest::collection::vec(
                prop_oneof![
                    (0u32..0x80).prop_map(|c| char::from_u32(c).unwrap_or('a')),
                    Just('é'),
                    Just('\u{202E}'),
                    Just('😀')
                ],
                0..24
            )
            .prop_map(|v| v.into_iter().collect())
        ]
    }

    fn span() -> impl Strategy<Value = Option<[usize; 2]>> {
        proptest::option::of(
            (
                any::<usize>(),
                prop_oneof![Just(0usize), Just(usize::MAX), 0..10_000usize],
            )
                .prop_map(|(a, b)| [a, b]),
        )
    }

    fn verdict() -> impl Strategy<Value = Verdict> {
        let part = (tier(), text(), text(), text(), span()).prop_map(
            |(tier, text, rule, reason, span)| Part {
                tier,
                text,
                rule: rule.into(),
                reason: reason.into(),
                span,
            },
        );
        (
            tier(),
            text(),
            text(),
            span(),
            proptest::collection::vec(part, 0..4),
        )
            .prop_map(|(tier, rule, reason, span, parts)| Verdict {
                tier,
                rule: rule.into(),
                reason: reason.into(),
                span,
                parts,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The hand-written encoder writes byte for byte what serde_json writes.
        #[test]
        fn write_json_is_serde_jsons_text(v in verdict()) {
            let mut out = String::from("x");
            v.write_json(&mut out);
            prop_assert_eq!(&out[1..], serde_json::to_string(&v).unwrap());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// What serde writes, the reader by hand reads back.
        #[test]
        fn read_is_write_inverse(v in verdict()) {
            prop_assert_eq!(Verdict::read(serde_json::to_value(&v).unwrap()), Ok(v));
        }

        /// The reader by hand accepts what the derived decoder accepts, and alike.
        #[test]
        fn read_accepts_as_the_derived_decoder(v in crate::fields::variants(serde_json::json!({
            "tier": "ask", "rule": "r", "reason": "x", "span": [1, 2],
            "parts": [{"tier": "auto", "text": "ls", "rule": "r", "reason": "y", "span": [0, 2]}]
        }))) {
            prop_assert_eq!(
                Verdict::read(v.clone()).ok(),
                serde_json::from_value::<Verdict>(v).ok()
            );
        }
    }

    #[test]
    fn write_json_escapes_every_control_character() {
        let all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        let v = Verdict::new(Tier::Ask, all.clone(), "\"\\\u{7f}é");
        let mut out = String::new();
        v.write_json(&mut out);
        assert_eq!(out, serde_json::to_string(&v).unwrap());
        assert!(out.contains("\\u0000") && out.contains("\\u001f") && out.contains("\\b"));
    }
}
