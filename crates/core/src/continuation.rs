//! Line continuations, removed where bash removes them, before parsing.
//!
//! bash deletes every backslash-newline pair from its input before it tokenizes —
//! outside quotes, inside double quotes, `${…}`, `$(…)`, backticks and the bodies of
//! here-documents with an unquoted delimiter — but not inside single quotes, `$'…'`,
//! comments, or the bodies of here-documents whose delimiter is quoted (bash manual,
//! "Escape Character", "Double Quotes", "Here Documents"). So `"$\⏎(cmd)"` is `"$(cmd)"`
//! and runs `cmd`, and `ec\⏎ho` is `echo`. One pass over the text with a stack of
//! quoting contexts, linear in its length; the map takes every position of the result
//! back to the original text, so spans still point into what the user wrote.

/// A quoting context the scanner is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Unquoted command text; `parens` counts `(` opened in it (a `)` past them ends
    /// the `$(…)` that pushed it).
    Cmd { parens: usize },
    /// Inside `"…"`.
    Double,
    /// Inside `${…}`; `braces` counts nested `{`.
    Param { braces: usize },
    /// Inside `` `…` ``.
    Backtick,
}

/// A here-document whose body starts after the current line.
struct Pending {
    delim: String,
    quoted: bool,
    strip_tabs: bool,
}

/// The text with bash's line continuations removed, and for each byte of it (plus one
/// past the end) its offset in `src`; `None` when there is nothing to remove (the
/// common case costs one search).
pub fn remove(src: &str) -> Option<(String, Vec<usize>)> {
    scan(src, true)
}

/// [`remove`]; `runs`: bytes that no context treats specially are copied a run at a
/// time (`false`, one at a time, is the reference the tests compare it with).
fn scan(src: &str, runs: bool) -> Option<(String, Vec<usize>)> {
    // One byte pass first: most commands have no line continuation.
    if !crate::needle::contains(src, "\\\n") {
        return None;
    }
    let b = src.as_bytes();
    let mut s = Scanner {
        b,
        out: Vec::with_capacity(b.len()),
        map: Vec::with_capacity(b.len() + 1),
        stack: vec![Ctx::Cmd { parens: 0 }],
        pending: Vec::new(),
        removed: false,
        runs,
    };
    let mut i = 0;
    while i < b.len() {
        // A continuation, in every context the scanner stacks.
        if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'\n') {
            i += 2;
            s.removed = true;
            continue;
        }
        i = s.step(i);
    }
    if !s.removed {
        return None;
    }
    s.map.push(b.len());
    // Only whole UTF-8 sequences are copied or skipped (a continuation is two ASCII
    // bytes), so the result is valid UTF-8.
    String::from_utf8(s.out).ok().map(|out| (out, s.map))
}

/// The scan of [`remove`]: the text kept so far, its map back to the source, the
/// stack of quoting contexts and the here-documents whose bodies start after the line.
struct Scanner<'a> {
    b: &'a [u8],
    out: Vec<u8>,
    map: Vec<usize>,
    stack: Vec<Ctx>,
    pending: Vec<Pending>,
    removed: bool,
    runs: bool,
}

/// A byte some context of [`Scanner::step`] acts on; every other byte is copied as it
/// is in every context.
fn special(c: u8) -> bool {
    matches!(
        c,
        b'\\' | b'`' | b'"' | b'\'' | b'$' | b'(' | b')' | b'{' | b'}' | b'#' | b'<' | b'\n'
    )
}

