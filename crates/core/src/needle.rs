//! Searching text for a string by its bytes: what `str::contains`, `find`, `split`,
//! `split_once`, `match_indices` and `replace` do with a `&str` pattern, without
//! std's two-way searcher. That searcher is set up anew on every call and links its
//! own code plus the panic-message formatting of its slicing (char and range `Debug`,
//! the Unicode tables): moving the core's string-pattern searches here took 5.3 KB
//! off the gzipped WebAssembly (measured). Here the first byte of the needle is
//! looked for, then the rest compared: the worst case is the length of the text times
//! the length of the needle; the needles are short words (or a policy's names), and
//! every text is bounded by the size limit of a call or a policy file.
//!
//! A match of a needle that is valid UTF-8 in a text that is valid UTF-8 starts and
//! ends on character boundaries (a needle never starts with a continuation byte), so
//! every slice taken here is whole characters.

/// The byte offset of the first match of `needle` in `hay` (`Some(0)` for an empty
/// needle), as `str::find`.
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    find_from(hay.as_bytes(), needle.as_bytes(), 0)
}

/// Whether `needle` occurs in `hay`, as `str::contains`.
pub fn contains(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}

/// `str::contains` of one character, without std's path for a character outside
/// ASCII (which searches for its UTF-8 bytes with the two-way searcher).
pub trait HasChar {
    /// Whether `c` occurs in the text.
    fn has_char(&self, c: char) -> bool;
}

impl HasChar for str {
    fn has_char(&self, c: char) -> bool {
        match u8::try_from(c).ok().filter(u8::is_ascii) {
            Some(b) => self.as_bytes().contains(&b),
            None => contains(self, c.encode_utf8(&mut [0; 4])),
        }
    }
}

/// The byte offset of the last match of `needle` in `hay`, as `str::rfind`.
pub fn rfind(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let last = h.len().checked_sub(n.len())?;
    (0..=last)
        .rev()
        .find(|&at| h.get(at..at + n.len()) == Some(n))
}

/// `hay` around the first match of `sep`, as `str::split_once`.
pub fn split_once<'a>(hay: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let at = find(hay, sep)?;
    Some((hay.get(..at)?, hay.get(at + sep.len()..)?))
}

/// `hay` around the last match of `sep`, as `str::rsplit_once`.
pub fn rsplit_once<'a>(hay: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let at = rfind(hay, sep)?;
    Some((hay.get(..at)?, hay.get(at + sep.len()..)?))
}

/// The byte offsets of the matches of `needle` (non-empty) in `hay`, left to right and
/// not overlapping, as the offsets of `str::match_indices`.
pub fn match_indices<'a>(hay: &'a str, needle: &'a str) -> MatchIndices<'a> {
    MatchIndices {
        hay,
        needle,
        from: Some(0),
    }
}

/// The iterator of [`match_indices`].
#[derive(Debug, Clone)]
pub struct MatchIndices<'a> {
    hay: &'a str,
    needle: &'a str,
    from: Option<usize>,
}

impl Iterator for MatchIndices<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let at = find_from(self.hay.as_bytes(), self.needle.as_bytes(), self.from?)?;
        // An empty needle would match everywhere: no caller passes one; one match.
        self.from = (!self.needle.is_empty()).then_some(at + self.needle.len());
        Some(at)
    }
}

/// `s` without every leading repetition of `prefix`, as `str::trim_start_matches`.
pub fn trim_start_matches<'a>(mut s: &'a str, prefix: &str) -> &'a str {
    while let Some(rest) = s.strip_prefix(prefix).filter(|_| !prefix.is_empty()) {
        s = rest;
    }
    s
}

/// `s` without every trailing repetition of `suffix`, as `str::trim_end_matches`.
pub fn trim_end_matches<'a>(mut s: &'a str, suffix: &str) -> &'a str {
    while let Some(rest) = s.strip_suffix(suffix).filter(|_| !suffix.is_empty()) {
        s = rest;
    }
    s
}

