//! The built-in shell rules: hard deny, the read-only allowlist, wrappers and nested
//! shells. Walks a parsed [`Script`](crate::shell::Script) and yields one [`RawPart`] per simple command.

#[cfg(feature = "sandbox-verdict")]
mod contain;
mod find;
mod getopt;
mod git;
mod hard_deny;
mod inspect;
mod names;
pub mod programs;
mod reach;
mod readonly;
mod secrets;
mod simple;
mod text;
mod walk;
mod words;
mod wrappers;

pub use secrets::secret_var;

use crate::budget::Budget;
use crate::rule_id::RuleId;
use crate::shell::{self, ParseError, ParseErrorKind, Span, Word};
use crate::verdict::Tier;
use std::borrow::Cow;
use std::cell::Cell;

/// Longest shell command classified; longer input is `ask` without being scanned.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// What the built-in rules found for one part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The tier the rule gives.
    pub tier: Tier,
    /// Stable id, e.g. `builtin.shell.priv-esc`.
    pub rule: RuleId,
    /// Why, in words.
    pub reason: Cow<'static, str>,
    /// The part of the command it is about.
    pub span: Span,
    /// It asks only because it runs code (or reads trees) toolgate cannot see, and
    /// `toolgate sandbox` contains everything it may do: a host that runs it there may
    /// answer `sandbox` instead of asking (see `builtin/contain.rs`). Only in builds
    /// with the `sandbox-verdict` feature (the wasm builds carry no bytes for it).
    #[cfg(feature = "sandbox-verdict")]
    pub containable: bool,
    /// Why a program that runs code is not containable (it needs the network, writes
    /// outside the workspace, …): said in the reason where the host sandboxes.
    #[cfg(feature = "sandbox-verdict")]
    pub withheld: Option<Cow<'static, str>>,
    /// It is not containable only because it installs from a package registry into
    /// the workspace: containable with HTTPS to the registries a policy names
    /// (`sandbox_network`).
    #[cfg(feature = "sandbox-verdict")]
    pub registry: bool,
}

impl Finding {
    fn new(tier: Tier, rule: RuleId, reason: impl Into<Cow<'static, str>>, span: Span) -> Finding {
        Finding {
            tier,
            rule,
            reason: reason.into(),
            span,
            #[cfg(feature = "sandbox-verdict")]
            containable: false,
            #[cfg(feature = "sandbox-verdict")]
            withheld: None,
            #[cfg(feature = "sandbox-verdict")]
            registry: false,
        }
    }

    /// The same finding, containable when `why_not` (what the command needs that the
    /// sandbox withholds) is `None`.
    #[cfg(feature = "sandbox-verdict")]
    fn contained_unless(mut self, why_not: Option<&'static str>) -> Finding {
        self.containable = why_not.is_none();
        self.registry = why_not == Some(contain::REGISTRY);
        self.withheld = why_not.map(Cow::Borrowed);
        self
    }

    /// Without the `sandbox-verdict` feature nothing is containable.
    #[cfg(not(feature = "sandbox-verdict"))]
    fn contained_unless(self, _why_not: Option<&'static str>) -> Finding {
        self
    }

    /// Is it containable: it asks only because it runs code the sandbox contains?
    pub fn is_containable(&self) -> bool {
        #[cfg(feature = "sandbox-verdict")]
        return self.containable;
        #[cfg(not(feature = "sandbox-verdict"))]
        false
    }

    /// Is it containable given HTTPS to the package registries (an install from one
    /// into the workspace), though not without?
    pub fn needs_registry(&self) -> bool {
        #[cfg(feature = "sandbox-verdict")]
        return self.registry;
        #[cfg(not(feature = "sandbox-verdict"))]
        false
    }

    /// Why a program that runs code is not containable, when it is one.
    pub fn withheld_reason(&self) -> Option<&str> {
        #[cfg(feature = "sandbox-verdict")]
        return self.withheld.as_deref();
        #[cfg(not(feature = "sandbox-verdict"))]
        None
    }
}

