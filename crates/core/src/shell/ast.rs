//! The syntax tree the parser builds: scripts, pipelines, commands, words, redirections.

/// Byte range `[start, end)` in the original command string.
pub type Span = [usize; 2];

/// Why a command string could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, in words.
    pub message: &'static str,
    /// Where (in the original string) the problem was found.
    pub span: Span,
    /// Bad syntax, or over the work budget.
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
    /// The pipelines, in order.
    pub pipelines: Vec<Pipeline>,
}

/// Commands joined by `|` or `|&`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pipeline {
    /// The commands, left to right.
    pub stages: Vec<Command>,
    /// Ended by `&`.
    pub background: bool,
}

/// One stage of a pipeline.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A simple command.
    Simple(SimpleCommand),
    /// `( … )`, `{ …; }`, or a control structure's body: its commands, plus redirects
    /// and words (e.g. `for` lists, `case` subjects) that may hold substitutions.
    Compound {
        /// The commands inside.
        body: Script,
        /// Words evaluated outside the body (a `for` list, a `case` subject, the arithmetic's text).
        words: Vec<Word>,
        /// Redirections applied to the whole compound.
        redirects: Vec<Redirect>,
        /// Where it is in the original string.
        span: Span,
    },
    /// `name() { body }` / `function name { body }`.
    Function {
        /// The function's name.
        name: String,
        /// The commands inside.
        body: Box<Command>,
        /// Where it is in the original string.
        span: Span,
    },
    /// `(( … ))`: arithmetic, which can evaluate substitutions and array subscripts.
    Arith {
        /// Words evaluated outside the body (a `for` list, a `case` subject, the arithmetic's text).
        words: Vec<Word>,
        /// Where it is in the original string.
        span: Span,
    },
}

/// A simple command: assignments, words and redirects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimpleCommand {
    /// `NAME=value` words before the command name.
    pub assigns: Vec<Word>,
    /// The command name and its arguments.
    pub words: Vec<Word>,
    /// Its redirections.
    pub redirects: Vec<Redirect>,
    /// Where it is in the original string.
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
    /// The operator.
    pub op: RedirOp,
    /// The file (or descriptor, or here-doc delimiter) it names.
    pub target: Word,
    /// Here-doc body (after the delimiter line), with the offset of its first byte.
    pub heredoc: Option<HereDoc>,
    /// Where it is in the original string.
    pub span: Span,
}

/// The body of a here-document.
#[derive(Debug, Clone, PartialEq)]
pub struct HereDoc {
    /// The body's text.
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
    /// Where it is in the original string (before quote removal).
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
