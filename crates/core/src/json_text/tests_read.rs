//! The reader against serde_json (`from_str::<Value>` with `float_roundtrip`, what it
//! replaces): the same value, or the same error text, for every text tried.

use super::float::decimal_to_f64;
use super::{any_value, parse, WriteJson};
use proptest::prelude::*;
use serde_json::Value;

/// The two readers agree on `text`: equal values written alike (so `-0.0` and `0`,
/// `1.0` and `1` differ), or the same error message, line and column.
fn same(text: &str) -> Result<(), TestCaseError> {
    let ours = parse(text);
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            prop_assert_eq!(a, b, "{:?}", text);
            prop_assert_eq!(a.to_json(), b.to_json(), "{:?}", text);
        }
        (Err(a), Err(b)) => {
            prop_assert_eq!(a.to_string(), b.to_string(), "{:?}", text);
            prop_assert_eq!(
                a.is_eof(),
                b.classify() == serde_json::error::Category::Eof,
                "{:?}",
                text
            );
        }
        _ => prop_assert!(
            false,
            "{:?}: ours {:?}, serde_json {:?}",
            text,
            ours,
            theirs
        ),
    }
    Ok(())
}

/// Bytes JSON gives meaning to, and some it does not.
const ALPHABET: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    "\"",
    "\\",
    "\\u",
    "d83d",
    "de00",
    "dc00",
    "00e9",
    "u",
    "n",
    "null",
    "true",
    "false",
    "tru",
    "0",
    "1",
    "9",
    "-",
    "+",
    ".",
    "e",
    "E",
    " ",
    "\n",
    "\t",
    "\r",
    "\u{1}",
    "\u{1f}",
    "a",
    "é",
    "中",
    "😀",
    "/",
    "b",
    "f",
    "r",
    "t",
    "x",
    "1e400",
    "123456789",
];

fn texts() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), 0..24).prop_map(|p| p.concat())
}

/// A valid text with one edit: a byte replaced, inserted or removed (at a character
/// boundary).
fn mutated() -> impl Strategy<Value = String> {
    (
        any_value(),
        any::<bool>(),
        any::<prop::sample::Index>(),
        0..3u8,
        proptest::sample::select(ALPHABET),
    )
        .prop_map(|(v, pretty, at, op, with)| {
            let mut text = if pretty {
                serde_json::to_string_pretty(&v).unwrap_or_default()
            } else {
                v.to_json()
            };
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let i = bounds[at.index(bounds.len())];
            let next = bounds.iter().copied().find(|&j| j > i);
            match (op, next) {
                (0, Some(j)) => text.replace_range(i..j, with),
                (1, Some(j)) => text.replace_range(i..j, ""),
                _ => text.insert_str(i, with),
            }
            text
        })
}

/// A float's digits in many spellings: shortest, and with more digits than it needs.
fn float_texts() -> impl Strategy<Value = String> {
    (any::<u64>(), 0..6u8, 0..45usize).prop_filter_map("finite", |(bits, style, digits)| {
        let f = f64::from_bits(bits);
        if !f.is_finite() {
            return None;
        }
        Some(match style {
            0 => format!("{f:e}"),
            1 => format!("{f:?}"),
            2 => format!("{f:.digits$e}"),
            3 => format!("{f:.digits$}"),
            4 => format!("{:.digits$e}", f * 1.000_000_000_1),
            _ => format!("{f:E}"),
        })
    })
}

/// Decimal digits and an exponent of any size a JSON number may have.
fn decimal_texts() -> impl Strategy<Value = String> {
    (
        "-?(0|[1-9][0-9]{0,40})",
        proptest::option::of("[0-9]{1,40}"),
        proptest::option::of(-400..400i32),
    )
        .prop_map(|(int, frac, exp)| {
            let mut t = int;
            if let Some(f) = frac {
                t.push('.');
                t.push_str(&f);
            }
            if let Some(e) = exp {
                t.push('e');
                t.push_str(&e.to_string());
            }
            t
        })
}

