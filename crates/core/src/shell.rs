//! A shell parser that finds every simple command in a command string.
//!
//! It understands quoting (`'…'`, `"…"`, `$'…'`, `\`), substitutions (`$(…)`, backticks,
//! `${…}`, `$((…))`, `<(…)`, `>(…)`), operators (`;` `&&` `||` `|` `|&` `&` newlines),
//! subshells and groups, redirections, here-docs and here-strings, leading assignments,
//! comments, function definitions and `if/for/while/until/case` bodies. It never touches a
//! file system and never runs anything. Every byte is looked at a bounded number of times
//! (nesting is limited to [`MAX_DEPTH`]), so the cost is linear in the input; on top of
//! that every parse spends from a [`Budget`] of steps proportional to the input, so a
//! bug that stops the parser from advancing ends in [`ParseErrorKind::TooComplex`], never
//! in a hang or an unbounded allocation.

pub use crate::budget::Budget;

/// Deepest nesting of substitutions, subshells and nested shell strings.
pub const MAX_DEPTH: usize = 48;

/// Byte range `[start, end)` in the original command string.
pub type Span = [usize; 2];

/// Why a command string could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: &'static str,
    /// Where (in the original string) the problem was found.
    pub span: Span,
    pub kind: ParseErrorKind,
}

/// What kind of failure a [`ParseError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The text is not valid shell (as far as this parser reads it).
    Syntax,
    /// The work budget ran out: the text is too complex to classify in bounded time.
    TooComplex,
}

/// A parsed command list: pipelines joined by `;`, `&`, `&&`, `||` or newlines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    pub pipelines: Vec<Pipeline>,
}

/// Commands joined by `|` or `|&`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pipeline {
    pub stages: Vec<Command>,
    /// Ended by `&`.
    pub background: bool,
}

/// One stage of a pipeline.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Simple(SimpleCommand),
    /// `( … )`, `{ …; }`, or a control structure's body: its commands, plus redirects
    /// and words (e.g. `for` lists, `case` subjects) that may hold substitutions.
    Compound {
        body: Script,
        words: Vec<Word>,
        redirects: Vec<Redirect>,
        span: Span,
    },
    /// `name() { body }` / `function name { body }`.
    Function {
        name: String,
        body: Box<Command>,
        span: Span,
    },
    /// `(( … ))`: arithmetic, which can evaluate substitutions and array subscripts.
    Arith {
        words: Vec<Word>,
        span: Span,
    },
}

/// A simple command: assignments, words and redirects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimpleCommand {
    pub assigns: Vec<Word>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub span: Span,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    In,
    /// `>`, `>|`
    Out,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `&>`, `>&` with a file name
    OutErr,
    /// `&>>`
    AppendErr,
    /// `>&N`, `<&N`, `>&-`: duplicates a descriptor.
    Dup,
    /// `<<`, `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirOp {
    /// True when the redirect writes to its target.
    pub fn writes(self) -> bool {
        match self {
            RedirOp::Out
            | RedirOp::Append
            | RedirOp::ReadWrite
            | RedirOp::OutErr
            | RedirOp::AppendErr => true,
            RedirOp::In | RedirOp::Dup | RedirOp::HereDoc | RedirOp::HereString => false,
        }
    }
}

/// A redirection with its target word (the delimiter for here-docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    pub op: RedirOp,
    pub target: Word,
    /// Here-doc body (after the delimiter line), with the offset of its first byte.
    pub heredoc: Option<HereDoc>,
    pub span: Span,
}

/// The body of a here-document.
#[derive(Debug, Clone, PartialEq)]
pub struct HereDoc {
    pub body: String,
    /// Offset of the body in the original string.
    pub start: usize,
    /// The delimiter was quoted: the body is literal (no substitutions).
    pub quoted: bool,
    /// Substitutions found in an unquoted body.
    pub subs: Vec<Script>,
    /// While parsing: the slot its body will be read into; `None` once attached.
    pub slot: Option<usize>,
}

