//! Bounds the shape of a policy file before the TOML reader (`policy::toml`) sees it. A
//! TOML reader that recurses once per nested `[`/`{` or copies a table header's whole
//! key path per segment would overflow the stack on 100 KB of `[` or hold 4 GB for a
//! 60 KB header `[a.a.a…]` (the general reader the core used before did both). One
//! linear pass over the text, aware of TOML's strings and comments, refuses such files
//! with the line where the limit was passed, so reading a policy costs time and memory
//! linear in its size, whatever the file.

/// The largest policy file read, in bytes.
pub const MAX_POLICY_BYTES: usize = 256 * 1024;

/// The deepest nesting of arrays and inline tables (`[` and `{` outside strings).
pub const MAX_NESTING: usize = 32;

/// The most dots outside strings on one line (key segments of a header or a dotted key;
/// a number's `1.5` does not count).
pub const MAX_DOTS_PER_LINE: usize = 32;

/// Why a policy text of `len` bytes is refused for its size alone (line 1), before anyone
/// reads it.
pub fn check_size(len: usize) -> Result<(), (usize, String)> {
    if len > MAX_POLICY_BYTES {
        return Err((
            1,
            format!("the policy file is {len} bytes, over the limit of {MAX_POLICY_BYTES}"),
        ));
    }
    Ok(())
}

/// Why a policy text is refused before parsing: the 1-based line and a message.
pub fn check(text: &str) -> Result<(), (usize, String)> {
    check_size(text.len())?;
    let b = text.as_bytes();
    let (mut i, mut line, mut depth, mut dots) = (0usize, 1usize, 0usize, 0usize);
    while let Some(&cur) = b.get(i) {
        match cur {
            b'\n' => {
                line += 1;
                dots = 0;
                i += 1;
            }
            b'#' => {
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let multi = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
                i = skip_string(b, i, q, multi, &mut line);
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err((
                        line,
                        format!("arrays and tables nested over {MAX_NESTING} levels deep"),
                    ));
                }
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'.' => {
                let digit =
                    |j: Option<usize>| j.and_then(|j| b.get(j)).is_some_and(u8::is_ascii_digit);
                if !(digit(i.checked_sub(1)) && digit(Some(i + 1))) {
                    dots += 1;
                    if dots > MAX_DOTS_PER_LINE {
                        return Err((
                            line,
                            format!("a key of over {MAX_DOTS_PER_LINE} dotted parts"),
                        ));
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// The index just after the string that starts at `start` with quote `q` (three of them
/// when `multi`); `\` escapes in basic (`"`) strings only. Counts the newlines it
/// crosses. An unterminated string runs to its line's end (single-line) or the text's
/// end (multi-line); the parser reports it.
fn skip_string(b: &[u8], start: usize, q: u8, multi: bool, line: &mut usize) -> usize {
    let mut i = start + if multi { 3 } else { 1 };
    while let Some(&cur) = b.get(i) {
        match cur {
            b'\\' if q == b'"' => {
                if b.get(i + 1) == Some(&b'\n') {
                    *line += 1;
                }
                i += 2;
                continue;
            }
            b'\n' => {
                if !multi {
                    return i;
                }
                *line += 1;
            }
            c if c == q => {
                if !multi {
                    return i + 1;
                }
                if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                    // Up to two more quotes may belong to the content (`""""`).
                    let mut end = i + 3;
                    while b.get(end) == Some(&q) && end < i + 5 {
                        end += 1;
                    }
                    return end;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len().min(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_policies_pass() {
        for text in [
            "default = \"ask\"\n[rules]\nallow = [\"Bash(ls [a-z]*)\", 'Read(**/{a,b}.rs)']\n",
            "[rules]\ndeny = [\n  \"Bash(rm -rf [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[)\",\n]\n",
            "# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ a comment\nx = 1.5\n",
            "x = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\"\"\"\n",
            "x = '''[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['''\n",
            "x = \"\\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\n",
            "a.b.c = 1\n[x.y.z]\nv = [1.0, 2.5, 1979-05-27T07:32:00.999]\n",
        ] {
            assert_eq!(check(text), Ok(()), "{text}");
        }
    }

    #[test]
    fn deep_nesting_long_headers_and_size_are_refused_with_a_line() {
        let deep = format!("# ok\nx = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(check(&deep).map_err(|e| e.0), Err(2));
        let tables = format!("x = {}1{}\n", "{a=".repeat(50_000), "}".repeat(50_000));
        assert!(check(&tables).is_err());
        let header = format!("\n\n[{}b]\n", "a.".repeat(30_000));
        assert_eq!(check(&header).map_err(|e| e.0), Err(3));
        let quoted = format!("[{}b]\n", "\"a\".".repeat(100));
        assert!(check(&quoted).is_err());
        let big = "#".repeat(MAX_POLICY_BYTES + 1);
        assert_eq!(check(&big).map_err(|e| e.0), Err(1));
        // Lines are counted inside multi-line strings.
        let after = format!("x = \"\"\"\na\nb\n\"\"\"\ny = {}\n", "[".repeat(40));
        assert_eq!(check(&after).map_err(|e| e.0), Err(5));
    }
}
