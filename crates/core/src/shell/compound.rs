//! Compound commands: `for`, `case`, `[[ … ]]`, `(( … ))`, function bodies.

use super::ast::{Command, ParseError, Script, SimpleCommand, Word};
use super::parser::{is_meta, Parser, Stop};

impl<'a> Parser<'a> {
    pub(super) fn compound_tail(
        &mut self,
        body: Script,
        words: Vec<Word>,
        start: usize,
    ) -> Result<Command, ParseError> {
        let mut sc = SimpleCommand::default();
        self.redirects_only(&mut sc)?;
        Ok(Command::Compound {
            body,
            words,
            redirects: sc.redirects,
            span: self.span(start, self.pos),
        })
    }

    pub(super) fn function_body(
        &mut self,
        name: String,
        start: usize,
        stop: Stop,
    ) -> Result<Command, ParseError> {
        self.skip_blank_lines()?;
        let body = self.command(stop)?;
        Ok(Command::Function {
            name,
            body: Box::new(body),
            span: self.span(start, self.pos),
        })
    }

    pub(super) fn arith_command(&mut self, start: usize) -> Result<Command, ParseError> {
        self.pos += 2;
        let mut w = Word::default();
        self.arith_body(&mut w, start)?;
        w.span = self.span(start, self.pos);
        Ok(Command::Arith {
            words: vec![w],
            span: self.span(start, self.pos),
        })
    }

    /// Reads arithmetic up to the closing `))`, collecting substitutions.
    pub(super) fn arith_body(&mut self, w: &mut Word, start: usize) -> Result<(), ParseError> {
        self.arith_until(w, start, false)
    }

