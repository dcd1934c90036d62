//! Tool calls, their families, canonical JSON and the anchor hash.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A tool call as an agent proposes it: `{"tool": NAME, "args": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub tool: String,
    #[serde(default)]
    pub args: Value,
}

impl ToolCall {
    pub fn new(tool: impl Into<String>, args: Value) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            args,
        }
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
    Shell,
    Read,
    Edit,
    Fetch,
    Mcp,
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
            match &buf[..b.len()] {
                b"bash" | b"shell" | b"sh" | b"terminal" | b"exec" => return Family::Shell,
                b"read" | b"read_file" | b"view" => return Family::Read,
                b"edit" | b"write" | b"write_file" | b"create" | b"str_replace" => {
                    return Family::Edit
                }
                b"webfetch" | b"fetch" | b"http_get" => return Family::Fetch,
                _ => {}
            }
        }
        if b.len() > 5 && b[..5].eq_ignore_ascii_case(b"mcp__") {
            Family::Mcp
        } else {
            Family::Other
        }
    }
}

/// Canonical JSON: object keys sorted (by UTF-8 bytes), no whitespace, numbers and
/// strings as serde_json prints them. Key order and whitespace of the input never matter.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
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
                    write_canonical(v, out);
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
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The anchor of a call: lowercase hex SHA-256 of `tool`, a NUL byte, and the
/// canonical JSON of `args`. A decision carries it so it cannot approve other arguments.
pub fn anchor(tool: &str, args: &Value) -> String {
    let mut h = Sha256::new();
    h.update(tool.as_bytes());
    h.update([0u8]);
    h.update(canonical_json(args).as_bytes());
    let digest = h.finalize();
    let mut hex = String::with_capacity(64);
    for b in digest.iter() {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