/// Why the sandbox cannot serve program `name` ([`contain::withheld`]); without the
/// `sandbox-verdict` feature, nothing is containable.
fn withheld(name: &str, kind: programs::Kind, args: &[&Word]) -> Option<&'static str> {
    #[cfg(feature = "sandbox-verdict")]
    return contain::withheld(name, kind, args);
    #[cfg(not(feature = "sandbox-verdict"))]
    {
        let _ = (name, kind, args);
        Some("")
    }
}

/// [`withheld`] for an interpreter's run ([`contain::withheld_interpreter`]).
fn withheld_interpreter(name: &str, args: &[&Word]) -> Option<&'static str> {
    #[cfg(feature = "sandbox-verdict")]
    return contain::withheld_interpreter(name, args);
    #[cfg(not(feature = "sandbox-verdict"))]
    {
        let _ = (name, args);
        Some("")
    }
}

impl Finding {
    /// Folds `other`, found for the same command, into this finding: a stricter tier
    /// decides instead; at the same tier the first finding keeps deciding (it explains
    /// best, and builds without the sandbox verdict name the same rule), but a reason
    /// the sandbox cannot contain beside one it can (a write outside the workspace beside
    /// a program that runs code) makes it not containable, saying why.
    fn fold(&mut self, other: Finding) {
        if other.tier > self.tier {
            *self = other;
        } else {
            // Containable, then containable with the registries, then not: the least
            // of the two holds, and the reason why not is the other's.
            #[cfg(feature = "sandbox-verdict")]
            if other.tier == self.tier {
                if self.containable && !other.containable {
                    self.containable = false;
                    self.registry = other.registry;
                    self.withheld = Some(other.withheld.unwrap_or(other.reason));
                } else if self.registry && !other.containable && !other.registry {
                    self.registry = false;
                    self.withheld = Some(other.withheld.unwrap_or(other.reason));
                }
            }
        }
    }

    /// A built-in hard deny: nothing overrides it.
    pub fn is_hard(&self) -> bool {
        crate::rule_id::is_hard_deny(self.tier == Tier::Deny, self.rule.as_str())
    }
}

/// One simple command, classified by the built-in rules only.
#[derive(Debug, Clone)]
pub struct RawPart {
    /// Where the command is in the original string.
    pub span: Span,
    /// What the built-in rules found.
    pub finding: Finding,
    /// The normalised command (program basename + arguments, wrappers unwrapped), for
    /// user rules; `None` when the command is not static (user allow rules never apply).
    pub norm: Option<String>,
}

/// Inputs of the shell walk.
pub struct Env<'a> {
    /// The workspace directory (absolute).
    pub workspace: &'a str,
    /// The user's home directory (absolute).
    pub home: &'a str,
    /// The policy's default tier for commands no rule decides.
    pub default: Tier,
    /// The tier of an unprotected edit inside the workspace (the policy's `edits`).
    pub edits: Tier,
    /// What a host found on its file system (symbolic links, walked trees); `None`:
    /// paths are judged as written and recursive reads ask.
    pub facts: Option<&'a crate::facts::FsFacts>,
    /// Where to note what the verdict depends on ([`crate::Policy::fs_needs`]).
    pub needs: Option<&'a std::cell::RefCell<crate::facts::FsNeeds>>,
    /// Trust the walked trees of `facts`: off for a command that also writes a file.
    pub trees: bool,
    /// Compute `norm` for user rules.
    pub want_norm: bool,
}

/// Traits of a command that matter across a pipeline.
#[derive(Debug, Clone, Copy, Default)]
struct Traits {
    downloader: bool,
    decoder: bool,
    /// Executes code it reads from stdin (`sh`, `python3 -`, …).
    stdin_exec: bool,
    /// Static text it writes to stdout (`echo …`, `printf …`), for `echo … | sh`.
    echo: bool,
}

impl Traits {
    fn or(self, o: Traits) -> Traits {
        Traits {
            downloader: self.downloader || o.downloader,
            decoder: self.decoder || o.decoder,
            stdin_exec: self.stdin_exec || o.stdin_exec,
            echo: false,
        }
    }
}