/// `hay` with every (non-overlapping, left to right) match of `from` replaced by `to`,
/// as `str::replace` (an empty `from` matches before every character and at the end).
pub fn replace(hay: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(hay.len());
    if from.is_empty() {
        for c in hay.chars() {
            out.push_str(to);
            out.push(c);
        }
        out.push_str(to);
        return out;
    }
    let mut rest = hay;
    while let Some((before, after)) = split_once(rest, from) {
        out.push_str(before);
        out.push_str(to);
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The pieces of `hay` between the matches of `sep` (a non-empty separator), as
/// `str::split`.
pub fn split<'a>(hay: &'a str, sep: &'a str) -> Split<'a> {
    Split {
        rest: Some(hay),
        sep,
    }
}

/// The iterator of [`split`].
#[derive(Debug, Clone)]
pub struct Split<'a> {
    rest: Option<&'a str>,
    sep: &'a str,
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        // An empty separator would match everywhere; no caller passes one, and the
        // whole text is one piece rather than a loop that never advances.
        match split_once(rest, self.sep).filter(|_| !self.sep.is_empty()) {
            Some((piece, after)) => {
                self.rest = Some(after);
                Some(piece)
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

fn find_from(h: &[u8], n: &[u8], from: usize) -> Option<usize> {
    let Some((&first, tail)) = n.split_first() else {
        return (from <= h.len()).then_some(from);
    };
    let mut at = from;
    while let Some(k) = h.get(at..)?.iter().position(|&b| b == first) {
        let start = at + k;
        let end = start + n.len();
        if h.get(start + 1..end) == Some(tail) {
            return Some(start);
        }
        if end > h.len() {
            return None;
        }
        at = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::strategy::Strategy;

    fn text() -> impl Strategy<Value = String> {
        // A small alphabet (ASCII, two-byte and three-byte characters) so that
        // matches, overlaps and near misses are common.
        proptest::collection::vec(
            proptest::sample::select(vec!['a', 'b', '/', '\n', 'é', '€']),
            0..14,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest::proptest! {
        #[test]
        fn searches_answer_as_std(hay in text(), needle in text()) {
            let (h, n) = (hay.as_str(), needle.as_str());
            proptest::prop_assert_eq!(find(h, n), h.find(n));
            proptest::prop_assert_eq!(contains(h, n), h.contains(n));
            for c in n.chars() {
                proptest::prop_assert_eq!(h.has_char(c), h.contains(c));
            }
            proptest::prop_assert_eq!(rfind(h, n), h.rfind(n));
            proptest::prop_assert_eq!(split_once(h, n), h.split_once(n));
            proptest::prop_assert_eq!(rsplit_once(h, n), h.rsplit_once(n));
            proptest::prop_assert_eq!(replace(h, n, "<>"), h.replace(n, "<>"));
            proptest::prop_assert_eq!(trim_start_matches(h, n), h.trim_start_matches(n));
            proptest::prop_assert_eq!(trim_end_matches(h, n), h.trim_end_matches(n));
            if !n.is_empty() {
                proptest::prop_assert_eq!(split(h, n).collect::<Vec<_>>(), h.split(n).collect::<Vec<_>>());
                proptest::prop_assert_eq!(
                    match_indices(h, n).collect::<Vec<_>>(),
                    h.match_indices(n).map(|(i, _)| i).collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn edges() {
        assert_eq!(find("", ""), Some(0));
        assert_eq!(find("abc", ""), Some(0));
        assert_eq!(rfind("abc", ""), Some(3));
        assert_eq!(find("aab", "ab"), Some(1));
        assert_eq!(find("ab", "abc"), None);
        assert_eq!(rfind("abab", "ab"), Some(2));
        assert_eq!(replace("aaaa", "aa", "b"), "bb");
        assert_eq!(replace("ab", "", "-"), "-a-b-");
        assert_eq!(split("a::b::", "::").collect::<Vec<_>>(), ["a", "b", ""]);
        assert_eq!(split("x", "").collect::<Vec<_>>(), ["x"]);
    }
}