    /// Arithmetic text up to its end: `))` after `((` / `$((`, or `]` after `$[` (the
    /// old form, `bracket`). Substitutions in it are collected; a `'` quotes nothing
    /// there (`$(( '$(cmd)' ))` runs `cmd`).
    pub(super) fn arith_until(
        &mut self,
        w: &mut Word,
        start: usize,
        bracket: bool,
    ) -> Result<(), ParseError> {
        let (open, close, what) = if bracket {
            (b'[', b']', "unterminated `$[`")
        } else {
            (b'(', b')', "unterminated `((`")
        };
        w.dynamic = true;
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.err(what, start)),
                Some(c) if c == open => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(c) if c == close => {
                    if depth > 0 {
                        depth -= 1;
                        self.pos += 1;
                        continue;
                    }
                    let end = if bracket {
                        1
                    } else if self.peek_at(1) == Some(b')') {
                        2
                    } else {
                        return Err(self.err(what, start));
                    };
                    self.pos += end;
                    w.arith_subs |= !w.subs.is_empty();
                    return Ok(());
                }
                Some(b'$') => self.dollar(w, false)?,
                Some(b'`') => self.backtick(w)?,
                Some(b'\'') => self.pos += 1,
                Some(b'"') => {
                    self.pos += 1;
                    self.double_quoted(w)?;
                }
                Some(b'\\') => self.pos += 2.min(self.s.len() - self.pos),
                Some(_) => self.pos += 1,
            }
        }
    }

    pub(super) fn for_command(&mut self, start: usize) -> Result<Command, ParseError> {
        // for NAME [in WORDS…] ; do BODY done   |   for (( … )) ; do BODY done
        self.pos += if self.word_is("for") { 3 } else { 6 };
        self.skip_blanks();
        let mut words = Vec::new();
        if self.starts("((") {
            self.pos += 2;
            let mut w = Word::default();
            self.arith_body(&mut w, start)?;
            words.push(w);
        } else {
            let name = self.word()?;
            // `for PATH in /tmp/evil; do ls; done` assigns like `PATH=/tmp/evil ls`.
            words.push(Word {
                text: format!("{}=", name.text),
                assign: true,
                span: name.span,
                ..Word::default()
            });
            loop {
                self.tick()?;
                self.skip_blanks();
                match self.peek() {
                    None => return Err(self.err("unterminated `for`", start)),
                    Some(b';') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b'\n') => {
                        self.newline()?;
                        break;
                    }
                    _ => {}
                }
                if self.word_is("do") {
                    break;
                }
                let w = self.word()?;
                if w.span == self.span(self.pos, self.pos) && w.text.is_empty() {
                    return Err(self.err("unexpected token in `for`", self.pos));
                }
                words.push(w);
            }
        }
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'\n') => self.newline()?,
                Some(b';') => self.pos += 1,
                _ => break,
            }
        }
        if !self.word_is("do") && !self.starts("{") {
            return Err(self.err("`for` without `do`", start));
        }
        let brace = !self.word_is("do");
        self.pos += if brace { 1 } else { 2 };
        let body = self.nested(if brace {
            Stop::Brace
        } else {
            Stop::Words(&["done"])
        })?;
        if brace {
            if !self.starts("}") {
                return Err(self.err("unterminated `for`", start));
            }
            self.pos += 1;
        } else {
            if !self.word_is("done") {
                return Err(self.err("unterminated `for`", start));
            }
            self.pos += 4;
        }
        self.compound_tail(body, words, start)
    }

    pub(super) fn case_command(&mut self, start: usize) -> Result<Command, ParseError> {
        self.pos += 4;
        self.skip_blanks();
        let subject = self.word()?;
        let mut words = vec![subject];
        let mut body = Script::default();
        loop {
            self.skip_blanks();
            match self.peek() {
                Some(b'\n') => self.newline()?,
                _ => break,
            }
        }
        if !self.word_is("in") {
            return Err(self.err("`case` without `in`", start));
        }
        self.pos += 2;
        loop {
            self.tick()?;
            // Skip blank lines.
            loop {
                self.skip_blanks();
                match self.peek() {
                    Some(b'\n') => self.newline()?,
                    _ => break,
                }
            }
            match self.peek() {
                None => return Err(self.err("unterminated `case`", start)),
                _ if self.word_is("esac") => {
                    self.pos += 4;
                    break;
                }
                _ => {}
            }
            // Pattern list: [(] pat [| pat]… )
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            loop {
                self.tick()?;
                self.skip_blanks();
                match self.peek() {
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b'|') => self.pos += 1,
                    None | Some(b'\n') | Some(b';') => {
                        return Err(self.err("bad `case` pattern", self.pos))
                    }
                    _ => {
                        let before = self.pos;
                        let w = self.word()?;
                        if self.pos == before {
                            return Err(self.err("bad `case` pattern", self.pos));
                        }
                        words.push(w);
                    }
                }
            }
            let arm = self.nested(Stop::CaseArm)?;
            body.pipelines.extend(arm.pipelines);
            self.skip_blanks();
            if self.starts(";;&") {
                self.pos += 3;
            } else if self.starts(";;") || self.starts(";&") {
                self.pos += 2;
            }
        }
        self.compound_tail(body, words, start)
    }

    /// `[[ … ]]`: operators inside are plain words.
    pub(super) fn cond_command(&mut self, start: usize) -> Result<Command, ParseError> {
        let first = self.word()?;
        let mut sc = SimpleCommand {
            words: vec![first],
            ..SimpleCommand::default()
        };
        loop {
            self.tick()?;
            self.skip_blanks();
            match self.peek() {
                None => return Err(self.err("unterminated `[[`", start)),
                Some(b'\n') => self.newline()?,
                _ if self.starts("]]") && self.s.get(self.pos + 2).copied().is_none_or(is_meta) => {
                    let s = self.pos;
                    self.pos += 2;
                    sc.words.push(Word {
                        span: self.span(s, self.pos),
                        text: "]]".to_string(),
                        ..Word::default()
                    });
                    break;
                }
                // `<(cmd)` / `>(cmd)` are process substitutions here too: they run.
                Some(b'<' | b'>') if self.peek_at(1) == Some(b'(') => {
                    let w = self.word()?;
                    sc.words.push(w);
                }
                Some(b) if matches!(b, b'<' | b'>' | b'(' | b')' | b'&' | b'|' | b';') => {
                    let s = self.pos;
                    self.pos += 1;
                    if matches!(self.peek(), Some(b'&') | Some(b'|')) && (b == b'&' || b == b'|') {
                        self.pos += 1;
                    }
                    sc.words.push(Word {
                        span: self.span(s, self.pos),
                        text: self.src.get(s..self.pos).unwrap_or_default().to_string(),
                        ..Word::default()
                    });
                }
                Some(_) => {
                    let before = self.pos;
                    let w = self.word()?;
                    if self.pos == before {
                        return Err(self.err("unexpected token in `[[`", self.pos));
                    }
                    sc.words.push(w);
                }
            }
        }
        self.redirects_only(&mut sc)?;
        sc.span = self.span(start, self.pos);
        Ok(Command::Simple(sc))
    }
}
