//! Tool calls, their families, canonical JSON and the anchor hash.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A tool call as an agent proposes it: `{"tool": NAME, "args": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name (`bash`, `read`, `mcp__server__tool`, …).
    pub tool: String,
    #[serde(default)]
    /// The tool's arguments (null when absent).
    pub args: Value,
}

impl ToolCall {
    /// The call of `tool` with `args`.
    pub fn new(tool: impl Into<String>, args: Value) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            args,
        }
    }

    /// A call from a raw JSON value `{"tool": NAME, "args": …}` (missing args are
    /// `null`); what is wrong with it otherwise.
    pub fn from_value(value: &Value) -> Result<ToolCall, &'static str> {
        let Some(obj) = value.as_object() else {
            return Err("a tool call must be a JSON object");
        };
        let Some(tool) = obj.get("tool").and_then(Value::as_str) else {
            return Err("`tool` must be a string");
        };
        let args = obj.get("args").cloned().unwrap_or(Value::Null);
        Ok(ToolCall::new(tool, args))
    }

    /// [`ToolCall::from_value`] of a value the caller gives up: the arguments are moved,
    /// not copied (a host's call can hold a long script).
    pub fn from_owned(value: Value) -> Result<ToolCall, &'static str> {
        let Value::Object(obj) = value else {
            return Err("a tool call must be a JSON object");
        };
        let mut obj = crate::fields::Entries::new(obj);
        let Some(Value::String(tool)) = obj.remove("tool") else {
            return Err("`tool` must be a string");
        };
        let args = obj.remove("args").unwrap_or(Value::Null);
        Ok(ToolCall::new(tool, args))
    }

    /// The family of this tool, by name (case-insensitive).
    pub fn family(&self) -> Family {
        Family::of(&self.tool)
    }

    /// Hash of the tool name and the canonical JSON of the args (see [`anchor`]).
    pub fn anchor(&self) -> String {
        anchor(&self.tool, &self.args)
    }
}

/// The built-in tool families of DESIGN §1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// A shell command (`bash`, `exec_command`, `run_shell_command`, …).
    Shell,
    /// A file read, listing or search.
    Read,
    /// A file write or edit.
    Edit,
    /// A web fetch or search.
    Fetch,
    /// An MCP server's tool.
    Mcp,
    /// Any other tool.
    Other,
}

impl Family {
    /// Classifies a tool name, case-insensitively.
    pub fn of(tool: &str) -> Family {
        let mut buf = [0u8; 16];
        let b = tool.as_bytes();
        if b.len() <= buf.len() {
            for (d, s) in buf.iter_mut().zip(b) {
                *d = s.to_ascii_lowercase();
            }
            match buf.get(..b.len()).unwrap_or_default() {
                b"bash" | b"shell" | b"sh" | b"terminal" | b"exec" => return Family::Shell,
                b"read" | b"read_file" | b"view" => return Family::Read,
                b"edit" | b"write" | b"write_file" | b"create" | b"str_replace" => {
                    return Family::Edit
                }
                b"webfetch" | b"fetch" | b"http_get" => return Family::Fetch,
                _ => {}
            }
        }
        if b.len() > 5
            && b.get(..5)
                .unwrap_or_default()
                .eq_ignore_ascii_case(b"mcp__")
        {
            Family::Mcp
        } else {
            Family::Other
        }
    }
}

/// A JSON value's kind in words (`a string`, `an array`, …), for error messages.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Canonical JSON: object keys sorted (by UTF-8 bytes), no whitespace, numbers and
/// strings as serde_json prints them. Key order and whitespace of the input never matter.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    // Only serde_json's own UTF-8 output and ASCII punctuation went in.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Appends the canonical JSON of `value` to `out` (see [`canonical_json`]).
pub(crate) fn canonical_json_to(value: &Value, out: &mut Vec<u8>) {
    write_canonical(value, out);
}