/// A shell word after quote removal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Word {
    pub span: Span,
    /// The text after quote removal; expansions (`$HOME`, `$(…)`) are kept as source text.
    pub text: String,
    /// Contains a parameter expansion, substitution or arithmetic.
    pub dynamic: bool,
    /// Contains an unquoted glob character (`*`, `?`, `[`).
    pub glob: bool,
    /// Any part of it was quoted or escaped.
    pub quoted: bool,
    /// Starts with an unquoted `~`.
    pub tilde: bool,
    /// Unquoted brace expansion (`{a,b}`, `{1..3}`): its alternatives, when few enough.
    pub braces: Option<Vec<String>>,
    /// Command and process substitutions inside the word.
    pub subs: Vec<Script>,
    /// `NAME=` or `NAME+=` prefix (unquoted): an assignment when before the command.
    pub assign: bool,
    /// When the whole word is one quoted chunk with no escapes, the offset of its content
    /// in the original string (so spans of a nested parse of `text` map back exactly).
    pub content_start: Option<usize>,
    /// A command substitution's output is evaluated as arithmetic (`$(( $(cmd) ))`,
    /// `$[ $(cmd) ]`): text it prints such as `a[$(…)]` would run.
    pub arith_subs: bool,
    /// The whole word is one parameter expansion, `$x`, `${x}`, `"$x"` or `"${x}"`:
    /// whether it is quoted (so its value is not split or globbed). The name is
    /// [`Word::param_name`].
    pub param: Option<bool>,
}

impl Word {
    /// The variable a [`Word::param`] word expands (`x` for `"${x}"`).
    pub fn param_name(&self) -> Option<&str> {
        self.param?;
        let t = self.text.as_str();
        t.strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .or_else(|| t.strip_prefix('$'))
    }

    /// The static value, when the word has no expansion of any kind.
    pub fn value(&self) -> Option<&str> {
        if self.dynamic || self.glob || self.braces.is_some() {
            None
        } else {
            Some(&self.text)
        }
    }
}

/// Parses a whole command string, with a budget of its own.
pub fn parse(src: &str) -> Result<Script, ParseError> {
    parse_in(src, 0, None, 0, &mut Budget::for_input(src.len()))
}

/// Parses `src`, which sits at `base` in the original string, or whose spans are all
/// `fixed` when it is a decoded string (backticks, `bash -c "…"` with escapes), with a
/// budget of its own.
pub fn parse_nested(
    src: &str,
    base: usize,
    fixed: Option<Span>,
    depth: usize,
) -> Result<Script, ParseError> {
    parse_in(src, base, fixed, depth, &mut Budget::for_input(src.len()))
}

/// [`parse_nested`] spending from `budget`, which a caller shares across the parses of
/// one classification (the command and the scripts nested in it).
pub fn parse_in(
    src: &str,
    base: usize,
    fixed: Option<Span>,
    depth: usize,
    budget: &mut Budget,
) -> Result<Script, ParseError> {
    // Line continuations go first, as in bash; spans map back through `map`.
    let cleaned = crate::continuation::remove(src);
    let (text, map) = match &cleaned {
        Some((text, map)) => (text.as_str(), map.as_slice()),
        None => (src, &[][..]),
    };
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        map,
        pos: 0,
        base,
        fixed,
        depth,
        pending: Vec::new(),
        bodies: Vec::new(),
        open_if: 0,
        open_do: 0,
        comsub: 0,
        budget: std::mem::take(budget),
    };
    let r = p.parse_all();
    *budget = p.budget;
    r
}

impl Parser<'_> {
    fn parse_all(&mut self) -> Result<Script, ParseError> {
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
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
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

struct PendingDoc {
    delim: String,
    strip_tabs: bool,
    quoted: bool,
    id: usize,
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    /// For each byte of `src`, its offset in the text given to [`parse_in`] when line
    /// continuations were removed from it (empty when none were).
    map: &'a [usize],
    pos: usize,
    base: usize,
    fixed: Option<Span>,
    depth: usize,
    pending: Vec<PendingDoc>,
    /// Here-doc bodies by id, filled when the line that declared them ends.
    bodies: Vec<Option<HereDoc>>,
    /// `if`/`fi` and `do`/`done` balance, so an unterminated `if` is an error.
    open_if: i64,
    open_do: i64,
    /// Inside this many `$( … )` / `<( … )` / `>( … )`: there a here-document also ends
    /// at a line of its delimiter followed by the `)` that closes the substitution
    /// (bash 5.2 reads `$(cat <<E⏎hi⏎E)` as `hi`).
    comsub: u32,
    /// The classification's work budget, spent one step per loop of the parser.
    budget: Budget,
}

/// `$x`, `${x}`, `"$x"`, `"${x}"` (a variable name or one positional digit): whether
/// it is quoted.
fn param_ref(src: &str) -> Option<bool> {
    let (inner, quoted) = match src.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(i) => (i, true),
        None => (src, false),
    };
    let name = inner
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| inner.strip_prefix('$'))?;
    let b = name.as_bytes();
    let ok = (b.len() == 1 && b[0].is_ascii_digit())
        || (b.first().is_some_and(|&c| is_name_start(c)) && b.iter().all(|&c| is_name(c)));
    ok.then_some(quoted)
}