/// Classifies a shell command string with the built-in rules, within the work budget of
/// its length ([`Budget::for_input`]).
pub fn analyze(cmd: &str, env: &Env) -> Vec<RawPart> {
    analyze_with(cmd, env, &mut Budget::for_input(cmd.len()))
}

/// [`analyze`] spending from `budget` (what is left is handed back): when it runs out
/// the result holds an `ask` part `builtin.shell.too-complex` at the span where the
/// work stopped. Tests and benchmarks read [`Budget::spent`] from it.
pub fn analyze_with(cmd: &str, env: &Env, budget: &mut Budget) -> Vec<RawPart> {
    #[cfg(feature = "panic-probe")]
    crate::panic_probe(cmd);
    if cmd.len() > MAX_COMMAND_BYTES {
        return vec![RawPart {
            span: [0, 0],
            finding: Finding::new(
                Tier::Ask,
                RuleId::ShellTooLong,
                format!(
                    "command too long to classify ({} bytes, limit {MAX_COMMAND_BYTES})",
                    cmd.len()
                ),
                [0, 0],
            ),
            norm: None,
        }];
    }
    let mut w = Walker {
        env,
        src: cmd,
        parts: Vec::new(),
        cwd: Some(Cow::Borrowed(env.workspace)),
        cwd_alts: Vec::new(),
        depth: 0,
        budget: NESTED_BUDGET_FACTOR * cmd.len().max(1024),
        steps: std::mem::take(budget),
        stopped: false,
        tainted: Vec::new(),
        numeric: Vec::new(),
        loop_static: Vec::new(),
        consts: Vec::new(),
        subst_allowance: 2 * cmd.len() + 256,
        stdin_paths: false,
        stdin_paths_secret: false,
        piped_in: false,
        wrote: Cell::new(false),
        tree_used: Cell::new(false),
        tree_outside: Cell::new(false),
        quiet_words: Vec::new(),
    };
    let start = w.steps.clone();
    match shell::parse_in(cmd, 0, None, 0, &mut w.steps) {
        Ok(script) => {
            w.script(&script);
        }
        Err(e) => {
            // A shell runs the lines before a syntax error: classify them too, so an
            // unparseable tail cannot hide a hard deny before it.
            if e.kind == ParseErrorKind::Syntax {
                if let Some(nl) = cmd.get(..e.span[0]).and_then(|head| head.rfind('\n')) {
                    if let Ok(script) =
                        shell::parse_in(cmd.get(..nl).unwrap_or_default(), 0, None, 0, &mut w.steps)
                    {
                        w.script(&script);
                    }
                }
            }
            w.parse_failed(&e, "cannot parse the command", e.span);
        }
    }
    if w.parts.is_empty() {
        w.parts.push(RawPart {
            span: [0, cmd.len()],
            finding: Finding::new(Tier::Auto, RuleId::ShellEmpty, "no command", [0, cmd.len()]),
            norm: Some(String::new()),
        });
    }
    if w.tree_used.get() && w.wrote.get() {
        // A write may change what the walk found (`: > .gitignore && rg x`): decide
        // again without the trees.
        let again = Env {
            trees: false,
            ..*env
        };
        *budget = start;
        return analyze_with(cmd, &again, budget);
    }
    *budget = w.steps;
    w.parts
}

