//! Backslash escapes, decoded once for every place bash or a program reads them: the
//! shell's `$'…'` quoting and the `printf` / `echo -e` text the walker reads as a
//! script (`printf 'rm\x20-rf /' | sh`).
//!
//! The two dialects differ where bash and coreutils differ (bash manual, "ANSI-C
//! Quoting"; coreutils `echo`): `$'…'` knows `\a \b \e \f \r \v \cX \u \U` and reads at
//! most three octal digits in all; `echo -e` reads `\0` and up to three more, and a `\x`
//! without digits is a NUL byte there but nothing in `$'…'`. A leaf: it imports nothing
//! from the crate.

/// Whose escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// bash's `$'…'`.
    AnsiC,
    /// `printf` and `echo -e` text (the escapes both read the same way).
    Echo,
}

/// What one escape decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    /// A character (`\n`, `\t`, `\cA`, `\\`).
    Char(char),
    /// A number (`\xHH`, `\NNN`, `\uHHHH`): a byte for `echo`, a code point for `$'…'`.
    Code(u32),
    /// Nothing (`$'\x'` without digits, `$'\c'` at the end).
    Nothing,
    /// Not an escape: the backslash and the character stay as written.
    Verbatim,
}

/// The escape whose letter starts `rest` (the byte after the backslash; `rest` is not
/// empty), and how many bytes of `rest` it takes (at least one, except for
/// [`Escape::Verbatim`], which takes none: the caller copies the character).
pub fn decode_one(rest: &[u8], dialect: Dialect) -> (Escape, usize) {
    let Some(&c) = rest.first() else {
        return (Escape::Verbatim, 0);
    };
    let ansi = dialect == Dialect::AnsiC;
    let simple = match c {
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'\\' => Some('\\'),
        b'r' if ansi => Some('\r'),
        b'a' if ansi => Some('\x07'),
        b'b' if ansi => Some('\x08'),
        b'e' | b'E' if ansi => Some('\x1b'),
        b'f' if ansi => Some('\x0c'),
        b'v' if ansi => Some('\x0b'),
        b'\'' | b'"' | b'?' if ansi => Some(char::from(c)),
        _ => None,
    };
    if let Some(ch) = simple {
        return (Escape::Char(ch), 1);
    }
    match c {
        b'x' => match digits(rest.get(1..).unwrap_or_default(), 16, 2) {
            (_, 0) if ansi => (Escape::Nothing, 1),
            (v, n) => (Escape::Code(v), 1 + n),
        },
        b'u' if ansi => code_or_nothing(rest.get(1..).unwrap_or_default(), 4),
        b'U' if ansi => code_or_nothing(rest.get(1..).unwrap_or_default(), 8),
        b'0'..=b'7' => {
            let more = if ansi { 2 } else { 3 };
            let (v, n) = digits(rest.get(1..).unwrap_or_default(), 8, more);
            let first = u32::from(c - b'0');
            let v = first.wrapping_mul(8u32.pow(n as u32)).wrapping_add(v);
            (Escape::Code(v & 0xff), 1 + n)
        }
        b'c' if ansi => match rest.get(1) {
            Some(&d) => (Escape::Char(char::from(d & 0x1f)), 2),
            None => (Escape::Nothing, 1),
        },
        _ => (Escape::Verbatim, 0),
    }
}

fn code_or_nothing(rest: &[u8], max: usize) -> (Escape, usize) {
    match digits(rest, 16, max) {
        (_, 0) => (Escape::Nothing, 1),
        (v, n) => (Escape::Code(v), 1 + n),
    }
}

/// Up to `max` digits of `radix` at the start of `b`: their value and how many.
fn digits(b: &[u8], radix: u32, max: usize) -> (u32, usize) {
    let mut v = 0u32;
    let mut n = 0;
    while n < max {
        match b.get(n).and_then(|&d| char::from(d).to_digit(radix)) {
            Some(d) => {
                v = v.wrapping_mul(radix).wrapping_add(d);
                n += 1;
            }
            None => break,
        }
    }
    (v, n)
}

/// `printf` / `echo -e` text with its escapes decoded: numbers are bytes, and the
/// result is read as UTF-8 (invalid sequences replaced).
pub fn decode_echo(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let Some(&next) = b.get(i + 1).filter(|_| c == b'\\') else {
            out.push(c);
            i += 1;
            continue;
        };
        match decode_one(b.get(i + 1..).unwrap_or_default(), Dialect::Echo) {
            (Escape::Char(c), n) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                i += 1 + n;
            }
            (Escape::Code(v), n) => {
                out.push((v & 0xff) as u8);
                i += 1 + n;
            }
            (Escape::Nothing, n) => i += 1 + n,
            (Escape::Verbatim, _) => {
                out.push(b'\\');
                out.push(next);
                i += 2;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_escapes() {
        assert_eq!(decode_echo(r"rm\x20-rf\t/\n"), "rm -rf\t/\n");
        assert_eq!(decode_echo(r"\0162\155"), "rm");
        assert_eq!(decode_echo(r"\162m"), "rm");
        assert_eq!(decode_echo(r"a\qb\\"), r"a\qb\");
        assert_eq!(decode_echo(r"\x"), "\0");
        assert_eq!(decode_echo("end\\"), "end\\");
        assert_eq!(decode_echo(r"\r\e"), r"\r\e", "not echo's escapes");
    }

    #[test]
    fn ansi_c_escapes() {
        let one = |s: &str| decode_one(s.as_bytes(), Dialect::AnsiC);
        assert_eq!(one("x41"), (Escape::Code(0x41), 3));
        assert_eq!(one("x"), (Escape::Nothing, 1));
        assert_eq!(one("u263a!"), (Escape::Code(0x263a), 5));
        assert_eq!(one("1234"), (Escape::Code(0o123), 3));
        assert_eq!(one("cA"), (Escape::Char('\x01'), 2));
        assert_eq!(one("c"), (Escape::Nothing, 1));
        assert_eq!(one("e"), (Escape::Char('\x1b'), 1));
        assert_eq!(one("'"), (Escape::Char('\''), 1));
        assert_eq!(one("q"), (Escape::Verbatim, 0));
    }

    #[test]
    fn every_input_decodes_and_advances() {
        // Every two- and three-byte escape body, both dialects: no panic, and the bytes
        // taken stay within the input.
        let alphabet: Vec<u8> = (0u8..=127).chain([0xc3, 0xff]).collect();
        for &a in &alphabet {
            for &b in &alphabet {
                for dialect in [Dialect::AnsiC, Dialect::Echo] {
                    let (e, n) = decode_one(&[a, b], dialect);
                    assert!(n <= 2, "{a} {b}");
                    assert_eq!(n == 0, e == Escape::Verbatim, "{a} {b}");
                }
            }
        }
    }
}