fn is_meta(b: u8) -> bool {
    META[b as usize]
}

/// [`is_meta`] as a table: the parser asks it of every byte of every word.
static META: [bool; 256] = {
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
fn is_special(b: u8) -> bool {
    matches!(
        b,
        b'\'' | b'"' | b'\\' | b'$' | b'`' | b'*' | b'?' | b'[' | b'~' | b'{' | b',' | b'}' | b'='
    )
}

/// The last word read is an assignment with nothing after its `=` (`a=`, `a+=`).
fn ends_in_assign(sc: &SimpleCommand) -> bool {
    let last = if sc.words.is_empty() {
        sc.assigns.last()
    } else {
        sc.words.last()
    };
    last.is_some_and(|w| w.assign && w.text.ends_with('=') && w.subs.is_empty())
}

fn is_empty_command(c: &Command) -> bool {
    matches!(c, Command::Simple(sc) if sc.words.is_empty() && sc.assigns.is_empty() && sc.redirects.is_empty())
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Parser<'a> {
    /// Where position `at` of the parsed text is in the text given to [`parse_in`].
    fn orig(&self, at: usize) -> usize {
        match self.map.get(at) {
            Some(&o) => o,
            None => self.map.last().map_or(at, |&end| end),
        }
    }

    fn span(&self, a: usize, b: usize) -> Span {
        match self.fixed {
            Some(f) => f,
            None => [self.base + self.orig(a), self.base + self.orig(b)],
        }
    }

    /// Where local position `at` is in the original string: `None` in a decoded string
    /// (whose spans are all `fixed`), where positions do not map back.
    fn source_pos(&self, at: usize) -> Option<usize> {
        match self.fixed {
            Some(_) => None,
            // With continuations removed the text no longer matches the source
            // byte for byte: a nested parse of it keeps the word's span.
            None if !self.map.is_empty() => None,
            None => Some(self.base + at),
        }
    }

    fn err(&self, message: &'static str, at: usize) -> ParseError {
        let end = (at + 1).min(self.s.len()).max(at);
        ParseError {
            message,
            span: self.span(at, end),
            kind: ParseErrorKind::Syntax,
        }
    }

    /// Nesting past [`MAX_DEPTH`]: the parse ends here, too complex to classify (it is
    /// never retried another way).
    fn too_deep(&self, at: usize) -> ParseError {
        let mut e = self.err("nesting too deep (over 48 levels)", at);
        e.kind = ParseErrorKind::TooComplex;
        e
    }

    /// Spends one step of the budget; the error says where the parser stopped.
    #[inline]
    fn tick(&mut self) -> Result<(), ParseError> {
        if self.budget.spend(1) {
            return Ok(());
        }
        let mut e = self.err("work budget exhausted", self.pos);
        e.kind = ParseErrorKind::TooComplex;
        Err(e)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, off: usize) -> Option<u8> {
        self.s.get(self.pos + off).copied()
    }

    fn starts(&self, lit: &str) -> bool {
        self.s[self.pos..].starts_with(lit.as_bytes())
    }

    /// Skips blanks, line continuations and comments (not newlines).
    fn skip_blanks(&mut self) {
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

    /// Consumes a newline and reads the bodies of the here-docs declared on its line.
    fn newline(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        if !self.pending.is_empty() {
            self.read_heredocs()?;
        }
        Ok(())
    }

    /// Reads the bodies of the here-documents started on the line just ended. The
    /// substitutions of an unquoted body are parsed once, here; a syntax error in one
    /// is skipped (bash reports it only when the body is expanded), but running out of
    /// depth or budget ends the whole parse.
    fn read_heredocs(&mut self) -> Result<(), ParseError> {
        let docs = std::mem::take(&mut self.pending);
        for doc in docs {
            let start = self.pos;
            let mut body_end = self.s.len();
            let mut next = self.s.len();
            let mut line_start = self.pos;
            while line_start < self.s.len() {
                let line_end = self.s[line_start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(self.s.len(), |i| line_start + i);
                let mut line = &self.src[line_start..line_end];
                if doc.strip_tabs {
                    line = line.trim_start_matches('\t');
                }
                if line.trim_end_matches('\r') == doc.delim {
                    body_end = line_start;
                    next = (line_end + 1).min(self.s.len());
                    break;
                }
                // `E)` in a substitution: the body ends, the `)` closes it.
                if self.comsub > 0
                    && !doc.delim.is_empty()
                    && line
                        .strip_prefix(doc.delim.as_str())
                        .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(')'))
                {
                    body_end = line_start;
                    // Where the delimiter ends (after any stripped tabs).
                    next = line_end - (line.len() - doc.delim.len());
                    break;
                }
                line_start = line_end + 1;
            }
            let body = self.src[start..body_end].to_string();
            let mut subs = Vec::new();
            if !doc.quoted {
                // An unquoted body undergoes substitutions: find them.
                // The body alone, as bash expands it: a substitution in it ends inside
                // it (a here-document nested in it cannot read past the body, which
                // would also scan the same bytes again at every level).
                let mut sub = Parser {
                    s: &self.s[..body_end],
                    src: self.src.get(..body_end).unwrap_or(self.src),
                    map: self.map,
                    pos: start,
                    base: self.base,
                    fixed: self.fixed,
                    depth: self.depth,
                    pending: Vec::new(),
                    bodies: Vec::new(),
                    open_if: 0,
                    open_do: 0,
                    comsub: self.comsub,
                    budget: std::mem::take(&mut self.budget),
                };
                let mut w = Word::default();
                let mut failed = None;
                while sub.pos < body_end {
                    if let Err(e) = sub.tick() {
                        failed = Some(e);
                        break;
                    }
                    let at = sub.pos;
                    let r = match sub.peek() {
                        Some(b'\\') => {
                            sub.pos += 2;
                            Ok(())
                        }
                        Some(b'$') => sub.dollar(&mut w, true),
                        Some(b'`') => sub.backtick(&mut w),
                        _ => {
                            sub.pos += 1;
                            Ok(())
                        }
                    };
                    match r {
                        Err(e) if e.kind == ParseErrorKind::TooComplex => {
                            failed = Some(e);
                            break;
                        }
                        // A syntax error: go on after the `$` or backtick.
                        Err(_) => sub.pos = sub.pos.max(at + 1),
                        Ok(()) => {}
                    }
                }
                subs = w.subs;
                // Here-documents inside the body's substitutions were read by `sub`.
                for script in &mut subs {
                    sub.attach_heredocs(script);
                }
                self.budget = sub.budget;
                if let Some(e) = failed {
                    return Err(e);
                }
            }
            if doc.id < self.bodies.len() {
                self.bodies[doc.id] = Some(HereDoc {
                    body,
                    start: self.base + self.orig(start),
                    quoted: doc.quoted,
                    subs,
                    slot: None,
                });
            }
            self.pos = next;
        }
        Ok(())
    }

    fn attach_heredocs(&mut self, script: &mut Script) {
        for pl in &mut script.pipelines {
            for cmd in &mut pl.stages {
                self.attach_cmd(cmd);
            }
        }
    }

    fn attach_cmd(&mut self, cmd: &mut Command) {
        match cmd {
            Command::Simple(sc) => {
                self.attach_words(&mut sc.assigns);
                self.attach_words(&mut sc.words);
                self.attach_redirects(&mut sc.redirects);
            }
            Command::Compound {
                body,
                words,
                redirects,
                ..
            } => {
                self.attach_heredocs(body);
                self.attach_words(words);
                self.attach_redirects(redirects);
            }
            Command::Function { body, .. } => self.attach_cmd(body),
            Command::Arith { words, .. } => self.attach_words(words),
        }
    }

    /// Here-documents started inside substitutions (`$(cat <<E …)`, `<(…)`): their
    /// bodies were read by this parser too and belong to the scripts in the words.
    fn attach_words(&mut self, words: &mut [Word]) {
        for w in words {
            for sub in &mut w.subs {
                self.attach_heredocs(sub);
            }
        }
    }

    fn attach_redirects(&mut self, redirects: &mut [Redirect]) {
        for r in redirects {
            for sub in &mut r.target.subs {
                self.attach_heredocs(sub);
            }
            // Only a placeholder of this parser's: a here-document inside a backtick
            // or a decoded string was attached by the parser that read it.
            if let Some(id) = r.heredoc.as_ref().and_then(|h| h.slot) {
                r.heredoc = self.bodies.get_mut(id).and_then(Option::take);
            }
        }
    }

    /// Parses a command list until `stop`.
    fn list(&mut self, stop: Stop) -> Result<Script, ParseError> {
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
    fn reserved_here(&self) -> Option<&'static str> {
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

    fn pipeline(&mut self, stop: Stop) -> Result<Pipeline, ParseError> {
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
                loop {
                    self.skip_blanks();
                    if self.peek() == Some(b'\n') {
                        self.newline()?;
                    } else {
                        break;
                    }
                }
                continue;
            }
            return Ok(pl);
        }
    }

    fn nested(&mut self, stop: Stop) -> Result<Script, ParseError> {
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
    fn bare_word(&self) -> &'a str {
        let rest = &self.s[self.pos..];
        let n = rest.iter().position(|&b| is_meta(b)).unwrap_or(rest.len());
        self.src.get(self.pos..self.pos + n).unwrap_or("")
    }

    /// [`Parser::bare_word`] when it is short enough to be a reserved word (`function`
    /// is the longest), else empty: the parser asks before every command, and a long
    /// word need not be read to the end.
    fn keyword(&self) -> &'a str {
        let rest = &self.s[self.pos..];
        match rest.iter().take(9).position(|&b| is_meta(b)) {
            Some(n) => self.src.get(self.pos..self.pos + n).unwrap_or(""),
            None if rest.len() <= 8 => self.src.get(self.pos..).unwrap_or(""),
            None => "",
        }
    }

    /// `NAME=` or `NAME+=` here: an assignment (`time x=1` times it, and it sets `x`).
    fn assignment_here(&self) -> bool {
        let rest = &self.s[self.pos..];
        let n = rest.iter().take_while(|&&b| is_name(b)).count();
        n > 0
            && rest.first().is_some_and(|&b| is_name_start(b))
            && (rest.get(n) == Some(&b'=') || rest.get(n..n + 2) == Some(b"+="))
    }

    /// A name, blanks and `()` here: the start of a function definition.
    fn function_def_here(&self) -> bool {
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

    fn command(&mut self, stop: Stop) -> Result<Command, ParseError> {
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

    fn word_is(&self, w: &str) -> bool {
        self.starts(w) && self.s.get(self.pos + w.len()).copied().is_none_or(is_meta)
    }

    fn compound_tail(
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

    /// Redirects after a compound command (`{ …; } > out`), or after `fi`/`done`.
    fn redirects_only(&mut self, sc: &mut SimpleCommand) -> Result<(), ParseError> {
        loop {
            self.skip_blanks();
            if !self.redirect_here() {
                return Ok(());
            }
            self.redirect(sc)?;
        }
    }

    fn function_body(
        &mut self,
        name: String,
        start: usize,
        stop: Stop,
    ) -> Result<Command, ParseError> {
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'\n') {
                self.newline()?;
            } else {
                break;
            }
        }
        let body = self.command(stop)?;
        Ok(Command::Function {
            name,
            body: Box::new(body),
            span: self.span(start, self.pos),
        })
    }

    fn arith_command(&mut self, start: usize) -> Result<Command, ParseError> {
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
    fn arith_body(&mut self, w: &mut Word, start: usize) -> Result<(), ParseError> {
        self.arith_until(w, start, false)
    }

    /// Arithmetic text up to its end: `))` after `((` / `$((`, or `]` after `$[` (the
    /// old form, `bracket`). Substitutions in it are collected; a `'` quotes nothing
    /// there (`$(( '$(cmd)' ))` runs `cmd`).
    fn arith_until(&mut self, w: &mut Word, start: usize, bracket: bool) -> Result<(), ParseError> {
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

    fn for_command(&mut self, start: usize) -> Result<Command, ParseError> {
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

    fn case_command(&mut self, start: usize) -> Result<Command, ParseError> {
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
    fn cond_command(&mut self, start: usize) -> Result<Command, ParseError> {
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
                        text: self.src[s..self.pos].to_string(),
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

    fn redirect_here(&self) -> bool {
        let mut i = self.pos;
        while i < self.s.len() && self.s[i].is_ascii_digit() {
            i += 1;
        }
        if i < self.s.len() && self.s[i] == b'{' && i == self.pos {
            // {var}> form
            let mut j = i + 1;
            while j < self.s.len() && is_name(self.s[j]) {
                j += 1;
            }
            if j < self.s.len() && self.s[j] == b'}' && j > i + 1 {
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

    fn redirect(&mut self, sc: &mut SimpleCommand) -> Result<(), ParseError> {
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

    fn simple(&mut self, start: usize, stop: Stop) -> Result<Command, ParseError> {
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
    fn array_elements(&mut self, sc: &mut SimpleCommand) -> Result<(), ParseError> {
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

    /// Reads one word at the current position (possibly empty if at a metacharacter).
    fn word(&mut self) -> Result<Word, ParseError> {
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
            if self.depth >= MAX_DEPTH {
                // Neither a substitution (too deep) nor a redirect: an error, not an
                // empty word that the caller would read again and again.
                return Err(self.too_deep(self.pos));
            }
            self.pos += 2;
            self.comsub += 1;
            let script = self.nested(Stop::Paren);
            self.comsub -= 1;
            let script = script?;
            if self.peek() != Some(b')') {
                return Err(self.err("unterminated process substitution", start));
            }
            self.pos += 1;
            w.subs.push(script);
            w.dynamic = true;
            w.text = self.src[start..self.pos].to_string();
            w.span = self.span(start, self.pos);
            return Ok(w);
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
                    && is_name_start(w.text.as_bytes()[0])
                    && w.text.bytes().all(|c| is_name(c) || c == b'+')
                    && !w.text[..w.text.len() - 1].contains('+') =>
                {
                    w.assign = true;
                    self.push_char(&mut w);
                }
                _ => {
                    // A run of ordinary bytes at once.
                    let run = self.s[self.pos..]
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
                        None => self.push_char(&mut w),
                    }
                }
            }
        }
        if chunks != 1 || (!plain_chunk && w.content_start.is_none()) {
            w.content_start = None;
        }
        if let Some(at) = bracket_at {
            if w.text.get(at + 1..).is_some_and(|rest| rest.contains(']')) {
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
        w.param = param_ref(&self.src[start..self.pos]);
        w.span = self.span(start, self.pos);
        Ok(w)
    }

    fn push_char(&mut self, w: &mut Word) {
        let len = utf8_len(self.s[self.pos]);
        let end = (self.pos + len).min(self.s.len());
        w.text
            .push_str(self.src.get(self.pos..end).unwrap_or("\u{FFFD}"));
        self.pos = end;
    }

    fn single_quoted(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let start = self.pos - 1;
        w.quoted = true;
        match self.s[self.pos..].iter().position(|&b| b == b'\'') {
            Some(i) => {
                w.text.push_str(&self.src[self.pos..self.pos + i]);
                self.pos += i + 1;
                Ok(())
            }
            None => Err(self.err("unterminated single quote", start)),
        }
    }

    /// Reads a double-quoted string (after the opening quote). Returns true when it had
    /// no escapes or expansions (its text is a verbatim slice of the source).
    fn double_quoted(&mut self, w: &mut Word) -> Result<bool, ParseError> {
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
    fn ansi_c(&mut self, w: &mut Word) -> Result<(), ParseError> {
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
                    let Some(c) = self.peek() else {
                        return Err(self.err("unterminated $'…'", start));
                    };
                    self.pos += 1;
                    match c {
                        b'n' => w.text.push('\n'),
                        b't' => w.text.push('\t'),
                        b'r' => w.text.push('\r'),
                        b'a' => w.text.push('\x07'),
                        b'b' => w.text.push('\x08'),
                        b'e' | b'E' => w.text.push('\x1b'),
                        b'f' => w.text.push('\x0c'),
                        b'v' => w.text.push('\x0b'),
                        b'x' => {
                            let v = self.hex_digits(2);
                            push_code(w, v);
                        }
                        b'u' => {
                            let v = self.hex_digits(4);
                            push_code(w, v);
                        }
                        b'U' => {
                            let v = self.hex_digits(8);
                            push_code(w, v);
                        }
                        b'0'..=b'7' => {
                            let mut v = u32::from(c - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            push_code(w, Some(v & 0xff));
                        }
                        b'c' => {
                            if let Some(d) = self.peek() {
                                self.pos += 1;
                                w.text.push(char::from(d & 0x1f));
                            }
                        }
                        b'\\' | b'\'' | b'"' | b'?' => w.text.push(char::from(c)),
                        _ => {
                            w.text.push('\\');
                            self.pos -= 1;
                            self.push_char(w);
                        }
                    }
                }
                Some(_) => self.push_char(w),
            }
        }
    }

    fn hex_digits(&mut self, max: usize) -> Option<u32> {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            match self.peek().and_then(|b| char::from(b).to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                    n += 1;
                }
                None => break,
            }
        }
        (n > 0).then_some(v)
    }

    /// `$…` at the current position: `$(…)`, `$((…))`, `${…}`, `$NAME`, `$1`, `$@`, or a
    /// literal `$`.
    fn dollar(&mut self, w: &mut Word, in_dq: bool) -> Result<(), ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.too_deep(self.pos));
        }
        self.depth += 1;
        let r = self.dollar_inner(w, in_dq);
        self.depth -= 1;
        r
    }

    fn dollar_inner(&mut self, w: &mut Word, in_dq: bool) -> Result<(), ParseError> {
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
                self.pos += 2;
                self.comsub += 1;
                let script = self.nested(Stop::Paren);
                self.comsub -= 1;
                let script = script?;
                if self.peek() != Some(b')') {
                    return Err(self.err("unterminated `$(`", start));
                }
                self.pos += 1;
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
        w.text.push_str(&self.src[start..self.pos]);
        Ok(())
    }

    /// `${ … }` body: up to the matching `}`, collecting nested substitutions. Inside
    /// double quotes (or an unquoted here-document), a `'` in `${x:-'…'}` is an ordinary
    /// character and a `$(…)` after it runs: it is parsed as one (fail closed, also for
    /// the pattern forms where bash would quote).
    fn param_body(&mut self, w: &mut Word, start: usize, _in_dq: bool) -> Result<(), ParseError> {
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
                    if tmp.text.contains("$(") || tmp.text.contains('`') {
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
    fn backtick(&mut self, w: &mut Word) -> Result<(), ParseError> {
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
                    let len = utf8_len(self.s[self.pos]);
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
        w.text.push_str(&self.src[start..self.pos]);
        Ok(())
    }
}

fn utf8_len(b: u8) -> usize {
    match b {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

fn push_code(w: &mut Word, v: Option<u32>) {
    match v.and_then(char::from_u32) {
        Some('\0') | None => {}
        Some(c) => w.text.push(c),
    }
}

const BRACE_OPEN: char = '\u{E000}';
const BRACE_COMMA: char = '\u{E001}';
const BRACE_CLOSE: char = '\u{E002}';

/// Brings the marked copy up to date with the text pushed since `mirrored` bytes.
fn sync_marked(m: &mut String, mirrored: &mut usize, text: &str) {
    if let Some(rest) = text.get(*mirrored..) {
        m.push_str(rest);
    }
    *mirrored = text.len();
}

fn has_brace_expansion(m: &str) -> bool {
    m.contains(BRACE_OPEN) && (m.contains(BRACE_COMMA) || m.contains(".."))
}

/// Most alternatives a brace expansion may produce before the word counts as dynamic.
const MAX_BRACE_ALTS: usize = 64;

/// Expands unquoted `{a,b}` (marked) in a word; `None` when there is none, or too many.
fn expand_braces(m: &str) -> Option<Vec<String>> {
    if !has_brace_expansion(m) || m.matches(BRACE_OPEN).count() > 16 {
        return None;
    }
    let mut out = Vec::new();
    if !expand_into(m, &mut out, 0) {
        return None;
    }
    if out.len() == 1 && out[0] == m {
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

fn expand_into(m: &str, out: &mut Vec<String>, depth: usize) -> bool {
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
        for &(bj, d) in &chars[i + 1..] {
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
            match sequence(&m[bi + BRACE_OPEN.len_utf8()..close]) {
                Some(Some(items)) => {
                    let pre = &m[..bi];
                    let post = &m[close + BRACE_CLOSE.len_utf8()..];
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
        let pre = &m[..bi];
        let post = &m[close + BRACE_CLOSE.len_utf8()..];
        let mut last = bi + BRACE_OPEN.len_utf8();
        let mut alts = Vec::new();
        for &cpos in &commas {
            alts.push(&m[last..cpos]);
            last = cpos + BRACE_COMMA.len_utf8();
        }
        alts.push(&m[last..close]);
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

/// The items of a brace sequence body `x..y[..step]` (integers, or single letters):
/// `None` when it is not one (the braces are literal), `Some(None)` when it has more
/// than [`MAX_BRACE_ALTS`] items.
fn sequence(body: &str) -> Option<Option<Vec<String>>> {
    let parts: Vec<&str> = body.split("..").collect();
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
fn steps(x: i64, y: i64, step: i64) -> Option<Vec<i64>> {
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

/// Every simple command of a script in source order, descending into compound commands
/// and function bodies (not into substitutions: those are in the words' `subs`).
pub fn simple_commands(script: &Script) -> Vec<&SimpleCommand> {
    let mut out = Vec::new();
    for pl in &script.pipelines {
        for c in &pl.stages {
            collect_simple(c, &mut out);
        }
    }
    out
}

fn collect_simple<'s>(c: &'s Command, out: &mut Vec<&'s SimpleCommand>) {
    match c {
        Command::Simple(sc) => out.push(sc),
        Command::Compound { body, .. } => {
            for pl in &body.pipelines {
                for c in &pl.stages {
                    collect_simple(c, out);
                }
            }
        }
        Command::Function { body, .. } => collect_simple(body, out),
        Command::Arith { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Vec<String>> {
        let s = parse(src).unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
        simple_commands(&s)
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_commands_and_unquotes() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("ls -la", &[&["ls", "-la"]]),
            ("r''m -rf /", &[&["rm", "-rf", "/"]]),
            ("\"rm\" x", &[&["rm", "x"]]),
            ("\\rm x", &[&["rm", "x"]]),
            (
                "a && b || c; d & e | f |& g",
                &[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"], &["g"]],
            ),
            ("(a; b) && { c; }", &[&["a"], &["b"], &["c"]]),
            (
                "if a; then b; elif c; then d; else e; fi",
                &[&["a"], &["b"], &["c"], &["d"], &["e"]],
            ),
            ("for x in 1 2; do echo $x; done", &[&["echo", "$x"]]),
            ("while true; do ls; done", &[&["true"], &["ls"]]),
            (
                "case $x in a) rm a;; b|c) ls;; esac",
                &[&["rm", "a"], &["ls"]],
            ),
            ("echo $'\\x72m'", &[&["echo", "rm"]]),
            ("ls # rm -rf /", &[&["ls"]]),
            ("X=1 Y=2 ls", &[&["ls"]]),
            ("f() { rm x; }; f", &[&["rm", "x"], &["f"]]),
            ("echo a\\\nb", &[&["echo", "ab"]]),
        ];
        for (src, want) in cases {
            let want: Vec<Vec<String>> = want
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect();
            assert_eq!(words(src), want, "{src:?}");
        }
    }

    #[test]
    fn finds_substitutions_and_heredocs() {
        let s = parse("echo $(sudo id) `whoami` <(curl x)").unwrap();
        let sc = simple_commands(&s)[0];
        assert_eq!(sc.words[1].subs.len(), 1);
        assert_eq!(sc.words[2].subs.len(), 1);
        assert_eq!(sc.words[3].subs.len(), 1);
        let s = parse("bash <<EOF\nrm -rf ~\nEOF\nls").unwrap();
        let cmds = simple_commands(&s);
        assert_eq!(cmds.len(), 2);
        let doc = cmds[0].redirects[0].heredoc.as_ref().unwrap();
        assert_eq!(doc.body, "rm -rf ~\n");
        assert_eq!(
            &"bash <<EOF\nrm -rf ~\nEOF\nls"[doc.start..doc.start + 8],
            "rm -rf ~"
        );
    }

    #[test]
    fn spans_point_into_the_source() {
        let src = "git status && sudo reboot";
        let s = parse(src).unwrap();
        let cmds = simple_commands(&s);
        let w = &cmds[1].words[0];
        assert_eq!(&src[w.span[0]..w.span[1]], "sudo");
    }

    #[test]
    fn braces_expand() {
        let s = parse("{rm,-rf,/}").unwrap();
        let w = &simple_commands(&s)[0].words[0];
        assert_eq!(
            w.braces.as_deref(),
            Some(&["rm".to_string(), "-rf".to_string(), "/".to_string()][..])
        );
        let s = parse("echo '{a,b}'").unwrap();
        assert_eq!(simple_commands(&s)[0].words[1].braces, None);
    }

    #[test]
    fn brace_sequences_expand_as_bash_does() {
        let items = |src: &str| {
            let s = parse(&format!("echo {src}")).unwrap();
            simple_commands(&s)[0].words[1].braces.clone()
        };
        let v = |xs: &[&str]| Some(xs.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(items(".e{n..n}v"), v(&[".env"]));
        assert_eq!(items("{1..3}"), v(&["1", "2", "3"]));
        assert_eq!(items("{3..1}"), v(&["3", "2", "1"]));
        assert_eq!(items("{01..03}"), v(&["01", "02", "03"]));
        assert_eq!(items("{-1..1}"), v(&["-1", "0", "1"]));
        assert_eq!(items("{a..e..2}"), v(&["a", "c", "e"]));
        assert_eq!(items("{1..10..4}"), v(&["1", "5", "9"]));
        assert_eq!(items("{1..2..9223372036854775807}"), v(&["1"]));
        assert_eq!(items("x{a,b}{1..2}"), v(&["xa1", "xa2", "xb1", "xb2"]));
        // Not a sequence: literal braces.
        assert_eq!(items("{x..yz}"), None);
        assert_eq!(items("{1..b}"), None);
        // Too long a sequence: a dynamic word, not its literal text.
        let s = parse("cat {1..1000}").unwrap();
        let w = &simple_commands(&s)[0].words[1];
        assert!(w.braces.is_none() && w.dynamic);
    }

    #[test]
    fn errors() {
        for src in [
            "echo \"a",
            "grep 'x",
            "echo $(ls",
            "echo `ls",
            "(ls",
            "ls )",
            "echo ${x",
        ] {
            assert!(parse(src).is_err(), "{src:?}");
        }
        let deep = "$(".repeat(10_000);
        assert!(parse(&deep).is_err());
    }
}
