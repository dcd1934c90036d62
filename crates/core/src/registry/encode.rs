//! The JSON of a pending approval's verdict, written once when the request is created.

use crate::call::write_json_str;
use crate::verdict::{Part, Verdict};

/// Appends `v` as the JSON its `Serialize` derive writes (so its `Deserialize` reads it
/// back), without serde's per-field machinery: this runs on every request.
pub(super) fn write_verdict(v: &Verdict, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"tier\":\"");
    out.extend_from_slice(v.tier.as_str().as_bytes());
    out.extend_from_slice(b"\",\"rule\":");
    write_json_str(&v.rule, out);
    out.extend_from_slice(b",\"reason\":");
    write_json_str(&v.reason, out);
    write_span(v.span, out);
    if !v.parts.is_empty() {
        out.extend_from_slice(b",\"parts\":[");
        for (i, p) in v.parts.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_part(p, out);
        }
        out.push(b']');
    }
    out.push(b'}');
}

pub(super) fn write_part(p: &Part, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"tier\":\"");
    out.extend_from_slice(p.tier.as_str().as_bytes());
    out.extend_from_slice(b"\",\"text\":");
    write_json_str(&p.text, out);
    out.extend_from_slice(b",\"rule\":");
    write_json_str(&p.rule, out);
    out.extend_from_slice(b",\"reason\":");
    write_json_str(&p.reason, out);
    write_span(p.span, out);
    out.push(b'}');
}

pub(super) fn write_span(span: Option<[usize; 2]>, out: &mut Vec<u8>) {
    if let Some([a, b]) = span {
        use std::io::Write;
        let _ = write!(out, ",\"span\":[{a},{b}]");
    }
}

pub(super) fn write_str_array(items: &[String], out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(s, out);
    }
    out.push(b']');
}