/// Writes the canonical JSON of `value` to `out` without building it first (the anchor
/// hashes it straight into SHA-256). Strings and numbers are written by serde_json
/// itself, so escapes and number formats are exactly those of `Value`'s `Display`.
fn write_canonical<W: std::io::Write>(value: &Value, out: &mut W) {
    // The writers used here (a `Vec`, a hash) never fail, and serde_json cannot fail
    // to serialize a string or a number: the results are ignored on purpose.
    match value {
        Value::Object(map) => {
            let _ = out.write_all(b"{");
            // serde_json's map is sorted by key already (unless its `preserve_order`
            // feature is on somewhere in the build): sort only when it is not.
            let sorted = map.keys().zip(map.keys().skip(1)).all(|(a, b)| a < b);
            if sorted {
                for (i, (k, v)) in map.iter().enumerate() {
                    write_member(i, k, v, out);
                }
            } else {
                let entries: Vec<(&String, &Value)> = map.iter().collect();
                let sorted = crate::store::sort_by_text(entries, |(k, _)| *k, false);
                for (i, (k, v)) in sorted.into_iter().enumerate() {
                    write_member(i, k, v, out);
                }
            }
            let _ = out.write_all(b"}");
        }
        Value::Array(items) => {
            let _ = out.write_all(b"[");
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    let _ = out.write_all(b",");
                }
                write_canonical(v, out);
            }
            let _ = out.write_all(b"]");
        }
        Value::String(s) => write_json_str(s, out),
        // `Display` writes what the serializer writes (itoa, zmij for a float).
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Bool(true) => {
            let _ = out.write_all(b"true");
        }
        Value::Bool(false) => {
            let _ = out.write_all(b"false");
        }
        Value::Null => {
            let _ = out.write_all(b"null");
        }
    }
}

/// Writes `s` as a JSON string exactly as serde_json does: only `"`, `\` and control
/// characters below U+0020 are escaped. Strings without any of those (nearly all) are
/// copied in one piece; the others through [`push_json_str`] (the one escaper: anchors, verdicts).
pub(crate) fn write_json_str<W: std::io::Write>(s: &str, out: &mut W) {
    // A fold without early exit, so that it vectorizes.
    let plain = !s.bytes().fold(false, |esc, b| {
        esc | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if plain {
        let _ = out.write_all(b"\"");
        let _ = out.write_all(s.as_bytes());
        let _ = out.write_all(b"\"");
    } else {
        let mut text = String::with_capacity(s.len() + 8);
        push_json_str(&mut text, s);
        let _ = out.write_all(text.as_bytes());
    }
}

/// `s` as a JSON string with serde_json's escapes: `\"`, `\\`, `\b \t \n \f \r`, and
/// `\u00XX` (lowercase hex) for the other control characters.
pub(crate) fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'\n' => 'n',
            b'\r' => 'r',
            b'\t' => 't',
            0x08 => 'b',
            0x0c => 'f',
            0..=0x1f => 'u',
            _ => continue,
        };
        // `i` is at an ASCII byte: a character boundary.
        out.push_str(s.get(start..i).unwrap_or_default());
        out.push('\\');
        out.push(short);
        if short == 'u' {
            out.push_str("00");
            for nibble in [b >> 4, b & 0xf] {
                out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
            }
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

fn write_member<W: std::io::Write>(i: usize, k: &str, v: &Value, out: &mut W) {
    if i > 0 {
        let _ = out.write_all(b",");
    }
    write_json_str(k, out);
    let _ = out.write_all(b":");
    write_canonical(v, out);
}

/// Feeds written bytes into SHA-256.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The anchor of a call: lowercase hex SHA-256 of `tool`, a NUL byte, and the
/// canonical JSON of `args`. A decision carries it so it cannot approve other arguments.
pub fn anchor(tool: &str, args: &Value) -> String {
    Anchor::new(tool, args).to_string()
}

/// An anchor as its 32 raw bytes (see [`anchor`] for what is hashed): what the registry
/// keeps per pending request. `Display` and `Serialize` give the 64-hex-digit form that
/// [`anchor`] returns and that decisions carry.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Anchor([u8; 32]);

impl Anchor {
    /// Hashes `tool` and the canonical JSON of `args`, streaming (no JSON text is built).
    pub fn new(tool: &str, args: &Value) -> Anchor {
        let mut h = HashWriter(Sha256::new());
        h.0.update(tool.as_bytes());
        h.0.update([0u8]);
        write_canonical(args, &mut h);
        Anchor(h.0.finalize().into())
    }

    /// The anchor of a call whose args' canonical JSON ([`canonical_json`]) is
    /// `canonical_args`.
    pub fn from_canonical(tool: &str, canonical_args: &[u8]) -> Anchor {
        let mut h = Sha256::new();
        h.update(tool.as_bytes());
        h.update([0u8]);
        h.update(canonical_args);
        Anchor(h.finalize().into())
    }

    /// The anchor of `call`.
    pub fn of(call: &ToolCall) -> Anchor {
        Anchor::new(&call.tool, &call.args)
    }

    /// The 32 bytes of the SHA-256 digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lowercase hex digits, without allocating.
    pub fn hex(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        for (pair, b) in out.chunks_exact_mut(2).zip(self.0.iter()) {
            pair.copy_from_slice(&hex_pair(*b));
        }
        out
    }

    /// True when `hex` is exactly this anchor's text (64 lowercase hex digits), the
    /// same comparison as with the `String` from [`anchor`].
    pub fn matches(&self, hex: &str) -> bool {
        let hex = hex.as_bytes();
        hex.len() == 64
            && hex
                .chunks_exact(2)
                .zip(self.0.iter())
                .all(|(pair, b)| pair == hex_pair(*b))
    }

    /// Parses the 64-lowercase-hex-digit form; anything else is `None`.
    pub fn parse(hex: &str) -> Option<Anchor> {
        let b = hex.as_bytes();
        if b.len() != 64 {
            return None;
        }
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut out = [0u8; 32];
        for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
            let [hi, lo] = *pair else { return None };
            *o = (digit(hi)? << 4) | digit(lo)?;
        }
        Some(Anchor(out))
    }
}

impl std::fmt::Display for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = self.hex();
        // Hex digits are ASCII.
        f.write_str(std::str::from_utf8(&hex).map_err(|_| std::fmt::Error)?)
    }
}