impl Scanner<'_> {
    fn copy(&mut self, from: usize, to: usize) {
        let bytes = self.b.get(from..to).unwrap_or_default();
        self.out.extend_from_slice(bytes);
        self.map.extend(from..from + bytes.len());
    }

    /// Copies what starts at `i` (not a continuation): where the next step starts.
    fn step(&mut self, i: usize) -> usize {
        let b = self.b;
        let ctx = *self.stack.last().unwrap_or(&Ctx::Cmd { parens: 0 });
        if let Some(next) = self.quoting(ctx, i) {
            return next;
        }
        let Some(&c) = b.get(i) else {
            return b.len();
        };
        match (ctx, c) {
            (Ctx::Cmd { .. }, b'#') if word_start(&self.out) => {
                // A comment, to the end of its line, as written.
                let end = b
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&q| q == b'\n')
                    .map_or(b.len(), |k| i + k);
                self.copy(i, end);
                end
            }
            // A here-string, `<<<`: its word is read on, not a here-document's
            // delimiter (its second `<` must not start one either).
            (Ctx::Cmd { .. }, b'<')
                if b.get(i + 1) == Some(&b'<') && b.get(i + 2) == Some(&b'<') =>
            {
                self.copy(i, i + 3);
                i + 3
            }
            (Ctx::Cmd { .. }, b'<') if b.get(i + 1) == Some(&b'<') => {
                let strip_tabs = b.get(i + 2) == Some(&b'-');
                let mut j = i + 2 + usize::from(strip_tabs);
                while matches!(b.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                let (delim, quoted, end) = delimiter(b, j);
                if !delim.is_empty() {
                    self.pending.push(Pending {
                        delim,
                        quoted,
                        strip_tabs,
                    });
                }
                self.copy(i, end);
                end
            }
            (Ctx::Cmd { .. }, b'\n') if !self.pending.is_empty() => {
                self.copy(i, i + 1);
                let mut i = i + 1;
                for doc in std::mem::take(&mut self.pending) {
                    i = body(b, i, &doc, self);
                }
                i
            }
            _ => {
                // This byte, and the plain bytes after it (none of which any context
                // acts on: stepping through them one by one copies each as it is).
                let end = match self.runs {
                    true => b
                        .get(i + 1..)
                        .unwrap_or_default()
                        .iter()
                        .position(|&q| special(q))
                        .map_or(b.len(), |k| i + 1 + k),
                    false => i + 1,
                };
                self.copy(i, end);
                end
            }
        }
    }

    /// Quotes, escapes, substitutions and parentheses: how they change the context
    /// stack; `None` for any other byte.
    fn quoting(&mut self, ctx: Ctx, i: usize) -> Option<usize> {
        let b = self.b;
        let next = match (ctx, *b.get(i)?) {
            (_, b'\\') => {
                // An escaped character: both bytes as they are.
                let end = (i + 2).min(b.len());
                self.copy(i, end);
                end
            }
            (Ctx::Backtick, b'`') => {
                self.stack.pop();
                self.copy(i, i + 1);
                i + 1
            }
            (Ctx::Double, b'"') => {
                self.stack.pop();
                self.copy(i, i + 1);
                i + 1
            }
            (Ctx::Param { braces }, b'}') => {
                if braces == 0 {
                    self.stack.pop();
                } else if let Some(top) = self.stack.last_mut() {
                    *top = Ctx::Param { braces: braces - 1 };
                }
                self.copy(i, i + 1);
                i + 1
            }
            (Ctx::Param { braces }, b'{') => {
                if let Some(top) = self.stack.last_mut() {
                    *top = Ctx::Param { braces: braces + 1 };
                }
                self.copy(i, i + 1);
                i + 1
            }
            (_, b'$') if b.get(i + 1) == Some(&b'(') => {
                self.stack.push(Ctx::Cmd { parens: 0 });
                self.copy(i, i + 2);
                i + 2
            }
            (_, b'$') if b.get(i + 1) == Some(&b'{') => {
                self.stack.push(Ctx::Param { braces: 0 });
                self.copy(i, i + 2);
                i + 2
            }
            (Ctx::Cmd { .. } | Ctx::Param { .. }, b'$') if b.get(i + 1) == Some(&b'\'') => {
                // `$'…'`: kept as written up to its closing quote.
                let end = ansi_c_end(b, i + 2);
                self.copy(i, end);
                end
            }
            (_, b'`') => {
                self.stack.push(Ctx::Backtick);
                self.copy(i, i + 1);
                i + 1
            }
            (Ctx::Cmd { .. } | Ctx::Param { .. } | Ctx::Backtick, b'"') => {
                self.stack.push(Ctx::Double);
                self.copy(i, i + 1);
                i + 1
            }
            (Ctx::Cmd { .. } | Ctx::Backtick, b'\'') => {
                // Single quotes: kept as written.
                let end = b
                    .get(i + 1..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&q| q == b'\'')
                    .map_or(b.len(), |k| i + 2 + k);
                self.copy(i, end);
                end
            }
            (Ctx::Cmd { parens }, b'(') => {
                if let Some(top) = self.stack.last_mut() {
                    *top = Ctx::Cmd { parens: parens + 1 };
                }
                self.copy(i, i + 1);
                i + 1
            }
            (Ctx::Cmd { parens }, b')') => {
                if parens == 0 {
                    if self.stack.len() > 1 {
                        self.stack.pop();
                    }
                } else if let Some(top) = self.stack.last_mut() {
                    *top = Ctx::Cmd { parens: parens - 1 };
                }
                self.copy(i, i + 1);
                i + 1
            }
            _ => return None,
        };
        Some(next)
    }
}

