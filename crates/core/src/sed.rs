//! `sed` scripts read as GNU sed 4.9 reads them, to tell a script that only reads and
//! prints (`sed -n '240,260p' f.py`, `sed -n '/def write/,/return/p' f.py`) from one
//! that writes (`w`, `W`, `s///w`), reads another file (`r`, `R`) or runs a command
//! (`e`, `s///e`). A script it cannot read is unknown, and asks.
//!
//! Accepted: addresses (a number, `$`, `/re/` and `\%re%` with the `I` and `M` flags,
//! `first~step`, `0,/re/`, ranges `a,b`, `a,+N`, `a,~N`, and `!`), comments, and the
//! commands `{ } = p P l F z n N d D q Q g G h H x b t T : y s` with `s` flags `g p i I
//! m M` and a number. Everything else (`a i c r R w W e v` and unknown letters) is not
//! read-only, or not understood: [`reads_only`] says which.

/// Why a script is not read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotReadOnly {
    /// A command or flag that writes, reads another file or runs a command
    /// (`w out`, `s/a/b/e`, `r /etc/passwd`): its text.
    Effect(String),
    /// A command outside the read-only set, or a script sed would reject: what and
    /// where.
    Unknown(String),
}

/// Commands that take no argument and only print, move or edit the pattern space.
const PLAIN: &[u8] = b"=pPlFznNdDgGhHx";

/// Does `script` (one `-e` value, or the script operand) only read its input and print?
pub fn reads_only(script: &str) -> Result<(), NotReadOnly> {
    check(script, false)
}

/// Does `script` only edit the text it reads — what [`reads_only`] accepts, and the
/// commands that add text (`a`, `i`, `c`)? With `-i` that is an edit of each file.
pub fn edits_only(script: &str) -> Result<(), NotReadOnly> {
    check(script, true)
}

fn check(script: &str, text_commands: bool) -> Result<(), NotReadOnly> {
    let b = script.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    loop {
        // Between commands: blanks, newlines and `;`.
        while b
            .get(i)
            .is_some_and(|&c| matches!(c, b' ' | b'\t' | b'\n' | b';'))
        {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        if b.get(i) == Some(&b'#') {
            while b.get(i).is_some_and(|&c| c != b'\n') {
                i += 1;
            }
            continue;
        }
        i = addresses(b, i)?;
        let Some(&c) = b.get(i) else {
            return Err(unknown("a command after the address", i));
        };
        i += 1;
        match c {
            b'{' => {
                depth += 1;
                continue;
            }
            b'}' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| unknown("`}` without `{`", i - 1))?;
            }
            _ if PLAIN.contains(&c) => {
                if c == b'l' {
                    skip_blanks(b, &mut i);
                    skip_digits(b, &mut i);
                }
            }
            b'q' | b'Q' => {
                skip_blanks(b, &mut i);
                skip_digits(b, &mut i);
            }
            b'b' | b't' | b'T' => {
                // An optional label, up to `;` or a newline.
                while b.get(i).is_some_and(|&c| !matches!(c, b';' | b'\n')) {
                    i += 1;
                }
                continue;
            }
            b':' => {
                skip_blanks(b, &mut i);
                let start = i;
                while b.get(i).is_some_and(|&c| !matches!(c, b';' | b'\n')) {
                    i += 1;
                }
                if i == start {
                    return Err(unknown("a label after `:`", start));
                }
                continue;
            }
            b'y' => {
                let delim = *b.get(i).ok_or_else(|| unknown("`y` without text", i))?;
                if matches!(delim, b'\n' | b'\\') {
                    return Err(unknown("a `y` delimiter", i));
                }
                i = delimited(b, i + 1, delim)?;
                i = delimited(b, i, delim)?;
            }
            b's' => i = substitute(b, i)?,
            b'a' | b'i' | b'c' if text_commands => {
                // `a text` (to the end of the line) or `a\` newline, then lines that
                // end in `\` continue the text.
                skip_blanks(b, &mut i);
                if b.get(i) == Some(&b'\\') {
                    i += 1;
                    if b.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                }
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += if b.get(i) == Some(&b'\\') { 2 } else { 1 };
                }
                continue;
            }
            b'w' | b'W' => {
                return Err(NotReadOnly::Effect(format!(
                    "the command `{}` writes a file",
                    char::from(c)
                )))
            }
            b'r' | b'R' => {
                return Err(NotReadOnly::Effect(format!(
                    "the command `{}` reads another file into the output",
                    char::from(c)
                )))
            }
            b'e' => {
                return Err(NotReadOnly::Effect(
                    "the command `e` runs a command".to_string(),
                ))
            }
            _ => {
                return Err(unknown(
                    &format!("the command `{}`", String::from_utf8_lossy(&[c])),
                    i - 1,
                ))
            }
        }
        // After a command: blanks, then `;`, a newline, `}`, `#` or the end.
        skip_blanks(b, &mut i);
        match b.get(i) {
            None | Some(b';' | b'\n' | b'}' | b'#') => {}
            Some(_) => return Err(unknown("text after a command", i)),
        }
    }
    if depth != 0 {
        return Err(unknown("`{` without `}`", b.len()));
    }
    Ok(())
}

