//! The syntax tree the parser builds: scripts, pipelines, commands, words, redirections.

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
