//! Reading a stored JSON object field by field, with serde's words for what is wrong
//! (`missing field `x``, `invalid type: string "1", expected u64`): the decoders of the
//! records hosts store (grants, runs, markers), written out so that no serde-derived
//! deserializer is linked where they are read (the WebAssembly build, issue 51).

use serde_json::{Map, Value};

/// The fields of one JSON object, taken out one by one.
#[derive(Debug)]
pub struct Fields {
    map: Entries,
}

/// The members of a JSON object in key order, to take out one by one. Not
/// `Map::remove`: the B-tree's removal and rebalancing code is linked into the
/// WebAssembly for nothing else (measured ~1 KB gzipped); a record has a few fields,
/// and a hostile object of n keys costs n comparisons per field read.
#[derive(Debug, Default)]
pub struct Entries(Vec<(String, Value)>);

impl Entries {
    /// The members of `map`, in its (key) order.
    pub fn new(map: Map<String, Value>) -> Entries {
        Entries(map.into_iter().collect())
    }

    /// The value of `key`, taken out; `None` when absent.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }

    /// True when `key` is there (whatever its value).
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// The first key not taken yet, in key order.
    pub fn first_key(&self) -> Option<&str> {
        self.0.first().map(|(k, _)| k.as_str())
    }
}

/// A JSON value read through any serde deserializer (a request body), refusing a key
/// that appears twice in any object: `{"decision":"deny","decision":"allow"}` is an
/// error, never the last (or first) of the two. The wire requests' `Deserialize` reads
/// one, then its fields by hand ([`Fields`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StrictValue(pub Value);

impl<'de> serde::Deserialize<'de> for StrictValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StrictValue, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let StrictValue(v) = map.next_value()?;
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate field `{key}`"
                )));
            }
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

/// What a field's value is, in serde's words (`string "x"`, `integer `5``, `sequence`).
pub fn unexpected(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {}", crate::error::quoted(s)),
        Value::Array(_) => "sequence".to_string(),
        Value::Object(_) => "map".to_string(),
    }
}

fn invalid(value: &Value, expected: &str) -> String {
    format!("invalid type: {}, expected {expected}", unexpected(value))
}

impl Fields {
    /// The object `value` is, or serde's error for what it is instead.
    pub fn of(value: Value, what: &str) -> Result<Fields, String> {
        match value {
            Value::Object(map) => Ok(Fields::new(map)),
            other => Err(invalid(&other, what)),
        }
    }

    /// The fields of `map`.
    pub fn new(map: Map<String, Value>) -> Fields {
        Fields {
            map: Entries::new(map),
        }
    }

    /// True when the object has `key` (whatever its value).
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// The value of `key`, taken out; `None` when absent. `null` is a value here (as
    /// serde reads a required field).
    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    /// The value of `key`, which must be there.
    pub fn value(&mut self, key: &str) -> Result<Value, String> {
        self.take(key)
            .ok_or_else(|| format!("missing field `{key}`"))
    }

    /// A required string.
    pub fn string(&mut self, key: &str) -> Result<String, String> {
        string(self.value(key)?)
    }

    /// An optional string: absent or `null` is `None`.
    pub fn opt_string(&mut self, key: &str) -> Result<Option<String>, String> {
        self.opt(key, string)
    }

    /// A required `u64`.
    pub fn u64(&mut self, key: &str) -> Result<u64, String> {
        u64_of(&self.value(key)?)
    }

    /// An optional `u64`: absent or `null` is `None`.
    pub fn opt_u64(&mut self, key: &str) -> Result<Option<u64>, String> {
        self.opt(key, |v| u64_of(&v))
    }

    /// A `u32` that defaults to 0 when absent.
    pub fn u32_or_zero(&mut self, key: &str) -> Result<u32, String> {
        match self.take(key) {
            None => Ok(0),
            Some(v) => {
                let n = u64_of_named(&v, "u32")?;
                u32::try_from(n).map_err(|_| format!("invalid value: integer `{n}`, expected u32"))
            }
        }
    }

    /// A boolean that defaults to `false` when absent.
    pub fn bool_or_false(&mut self, key: &str) -> Result<bool, String> {
        match self.take(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(b),
            Some(v) => Err(invalid(&v, "a boolean")),
        }
    }

    /// Refuses any field not taken yet (serde's `deny_unknown_fields`): `known` are
    /// the object's fields, for the message.
    pub fn deny_unknown(self, known: &[&str]) -> Result<(), String> {
        let Some(key) = self.map.first_key() else {
            return Ok(());
        };
        let list: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
        Err(match list.as_slice() {
            [one] => format!("unknown field `{key}`, expected {one}"),
            _ => format!("unknown field `{key}`, expected one of {}", list.join(", ")),
        })
    }

    /// An optional field read by `read`: absent or `null` is `None`.
    pub fn opt<T>(
        &mut self,
        key: &str,
        read: impl FnOnce(Value) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        match self.take(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => read(v).map(Some),
        }
    }
}

/// A string value.
pub fn string(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(invalid(&other, "a string")),
    }
}

/// A `u64` value (an integer from 0 up).
pub fn u64_of(value: &Value) -> Result<u64, String> {
    u64_of_named(value, "u64")
}

fn u64_of_named(value: &Value, name: &str) -> Result<u64, String> {
    match value {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Ok(u),
            (None, Some(i)) => Err(format!("invalid value: integer `{i}`, expected {name}")),
            (None, None) => Err(invalid(value, name)),
        },
        other => Err(invalid(other, name)),
    }
}

/// An array's elements, each read by `read`.
pub fn array<T>(value: Value, read: impl Fn(Value) -> Result<T, String>) -> Result<Vec<T>, String> {
    match value {
        Value::Array(items) => items.into_iter().map(read).collect(),
        other => Err(invalid(&other, "a sequence")),
    }
}