/// An address or a range (`1`, `/re/`, `$`, `1,/re/`, `addr,+N`, `addr,~N`) and any `!`
/// after it, from `i`: where the command starts.
fn addresses(b: &[u8], mut i: usize) -> Result<usize, NotReadOnly> {
    i = address(b, i)?;
    skip_blanks(b, &mut i);
    if b.get(i) == Some(&b',') {
        i += 1;
        skip_blanks(b, &mut i);
        if b.get(i).is_some_and(|&c| matches!(c, b'+' | b'~')) {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
            if i == start {
                return Err(unknown("a number after `+` or `~`", i));
            }
        } else {
            let before = i;
            i = address(b, i)?;
            if i == before {
                return Err(unknown("an address after `,`", i));
            }
        }
        skip_blanks(b, &mut i);
    }
    while b.get(i) == Some(&b'!') {
        i += 1;
        skip_blanks(b, &mut i);
    }
    Ok(i)
}

/// The `s` command after its letter, from `i` (the delimiter): its pattern, its
/// replacement and its flags, where `w` writes a file and `e` runs a command.
fn substitute(b: &[u8], mut i: usize) -> Result<usize, NotReadOnly> {
    let delim = *b.get(i).ok_or_else(|| unknown("`s` without text", i))?;
    if matches!(delim, b'\n' | b'\\') {
        return Err(unknown("an `s` delimiter", i));
    }
    i = delimited(b, i + 1, delim)?;
    i = delimited(b, i, delim)?;
    // Flags.
    while let Some(&f) = b.get(i) {
        match f {
            b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => i += 1,
            b'w' | b'e' => {
                return Err(NotReadOnly::Effect(format!(
                    "the s flag `{}` {}",
                    char::from(f),
                    if f == b'w' {
                        "writes a file"
                    } else {
                        "runs the pattern space as a command"
                    }
                )))
            }
            _ => break,
        }
    }
    Ok(i)
}

fn unknown(what: &str, at: usize) -> NotReadOnly {
    NotReadOnly::Unknown(format!("{what} at byte {at}"))
}

fn skip_blanks(b: &[u8], i: &mut usize) {
    while b.get(*i).is_some_and(|&c| matches!(c, b' ' | b'\t')) {
        *i += 1;
    }
}

fn skip_digits(b: &[u8], i: &mut usize) {
    while b.get(*i).is_some_and(|c| c.is_ascii_digit()) {
        *i += 1;
    }
}

