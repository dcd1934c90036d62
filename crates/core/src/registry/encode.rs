//! The JSON of a pending approval's verdict, written once when the request is created.

use crate::call::write_json_str;
use crate::verdict::Verdict;

/// Appends `v` as the JSON its `Serialize` derive writes (so its `Deserialize` reads it
/// back): `Verdict::write_json`'s text, the one verdict writer.
pub(super) fn write_verdict(v: &Verdict, out: &mut Vec<u8>) {
    let mut text = String::with_capacity(256);
    v.write_json(&mut text);
    out.extend_from_slice(text.as_bytes());
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