/// A `usize` value.
pub fn usize_of(value: &Value) -> Result<usize, String> {
    let n = u64_of_named(value, "usize")?;
    usize::try_from(n).map_err(|_| format!("invalid value: integer `{n}`, expected usize"))
}

/// A byte range `[start, end]`: an array of two `usize`.
pub fn span(value: Value) -> Result<[usize; 2], String> {
    const WANT: &str = "an array of length 2";
    match value {
        Value::Array(items) => match items.as_slice() {
            [a, b] => Ok([usize_of(a)?, usize_of(b)?]),
            [_, _, ..] => Err(format!(
                "invalid length {}, expected fewer elements in array",
                items.len()
            )),
            other => Err(format!("invalid length {}, expected {WANT}", other.len())),
        },
        other => Err(invalid(&other, WANT)),
    }
}

/// For the decoders' tests: `base`'s fields each kept, dropped or replaced by a value
/// of another type (a decoder by hand must accept exactly what serde's derived one
/// accepts, and read it alike).
#[cfg(test)]
pub(crate) fn variants(base: Value) -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let Value::Object(map) = base else {
        return Just(base).boxed();
    };
    let others = || {
        prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            Just(Some(Value::Bool(true))),
            Just(Some(serde_json::json!(-1))),
            Just(Some(serde_json::json!(1.5))),
            Just(Some(serde_json::json!(5_000_000_000u64))),
            Just(Some(serde_json::json!(7))),
            Just(Some(serde_json::json!("s"))),
            Just(Some(serde_json::json!([]))),
            Just(Some(serde_json::json!({}))),
        ]
    };
    let fields: Vec<_> = map
        .into_iter()
        .map(|(k, v)| {
            let keep = Just(Some(v));
            (Just(k), prop_oneof![6 => keep, 4 => others()])
        })
        .collect();
    (fields, proptest::option::of(("[a-z]{1,6}", others())))
        .prop_map(|(fields, extra)| {
            let mut map: Map<String, Value> = fields
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k, v)))
                .collect();
            if let Some((k, Some(v))) = extra {
                map.entry(k).or_insert(v);
            }
            Value::Object(map)
        })
        .boxed()
}

/// A value whose fields vary, and whose parts (a span, a tier, a list) vary too.
#[cfg(test)]
pub(crate) fn deep(base: Value) -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    use serde_json::json;
    (variants(base), any::<u8>(), "[a-z]{0,5}").prop_map(|(mut v, k, s)| {
        if let Some(o) = v.as_object_mut() {
            match k % 8 {
                0 => drop(o.insert("span".into(), json!([1, 2, 3]))),
                1 => drop(o.insert("span".into(), json!([1]))),
                2 => drop(o.insert("spans".into(), json!([[1, -2]]))),
                3 => drop(o.insert("tier".into(), json!(s))),
                4 => drop(o.insert("tool_call_ids".into(), json!(["a", 1]))),
                5 => drop(o.insert("calls".into(), json!([{}]))),
                _ => {}
            }
        }
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        /// `Entries` answers as the map it came from would, through any sequence of
        /// removals: the same values out, the same keys left, the least key first.
        #[test]
        fn entries_answer_as_the_map(
            keys in proptest::collection::btree_set("[a-d]{0,2}", 0..8),
            takes in proptest::collection::vec("[a-d]{0,2}", 0..10),
        ) {
            let mut map = Map::new();
            for (i, k) in keys.iter().enumerate() {
                map.insert(k.clone(), Value::from(i));
            }
            let mut entries = Entries::new(map.clone());
            for k in &takes {
                proptest::prop_assert_eq!(entries.contains_key(k), map.contains_key(k.as_str()));
                proptest::prop_assert_eq!(entries.remove(k), map.remove(k.as_str()));
                proptest::prop_assert_eq!(entries.first_key(), map.keys().next().map(String::as_str));
            }
        }
    }

    #[test]
    fn errors_read_as_serdes() {
        let mut f = Fields::of(
            json!({"a": "1", "b": -1, "c": 1.5, "d": null, "e": [1], "g": true}),
            "struct X",
        )
        .unwrap();
        let u = |f: &mut Fields, k: &str| f.u64(k).map(|_| ()).unwrap_err();
        let s = |f: &mut Fields, k: &str| f.string(k).map(|_| ()).unwrap_err();
        for (got, want) in [
            (u(&mut f, "a"), r#"invalid type: string "1", expected u64"#),
            (u(&mut f, "b"), "invalid value: integer `-1`, expected u64"),
            (
                u(&mut f, "c"),
                "invalid type: floating point `1.5`, expected u64",
            ),
            (s(&mut f, "d"), "invalid type: null, expected a string"),
            (s(&mut f, "e"), "invalid type: sequence, expected a string"),
            (
                s(&mut f, "g"),
                "invalid type: boolean `true`, expected a string",
            ),
        ] {
            assert_eq!(got, want);
        }
        assert_eq!(f.string("zz").unwrap_err(), "missing field `zz`");
        assert_eq!(
            Fields::of(json!([1]), "struct X").unwrap_err(),
            "invalid type: sequence, expected struct X"
        );
        // The same words serde_json's own decoder gives for a value.
        assert_eq!(
            serde_json::from_value::<u64>(json!(1.5))
                .unwrap_err()
                .to_string(),
            "invalid type: floating point `1.5`, expected u64"
        );
        assert_eq!(
            serde_json::from_value::<String>(json!(null))
                .unwrap_err()
                .to_string(),
            "invalid type: null, expected a string"
        );
    }
}
