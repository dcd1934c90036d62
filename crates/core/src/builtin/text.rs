//! Text helpers: the expansions in a word and the names arithmetic reads.

/// Does an unquoted here-document body expand anything (`$x`, `${…}`, `$(…)`,
/// `$((…))`, a backtick) that bash substitutes before a shell reads the body?
pub(super) fn expands(body: &str) -> bool {
    let b = body.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'`' => return true,
            b'$' if b
                .get(i + 1)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || b"_{([@*#?$!-".contains(&c)) =>
            {
                return true
            }
            _ => i += 1,
        }
    }
    false
}

/// The text a shell fed an unquoted here-document reads, before the values of its
/// expansions are put in. In such a body a backslash quotes only `$`, `` ` `` and `\`
/// (bash's manual, "Here Documents"; a backslash-newline is already gone), and the quote
/// is removed: `\$(cmd)` and `` \`cmd\` `` reach the shell as `$(cmd)` and `` `cmd` ``,
/// which it then runs. Any other backslash stays.
pub(super) fn heredoc_text(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&n @ ('$' | '`' | '\\')) = chars.peek() {
                out.push(n);
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The body with every expansion replaced by a newline: the reading of an expanded
/// here-document in which each value ends a command (`ls ${x:-;} rm -rf /` runs `rm`).
pub(super) fn expansions_as_separators(body: &str) -> String {
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    let mut last = 0;
    while let Some(&c) = b.get(i) {
        let end = match c {
            b'\\' => {
                i += 2;
                continue;
            }
            b'`' => b
                .get(i + 1..)
                .and_then(|r| r.iter().position(|&c| c == b'`'))
                .map_or(b.len(), |k| i + 2 + k),
            b'$' => match b.get(i + 1) {
                Some(&open @ (b'{' | b'(' | b'[')) => {
                    let close = match open {
                        b'{' => b'}',
                        b'(' => b')',
                        _ => b']',
                    };
                    let mut depth = 0usize;
                    let mut j = i + 1;
                    while let Some(&c) = b.get(j) {
                        if c == open {
                            depth += 1;
                        } else if c == close {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        j += 1;
                    }
                    (j + 1).min(b.len())
                }
                Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                    let n = b
                        .get(i + 1..)
                        .unwrap_or(&[])
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                        .count();
                    i + 1 + n
                }
                Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(c) => i + 2,
                _ => {
                    i += 1;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(body.get(last..i).unwrap_or(""));
        out.push('\n');
        i = end.max(i + 1);
        last = i;
    }
    out.push_str(body.get(last..).unwrap_or(""));
    out
}

/// The variable names read inside the `$((…))` and `$[…]` of a word: bare names and
/// `$name` / `${name…}` (a letter after a digit or `#` is part of a number, `0xff`,
/// `16#ff`).
pub(super) fn arith_names(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(rest) = b.get(i..).filter(|r| !r.is_empty()) {
        let (open_len, close) = if rest.starts_with(b"$((") {
            (3, b')')
        } else if rest.starts_with(b"$[") {
            (2, b']')
        } else {
            i += 1;
            continue;
        };
        let open = if close == b')' { b'(' } else { b'[' };
        let mut depth = 1usize;
        let mut j = i + open_len;
        while let Some(&c) = b.get(j).filter(|_| depth > 0) {
            if (c == b'$' && b.get(j + 1) == Some(&b'(') && b.get(j + 2) != Some(&b'('))
                || c == b'`'
            {
                // A command substitution: its output is judged by `arith_output`.
                let (o, cl) = if c == b'`' { (0u8, b'`') } else { (b'(', b')') };
                let mut d = 0usize;
                let mut k = j + 1;
                while let Some(&ck) = b.get(k) {
                    if o != 0 && ck == o {
                        d += 1;
                    } else if ck == cl {
                        if d <= 1 {
                            break;
                        }
                        d -= 1;
                    }
                    k += 1;
                }
                j = k + 1;
                continue;
            }
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
            } else if (c.is_ascii_alphabetic() || c == b'_')
                && !j
                    .checked_sub(1)
                    .and_then(|p| b.get(p))
                    .is_some_and(|&p| p.is_ascii_alphanumeric() || p == b'#' || p == b'_')
            {
                let n = b
                    .get(j..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                names.extend(text.get(j..j + n));
                j += n;
                continue;
            } else if c == b'$'
                && b.get(j + 1)
                    .is_some_and(|d| d.is_ascii_digit() || b"@*#?$!-".contains(d))
            {
                names.extend(text.get(j..j + 2));
            }
            j += 1;
        }
        i = j.max(i + 1);
    }
    names
}