struct Walker<'a> {
    env: &'a Env<'a>,
    src: &'a str,
    parts: Vec<RawPart>,
    /// Current directory as far as `cd` with static arguments tells; `None` if unknown.
    cwd: Option<Cow<'a, str>>,
    /// Other directories bash may be in: a `cd` may fail (`cd ~/.ssh; cd /nope; cat
    /// config` reads `~/.ssh/config`), so the directory before it stays possible.
    cwd_alts: Vec<String>,
    depth: usize,
    /// Bytes of nested scripts (`bash -c`, `eval`, `env -S`, …) still allowed to be
    /// parsed, so that `eval eval eval …` stays linear in the input.
    budget: usize,
    /// The work budget of this classification: parser steps and commands walked.
    steps: Budget,
    /// The work budget ran out: a `too-complex` part is recorded, nothing more is walked.
    stopped: bool,
    /// Variables assigned a download or decoded text (`x=$(curl …)`), with the rule a
    /// later `bash -c "$x"` / `eval "$x"` breaks.
    tainted: Vec<(String, RuleId)>,
    /// Variables this command assigned a literal integer (`n=3`): arithmetic may read
    /// them. Any other name in arithmetic is a value evaluated as code.
    numeric: Vec<String>,
    /// `for` variables whose every value is a static word or a glob not starting with
    /// `-` (`for f in *.rs`): reading `"$f"` is reading one of those words.
    loop_static: Vec<(String, Vec<Word>)>,
    /// Variables with a value known from the command itself (`x=.env; cat $x`,
    /// `bash -c 'cat "$1"' _ .env`): a word that is exactly `$x` is judged as that value.
    consts: Vec<(String, String)>,
    /// Bytes of values still allowed to be substituted (twice the command): past it a
    /// reference stays a run-time value (`ask`), so a long value referenced many times
    /// costs no more than the command's length.
    subst_allowance: usize,
    /// The command being walked reads its input from a pipeline stage that prints only
    /// paths not beginning with `-` (see [`prints_paths_only`]).
    stdin_paths: bool,
    /// Those paths may name a secret file: `find` reaches any file under its start
    /// points, unless it stays at depth 1 and its `-name` cannot match a secret name.
    stdin_paths_secret: bool,
    /// The command being walked is a later stage of a pipeline: its stdin is a pipe
    /// (`… | rg foo` searches that, not the working directory).
    piped_in: bool,
    /// Some part writes a file (an edit, a redirect into the workspace).
    wrote: Cell<bool>,
    /// A walked tree made a recursive read read-only.
    tree_used: Cell<bool>,
    /// The simple command being judged reads a tree that may lie outside the workspace
    /// (or follows links, or is named at run time): the sandbox hides secret files in
    /// the workspace and the home only, so its recursive read is not containable.
    tree_outside: Cell<bool>,
    /// Words of the `test` / `[` command being walked whose value cannot reach the
    /// output (`[ -n "$GITHUB_TOKEN" ]`): a secret variable in them is not a leak.
    quiet_words: Vec<Span>,
}

/// Nested scripts may add up to this many times the command's length of parsing.
const NESTED_BUDGET_FACTOR: usize = 4;

/// Concatenates string pieces into one exactly-sized `String` (cheaper than `format!`
/// on the hot path).
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

impl<'a> Walker<'a> {
    fn text(&self, span: Span) -> &'a str {
        self.src.get(span[0]..span[1]).unwrap_or("")
    }

    fn default_tier(&self) -> Tier {
        self.env.default
    }

    /// Records a parse failure: `too-complex` when the work budget ran out (and the walk
    /// stops there), `unparseable` otherwise.
    fn parse_failed(&mut self, e: &ParseError, what: &str, span: Span) {
        match e.kind {
            ParseErrorKind::TooComplex => self.too_complex(e.span, e.message),
            ParseErrorKind::Syntax => self.parts.push(RawPart {
                span,
                finding: Finding::new(
                    Tier::Ask,
                    RuleId::ShellUnparseable,
                    format!("{what}: {}", e.message),
                    e.span,
                ),
                norm: None,
            }),
        }
    }

    /// The work budget ran out, or the nesting went too deep, at `span` (`why` says
    /// which): one `ask` part. Once the step budget is spent the walk stops; a part too
    /// deep or too large is skipped and the walk goes on with the next command, so a
    /// hard deny after it is still found.
    fn too_complex(&mut self, span: Span, why: &str) {
        if self.stopped {
            return;
        }
        self.stopped = self.steps.is_exhausted();
        self.parts.push(RawPart {
            span,
            finding: Finding::new(
                Tier::Ask,
                RuleId::ShellTooComplex,
                format!("too complex to classify: {why}"),
                span,
            ),
            norm: None,
        });
    }
}
