//! Words: quoting (`'…'`, `"…"`, `$'…'`, `\`), parameters, substitutions and backticks.

use super::ast::{ParseError, Script, Word};
use super::brace::{
    expand_braces, has_brace_expansion, sync_marked, BRACE_CLOSE, BRACE_COMMA, BRACE_OPEN,
};
use super::parser::{is_meta, is_name, is_name_start, is_special, param_ref, Parser, Stop};
use super::{parse_in, MAX_DEPTH};
use crate::escapes::{self, Dialect, Escape};
use crate::needle::HasChar;

pub(super) fn utf8_len(b: u8) -> usize {
    match b {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

pub(super) fn push_code(w: &mut Word, v: u32) {
    match char::from_u32(v) {
        Some('\0') | None => {}
        Some(c) => w.text.push(c),
    }
}

impl<'a> Parser<'a> {
    /// Reads one word at the current position (possibly empty if at a metacharacter).
    pub(super) fn word(&mut self) -> Result<Word, ParseError> {
        self.tick()?;
        let start = self.pos;
        // The text is about as long as the run up to the next metacharacter: one
        // allocation instead of a growth per few characters.
        let mut w = Word {
            text: String::with_capacity(self.bare_word().len()),
            ..Word::default()
        };
        // Process substitution as a whole word.
        if self.starts("<(") || self.starts(">(") {
            return self.process_substitution(w, start);
        }
        // A copy of the text with unquoted braces marked, and how much text it mirrors.
        let mut brace_marked: Option<(String, usize)> = None;
        let mut bracket_at: Option<usize> = None;
        let mut chunks = 0usize;
        let mut plain_chunk = true;
        while let Some(b) = self.peek() {
            if is_meta(b) {
                break;
            }
            self.tick()?;
            chunks += 1;
            match b {
                b'\'' => {
                    let content = self.pos + 1;
                    self.pos += 1;
                    self.single_quoted(&mut w)?;
                    if chunks == 1 {
                        w.content_start = self.source_pos(content);
                    }
                }
                b'"' => {
                    let content = self.pos + 1;
                    self.pos += 1;
                    let clean = self.double_quoted(&mut w)?;
                    if chunks == 1 && clean {
                        w.content_start = self.source_pos(content);
                    } else {
                        plain_chunk = false;
                    }
                }
                b'\\' => {
                    w.quoted = true;
                    plain_chunk = false;
                    self.pos += 1;
                    match self.peek() {
                        None => w.text.push('\\'),
                        Some(b'\n') => self.pos += 1,
                        Some(_) => self.push_char(&mut w),
                    }
                }
                b'$' if self.peek_at(1) == Some(b'\'') => {
                    self.pos += 2;
                    w.quoted = true;
                    plain_chunk = false;
                    self.ansi_c(&mut w)?;
                }
                b'$' if self.peek_at(1) == Some(b'"') => {
                    self.pos += 2;
                    plain_chunk = false;
                    self.double_quoted(&mut w)?;
                }
                b'$' => {
                    plain_chunk = false;
                    self.dollar(&mut w, false)?;
                }
                b'`' => {
                    plain_chunk = false;
                    self.backtick(&mut w)?;
                }
                b'*' | b'?' => {
                    w.glob = true;
                    plain_chunk = false;
                    self.push_char(&mut w);
                }
                b'[' => {
                    // A bracket expression only when a `]` follows in the word.
                    bracket_at.get_or_insert(w.text.len());
                    plain_chunk = false;
                    self.push_char(&mut w);
                }
                b'~' if self.pos == start => {
                    w.tilde = true;
                    plain_chunk = false;
                    self.push_char(&mut w);
                    // `~-` and `~+` are `$OLDPWD` and `$PWD` (bash(1), Tilde Expansion):
                    // known only at run time.
                    if matches!(self.peek(), Some(b'-' | b'+')) {
                        w.dynamic = true;
                    }
                }
                b'{' | b',' | b'}' => {
                    plain_chunk = false;
                    // Keep a marked copy in step with the text, then mark this byte.
                    let (m, mirrored) = brace_marked.get_or_insert_with(|| (String::new(), 0));
                    let mark = match b {
                        b'{' => BRACE_OPEN,
                        b',' => BRACE_COMMA,
                        _ => BRACE_CLOSE,
                    };
                    sync_marked(m, mirrored, &w.text);
                    m.push(mark);
                    self.push_char(&mut w);
                    *mirrored = w.text.len();
                }
                b'=' if !w.assign
                    && !w.quoted
                    && !w.dynamic
                    && w.text.len() == self.pos - start
                    && !w.text.is_empty()
                    && w.text.as_bytes().first().is_some_and(|&c| is_name_start(c))
                    && w.text.bytes().all(|c| is_name(c) || c == b'+')
                    && !w
                        .text
                        .get(..w.text.len() - 1)
                        .unwrap_or_default()
                        .has_char('+') =>
                {
                    w.assign = true;
                    self.push_char(&mut w);
                }
                _ => self.plain_run(&mut w),
            }
        }
        if chunks != 1 || (!plain_chunk && w.content_start.is_none()) {
            w.content_start = None;
        }
        if let Some(at) = bracket_at {
            if w.text.get(at + 1..).is_some_and(|rest| rest.has_char(']')) {
                w.glob = true;
            }
        }
        if let Some((mut m, mut mirrored)) = brace_marked {
            sync_marked(&mut m, &mut mirrored, &w.text);
            w.braces = expand_braces(&m);
            if w.braces.is_none() && has_brace_expansion(&m) {
                // Too many alternatives: treat as dynamic.
                w.dynamic = true;
            }
        }
        w.param = param_ref(self.src.get(start..self.pos).unwrap_or_default());
        w.span = self.span(start, self.pos);
        Ok(w)
    }

    /// `<(…)` or `>(…)` as a whole word, from `start`.
    fn process_substitution(&mut self, mut w: Word, start: usize) -> Result<Word, ParseError> {
        if self.depth >= MAX_DEPTH {
            // Neither a substitution (too deep) nor a redirect: an error, not an
            // empty word that the caller would read again and again.
            return Err(self.too_deep(self.pos));
        }
        let script = self.paren_script(start, "unterminated process substitution")?;
        w.subs.push(script);
        w.dynamic = true;
        w.text = self
            .src
            .get(start..self.pos)
            .unwrap_or_default()
            .to_string();
        w.span = self.span(start, self.pos);
        Ok(w)
    }

    /// A run of ordinary bytes, taken at once.
    fn plain_run(&mut self, w: &mut Word) {
        // A run of ordinary bytes at once.
        let run = self
            .s
            .get(self.pos..)
            .unwrap_or_default()
            .iter()
            .position(|&c| is_meta(c) || is_special(c))
            .unwrap_or(self.s.len() - self.pos)
            .max(1);
        let end = self.pos + run;
        match self.src.get(self.pos..end) {
            Some(t) => {
                w.text.push_str(t);
                self.pos = end;
            }
            None => self.push_char(w),
        }
    }

    pub(super) fn push_char(&mut self, w: &mut Word) {
        let len = self.s.get(self.pos).map_or(1, |&c| utf8_len(c));
        let end = (self.pos + len).min(self.s.len());
        w.text
            .push_str(self.src.get(self.pos..end).unwrap_or("\u{FFFD}"));
        self.pos = end;
    }

    pub(super) fn single_quoted(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let start = self.pos - 1;
        w.quoted = true;
        match self
            .s
            .get(self.pos..)
            .unwrap_or_default()
            .iter()
            .position(|&b| b == b'\'')
        {
            Some(i) => {
                w.text
                    .push_str(self.src.get(self.pos..self.pos + i).unwrap_or_default());
                self.pos += i + 1;
                Ok(())
            }
            None => Err(self.err("unterminated single quote", start)),
        }
    }

    /// Reads a double-quoted string (after the opening quote). Returns true when it had
    /// no escapes or expansions (its text is a verbatim slice of the source).
    pub(super) fn double_quoted(&mut self, w: &mut Word) -> Result<bool, ParseError> {
        let start = self.pos - 1;
        w.quoted = true;
        let mut clean = true;
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated double quote", start)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(clean);
                }
                Some(b'\\') => {
                    clean = false;
                    match self.peek_at(1) {
                        Some(b'\n') => self.pos += 2,
                        Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                            w.text.push(char::from(c));
                            self.pos += 2;
                        }
                        _ => {
                            w.text.push('\\');
                            self.pos += 1;
                        }
                    }
                }
                Some(b'$') => {
                    clean = false;
                    self.dollar(w, true)?;
                }
                Some(b'`') => {
                    clean = false;
                    self.backtick(w)?;
                }
                Some(_) => self.push_char(w),
            }
        }
    }

    /// `$'…'` with ANSI-C escapes.
    pub(super) fn ansi_c(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let start = self.pos - 2;
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated $'…'", start)),
                Some(b'\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    if self.peek().is_none() {
                        return Err(self.err("unterminated $'…'", start));
                    }
                    let (escape, taken) = escapes::decode_one(
                        self.s.get(self.pos..).unwrap_or_default(),
                        Dialect::AnsiC,
                    );
                    self.pos += taken;
                    match escape {
                        Escape::Char(c) => w.text.push(c),
                        Escape::Code(v) => push_code(w, v),
                        Escape::Nothing => {}
                        Escape::Verbatim => {
                            w.text.push('\\');
                            self.push_char(w);
                        }
                    }
                }
                Some(_) => self.push_char(w),
            }
        }
    }

    /// The script of `$(…)`, `<(…)` or `>(…)` whose two-byte opener is at the current
    /// position, through its `)`; `unterminated` is the error without one.
    fn paren_script(
        &mut self,
        start: usize,
        unterminated: &'static str,
    ) -> Result<Script, ParseError> {
        self.pos += 2;
        self.comsub += 1;
        let script = self.nested(Stop::Paren);
        self.comsub -= 1;
        let script = script?;
        if self.peek() != Some(b')') {
            return Err(self.err(unterminated, start));
        }
        self.pos += 1;
        Ok(script)
    }

    /// `$…` at the current position: `$(…)`, `$((…))`, `${…}`, `$NAME`, `$1`, `$@`, or a
    /// literal `$`.
    pub(super) fn dollar(&mut self, w: &mut Word, in_dq: bool) -> Result<(), ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.too_deep(self.pos));
        }
        self.depth += 1;
        let r = self.dollar_inner(w, in_dq);
        self.depth -= 1;
        r
    }

    pub(super) fn dollar_inner(&mut self, w: &mut Word, in_dq: bool) -> Result<(), ParseError> {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'(') if self.peek_at(2) == Some(b'(') => {
                // Always arithmetic: `$((cmd) )` (a subshell in a substitution written
                // without a space) is unparseable here rather than re-parsed, so that
                // nested `$((` cannot make parsing exponential.
                self.pos += 3;
                let mut tmp = Word::default();
                self.arith_body(&mut tmp, start)?;
                w.arith_subs |= tmp.arith_subs;
                w.subs.append(&mut tmp.subs);
                w.dynamic = true;
            }
            Some(b'(') => {
                let script = self.paren_script(start, "unterminated `$(`")?;
                w.subs.push(script);
                w.dynamic = true;
            }
            Some(b'{') => {
                self.pos += 2;
                self.param_body(w, start, in_dq)?;
                w.dynamic = true;
            }
            Some(b'[') => {
                self.pos += 2;
                let mut tmp = Word::default();
                self.arith_until(&mut tmp, start, true)?;
                w.arith_subs |= tmp.arith_subs;
                w.subs.append(&mut tmp.subs);
                w.dynamic = true;
            }
            Some(c) if is_name_start(c) => {
                self.pos += 1;
                while self.peek().is_some_and(is_name) {
                    self.pos += 1;
                }
                w.dynamic = true;
            }
            Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => {
                self.pos += 2;
                w.dynamic = true;
            }
            _ => {
                self.pos += 1;
                w.text.push('$');
                return Ok(());
            }
        }
        let _ = in_dq;
        w.text
            .push_str(self.src.get(start..self.pos).unwrap_or_default());
        Ok(())
    }

    /// `${ … }` body: up to the matching `}`, collecting nested substitutions. Inside
    /// double quotes (or an unquoted here-document), a `'` in `${x:-'…'}` is an ordinary
    /// character and a `$(…)` after it runs: it is parsed as one (fail closed, also for
    /// the pattern forms where bash would quote).
    pub(super) fn param_body(
        &mut self,
        w: &mut Word,
        start: usize,
        _in_dq: bool,
    ) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated `${`", start)),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => self.pos += 2.min(self.s.len() - self.pos),
                // A `'` in `${…}` is taken as an ordinary character everywhere: inside
                // double quotes it is one, and in an offset or subscript
                // (`${x:'$(cmd)'}`, `${a['$(cmd)']}`) bash evaluates what follows.
                // Unquoted `${x:-'$(cmd)'}` does not run `cmd`: over-reading it is
                // the fail-closed side.
                Some(b'\'') => self.pos += 1,
                Some(b'$') if self.peek_at(1) == Some(b'\'') => {
                    // `$'\x24(cmd)'` decodes to `$(cmd)`, which then runs.
                    let at = self.pos;
                    self.pos += 2;
                    let mut tmp = Word::default();
                    self.ansi_c(&mut tmp)?;
                    if crate::needle::contains(&tmp.text, "$(") || tmp.text.has_char('`') {
                        let span = self.span(at, self.pos);
                        let script =
                            parse_in(&tmp.text, 0, Some(span), self.depth + 1, &mut self.budget)?;
                        w.subs.push(script);
                    }
                }
                Some(b'"') => {
                    self.pos += 1;
                    let mut tmp = Word::default();
                    self.double_quoted(&mut tmp)?;
                    w.arith_subs |= tmp.arith_subs;
                    w.subs.append(&mut tmp.subs);
                }
                Some(b'$') => {
                    let mut tmp = Word::default();
                    self.dollar(&mut tmp, true)?;
                    w.arith_subs |= tmp.arith_subs;
                    w.subs.append(&mut tmp.subs);
                }
                Some(b'`') => {
                    let mut tmp = Word::default();
                    self.backtick(&mut tmp)?;
                    w.subs.append(&mut tmp.subs);
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// `` `…` ``: unescape the body and parse it as a nested script.
    pub(super) fn backtick(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut body = String::new();
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated backtick", start)),
                Some(b'`') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(c @ (b'$' | b'`' | b'\\')) => {
                        body.push(char::from(c));
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        body.push('\\');
                        self.pos += 1;
                    }
                },
                Some(_) => {
                    let len = self.s.get(self.pos).map_or(1, |&c| utf8_len(c));
                    let end = (self.pos + len).min(self.s.len());
                    body.push_str(self.src.get(self.pos..end).unwrap_or("\u{FFFD}"));
                    self.pos = end;
                }
            }
        }
        let span = self.span(start, self.pos);
        let script = parse_in(&body, 0, Some(span), self.depth + 1, &mut self.budget)?;
        w.subs.push(script);
        w.dynamic = true;
        w.text
            .push_str(self.src.get(start..self.pos).unwrap_or_default());
        Ok(())
    }
}