/// One address at `i`, if any: its end (`i` when there is none).
fn address(b: &[u8], mut i: usize) -> Result<usize, NotReadOnly> {
    match b.get(i) {
        Some(b'0'..=b'9') => {
            skip_digits(b, &mut i);
            if b.get(i) == Some(&b'~') {
                i += 1;
                skip_digits(b, &mut i);
            }
            Ok(i)
        }
        Some(b'$') => Ok(i + 1),
        Some(b'/') => regex_flags(b, delimited(b, i + 1, b'/')?),
        Some(b'\\') => {
            let delim = *b.get(i + 1).ok_or_else(|| unknown("`\\` at the end", i))?;
            if matches!(delim, b'\n' | b'\\') {
                return Err(unknown("an address delimiter", i + 1));
            }
            regex_flags(b, delimited(b, i + 2, delim)?)
        }
        _ => Ok(i),
    }
}

fn regex_flags(b: &[u8], mut i: usize) -> Result<usize, NotReadOnly> {
    while matches!(b.get(i), Some(b'I' | b'M')) {
        i += 1;
    }
    Ok(i)
}

/// Text up to an unescaped `delim` from `i` (a regex or replacement): the index after
/// the delimiter. A newline inside is allowed only escaped, as in sed.
fn delimited(b: &[u8], mut i: usize, delim: u8) -> Result<usize, NotReadOnly> {
    let start = i;
    while let Some(&cur) = b.get(i) {
        match cur {
            b'\\' => i += 2,
            c if c == delim => return Ok(i + 1),
            b'\n' => return Err(unknown("a newline in a regex or replacement", i)),
            _ => i += 1,
        }
    }
    Err(unknown("an unterminated regex or replacement", start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_scripts() {
        for s in [
            "240,260p",
            "1,50p",
            "p",
            "$p",
            "/def write/,/return/p",
            "\\%usr%p",
            "/x/I,+3p",
            "0~4p",
            "1~2d",
            "0,/re/p",
            "10,~4p",
            "5!d",
            "1,3!p;5q",
            "s/a/b/g",
            "s|a|b|2p",
            "s/a\\/b/c/I",
            "y/abc/xyz/",
            "/start/,/end/{/skip/d;p}",
            "n;N;D;P;G;H;g;h;x;z;F;=;l;l 70",
            ":a;N;$!ba;s/\\n/ /g",
            "$!N;P;D",
            "q5",
            "Q",
            "# a comment\np",
            "1p ; 2p",
            "",
        ] {
            assert_eq!(reads_only(s), Ok(()), "{s:?}");
        }
    }

    #[test]
    fn writing_reading_running_scripts() {
        for s in [
            "w out.txt",
            "1W out",
            "s/a/b/w out",
            "s/a/b/gw out",
            "s/x/id/e",
            "e id",
            "r /etc/passwd",
            "1R .env",
            "p;w x",
            "/x/{p;w y\n}",
        ] {
            assert!(
                matches!(reads_only(s), Err(NotReadOnly::Effect(_))),
                "{s:?}: {:?}",
                reads_only(s)
            );
        }
    }

    #[test]
    fn text_commands_only_when_editing() {
        for s in [
            "5a\\    print(x)",
            "5a\\\n    print(x)\\\n    print(y)",
            "/def f/i import os",
            "1,3c\\\nnew",
            "$a end; p",
            "5i\\x\n6d",
            "s/a/b/;3a x",
        ] {
            assert_eq!(edits_only(s), Ok(()), "{s:?}");
            assert!(reads_only(s).is_err(), "{s:?}");
        }
        for s in ["5a x\nw out", "1i x\n1r .env", "a x\ns/a/b/e"] {
            assert!(
                matches!(edits_only(s), Err(NotReadOnly::Effect(_))),
                "{s:?}"
            );
        }
    }

    #[test]
    fn unknown_scripts() {
        for s in [
            "a text",
            "1i\\line",
            "c\\x",
            "v",
            "k",
            "s/a/b",
            "s/a/b/x",
            "{p",
            "p}",
            "1,",
            "y/ab/",
            "p x",
            "/unterminated",
            "s\na\nb\n",
        ] {
            assert!(
                matches!(reads_only(s), Err(NotReadOnly::Unknown(_))),
                "{s:?}: {:?}",
                reads_only(s)
            );
        }
    }
}
