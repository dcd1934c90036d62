//! The parser: lists, pipelines, commands, redirections and assignments, within a step budget.

use super::ast::{
    Command, HereDoc, ParseError, ParseErrorKind, Pipeline, RedirOp, Redirect, Script,
    SimpleCommand, Span,
};
use super::MAX_DEPTH;
use crate::budget::Budget;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    Eof,
    /// `)` ends the list (subshell, `$(…)`, `<(…)`).
    Paren,
    /// `}` as a word ends the list.
    Brace,
    /// One of these reserved words at command position ends the list.
    Words(&'static [&'static str]),
    /// `;;`, `;&`, `;;&` or `esac` ends the list (a `case` arm).
    CaseArm,
}

pub(super) struct PendingDoc {
    pub(super) delim: String,
    pub(super) strip_tabs: bool,
    pub(super) quoted: bool,
    pub(super) id: usize,
}

pub(super) struct Parser<'a> {
    pub(super) s: &'a [u8],
    pub(super) src: &'a str,
    /// For each byte of `src`, its offset in the text given to [`parse_in`] when line
    /// continuations were removed from it (empty when none were).
    pub(super) map: &'a [usize],
    pub(super) pos: usize,
    pub(super) base: usize,
    pub(super) fixed: Option<Span>,
    pub(super) depth: usize,
    pub(super) pending: Vec<PendingDoc>,
    /// Here-doc bodies by id, filled when the line that declared them ends.
    pub(super) bodies: Vec<Option<HereDoc>>,
    /// `if`/`fi` and `do`/`done` balance, so an unterminated `if` is an error.
    pub(super) open_if: i64,
    pub(super) open_do: i64,
    /// Inside this many `$( … )` / `<( … )` / `>( … )`: there a here-document also ends
    /// at a line of its delimiter followed by the `)` that closes the substitution
    /// (bash 5.2 reads `$(cat <<E⏎hi⏎E)` as `hi`).
    pub(super) comsub: u32,
    /// The classification's work budget, spent one step per loop of the parser.
    pub(super) budget: Budget,
}

/// `$x`, `${x}`, `"$x"`, `"${x}"` (a variable name or one positional digit): whether
/// it is quoted.
pub(super) fn param_ref(src: &str) -> Option<bool> {
    let (inner, quoted) = match src.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(i) => (i, true),
        None => (src, false),
    };
    let name = inner
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| inner.strip_prefix('$'))?;
    let b = name.as_bytes();
    let ok = matches!(b, [d] if d.is_ascii_digit())
        || (b.first().is_some_and(|&c| is_name_start(c)) && b.iter().all(|&c| is_name(c)));
    ok.then_some(quoted)
}

pub(super) fn is_meta(b: u8) -> bool {
    META.get(usize::from(b)).copied().unwrap_or(false)
}

/// [`is_meta`] as a table: the parser asks it of every byte of every word.
// Built at compile time: an index out of bounds would be a compile error.
#[allow(clippy::indexing_slicing)]
pub(super) static META: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let set = b" \t\n;&|<>()";
    while i < set.len() {
        t[set[i] as usize] = true;
        i += 1;
    }
    t
};

/// Bytes with a meaning inside a word.
pub(super) fn is_special(b: u8) -> bool {
    matches!(
        b,
        b'\'' | b'"' | b'\\' | b'$' | b'`' | b'*' | b'?' | b'[' | b'~' | b'{' | b',' | b'}' | b'='
    )
}

/// The last word read is an assignment with nothing after its `=` (`a=`, `a+=`).
pub(super) fn ends_in_assign(sc: &SimpleCommand) -> bool {
    let last = if sc.words.is_empty() {
        sc.assigns.last()
    } else {
        sc.words.last()
    };
    last.is_some_and(|w| w.assign && w.text.ends_with('=') && w.subs.is_empty())
}

pub(super) fn is_empty_command(c: &Command) -> bool {
    matches!(c, Command::Simple(sc) if sc.words.is_empty() && sc.assigns.is_empty() && sc.redirects.is_empty())
}

