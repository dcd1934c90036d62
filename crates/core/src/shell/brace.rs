//! Brace expansion (`{a,b}`, `{1..5}`), bounded as bash's is not.

use crate::needle::HasChar;
pub(super) const BRACE_OPEN: char = '\u{E000}';

pub(super) const BRACE_COMMA: char = '\u{E001}';

pub(super) const BRACE_CLOSE: char = '\u{E002}';

/// Brings the marked copy up to date with the text pushed since `mirrored` bytes.
pub(super) fn sync_marked(m: &mut String, mirrored: &mut usize, text: &str) {
    if let Some(rest) = text.get(*mirrored..) {
        m.push_str(rest);
    }
    *mirrored = text.len();
}

pub(super) fn has_brace_expansion(m: &str) -> bool {
    m.has_char(BRACE_OPEN) && (m.has_char(BRACE_COMMA) || crate::needle::contains(m, ".."))
}

/// Most alternatives a brace expansion may produce before the word counts as dynamic.
pub(super) const MAX_BRACE_ALTS: usize = 64;

/// Expands unquoted `{a,b}` (marked) in a word; `None` when there is none, or too many.
pub(super) fn expand_braces(m: &str) -> Option<Vec<String>> {
    if !has_brace_expansion(m) || m.matches(BRACE_OPEN).count() > 16 {
        return None;
    }
    let mut out = Vec::new();
    if !expand_into(m, &mut out, 0) {
        return None;
    }
    if matches!(out.as_slice(), [only] if *only == m) {
        // Braces that expand to nothing else (`{x..yz}`, `{a}`): literal.
        return None;
    }
    Some(
        out.into_iter()
            .map(|s| {
                s.chars()
                    .map(|c| match c {
                        BRACE_OPEN => '{',
                        BRACE_COMMA => ',',
                        BRACE_CLOSE => '}',
                        c => c,
                    })
                    .collect()
            })
            .collect(),
    )
}

pub(super) fn expand_into(m: &str, out: &mut Vec<String>, depth: usize) -> bool {
    if depth > 8 || out.len() > MAX_BRACE_ALTS {
        return false;
    }
    // Find the first `{` with a matching `}` that has a top-level comma.
    let chars: Vec<(usize, char)> = m.char_indices().collect();
    for (i, &(bi, c)) in chars.iter().enumerate() {
        if c != BRACE_OPEN {
            continue;
        }
        let mut level = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for &(bj, d) in chars.get(i + 1..).unwrap_or_default() {
            match d {
                BRACE_OPEN => level += 1,
                BRACE_CLOSE if level == 0 => {
                    close = Some(bj);
                    break;
                }
                BRACE_CLOSE => level -= 1,
                BRACE_COMMA if level == 0 => commas.push(bj),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        if commas.is_empty() {
            // `{x..y}`, `{x..y..step}`: a sequence, expanded as bash does (`.e{n..n}v`
            // is `.env`); too long a sequence fails the expansion (a dynamic word).
            match sequence(m.get(bi + BRACE_OPEN.len_utf8()..close).unwrap_or_default()) {
                Some(Some(items)) => {
                    let pre = m.get(..bi).unwrap_or_default();
                    let post = m.get(close + BRACE_CLOSE.len_utf8()..).unwrap_or_default();
                    for item in items {
                        if !expand_into(&format!("{pre}{item}{post}"), out, depth + 1) {
                            return false;
                        }
                    }
                    return true;
                }
                Some(None) => return false,
                None => continue,
            }
        }
        let pre = m.get(..bi).unwrap_or_default();
        let post = m.get(close + BRACE_CLOSE.len_utf8()..).unwrap_or_default();
        let mut last = bi + BRACE_OPEN.len_utf8();
        let mut alts = Vec::new();
        for &cpos in &commas {
            alts.push(m.get(last..cpos).unwrap_or_default());
            last = cpos + BRACE_COMMA.len_utf8();
        }
        alts.push(m.get(last..close).unwrap_or_default());
        for alt in alts {
            let combined = format!("{pre}{alt}{post}");
            if !expand_into(&combined, out, depth + 1) {
                return false;
            }
        }
        return true;
    }
    out.push(m.to_string());
    out.len() <= MAX_BRACE_ALTS
}

/// The items of a brace sequence body `x..y.get(..step).unwrap_or_default()` (integers, or single letters):
/// `None` when it is not one (the braces are literal), `Some(None)` when it has more
/// than [`MAX_BRACE_ALTS`] items.
pub(super) fn sequence(body: &str) -> Option<Option<Vec<String>>> {
    let parts: Vec<&str> = crate::needle::split(body, "..").collect();
    let (a, b, step) = match parts.as_slice() {
        [a, b] => (*a, *b, 1i64),
        [a, b, s] => (*a, *b, s.parse::<i64>().ok()?),
        _ => return None,
    };
    let step = step.checked_abs()?.max(1);
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        // A leading zero pads every item to the widest of the two ends.
        let padded = |t: &str| {
            t.trim_start_matches('-').len() > 1 && t.trim_start_matches('-').starts_with('0')
        };
        let width = if padded(a) || padded(b) {
            a.len().max(b.len())
        } else {
            0
        };
        return Some(steps(x, y, step).map(|vs| {
            vs.into_iter()
                .map(|v| {
                    if width == 0 {
                        return v.to_string();
                    }
                    let digits =
                        format!("{:0w$}", v.unsigned_abs(), w = width - usize::from(v < 0));
                    if v < 0 {
                        format!("-{digits}")
                    } else {
                        digits
                    }
                })
                .collect()
        }));
    }
    let (mut ca, mut cb) = (a.chars(), b.chars());
    match (ca.next(), ca.next(), cb.next(), cb.next()) {
        (Some(x), None, Some(y), None) if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() => {
            Some(steps(x as i64, y as i64, step).map(|vs| {
                vs.into_iter()
                    .filter_map(|v| u32::try_from(v).ok().and_then(char::from_u32))
                    .map(String::from)
                    .collect()
            }))
        }
        _ => None,
    }
}

/// `x`, `x ± step`, … up to `y` (either direction); `None` past [`MAX_BRACE_ALTS`].
pub(super) fn steps(x: i64, y: i64, step: i64) -> Option<Vec<i64>> {
    let count = (y.abs_diff(x) / step.unsigned_abs()).saturating_add(1);
    if count > MAX_BRACE_ALTS as u64 {
        return None;
    }
    let mut out = Vec::new();
    let mut v = x;
    loop {
        out.push(v);
        if v == y || (x < y && v.saturating_add(step) > y) || (x > y && v.saturating_sub(step) < y)
        {
            return Some(out);
        }
        v = if x < y {
            v.saturating_add(step)
        } else {
            v.saturating_sub(step)
        };
    }
}
