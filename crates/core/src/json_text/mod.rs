//! JSON text written field by field, byte for byte as `serde_json::to_string` writes the
//! same value (compact, fields in the order given, strings escaped as serde_json
//! escapes them): what a host takes across a boundary without serde's serializer
//! (toolgate-wasm's results; issue 51). Each writer has a property test against the
//! serde derive it stands beside. And read back ([`parse`]): the values and errors of
//! `serde_json::from_str::<Value>`, without serde's deserializer.

use serde_json::Value;

use crate::call::push_json_str;

mod float;
mod read;
#[cfg(test)]
mod tests_read;

pub use read::{parse, JsonError};

/// Types written as JSON text by hand (the wasm Gate's results).
pub trait WriteJson {
    /// Appends the JSON text of `self` to `out`.
    fn write_json(&self, out: &mut String);

    /// The JSON text of `self`.
    fn to_json(&self) -> String {
        let mut out = String::with_capacity(128);
        self.write_json(&mut out);
        out
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut String) {
        push_json_str(out, self);
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut String) {
        push_json_str(out, self);
    }
}

impl WriteJson for Value {
    fn write_json(&self, out: &mut String) {
        write_value(self, out);
    }
}

/// An object being written: `{`, then each field, then [`Obj::end`]'s `}`. Keys are
/// literals with nothing to escape.
pub struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    /// Opens an object in `out`.
    pub fn new(out: &'a mut String) -> Obj<'a> {
        out.push('{');
        Obj { out, first: true }
    }

    /// Writes `"key":` and hands out the text to write the value into.
    pub fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    /// A string field.
    pub fn str(&mut self, key: &str, value: &str) -> &mut Obj<'a> {
        push_json_str(self.key(key), value);
        self
    }

    /// A string field, left out when `None` (`skip_serializing_if = "Option::is_none"`).
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Obj<'a> {
        if let Some(v) = value {
            self.str(key, v);
        }
        self
    }

    /// A number field.
    pub fn u64(&mut self, key: &str, value: u64) -> &mut Obj<'a> {
        push_u64(self.key(key), value);
        self
    }

    /// A number field, left out when `None`.
    pub fn opt_u64(&mut self, key: &str, value: Option<u64>) -> &mut Obj<'a> {
        if let Some(v) = value {
            self.u64(key, v);
        }
        self
    }

    /// A boolean field.
    pub fn bool(&mut self, key: &str, value: bool) -> &mut Obj<'a> {
        self.key(key).push_str(if value { "true" } else { "false" });
        self
    }

    /// A field whose value writes itself.
    pub fn field<T: WriteJson + ?Sized>(&mut self, key: &str, value: &T) -> &mut Obj<'a> {
        value.write_json(self.key(key));
        self
    }

    /// A field that writes itself, left out when `None`.
    pub fn opt_field<T: WriteJson>(&mut self, key: &str, value: Option<&T>) -> &mut Obj<'a> {
        if let Some(v) = value {
            self.field(key, v);
        }
        self
    }

    /// Closes the object.
    pub fn end(&mut self) {
        self.out.push('}');
    }
}

/// Appends the decimal digits of `n` (as serde_json's `itoa`).
pub fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        if let Some(d) = digits.get_mut(i) {
            // `n % 10` is below 10.
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits.get(i..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// Appends `value` as `serde_json::to_string` writes it: members in the map's own order
/// (sorted unless serde_json's `preserve_order` is on), numbers as its `Display`.
pub fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            use std::fmt::Write;
            let _ = write!(out, "{n}");
        }
        Value::String(s) => push_json_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(v, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_str(out, k);
                out.push(':');
                write_value(v, out);
            }
            out.push('}');
        }
    }
}

/// Appends `value` as `serde_json::to_string_pretty` writes it (two-space indent, `": "`
/// between a key and its value, `[]` and `{}` for empty lists and objects): what a
/// prompt shows a call's arguments as.
pub fn write_value_pretty(value: &Value, out: &mut String) {
    pretty(value, out, 0);
}

fn newline_indent(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn pretty(value: &Value, out: &mut String, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline_indent(out, depth + 1);
                pretty(v, out, depth + 1);
            }
            newline_indent(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline_indent(out, depth + 1);
                push_json_str(out, k);
                out.push_str(": ");
                pretty(v, out, depth + 1);
            }
            newline_indent(out, depth);
            out.push('}');
        }
        other => write_value(other, out),
    }
}

/// For the writers' tests: JSON values of every kind, with strings that need escapes
/// and numbers of every kind (floats included).
#[cfg(test)]
pub(crate) fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z\"\\\\\u{0}-\u{1f}\u{7f}é中\u{2028}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z\"\u{1}]{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn a_value_is_written_as_serde_json_writes_it(v in any_value()) {
            proptest::prop_assert_eq!(v.to_json(), serde_json::to_string(&v).unwrap());
        }

        #[test]
        fn a_value_is_written_pretty_as_serde_json_writes_it(v in any_value()) {
            let mut out = String::new();
            write_value_pretty(&v, &mut out);
            proptest::prop_assert_eq!(out, serde_json::to_string_pretty(&v).unwrap());
        }

        #[test]
        fn numbers_are_written_as_serde_json_writes_them(n in proptest::prelude::any::<u64>()) {
            let mut out = String::new();
            push_u64(&mut out, n);
            proptest::prop_assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn an_object_writes_its_fields_in_order_and_skips_what_is_absent() {
        let mut out = String::new();
        Obj::new(&mut out)
            .str("a", "x\"y")
            .opt_str("b", None)
            .u64("c", 0)
            .opt_u64("d", Some(u64::MAX))
            .bool("e", false)
            .field("f", &Value::Null)
            .opt_field::<Value>("g", None)
            .end();
        assert_eq!(
            out,
            r#"{"a":"x\"y","c":0,"d":18446744073709551615,"e":false,"f":null}"#
        );
        let mut empty = String::new();
        Obj::new(&mut empty).end();
        assert_eq!(empty, "{}");
    }
}