pub(super) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(super) fn is_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Parser<'a> {
    pub(super) fn parse_all(&mut self) -> Result<Script, ParseError> {
        let p = self;
        if p.depth > MAX_DEPTH {
            return Err(p.too_deep(0));
        }
        let script = p.list(Stop::Eof)?;
        if p.pos < p.s.len() {
            return Err(p.err("unexpected token", p.pos));
        }
        if p.open_if != 0 {
            return Err(p.err("unbalanced `if` … `fi`", 0));
        }
        if p.open_do != 0 {
            return Err(p.err("unbalanced `do` … `done`", 0));
        }
        if !p.pending.is_empty() {
            // Here-docs whose body never started (no newline after them): empty bodies.
            p.read_heredocs()?;
        }
        let mut script = script;
        p.attach_heredocs(&mut script);
        Ok(script)
    }

    /// Where position `at` of the parsed text is in the text given to [`parse_in`].
    pub(super) fn orig(&self, at: usize) -> usize {
        match self.map.get(at) {
            Some(&o) => o,
            None => self.map.last().map_or(at, |&end| end),
        }
    }

    pub(super) fn span(&self, a: usize, b: usize) -> Span {
        match self.fixed {
            Some(f) => f,
            None => [self.base + self.orig(a), self.base + self.orig(b)],
        }
    }

    /// Where local position `at` is in the original string: `None` in a decoded string
    /// (whose spans are all `fixed`), where positions do not map back.
    pub(super) fn source_pos(&self, at: usize) -> Option<usize> {
        match self.fixed {
            Some(_) => None,
            // With continuations removed the text no longer matches the source
            // byte for byte: a nested parse of it keeps the word's span.
            None if !self.map.is_empty() => None,
            None => Some(self.base + at),
        }
    }

    pub(super) fn err(&self, message: &'static str, at: usize) -> ParseError {
        let end = (at + 1).min(self.s.len()).max(at);
        ParseError {
            message,
            span: self.span(at, end),
            kind: ParseErrorKind::Syntax,
        }
    }

    /// Nesting past [`MAX_DEPTH`]: the parse ends here, too complex to classify (it is
    /// never retried another way).
    pub(super) fn too_deep(&self, at: usize) -> ParseError {
        let mut e = self.err("nesting too deep (over 48 levels)", at);
        e.kind = ParseErrorKind::TooComplex;
        e
    }

    /// Spends one step of the budget; the error says where the parser stopped.
    #[inline]
    pub(super) fn tick(&mut self) -> Result<(), ParseError> {
        if self.budget.spend(1) {
            return Ok(());
        }
        let mut e = self.err("work budget exhausted", self.pos);
        e.kind = ParseErrorKind::TooComplex;
        Err(e)
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, off: usize) -> Option<u8> {
        self.s.get(self.pos + off).copied()
    }

    pub(super) fn starts(&self, lit: &str) -> bool {
        self.s
            .get(self.pos..)
            .unwrap_or_default()
            .starts_with(lit.as_bytes())
    }

    /// Skips blanks, line continuations and comments (not newlines).
    pub(super) fn skip_blanks(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\\' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                b'#' => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// Skips blanks and newlines, reading the here-docs that a newline ends.
    pub(super) fn skip_blank_lines(&mut self) -> Result<(), ParseError> {
        loop {
            self.skip_blanks();
            if self.peek() != Some(b'\n') {
                return Ok(());
            }
            self.newline()?;
        }
    }

    /// Consumes a newline and reads the bodies of the here-docs declared on its line.
    pub(super) fn newline(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        if !self.pending.is_empty() {
            self.read_heredocs()?;
        }
        Ok(())
    }

    /// Parses a command list until `stop`.
    pub(super) fn list(&mut self, stop: Stop) -> Result<Script, ParseError> {
        let mut script = Script::default();
        // After `&&` / `||` a command must follow (newlines may come first).
        let mut need_cmd = false;
        loop {
            self.tick()?;
            self.skip_blanks();
            if need_cmd && matches!(self.peek(), None | Some(b';' | b')' | b'&' | b'|')) {
                return Err(self.err("`&&` or `||` with nothing after it", self.pos));
            }
            match self.peek() {
                None => {
                    return match stop {
                        Stop::Eof => Ok(script),
                        Stop::Paren => Err(self.err("unterminated `(`", self.pos)),
                        Stop::Brace => Err(self.err("unterminated `{`", self.pos)),
                        Stop::Words(_) | Stop::CaseArm => {
                            Err(self.err("unterminated compound command", self.pos))
                        }
                    }
                }
                Some(b'\n') => {
                    self.newline()?;
                    continue;
                }
                Some(b';') => {
                    if self.peek_at(1) == Some(b';') || self.peek_at(1) == Some(b'&') {
                        return match stop {
                            Stop::CaseArm => Ok(script),
                            _ => Err(self.err("unexpected `;;`", self.pos)),
                        };
                    }
                    self.pos += 1;
                    continue;
                }
                Some(b')') => {
                    return match stop {
                        Stop::Paren => Ok(script),
                        _ => Err(self.err("unexpected `)`", self.pos)),
                    }
                }
                _ => {}
            }
            if let Some(w) = self.reserved_here() {
                match stop {
                    Stop::Brace if w == "}" => return Ok(script),
                    Stop::Words(ws) if ws.contains(&w) => return Ok(script),
                    Stop::CaseArm if w == "esac" => return Ok(script),
                    _ => {}
                }
            }
            let pl = self.pipeline(stop)?;
            let empty = pl.stages.len() == 1 && pl.stages.first().is_some_and(is_empty_command);
            if need_cmd && empty {
                return Err(self.err("`&&` or `||` with nothing after it", self.pos));
            }
            need_cmd = false;
            script.pipelines.push(pl);
            self.skip_blanks();
            match self.peek() {
                Some(b'&' | b'|') if self.peek_at(1) == self.peek() && empty => {
                    return Err(self.err("`&&` or `||` with nothing before it", self.pos));
                }
                Some(b'&') if self.peek_at(1) == Some(b'&') => {
                    self.pos += 2;
                    need_cmd = true;
                }
                Some(b'|') if self.peek_at(1) == Some(b'|') => {
                    self.pos += 2;
                    need_cmd = true;
                }
                Some(b'&') => {
                    self.pos += 1;
                    if let Some(last) = script.pipelines.last_mut() {
                        last.background = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// The reserved word (or `}`) at the current position, if one stands alone here.
    pub(super) fn reserved_here(&self) -> Option<&'static str> {
        if !matches!(self.peek(), Some(b'}' | b'f' | b'd' | b'e' | b't' | b'i')) {
            return None;
        }
        const ALL: &[&str] = &[
            "}", "fi", "done", "esac", "then", "else", "elif", "do", "in",
        ];
        for w in ALL {
            if self.starts(w) {
                let after = self.s.get(self.pos + w.len()).copied();
                if after.is_none_or(is_meta) {
                    return Some(w);
                }
            }
        }
        None
    }

    pub(super) fn pipeline(&mut self, stop: Stop) -> Result<Pipeline, ParseError> {
        // Most pipelines have one stage: room for exactly one (a `Command` is ~100 B and
        // a default growth would reserve four).
        let mut pl = Pipeline {
            stages: Vec::with_capacity(1),
            background: false,
        };
        loop {
            self.tick()?;
            let cmd = self.command(stop)?;
            let empty = is_empty_command(&cmd);
            pl.stages.push(cmd);
            self.skip_blanks();
            if empty && pl.stages.len() > 1 {
                return Err(self.err("a pipe with nothing after it", self.pos));
            }
            if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|') {
                if empty {
                    return Err(self.err("a pipe with nothing before it", self.pos));
                }
                self.pos += if self.peek_at(1) == Some(b'&') { 2 } else { 1 };
                self.skip_blank_lines()?;
                continue;
            }
            return Ok(pl);
        }
    }

    pub(super) fn nested(&mut self, stop: Stop) -> Result<Script, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.too_deep(self.pos));
        }
        self.depth += 1;
        let r = self.list(stop);
        self.depth -= 1;
        r
    }

    /// The bare word at the current position (up to a metacharacter), for reserved
    /// word checks; quoted words never match a reserved word.
    pub(super) fn bare_word(&self) -> &'a str {
        let rest = self.s.get(self.pos..).unwrap_or_default();
        let n = rest.iter().position(|&b| is_meta(b)).unwrap_or(rest.len());
        self.src.get(self.pos..self.pos + n).unwrap_or("")
    }

    /// [`Parser::bare_word`] when it is short enough to be a reserved word (`function`
    /// is the longest), else empty: the parser asks before every command, and a long
    /// word need not be read to the end.
    pub(super) fn keyword(&self) -> &'a str {
        let rest = self.s.get(self.pos..).unwrap_or_default();
        match rest.iter().take(9).position(|&b| is_meta(b)) {
            Some(n) => self.src.get(self.pos..self.pos + n).unwrap_or(""),
            None if rest.len() <= 8 => self.src.get(self.pos..).unwrap_or(""),
            None => "",
        }
    }

    /// `NAME=` or `NAME+=` here: an assignment (`time x=1` times it, and it sets `x`).
    pub(super) fn assignment_here(&self) -> bool {
        let rest = self.s.get(self.pos..).unwrap_or_default();
        let n = rest.iter().take_while(|&&b| is_name(b)).count();
        n > 0
            && rest.first().is_some_and(|&b| is_name_start(b))
            && (rest.get(n) == Some(&b'=') || rest.get(n..n + 2) == Some(b"+="))
    }

    /// A name, blanks and `()` here: the start of a function definition.
    pub(super) fn function_def_here(&self) -> bool {
        let name = self.bare_word();
        if name.is_empty() || !name.bytes().all(|b| is_name(b) || b == b'-' || b == b'.') {
            return false;
        }
        let mut i = self.pos + name.len();
        while matches!(self.s.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        if self.s.get(i) != Some(&b'(') {
            return false;
        }
        i += 1;
        while matches!(self.s.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        self.s.get(i) == Some(&b')')
    }

    pub(super) fn command(&mut self, stop: Stop) -> Result<Command, ParseError> {
        self.skip_blanks();
        let start = self.pos;
        // Prefix reserved words: skip them and parse what follows.
        loop {
            self.tick()?;
            let w = self.keyword();
            if w == "coproc" {
                // `coproc { …; }`, `coproc NAME ( … )`, `coproc cmd args`: what runs is
                // the command or group after it (and the optional NAME before a group).
                self.pos += w.len();
                self.skip_blanks();
                let name = self.bare_word();
                if !name.is_empty() && name.bytes().all(is_name) {
                    let save = self.pos;
                    self.pos += name.len();
                    self.skip_blanks();
                    if !matches!(self.peek(), Some(b'(' | b'{')) {
                        self.pos = save;
                    }
                }
                continue;
            }
            if w == "time" {
                // The reserved word before a group: `time ( … )`, `time -p { …; }` time
                // the group, which is what runs. (`time cmd` stays a command: the
                // `time` wrapper.)
                let save = self.pos;
                self.pos += w.len();
                self.skip_blanks();
                if self.keyword() == "-p" {
                    self.pos += 2;
                    self.skip_blanks();
                }
                let group = match self.peek() {
                    Some(b'(') => true,
                    Some(b'{') => matches!(self.peek_at(1), Some(b' ' | b'\t' | b'\n')),
                    // `time f() { …; }`, `time function f { …; }`: bash times the
                    // definition, which defines the function.
                    // `time if …; fi`, `time for …`, `time [[ … ]]`, `time ! cmd`: bash
                    // times the compound command that follows.
                    _ => {
                        matches!(
                            self.keyword(),
                            "function"
                                | "if"
                                | "for"
                                | "while"
                                | "until"
                                | "case"
                                | "select"
                                | "[["
                                | "!"
                                | "coproc"
                                | "time"
                        ) || self.function_def_here()
                            || self.assignment_here()
                    }
                };
                if group {
                    continue;
                }
                self.pos = save;
                break;
            }
            match w {
                "if" => self.open_if += 1,
                "do" => self.open_do += 1,
                "then" | "elif" | "else" | "while" | "until" | "!" => {}
                _ => break,
            }
            self.pos += w.len();
            self.skip_blanks();
            if matches!(self.peek(), Some(b'\n') | Some(b';') | None) {
                // `while` alone on a line, `else;`: an empty command.
                return Ok(Command::Simple(SimpleCommand {
                    span: self.span(start, self.pos),
                    ..SimpleCommand::default()
                }));
            }
        }
        let w = self.keyword();
        match w {
            "fi" | "done" | "esac" => {
                match w {
                    "fi" => self.open_if -= 1,
                    "done" => self.open_do -= 1,
                    _ => {}
                }
                // The end of a compound command: nothing to run, but it may carry
                // redirects (`done < <(curl …)`) and may be followed by `&&` / `|`.
                self.pos += w.len();
                return self.compound_tail(Script::default(), Vec::new(), start);
            }
            "for" | "select" => return self.for_command(start),
            "case" => return self.case_command(start),
            "function" => {
                self.pos += "function".len();
                self.skip_blanks();
                let name = self.word()?;
                self.skip_blanks();
                if self.starts("()") {
                    self.pos += 2;
                }
                return self.function_body(name.text, start, stop);
            }
            "[[" => return self.cond_command(start),
            "{" => {
                self.pos += 1;
                let body = self.nested(Stop::Brace)?;
                if !self.starts("}") {
                    return Err(self.err("unterminated `{`", start));
                }
                self.pos += 1;
                return self.compound_tail(body, Vec::new(), start);
            }
            _ => {}
        }
        if self.starts("((") {
            return self.arith_command(start);
        }
        if self.peek() == Some(b'(') {
            self.pos += 1;
            let body = self.nested(Stop::Paren)?;
            if self.peek() != Some(b')') {
                return Err(self.err("unterminated `(`", start));
            }
            self.pos += 1;
            return self.compound_tail(body, Vec::new(), start);
        }
        self.simple(start, stop)
    }

    pub(super) fn word_is(&self, w: &str) -> bool {
        self.starts(w) && self.s.get(self.pos + w.len()).copied().is_none_or(is_meta)
    }

    /// Redirects after a compound command (`{ …; } > out`), or after `fi`/`done`.
    pub(super) fn redirects_only(&mut self, sc: &mut SimpleCommand) -> Result<(), ParseError> {
        loop {
            self.skip_blanks();
            if !self.redirect_here() {
                return Ok(());
            }
            self.redirect(sc)?;
        }
    }

    pub(super) fn redirect_here(&self) -> bool {
        let mut i = self.pos;
        while self.s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i < self.s.len() && self.s.get(i) == Some(&b'{') && i == self.pos {
            // {var}> form
            let mut j = i + 1;
            while self.s.get(j).is_some_and(|&c| is_name(c)) {
                j += 1;
            }
            if j < self.s.len() && self.s.get(j) == Some(&b'}') && j > i + 1 {
                i = j + 1;
            }
        }
        match self.s.get(i) {
            Some(b'<') | Some(b'>') => {
                // `<(` / `>(` at a word start is process substitution, not a redirect.
                !(i == self.pos && self.s.get(i + 1) == Some(&b'('))
            }
            Some(b'&') => i == self.pos && self.s.get(i + 1) == Some(&b'>'),
            _ => false,
        }
    }

    pub(super) fn redirect(&mut self, sc: &mut SimpleCommand) -> Result<(), ParseError> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.peek() == Some(b'{') {
            while self.peek().is_some_and(|b| b != b'}') {
                self.pos += 1;
            }
            self.pos += 1;
        }
        let mut dup_reads = false;
        let op = if self.starts("&>>") {
            self.pos += 3;
            RedirOp::AppendErr
        } else if self.starts("&>") {
            self.pos += 2;
            RedirOp::OutErr
        } else if self.starts("<<<") {
            self.pos += 3;
            RedirOp::HereString
        } else if self.starts("<<") {
            self.pos += 2;
            RedirOp::HereDoc
        } else if self.starts("<>") {
            self.pos += 2;
            RedirOp::ReadWrite
        } else if self.starts("<&") || self.starts(">&") {
            dup_reads = self.peek() == Some(b'<');
            self.pos += 2;
            RedirOp::Dup
        } else if self.starts(">>") {
            self.pos += 2;
            RedirOp::Append
        } else if self.starts(">|") {
            self.pos += 2;
            RedirOp::Out
        } else if self.starts(">") {
            self.pos += 1;
            RedirOp::Out
        } else {
            self.pos += 1;
            RedirOp::In
        };
        let strip_tabs = op == RedirOp::HereDoc && self.peek() == Some(b'-');
        if strip_tabs {
            self.pos += 1;
        }
        self.skip_blanks();
        let target = self.word()?;
        if target.text.is_empty() && !target.quoted && target.subs.is_empty() {
            return Err(self.err("redirection without a target", start));
        }
        let mut op = op;
        if op == RedirOp::Dup {
            let t = target.text.as_str();
            let is_fd = !t.is_empty()
                && (t == "-" || t.trim_end_matches('-').bytes().all(|b| b.is_ascii_digit()));
            if !is_fd || target.dynamic {
                // `>& file` writes stdout and stderr to a file.
                // By the operator itself (the rest of the input may hold any `<`).
                op = if dup_reads {
                    RedirOp::In
                } else {
                    RedirOp::OutErr
                };
            }
        }
        let mut heredoc = None;
        if op == RedirOp::HereDoc {
            let id = self.bodies.len();
            self.bodies.push(None);
            self.pending.push(PendingDoc {
                delim: target.text.clone(),
                strip_tabs,
                quoted: target.quoted,
                id,
            });
            heredoc = Some(HereDoc {
                body: String::new(),
                start: 0,
                quoted: target.quoted,
                subs: Vec::new(),
                slot: Some(id),
            });
        }
        sc.redirects.push(Redirect {
            op,
            target,
            heredoc,
            span: self.span(start, self.pos),
        });
        Ok(())
    }

    pub(super) fn simple(&mut self, start: usize, stop: Stop) -> Result<Command, ParseError> {
        let mut sc = SimpleCommand {
            words: Vec::with_capacity(4),
            ..SimpleCommand::default()
        };
        // End of the last word or redirect: the span leaves out trailing blanks.
        let mut end = self.pos;
        loop {
            self.tick()?;
            self.skip_blanks();
            match self.peek() {
                None | Some(b'\n') | Some(b';') | Some(b'|') => break,
                Some(b'&') if self.peek_at(1) != Some(b'>') => break,
                Some(b')') => break,
                Some(b'(') if self.pos == end && ends_in_assign(&sc) => {
                    // `a=(x $(cmd) y)`, `a+=(…)`: the elements of a compound assignment
                    // right after its `name=` belong to that word (bash expands them).
                    self.array_elements(&mut sc)?;
                    end = self.pos;
                    continue;
                }
                Some(b'(') => {
                    // `name ( )` is a function definition.
                    if sc.words.len() == 1 && sc.assigns.is_empty() && sc.redirects.is_empty() {
                        let save = self.pos;
                        self.pos += 1;
                        self.skip_blanks();
                        if self.peek() == Some(b')') {
                            self.pos += 1;
                            let name = sc.words.remove(0).text;
                            return self.function_body(name, start, stop);
                        }
                        self.pos = save;
                    }
                    return Err(self.err("unexpected `(`", self.pos));
                }
                _ => {}
            }
            if self.redirect_here() {
                self.redirect(&mut sc)?;
                end = self.pos;
                continue;
            }
            if matches!(stop, Stop::Brace) && sc.words.is_empty() && self.word_is("}") {
                break;
            }
            let before = self.pos;
            let w = self.word()?;
            if self.pos == before {
                // Nothing a word can start with (a bug here must not loop forever).
                return Err(self.err("unexpected token", self.pos));
            }
            end = self.pos;
            if w.assign && sc.words.is_empty() {
                sc.assigns.push(w);
            } else {
                sc.words.push(w);
            }
        }
        sc.span = self.span(start, end.max(start));
        // Memory proportional to the words read, not to the room reserved for them
        // (64 KiB of `a;` is 32,768 commands). Below 4 KiB of text the room left is
        // at most three words for each of at most 2,048 commands, and not worth a
        // reallocation per command.
        if self.s.len() > 4096 {
            sc.words.shrink_to_fit();
        }
        Ok(Command::Simple(sc))
    }

    /// `(` … `)` of a compound assignment: each element is a word; its substitutions
    /// go to the assignment word, which becomes dynamic and spans the whole `name=(…)`.
    pub(super) fn array_elements(&mut self, sc: &mut SimpleCommand) -> Result<(), ParseError> {
        let open = self.pos;
        self.pos += 1;
        let mut elements = Vec::new();
        loop {
            self.tick()?;
            self.skip_blanks();
            match self.peek() {
                None => return Err(self.err("unterminated `(` of an array", open)),
                Some(b'\n') => {
                    self.newline()?;
                    continue;
                }
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            let before = self.pos;
            let el = self.word()?;
            if self.pos == before {
                return Err(self.err("unexpected token in an array", self.pos));
            }
            elements.push(el);
        }
        let list = if sc.words.is_empty() {
            &mut sc.assigns
        } else {
            &mut sc.words
        };
        if let Some(w) = list.last_mut() {
            for el in elements {
                w.subs.extend(el.subs);
                w.arith_subs |= el.arith_subs;
            }
            w.dynamic = true;
            w.text.push_str(self.src.get(open..self.pos).unwrap_or(""));
            w.span = self.span(w.span[0].saturating_sub(self.base), self.pos);
        }
        Ok(())
    }
}