impl std::fmt::Debug for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Anchor({self})")
    }
}

impl PartialEq<str> for Anchor {
    fn eq(&self, other: &str) -> bool {
        self.matches(other)
    }
}

impl PartialEq<&str> for Anchor {
    fn eq(&self, other: &&str) -> bool {
        self.matches(other)
    }
}

impl PartialEq<String> for Anchor {
    fn eq(&self, other: &String) -> bool {
        self.matches(other)
    }
}

impl Serialize for Anchor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let hex = self.hex();
        match std::str::from_utf8(&hex) {
            Ok(text) => s.serialize_str(text),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The two lowercase hex digits of byte `b` (a table of all 256).
fn hex_pair(b: u8) -> [u8; 2] {
    HEX_PAIRS.get(usize::from(b)).copied().unwrap_or([b'0'; 2])
}

/// The two lowercase hex digits of every byte.
// Built at compile time: an index out of bounds would be a compile error.
#[allow(clippy::indexing_slicing)]
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [HEX[i >> 4], HEX[i & 0xf]];
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_given_up_reads_as_one_borrowed() {
        for v in [
            json!({"tool": "bash", "args": {"command": "ls"}}),
            json!({"tool": "bash"}),
            json!({"tool": "read", "args": null, "extra": 1}),
            json!({"tool": 3, "args": {}}),
            json!({"args": {}}),
            json!([1, 2]),
            json!("bash"),
            json!(null),
        ] {
            assert_eq!(
                ToolCall::from_owned(v.clone()),
                ToolCall::from_value(&v),
                "{v}"
            );
        }
    }

    #[test]
    fn anchor_ignores_key_order_and_whitespace() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":"s"}}"#).unwrap();
        let b: Value =
            serde_json::from_str(r#"{ "a" : { "x" : "s", "y" : [ 1, 2 ] }, "b" : 1 }"#).unwrap();
        assert_eq!(anchor("bash", &a), anchor("bash", &b));
        assert_ne!(anchor("bash", &a), anchor("Bash", &a));
        assert_ne!(
            anchor("bash", &a),
            anchor("bash", &json!({"b":2,"a":{"x":"s","y":[1,2]}}))
        );
    }

    /// The first implementation (build the canonical `String`, then hash it): the
    /// streaming one must give byte-identical text and anchors (markers persist them).
    fn reference_canonical(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push(':');
                    if let Some(v) = map.get(*k) {
                        reference_canonical(v, out);
                    }
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    reference_canonical(v, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }

    fn reference_anchor(tool: &str, args: &Value) -> String {
        let mut text = String::new();
        reference_canonical(args, &mut text);
        let mut h = Sha256::new();
        h.update(tool.as_bytes());
        h.update([0u8]);
        h.update(text.as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn tricky_values() -> Vec<Value> {
        vec![
            json!(null),
            json!({}),
            json!([]),
            json!({"command": "rm -rf build/1"}),
            json!({"b": 1, "a": {"y": [1, 2.5, -0.0, 1e300, u64::MAX, i64::MIN], "x": "s"}}),
            json!({"z": "\u{e9}\"\\\n\t\u{1}\u{7f}/\u{2028}\u{1F600}", "": [true, false, null]}),
            json!({"k\"ey": {"\n": "v"}, "K": 0.1, "k": [[], {}, [{}]]}),
            json!("just a string"),
            json!(12_345.678_9),
        ]
    }

    #[test]
    fn streaming_canonical_json_and_anchor_equal_the_reference() {
        for v in tricky_values() {
            let mut want = String::new();
            reference_canonical(&v, &mut want);
            assert_eq!(canonical_json(&v), want, "{v}");
            for tool in ["bash", "", "mcp__x__y"] {
                let want = reference_anchor(tool, &v);
                assert_eq!(anchor(tool, &v), want, "{tool} {v}");
                let a = Anchor::new(tool, &v);
                assert_eq!(a.to_string(), want, "{tool} {v}");
                assert!(a.matches(&want) && a == want.as_str(), "{tool} {v}");
                assert!(!a.matches(&want.to_uppercase()), "{tool} {v}");
                assert_eq!(Anchor::parse(&want), Some(a), "{tool} {v}");
                assert_eq!(serde_json::to_value(a).unwrap(), json!(want), "{tool} {v}");
            }
        }
    }

    #[test]
    fn anchors_are_pinned() {
        // Computed independently (Python: sha256(tool + NUL + sorted compact JSON)).
        // Persisted markers carry these: they must never change.
        let cases = [
            (
                json!({"command": "rm -rf build/1"}),
                "c3a68326acfff7871ca6d39abf0f12d8e1846e9af44da47608b722fc374cb0f2",
            ),
            (
                json!({"n": [1, -2, true, null, {"z": "\u{e9}\"\\\n\t\u{1}\u{7f}/"}], "cwd": "/w", "command": "rm -rf build"}),
                "da3a6f1ed28a866fef8c21eaaef052e88dd242a7a74f2cbbc2da9dd500b0cefe",
            ),
        ];
        for (args, want) in cases {
            assert_eq!(anchor("bash", &args), want, "{args}");
        }
    }

    #[test]
    fn anchor_parse_rejects_what_is_not_64_lowercase_hex_digits() {
        let good = "c3a68326acfff7871ca6d39abf0f12d8e1846e9af44da47608b722fc374cb0f2";
        assert!(Anchor::parse(good).is_some());
        for bad in [
            "",
            &good[..63],
            &format!("{good}0"),
            &good.to_uppercase(),
            &format!("g{}", &good[1..]),
            &format!("é{}", &good[2..]),
        ] {
            assert_eq!(Anchor::parse(bad), None, "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn streaming_anchor_equals_the_reference_on_random_json(v in arb_json()) {
            let mut want = String::new();
            reference_canonical(&v, &mut want);
            proptest::prop_assert_eq!(canonical_json(&v), want);
            proptest::prop_assert_eq!(anchor("t", &v), reference_anchor("t", &v));
        }
    }

    fn arb_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn families() {
        for (name, fam) in [
            ("Bash", Family::Shell),
            ("TERMINAL", Family::Shell),
            ("read_file", Family::Read),
            ("str_replace", Family::Edit),
            ("WebFetch", Family::Fetch),
            ("mcp__github__create_issue", Family::Mcp),
            ("todo_write", Family::Other),
        ] {
            assert_eq!(Family::of(name), fam, "{name}");
        }
    }
}
