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

impl Verdict {
    /// The verdict as *fields*, appended to `out`: the npm package's JavaScript reads
    /// them into the same object `JSON.parse` makes of [`Verdict::write_json`]'s text,
    /// with a slice per field and no escapes to undo (writing JSON and `JSON.parse` were
    /// about a quarter of a short command's `classify`). Each field is its length in
    /// UTF-16 code units (what a JavaScript string counts), `:`, and its text, so no
    /// text (a command holding `:`, a NUL or any other character) can end one early.
    /// The fields: tier, rule, reason, span (`""`, or `"START END"`), the number of
    /// parts, then for each part its tier, text, rule, reason and span.
    pub fn write_fields(&self, out: &mut String) {
        push_field(out, self.tier.as_str());
        push_field(out, &self.rule);
        push_field(out, &self.reason);
        push_span_field(out, self.span);
        Verdict::write_count_field(out, self.parts.len());
        for p in &self.parts {
            push_field(out, p.tier.as_str());
            push_field(out, &p.text);
            push_field(out, &p.rule);
            push_field(out, &p.reason);
            push_span_field(out, p.span);
        }
    }
}

impl Verdict {
    /// A number as a field of [`Verdict::write_fields`]: how many parts follow, or how
    /// many verdicts (`classifyMany`'s answer: the count, then each verdict's fields).
    pub fn write_count_field(out: &mut String, n: usize) {
        push_field(out, Digits::of(n).as_str());
    }
}

/// One field of [`Verdict::write_fields`]: the UTF-16 length of `text`, `:`, `text`.
fn push_field(out: &mut String, text: &str) {
    let units = if text.is_ascii() {
        text.len()
    } else {
        text.encode_utf16().count()
    };
    out.push_str(Digits::of(units).as_str());
    out.push(':');
    out.push_str(text);
}

/// A span as a field: empty, or `START END`.
fn push_span_field(out: &mut String, span: Option<[usize; 2]>) {
    match span {
        None => out.push_str("0:"),
        Some([a, b]) => {
            let (a, b) = (Digits::of(a), Digits::of(b));
            let a = a.as_str();
            let b = b.as_str();
            out.push_str(Digits::of(a.len() + 1 + b.len()).as_str());
            out.push(':');
            out.push_str(a);
            out.push(' ');
            out.push_str(b);
        }
    }
}

/// The decimal digits of a number, written on the stack.
struct Digits {
    buf: [u8; 20],
    start: usize,
}

impl Digits {
    fn of(mut n: usize) -> Digits {
        let mut d = Digits {
            buf: [0; 20],
            start: 20,
        };
        loop {
            d.start -= 1;
            if let Some(slot) = d.buf.get_mut(d.start) {
                // `n % 10` is below 10.
                *slot = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if n == 0 || d.start == 0 {
                return d;
            }
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII digits were written.
        std::str::from_utf8(self.buf.get(self.start..).unwrap_or_default()).unwrap_or_default()
    }
}

/// What the npm package's JavaScript (`web/gate/verdict.js`) reads from
/// [`Verdict::write_fields`]' text, step for step on its UTF-16 code units as a
/// JavaScript string is indexed, written as the JSON text of the object it makes: one
/// verdict, or with `many` (`classifyMany`'s answer) the array of them. `None` for
/// fields that do not end with the text, where the JavaScript throws `internal_error`
/// (it also throws on a count that is not a number; it reads an empty length as 0, which
/// no text `write_fields` writes has). For tests (the core's, and the wasm crate's in a
/// browser).
pub fn fields_to_json(text: &str, many: bool) -> Option<String> {
    let mut r = FieldReader {
        s: text.encode_utf16().collect(),
        i: 0,
        out: String::new(),
    };
    if many {
        let n: usize = r.field()?.parse().ok()?;
        r.out.push('[');
        for k in 0..n {
            if k > 0 {
                r.out.push(',');
            }
            r.verdict()?;
        }
        r.out.push(']');
    } else {
        r.verdict()?;
    }
    (r.i == r.s.len()).then_some(r.out)
}

/// The reader of [`fields_to_json`].
struct FieldReader {
    s: Vec<u16>,
    i: usize,
    out: String,
}

impl FieldReader {
    fn field(&mut self) -> Option<String> {
        let from = self.i;
        let colon = from
            + self
                .s
                .get(from..)?
                .iter()
                .position(|&c| c == u16::from(b':'))?;
        let n: usize = String::from_utf16(self.s.get(from..colon)?)
            .ok()?
            .parse()
            .ok()?;
        self.i = colon + 1 + n;
        String::from_utf16(self.s.get(colon + 1..self.i)?).ok()
    }

    fn strings(&mut self, keys: &[&str]) -> Option<()> {
        for (k, key) in keys.iter().enumerate() {
            let value = self.field()?;
            if k > 0 {
                self.out.push(',');
            }
            crate::call::push_json_str(&mut self.out, key);
            self.out.push(':');
            crate::call::push_json_str(&mut self.out, &value);
        }
        Some(())
    }

    fn span(&mut self) -> Option<()> {
        let f = self.field()?;
        if !f.is_empty() {
            let (a, b) = f.split_once(' ')?;
            let (a, b) = (a.parse::<u64>().ok()?, b.parse::<u64>().ok()?);
            self.out.push_str(",\"span\":[");
            self.out.push_str(&a.to_string());
            self.out.push(',');
            self.out.push_str(&b.to_string());
            self.out.push(']');
        }
        Some(())
    }

    fn verdict(&mut self) -> Option<()> {
        self.out.push('{');
        self.strings(&["tier", "rule", "reason"])?;
        self.span()?;
        let n: usize = self.field()?.parse().ok()?;
        if n > 0 {
            self.out.push_str(",\"parts\":[");
            for p in 0..n {
                if p > 0 {
                    self.out.push(',');
                }
                self.out.push('{');
                self.strings(&["tier", "text", "rule", "reason"])?;
                self.span()?;
                self.out.push('}');
            }
            self.out.push(']');
        }
        self.out.push('}');
        Some(())
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
    out.push_str(Digits::of(n).as_str());
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
        /// The fields, read as the package's JavaScript reads them, are the verdict's
        /// JSON value: every field ends where it should, whatever its text holds.
        #[test]
        fn write_fields_reads_back_as_the_json_value(v in verdict()) {
            let mut out = String::from("x");
            v.write_fields(&mut out);
            prop_assert_eq!(fields_to_json(&out[1..], false), Some(serde_json::to_string(&v).unwrap()));
            // classifyMany's answer: the count, then each verdict's fields.
            let mut many = String::new();
            Verdict::write_count_field(&mut many, 2);
            v.write_fields(&mut many);
            v.write_fields(&mut many);
            let one = serde_json::to_string(&v).unwrap();
            prop_assert_eq!(fields_to_json(&many, true), Some(format!("[{one},{one}]")));
            // Cut short or run on, the fields are no verdict.
            prop_assert_eq!(fields_to_json(&out[2..], false), None);
            prop_assert_eq!(fields_to_json(&format!("{}0:", &out[1..]), false), None);
        }
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