/// The end of `$'…'` whose text starts at `from` (just after the opening quote).
fn ansi_c_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while let Some(&cur) = b.get(j) {
        match cur {
            b'\\' => j += 2,
            b'\'' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// Whether the next byte starts a word (a `#` there starts a comment).
fn word_start(out: &[u8]) -> bool {
    out.last()
        .is_none_or(|&p| matches!(p, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')'))
}

/// The here-document delimiter word at `j`: its text after quote removal, whether any
/// of it was quoted, and where it ends.
fn delimiter(b: &[u8], mut j: usize) -> (String, bool, usize) {
    let mut text = Vec::new();
    let mut quoted = false;
    while let Some(&c) = b.get(j) {
        match c {
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' => break,
            b'\'' | b'"' => {
                quoted = true;
                let end = b
                    .get(j + 1..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&q| q == c)
                    .map_or(b.len(), |k| j + 1 + k);
                text.extend_from_slice(b.get(j + 1..end).unwrap_or_default());
                j = (end + 1).min(b.len());
            }
            b'\\' => {
                quoted = true;
                if let Some(&n) = b.get(j + 1) {
                    text.push(n);
                }
                j += 2;
            }
            _ => {
                text.push(c);
                j += 1;
            }
        }
    }
    (
        String::from_utf8_lossy(&text).into_owned(),
        quoted,
        j.min(b.len()),
    )
}

/// Copies a here-document body that starts at `from`, through its delimiter line:
/// continuations removed when the delimiter was unquoted. Returns where it ended.
fn body(b: &[u8], from: usize, doc: &Pending, s: &mut Scanner<'_>) -> usize {
    let mut line = from;
    while line < b.len() {
        let end = b
            .get(line..)
            .unwrap_or_default()
            .iter()
            .position(|&q| q == b'\n')
            .map_or(b.len(), |k| line + k);
        let text = b.get(line..end).unwrap_or_default();
        let text = if doc.strip_tabs {
            let tabs = text.iter().take_while(|&&t| t == b'\t').count();
            text.get(tabs..).unwrap_or_default()
        } else {
            text
        };
        let is_delim = text.strip_suffix(b"\r").unwrap_or(text) == doc.delim.as_bytes();
        let stop = (end + 1).min(b.len());
        let removes = !doc.quoted && !is_delim;
        if s.runs {
            // A newline ends the line, so a continuation can only be its last two
            // bytes: the line up to it, then past it.
            if removes && end > line && end < b.len() && b.get(end - 1) == Some(&b'\\') {
                s.copy(line, end - 1);
                s.removed = true;
            } else {
                s.copy(line, stop);
            }
        } else {
            let mut k = line;
            while k < stop {
                if removes && b.get(k) == Some(&b'\\') && b.get(k + 1) == Some(&b'\n') {
                    k += 2;
                    s.removed = true;
                    continue;
                }
                s.copy(k, k + 1);
                k += 1;
            }
        }
        line = stop;
        if is_delim {
            break;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Copying plain bytes a run at a time gives what copying them one by one
        /// gives: the same text and map (shell-ish texts with continuations,
        /// quotes, substitutions, comments and here-documents).
        #[test]
        fn runs_copy_as_single_bytes_do(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "\\\n", "\\", "\n", "a", "é", " ", "#", "'", "\"", "`", "$(", "$", "${", "{", "}",
                "(", ")", "<<", "<<-", "<<<", "E", "'E'", "\t", "\r", "echo ", "$'", "x\\\n", "\\\\\n",
            ]), 0..40)
        ) {
            let src: String = parts.concat();
            proptest::prop_assert_eq!(scan(&src, true), scan(&src, false), "{:?}", src);
        }
    }

    fn clean(src: &str) -> String {
        remove(src).map_or_else(|| src.to_string(), |(s, _)| s)
    }

    #[test]
    fn removed_where_bash_removes_them() {
        for (src, want) in [
            ("ec\\\nho hi", "echo hi"),
            ("ls \"$\\\n(rm -rf /)\"", "ls \"$(rm -rf /)\""),
            ("echo ${x\\\n}", "echo ${x}"),
            ("echo `echo a\\\nb`", "echo `echo ab`"),
            ("cat <<E\n$\\\n(curl x)\nE\n", "cat <<E\n$(curl x)\nE\n"),
            ("echo \"$(echo 'a\\\nb')\"", "echo \"$(echo 'a\\\nb')\""),
            ("a \\\n  b", "a   b"),
            // A here-string's word, not a here-document's delimiter.
            ("cat <<< \"$\\\n(git push)\"", "cat <<< \"$(git push)\""),
            ("cat <<<$\\\n(git push)", "cat <<<$(git push)"),
            ("cat<<<\"a\"<<E\n$\\\n(x)\nE\n", "cat<<<\"a\"<<E\n$(x)\nE\n"),
        ] {
            assert_eq!(clean(src), want, "{src:?}");
        }
    }

    #[test]
    fn kept_where_bash_keeps_them() {
        for src in [
            "echo 'x\\\ny'",
            "echo $'x\\\ny'",
            "echo a # c \\\necho b",
            "cat <<'E'\nx\\\ny\nE\n",
            "cat <<\"E\"\nx\\\ny\nE\n",
            "cat <<\\E\nx\\\ny\nE\n",
            "cat <<< 'x\\\ny'",
            "echo \\\\",
            "no continuation here",
        ] {
            assert!(remove(src).is_none(), "{src:?}");
        }
    }

    #[test]
    fn the_map_points_back_into_the_source() {
        let src = "ls \"$\\\n(rm -rf /)\" x";
        let (text, map) = remove(src).expect("a continuation");
        assert_eq!(map.len(), text.len() + 1);
        for (k, &o) in map.iter().enumerate().take(text.len()) {
            assert_eq!(text.as_bytes()[k], src.as_bytes()[o], "byte {k}");
        }
        assert_eq!(*map.last().unwrap_or(&0), src.len());
        let start = text.find("rm").unwrap_or(0);
        assert_eq!(&src[map[start]..map[start] + 2], "rm");
    }
}