/// The decimal digits of `m × base^k` (base 5: a halfway point below 1 written
/// exactly; base 2: one above).
fn digits_times_pow(m: u64, base: u128, k: u32) -> String {
    let mut limbs: Vec<u64> = vec![m];
    for _ in 0..k {
        let mut carry = 0u128;
        for l in &mut limbs {
            let v = u128::from(*l) * base + carry;
            *l = v as u64;
            carry = v >> 64;
        }
        if carry > 0 {
            limbs.push(carry as u64);
        }
    }
    let mut out = Vec::new();
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u128;
        for l in limbs.iter_mut().rev() {
            let v = (rem << 64) | u128::from(*l);
            *l = (v / 10) as u64;
            rem = v % 10;
        }
        out.push(b'0' + rem as u8);
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn a_written_value_reads_back_as_serde_json_reads_it(v in any_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap_or_default() } else { v.to_json() };
        same(&text)?;
        prop_assert_eq!(parse(&text).ok(), Some(v));
    }

    #[test]
    fn any_text_reads_as_serde_json_reads_it(text in texts()) {
        same(&text)?;
    }

    #[test]
    fn an_edited_text_reads_as_serde_json_reads_it(text in mutated()) {
        same(&text)?;
    }

    #[test]
    fn a_float_reads_as_serde_json_reads_it(text in float_texts(), neg in any::<bool>()) {
        let text = if neg && !text.starts_with('-') { format!("-{text}") } else { text };
        same(&text)?;
    }

    #[test]
    fn a_decimal_reads_as_serde_json_and_the_standard_library_read_it(text in decimal_texts()) {
        same(&text)?;
        if let (Ok(Value::Number(n)), Ok(f)) = (parse(&text), text.parse::<f64>()) {
            if n.is_f64() {
                prop_assert_eq!(n.as_f64().map(f64::to_bits), Some(f.to_bits()), "{}", text);
            }
        }
    }

    #[test]
    fn a_halfway_point_rounds_to_even(bits in 1u64..0x7fef_ffff_ffff_ffff) {
        // The midpoint of a double and the next: (2m + 1) × 2^(e - 1), written exactly.
        let f = f64::from_bits(bits);
        let (m, e) = {
            let raw_e = ((bits >> 52) & 0x7ff) as i64;
            let frac = bits & ((1 << 52) - 1);
            if raw_e == 0 { (frac, -1074) } else { (frac | 1 << 52, raw_e - 1075) }
        };
        let mid = 2 * m + 1;
        let (int, frac, exp) = if e >= 1 {
            (digits_times_pow(mid, 2, (e - 1) as u32), String::new(), 0)
        } else {
            // mid / 2^k = mid × 5^k / 10^k.
            let k = (1 - e) as u32;
            (digits_times_pow(mid, 5, k), String::new(), -i64::from(k))
        };
        let got = decimal_to_f64(int.as_bytes(), frac.as_bytes(), exp);
        let text = format!("{int}e{exp}");
        let want = text.parse::<f64>().unwrap_or(f64::NAN);
        prop_assert_eq!(got.to_bits(), want.to_bits(), "{} (between {:e} and the next)", text, f);
    }
}

#[test]
fn edges_read_as_serde_json_reads_them() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let deep_obj = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    let mut cases: Vec<String> = [
        "",
        " ",
        "-",
        "-0",
        "-0.0",
        "0",
        "00",
        "01",
        "1.",
        "1.e5",
        "1e",
        "1e+",
        "1e-",
        "1E5",
        "1e+5",
        "-9223372036854775808",
        "-9223372036854775809",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551615",
        "123456789012345678901234567890",
        "1e2147483647",
        "1e2147483648",
        "0e2147483648",
        "1e-2147483648",
        "1e-99999999999999",
        "-1e99999999999999",
        "1.5e308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1e309",
        "4.9e-324",
        "5e-324",
        "2.4703282292062328e-324",
        "2.4703282292062327e-324",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "9007199254740993",
        "9007199254740993.0",
        "0.1",
        "0.3",
        "[1,]",
        "[1 2]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{1:1}",
        "{\"a\":1 \"b\":2}",
        "[",
        "{",
        "{\"a\"",
        "{\"a\":",
        "\"abc",
        "\"\\",
        "\"\\u12",
        "\"\\u12345\"",
        "\"\\ud800\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "\"\\ud800x\"",
        "\"\\ud800\\x\"",
        "\"\\ud83d\\ude00\"",
        "\"\\q\"",
        "\"a\u{1}\"",
        "nul",
        "nulx",
        "truex",
        "true false",
        "{\"a\":1,\"a\":2}",
        "\n\n  [1,\n  x]",
        "[\"\u{7f}\"]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    cases.push(format!("0.{}1", "0".repeat(400)));
    cases.push(format!("{}e-1000", "1".repeat(1200)));
    cases.push(format!("1{}", "0".repeat(400)));
    cases.push(format!("0.{}e330", "9".repeat(900)));
    // 2^-1075, halfway between 0 and the smallest subnormal: exactly, and a hair above.
    let half_min = digits_times_pow(1, 5, 1075);
    cases.push(format!("{half_min}e-1075"));
    cases.push(format!("{half_min}1e-1076"));
    cases.push(deep(127));
    cases.push(deep(128));
    cases.push(deep_obj(127));
    cases.push(deep_obj(128));
    for text in &cases {
        if let Err(e) = same(text) {
            panic!("{e}");
        }
    }
}

#[test]
fn a_deep_text_is_refused_without_exhausting_the_stack() {
    let text = "[".repeat(1_000_000);
    let e = parse(&text).unwrap_err();
    assert_eq!(e.message(), "recursion limit exceeded");
    let e = serde_json::from_str::<Value>(&text).unwrap_err();
    assert_eq!(parse(&text).unwrap_err().to_string(), e.to_string());
}
