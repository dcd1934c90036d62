//! The built-in shell rules: hard deny, the read-only allowlist, wrappers and nested
//! shells. Walks a parsed [`Script`] and yields one [`RawPart`] per simple command.

use crate::budget::Budget;
use crate::paths::{self, resolve};
use crate::programs::{self, Effect};
use crate::shell::{
    self, Command, ParseError, ParseErrorKind, RedirOp, Script, SimpleCommand, Span, Word,
};
use crate::verdict::Tier;
use std::borrow::Cow;
use std::cell::Cell;

/// Longest shell command classified; longer input is `ask` without being scanned.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// What the built-in rules found for one part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub tier: Tier,
    /// Stable id, e.g. `builtin.shell.priv-esc`.
    pub rule: &'static str,
    pub reason: Cow<'static, str>,
    pub span: Span,
}

impl Finding {
    fn new(
        tier: Tier,
        rule: &'static str,
        reason: impl Into<Cow<'static, str>>,
        span: Span,
    ) -> Finding {
        Finding {
            tier,
            rule,
            reason: reason.into(),
            span,
        }
    }

    /// A built-in hard deny: nothing overrides it.
    pub fn is_hard(&self) -> bool {
        self.tier == Tier::Deny
    }
}

/// One simple command, classified by the built-in rules only.
#[derive(Debug, Clone)]
pub struct RawPart {
    pub span: Span,
    pub finding: Finding,
    /// The normalised command (program basename + arguments, wrappers unwrapped), for
    /// user rules; `None` when the command is not static (user allow rules never apply).
    pub norm: Option<String>,
}

/// Inputs of the shell walk.
pub struct Env<'a> {
    pub workspace: &'a str,
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
    if cmd.len() > MAX_COMMAND_BYTES {
        return vec![RawPart {
            span: [0, 0],
            finding: Finding::new(
                Tier::Ask,
                "builtin.shell.too-long",
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
                    if let Ok(script) = shell::parse_in(&cmd[..nl], 0, None, 0, &mut w.steps) {
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
            finding: Finding::new(
                Tier::Auto,
                "builtin.shell.empty",
                "no command",
                [0, cmd.len()],
            ),
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
    tainted: Vec<(String, &'static str)>,
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
}

/// Nested scripts may add up to this many times the command's length of parsing.
const NESTED_BUDGET_FACTOR: usize = 4;

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "mksh", "ash", "csh", "tcsh", "yash", "busybox",
];
const INTERPRETERS: &[&str] = &[
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "deno",
    "bun",
    "lua",
    "tclsh",
    "pwsh",
    "osascript",
];
const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "http",
    "https",
    "aria2c",
    "lwp-request",
    "GET",
];
const PRIV_ESC: &[&str] = &["sudo", "doas", "pkexec", "su", "run0", "sudoedit", "ksu"];
const POWER: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];
const DISK_DEVICES: &[&str] = &[
    "/dev/sd",
    "/dev/nvme",
    "/dev/hd",
    "/dev/vd",
    "/dev/mmcblk",
    "/dev/disk",
    "/dev/xvd",
    "/dev/dm-",
    "/dev/mapper/",
    "/dev/md",
    "/dev/loop",
    "/dev/root",
];
const SYSTEM_WRITE_DIRS: &[&str] = &[
    "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
];
/// Environment variables that cannot change what a command runs or reads.
const SAFE_ENV: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "NO_COLOR",
    "TERM",
    "COLUMNS",
    "LINES",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "GREP_COLOR",
    "GREP_COLORS",
    "TIME_STYLE",
    "RUST_BACKTRACE",
    "RUST_LOG",
];

/// Commands of at most this many words are walked from a list on the stack.
const WORDS_ON_STACK: usize = 8;

/// The filler of that list's unused slots (never read: the list is sliced to the words).
static NO_WORD: Word = Word {
    span: [0, 0],
    text: String::new(),
    dynamic: false,
    glob: false,
    quoted: false,
    tilde: false,
    braces: None,
    subs: Vec::new(),
    assign: false,
    content_start: None,
    arith_subs: false,
    param: None,
};

fn basename(s: &str) -> &str {
    let t = s.trim_end_matches('/');
    // A byte loop: names are short, and `rfind` sets up a searcher for each.
    match t.bytes().rposition(|b| b == b'/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

fn is_interpreter(name: &str) -> bool {
    SHELLS.contains(&name)
        || INTERPRETERS.contains(&name)
        || name.starts_with("python")
        || name.starts_with("pypy")
        || (name.starts_with("perl") && name[4..].bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        || (name.starts_with("ruby") && name[4..].bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        || (name.starts_with("php") && name[3..].bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

fn join_span(a: Span, b: Span) -> Span {
    [a[0].min(b[0]), a[1].max(b[1])]
}

fn words_span(ws: &[&Word], fallback: Span) -> Span {
    match (ws.first(), ws.last()) {
        (Some(f), Some(l)) => join_span(f.span, l.span),
        _ => fallback,
    }
}

/// A parsed option list of one command.
struct Opts<'w> {
    /// Short option letters with the word they came from.
    shorts: Vec<(char, &'w Word)>,
    /// Long options (`--name` or `--name=value`), name without dashes.
    longs: Vec<(&'w str, &'w Word)>,
    operands: Vec<&'w Word>,
}

impl<'w> Opts<'w> {
    /// Splits `args`. Short letters in `takes` consume the rest of their cluster or the
    /// next argument as a value; long names in `long_takes` consume the next argument
    /// when written without `=`. `--` ends options.
    fn parse(args: &[&'w Word], takes: &str, long_takes: &[&str]) -> Opts<'w> {
        let mut o = Opts {
            shorts: Vec::new(),
            longs: Vec::new(),
            operands: Vec::new(),
        };
        let mut i = 0;
        let mut ended = false;
        while i < args.len() {
            let w = args[i];
            let t = w.text.as_str();
            i += 1;
            if ended || w.dynamic || !t.starts_with('-') || t == "-" {
                o.operands.push(w);
                continue;
            }
            if t == "--" {
                ended = true;
                continue;
            }
            if let Some(long) = t.strip_prefix("--") {
                let name = long.split('=').next().unwrap_or(long);
                o.longs.push((name, w));
                if !long.contains('=') && long_takes_value(name, long_takes) {
                    i += 1;
                }
                continue;
            }
            for (ci, c) in t[1..].char_indices() {
                o.shorts.push((c, w));
                if takes.contains(c) {
                    if ci + c.len_utf8() == t.len() - 1 {
                        i += 1;
                    }
                    break;
                }
            }
        }
        o
    }

    fn has_short(&self, c: char) -> Option<&'w Word> {
        self.shorts.iter().find(|(s, _)| *s == c).map(|(_, w)| *w)
    }

    /// A long option given in full or as any prefix of it: getopt and git accept every
    /// unambiguous prefix (`--se` for `date --set`, `--r` for `rm --recursive`), and an
    /// ambiguous one makes the program refuse to run, so a prefix counts as the option.
    fn has_long(&self, full: &str) -> Option<&'w Word> {
        self.longs
            .iter()
            .find(|(n, _)| !n.is_empty() && full.starts_with(n))
            .map(|(_, w)| *w)
    }
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
                    "builtin.shell.unparseable",
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
                "builtin.shell.too-complex",
                format!("too complex to classify: {why}"),
                span,
            ),
            norm: None,
        });
    }

    fn script(&mut self, s: &Script) -> Traits {
        let mut all = Traits::default();
        for pl in &s.pipelines {
            if self.stopped {
                break;
            }
            let mut stage_traits: Vec<(Traits, Option<usize>, Span)> = Vec::new();
            // Each stage of a pipeline runs in its own subshell: a `cd` in one does not
            // move the others, nor (without `lastpipe`) what follows; after a pipeline
            // that changed directory, the directory is unknown (fail closed).
            let piped = pl.stages.len() > 1 || pl.background;
            let consts_before = piped.then(|| self.consts.clone());
            let cwd_before = piped.then(|| self.cwd.clone());
            let alts_before = piped.then(|| self.cwd_alts.clone());
            let mut moved = false;
            let mut paths_in = false;
            let mut paths_secret = false;
            for (k, cmd) in pl.stages.iter().enumerate() {
                if let Some(c) = &cwd_before {
                    moved |= self.cwd != *c;
                    self.cwd = c.clone();
                }
                if let Some(a) = &alts_before {
                    self.cwd_alts.clone_from(a);
                }
                // `find src -name '*.py' | xargs grep x`: the stage before prints only
                // paths that cannot begin with `-`.
                self.stdin_paths = k > 0 && paths_in;
                self.stdin_paths_secret = self.stdin_paths && paths_secret;
                self.piped_in = k > 0;
                paths_in = match cmd {
                    Command::Simple(sc) => stage_prints_paths(sc, self.stdin_paths),
                    _ => false,
                };
                paths_secret = match cmd {
                    Command::Simple(sc) if paths_in => {
                        find_may_list_secret(sc, self) || self.stdin_paths_secret
                    }
                    _ => false,
                };
                let before = self.parts.len();
                let t = self.command(cmd);
                let span = command_span(cmd);
                let main = (self.parts.len() > before).then(|| {
                    // The stage's own part: the last part with the stage's span, or the last.
                    (before..self.parts.len())
                        .rev()
                        .find(|&i| self.parts[i].span == span)
                        .unwrap_or(self.parts.len() - 1)
                });
                stage_traits.push((t, main, span));
                all = all.or(t);
            }
            if let Some(c) = cwd_before {
                moved |= self.cwd != c;
                self.cwd = if moved { None } else { c };
            }
            if let Some(before) = consts_before {
                // Each stage ran in a subshell: nothing it assigned is left.
                self.consts.retain(|c| before.contains(c));
            }
            self.pipe_checks(&stage_traits, pl);
            if let Some(Command::Function { .. }) = pl.stages.first() {
                // checked in `command`
            }
        }
        all
    }

    /// `curl … | sh`, `base64 -d | bash`, `echo 'rm -rf /' | sh`.
    fn pipe_checks(&mut self, stages: &[(Traits, Option<usize>, Span)], pl: &shell::Pipeline) {
        // First downloader / decoder seen so far: one pass, linear in the stages.
        let mut first_down: Option<usize> = None;
        let mut first_dec: Option<usize> = None;
        for (j, (tj, main_j, span_j)) in stages.iter().enumerate() {
            let (down, dec) = (first_down, first_dec);
            if tj.downloader {
                first_down.get_or_insert(j);
            }
            if tj.decoder {
                first_dec.get_or_insert(j);
            }
            if !tj.stdin_exec || j == 0 {
                continue;
            }
            let (rule, what, from) = match (down, dec) {
                (Some(i), _) => (
                    "builtin.shell.pipe-to-shell",
                    "remote content piped into an interpreter",
                    i,
                ),
                (None, Some(i)) => (
                    "builtin.shell.encoded-exec",
                    "decoded content piped into an interpreter",
                    i,
                ),
                (None, None) => {
                    // `echo STATIC | sh`: classify what is echoed as a script.
                    if stages[j - 1].0.echo {
                        if let Some(Command::Simple(sc)) = pl.stages.get(j - 1) {
                            self.echoed_script(sc);
                        }
                    }
                    continue;
                }
            };
            let span = join_span(stages[from].2, *span_j);
            let f = Finding::new(
                Tier::Deny,
                rule,
                format!("{what}: {}", self.text(span)),
                span,
            );
            match main_j {
                Some(i) => self.parts[*i].finding = f,
                None => self.parts.push(RawPart {
                    span,
                    finding: f,
                    norm: None,
                }),
            }
        }
    }

    fn echoed_script(&mut self, sc: &SimpleCommand) {
        let Some(first) = sc.words.first() else {
            return;
        };
        let prog = basename(&first.text);
        if prog == "cat" {
            // What it writes is its here-document / here-string: classify it as a script.
            for r in &sc.redirects {
                match (r.op, &r.heredoc) {
                    (RedirOp::HereDoc, Some(doc)) => {
                        let body = doc.body.clone();
                        self.nested_text(&body, Some(doc.start), r.span);
                        if !doc.quoted && expands(&body) {
                            let split = expansions_as_separators(&body);
                            self.nested_text(&split, None, r.span);
                            self.parts.push(RawPart {
                                span: r.span,
                                finding: Finding::new(
                                    Tier::Ask,
                                    "builtin.shell.dynamic",
                                    "a shell runs a here-document expanded at run time",
                                    r.span,
                                ),
                                norm: None,
                            });
                        }
                    }
                    (RedirOp::HereString, _) => {
                        let text = r.target.text.clone();
                        self.nested_text(&text, r.target.content_start, r.target.span);
                    }
                    _ => {}
                }
            }
            return;
        }
        let args: Vec<&Word> = sc.words[1..].iter().collect();
        let text = if prog == "printf" {
            args.first().map(|w| decode_escapes(&w.text))
        } else {
            let escapes = args.first().is_some_and(|w| w.text == "-e");
            let rest: Vec<&str> = args
                .iter()
                .map(|w| w.text.as_str())
                .skip_while(|t| t.starts_with('-') && t.len() > 1)
                .collect();
            let joined = rest.join(" ");
            Some(if escapes {
                decode_escapes(&joined)
            } else {
                joined
            })
        };
        if let Some(text) = text {
            let span = words_span(&args, sc.span);
            self.nested_text(&text, None, span);
        }
    }

    fn command(&mut self, cmd: &Command) -> Traits {
        if self.stopped || !self.steps.spend(1) {
            self.too_complex(command_span(cmd), "work budget exhausted");
            return Traits::default();
        }
        // What a group, loop, branch or function body assigns may or may not have run:
        // afterwards only the values it left unchanged are known.
        let known_before = match cmd {
            Command::Simple(_) => None,
            _ => Some(self.consts.clone()),
        };
        let t = self.command_inner(cmd);
        if let Some(before) = known_before {
            self.consts.retain(|c| before.contains(c));
        }
        t
    }

    fn command_inner(&mut self, cmd: &Command) -> Traits {
        match cmd {
            Command::Simple(sc) => self.simple(sc),
            Command::Compound {
                body,
                words,
                redirects,
                span,
            } => {
                if let Some((var, values)) = words.split_first().filter(|(v, _)| v.assign) {
                    let name = var.text.trim_end_matches('=').to_string();
                    let static_values = values
                        .iter()
                        .all(|v| v.subs.is_empty() && !v.dynamic && !v.text.starts_with('-'));
                    self.loop_static.retain(|(n, _)| *n != name);
                    self.consts.retain(|(n, _)| *n != name);
                    if static_values && self.loop_static.len() < 16 {
                        self.loop_static.push((name, values.to_vec()));
                    }
                }
                for w in words {
                    self.word_subs(w);
                    if w.assign {
                        // `for PATH in …`: the loop variable is assigned. It reaches the
                        // programs the body runs only if it is already exported, as the
                        // inherited (upper-case) environment is; `for f in …` is not.
                        let name = w.text.trim_end_matches('=');
                        if let Some(f) = self.assign_finding(w).filter(|_| sensitive_env(name)) {
                            self.parts.push(RawPart {
                                span: w.span,
                                finding: f,
                                norm: None,
                            });
                        }
                    } else if w.subs.is_empty()
                        && (subscript_code(&w.text)
                            || (self.text(*span).contains("@P")
                                && (w.text.contains("$(") || w.text.contains('`'))))
                    {
                        // `for x in 'a[$(cmd)]'; do echo ${!x}; done`, `… ${x@P}`: a
                        // loop value that arithmetic, indirection or prompt expansion in
                        // the body would run.
                        let text = w.text.clone();
                        self.code_in_data(&text, w.span);
                    }
                }
                // `( … )` runs in a subshell: its `cd` does not outlive it.
                let subshell = self.text(*span).starts_with('(');
                let cwd = subshell.then(|| (self.cwd.clone(), self.cwd_alts.clone()));
                let mut t = self.script(body);
                if let Some((c, a)) = cwd {
                    self.cwd = c;
                    self.cwd_alts = a;
                }
                let sc = SimpleCommand {
                    redirects: redirects.clone(),
                    span: *span,
                    ..SimpleCommand::default()
                };
                for r in &sc.redirects {
                    self.word_subs(&r.target);
                }
                if let Some(f) = self.redirect_finding(&sc) {
                    self.parts.push(RawPart {
                        span: *span,
                        finding: f,
                        norm: None,
                    });
                }
                // `(cat) < .env`, `{ nl; } < .env`: the body reads what the group's
                // input redirection opens.
                if let Some(f) = self.input_finding(&sc.redirects, Tier::Auto) {
                    self.parts.push(RawPart {
                        span: *span,
                        finding: f,
                        norm: None,
                    });
                }
                t.echo = false;
                t
            }
            Command::Function { name, body, span } => {
                if calls_itself_in_background_or_pipe(name, body) {
                    self.parts.push(RawPart {
                        span: *span,
                        finding: Finding::new(
                            Tier::Deny,
                            "builtin.shell.fork-bomb",
                            format!("fork bomb: function `{name}` calls itself in a pipe or in the background"),
                            *span,
                        ),
                        norm: None,
                    });
                }
                // What a definition runs depends on how it is called later (with
                // arguments known only then, or shadowing a program on the list).
                self.parts.push(RawPart {
                    span: *span,
                    finding: Finding::new(
                        self.default_tier(),
                        "builtin.shell.function",
                        format!("defines a function `{name}`: what a call runs depends on arguments known only then"),
                        *span,
                    ),
                    norm: None,
                });
                self.command(body)
            }
            Command::Arith { words, span } => {
                // `(( x = 5 ))` assigns.
                self.consts.clear();
                for w in words {
                    self.word_subs(w);
                }
                self.parts.push(RawPart {
                    span: *span,
                    finding: Finding::new(
                        Tier::Ask,
                        "builtin.shell.dynamic",
                        "arithmetic evaluation can run substitutions",
                        *span,
                    ),
                    norm: None,
                });
                Traits::default()
            }
        }
    }

    /// The values of a `for` variable of [`Walker::loop_static`] that `w` expands.
    fn loop_values(&self, w: &Word) -> Option<&[Word]> {
        let t = w.text.trim_matches('"');
        let name = t
            .strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .or_else(|| t.strip_prefix('$'))?;
        self.loop_static
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_slice())
    }

    /// Text that bash may evaluate as code although it is written as data (a subscript
    /// in `test -v 'a[$(cmd)]'`): the substitutions in it are classified; text that
    /// does not parse as a script adds nothing (it is data after all).
    fn code_in_data(&mut self, text: &str, span: Span) {
        if text.len() > self.budget || self.depth >= shell::MAX_DEPTH {
            self.too_complex(span, "too much nested script");
            return;
        }
        self.budget -= text.len();
        let parsed = shell::parse_in(text, 0, Some(span), self.depth + 1, &mut self.steps);
        if let Err(
            e @ ParseError {
                kind: ParseErrorKind::TooComplex,
                ..
            },
        ) = &parsed
        {
            self.too_complex(e.span, e.message);
        }
        if let Ok(script) = parsed {
            for cmd in shell::simple_commands(&script) {
                for w in cmd.words.iter().chain(cmd.assigns.iter()) {
                    for sub in &w.subs {
                        self.sub_script(sub);
                    }
                }
            }
        }
    }

    /// Classifies the substitutions inside a word as parts of their own.
    fn word_subs(&mut self, w: &Word) {
        for s in &w.subs {
            self.sub_script(s);
        }
        if w.dynamic && (w.text.contains("$((") || w.text.contains("$[")) {
            // `$((x+1))`, `$(( $x ))`: bash evaluates the value of `x` as an
            // arithmetic expression, so `a[$(cmd)]` in it runs `cmd`.
            if let Some(name) = arith_names(&w.text)
                .into_iter()
                .find(|n| !self.numeric.iter().any(|k| k == n))
            {
                self.parts.push(RawPart {
                    span: w.span,
                    finding: Finding::new(
                        self.default_tier(),
                        "builtin.shell.dynamic",
                        format!(
                            "arithmetic evaluates the value of `{name}` as code, and it is only known at run time"
                        ),
                        w.span,
                    ),
                    norm: None,
                });
            }
        }
        if w.dynamic {
            if let Some(why) = evaluates_value_as_code(&w.text) {
                self.parts.push(RawPart {
                    span: w.span,
                    finding: Finding::new(
                        self.default_tier(),
                        "builtin.shell.dynamic",
                        why,
                        w.span,
                    ),
                    norm: None,
                });
            }
        }
        if w.arith_subs {
            self.arith_output(&w.subs, w.span);
        }
    }

    /// Command output evaluated as arithmetic (`$(( $(cmd) ))`, `[[ $(cmd) -eq 0 ]]`):
    /// text it prints such as `a[$(…)]` would run, so unless every command in it prints
    /// only numbers (`date`, `wc`, …, or `echo` of plain static text) it is the default.
    fn arith_output(&mut self, subs: &[Script], span: Span) {
        if subs.iter().all(prints_numbers) {
            return;
        }
        self.parts.push(RawPart {
            span,
            finding: Finding::new(
                self.default_tier(),
                "builtin.shell.dynamic",
                "arithmetic evaluates a command's output (a subscript in it would run code)",
                span,
            ),
            norm: None,
        });
    }

    /// A script run in a subshell (`$(…)`, `<(…)`, a nested shell): its `cd` and its
    /// assignments do not outlive it.
    fn sub_script(&mut self, s: &Script) -> Traits {
        let cwd = self.cwd.clone();
        let alts = self.cwd_alts.clone();
        let known = self.consts.clone();
        self.depth += 1;
        let t = self.script(s);
        self.depth -= 1;
        self.cwd = cwd;
        self.cwd_alts = alts;
        // Its assignments are gone with it.
        self.consts = known;
        t
    }

    /// Parses and classifies a nested script given as text (`bash -c '…'`, `eval …`).
    /// `base` is its offset in the source when it maps exactly; otherwise every span is
    /// `span`.
    fn nested_text(&mut self, text: &str, base: Option<usize>, span: Span) -> Traits {
        self.nested_text_in(text, base, span, false)
    }

    /// [`Walker::nested_text`]; `same_shell` when the script runs in this shell
    /// (`eval`), so that its `cd` and assignments outlive it.
    fn nested_text_in(
        &mut self,
        text: &str,
        base: Option<usize>,
        span: Span,
        same_shell: bool,
    ) -> Traits {
        if text.len() > self.budget {
            self.too_complex(span, "too much nested script");
            return Traits::default();
        }
        self.budget -= text.len();
        if self.depth >= shell::MAX_DEPTH {
            self.too_complex(span, "nesting too deep (over 48 levels)");
            return Traits::default();
        }
        // Spans map into the command only where `text` stands there as it is (a body
        // or an argument inside a decoded string does not): otherwise every part of
        // the nested script gets the enclosing span.
        let base = base.filter(|&b| self.src.get(b..b + text.len()) == Some(text));
        let parsed = match base {
            Some(b) => shell::parse_in(text, b, None, self.depth + 1, &mut self.steps),
            None => shell::parse_in(text, 0, Some(span), self.depth + 1, &mut self.steps),
        };
        match parsed {
            Ok(s) if same_shell => {
                self.depth += 1;
                let t = self.script(&s);
                self.depth -= 1;
                t
            }
            Ok(s) => self.sub_script(&s),
            Err(e) => {
                self.parse_failed(&e, "cannot parse the nested script", e.span);
                Traits::default()
            }
        }
    }

    fn simple(&mut self, sc: &SimpleCommand) -> Traits {
        if let Some(known) = self.substitute_consts(sc) {
            return self.simple(&known);
        }
        self.track_consts(sc);
        for w in sc.assigns.iter().chain(sc.words.iter()) {
            self.word_subs(w);
            if w.assign {
                let (name, value) = w.text.split_once('=').unwrap_or((&w.text, ""));
                let literal = !w.dynamic
                    && !value.is_empty()
                    && value
                        .trim_start_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit());
                // `t=$(date +%s)`: the output of a command that prints only numbers.
                let printed_number = w.subs.len() == 1
                    && value.starts_with("$(")
                    && value.ends_with(')')
                    && prints_numbers(&w.subs[0]);
                let literal = literal || printed_number;
                self.numeric.retain(|k| k != name);
                if literal && !name.ends_with('+') {
                    self.numeric.push(name.to_string());
                }
            }
            if w.assign && w.subs.is_empty() && (w.text.contains("$(") || w.text.contains('`')) {
                // `x='a[$(cmd)]'`, `x='$(cmd)'`: code kept as data, which indirection
                // (`${!x}`), prompt expansion (`${x@P}`) or arithmetic would run.
                let text = w.text.clone();
                self.code_in_data(&text, w.span);
            }
        }
        for r in &sc.redirects {
            self.word_subs(&r.target);
            if let Some(doc) = &r.heredoc {
                for s in &doc.subs {
                    self.sub_script(s);
                }
            }
        }
        // The command's finding first: on equal tiers it explains best.
        let (mut finding, mut traits, norm) = if sc.words.is_empty() {
            (
                Finding::new(
                    Tier::Auto,
                    "builtin.shell.empty",
                    if sc.assigns.is_empty() {
                        "no command"
                    } else {
                        "variable assignment"
                    },
                    sc.span,
                ),
                Traits::default(),
                Some(String::new()),
            )
        } else if sc.words.iter().any(|w| w.braces.is_some()) {
            let expanded = expand_words(&sc.words);
            let words: Vec<&Word> = expanded.iter().collect();
            self.words(&words, sc)
        } else if sc.words.len() <= WORDS_ON_STACK {
            // Most commands are short: their word list needs no allocation.
            let mut buf: [&Word; WORDS_ON_STACK] = [&NO_WORD; WORDS_ON_STACK];
            for (slot, w) in buf.iter_mut().zip(&sc.words) {
                *slot = w;
            }
            self.words(&buf[..sc.words.len()], sc)
        } else {
            let words: Vec<&Word> = sc.words.iter().collect();
            self.words(&words, sc)
        };
        // A read-only program given a value known only at run time that could begin
        // with `-` (`sort $x f`, `sort ${x:--o PWN} f`): it may be an option that writes
        // or runs. Only the programs that print their arguments read them as data.
        if finding.tier == Tier::Auto && finding.rule == "builtin.shell.readonly" {
            let prog = sc.words.first().map_or("", |w| basename(&w.text));
            let entry = programs::lookup(prog);
            if !entry.is_some_and(programs::Program::args_are_data) {
                // Words after `--` are operands. A `--` right after an option may be
                // that option's value (`rg -e -- *`), so only one after the program or
                // an operand counts.
                let needs = sc.words[1..].iter().any(|w| w.glob || w.dynamic);
                let end = match entry.filter(|_| needs) {
                    // The table knows which options take a value.
                    Some(p) => {
                        let args: Vec<&Word> = sc.words[1..].iter().collect();
                        p.scan(&args).end.map_or(sc.words.len(), |e| e + 1)
                    }
                    None => (1..sc.words.len())
                        .find(|&i| {
                            sc.words[i].value() == Some("--")
                                && !sc.words[i - 1].text.starts_with('-')
                        })
                        .unwrap_or(sc.words.len()),
                };
                // A loop variable is each of its values: `for f in *; do sort $f; done`
                // sorts a file named `-o`.
                let harmless = entry.is_some_and(programs::Program::options_harmless);
                let loop_ok = |w: &Word| {
                    self.loop_values(w)
                        .is_some_and(|vals| harmless || !vals.iter().any(glob_may_be_option))
                };
                if let Some(w) = sc.words[1..end]
                    .iter()
                    .find(|w| may_be_option(w) && !loop_ok(w))
                {
                    finding = Finding::new(
                        self.default_tier(),
                        "builtin.shell.dynamic",
                        format!(
                            "a value known only at run time could be an option of {prog}: {}",
                            self.text(w.span)
                        ),
                        w.span,
                    );
                } else if let Some(w) = sc.words[1..end]
                    .iter()
                    .find(|w| glob_may_be_option(w) && !harmless)
                {
                    finding = Finding::new(
                        self.default_tier(),
                        "builtin.shell.dynamic",
                        format!(
                            "a glob could expand to a file name that is an option of {prog}: {}",
                            self.text(w.span)
                        ),
                        w.span,
                    );
                }
            }
        }
        // Content from a substitution in its arguments is what it writes:
        // `cat <(curl …) | sh`, `echo "$(curl …)" | sh`.
        for w in &sc.words {
            for sub in &w.subs {
                traits.downloader |= script_runs(sub, &|n| DOWNLOADERS.contains(&n), &[]);
                traits.decoder |= script_runs(sub, &|_| false, DECODERS);
            }
        }
        // `curl … > >(sh)`: its output goes to an interpreter through a process
        // substitution, as `curl … | sh` would.
        if traits.downloader || traits.decoder {
            let to_shell = sc.redirects.iter().any(|r| {
                r.op.writes()
                    && r.target.subs.iter().any(|sub| {
                        script_runs(sub, &|n| is_interpreter(n), &["eval", "source", "."])
                    })
            });
            if to_shell {
                let (rule, what) = if traits.downloader {
                    ("builtin.shell.pipe-to-shell", "remote content")
                } else {
                    ("builtin.shell.encoded-exec", "decoded content")
                };
                finding = Finding::new(
                    Tier::Deny,
                    rule,
                    format!("{what} written into an interpreter: {}", self.text(sc.span)),
                    sc.span,
                );
            }
        }
        if let Some(f) = self.redirect_finding(sc) {
            if f.tier > finding.tier {
                finding = f;
            }
        }
        // What it reads through `<`: `cat < .env`, `$(<~/.ssh/id_rsa)`, and `/dev/tcp/…`
        // (bash opens a network connection).
        if let Some(f) = self.input_finding(&sc.redirects, finding.tier) {
            finding = f;
        }
        // `export x=$(curl …)`, `local x=…`: assignments given as arguments.
        let declared = sc.words.first().is_some_and(|w| {
            matches!(
                w.text.as_str(),
                "export" | "declare" | "local" | "typeset" | "readonly"
            )
        });
        let arg_assigns = sc
            .words
            .iter()
            .skip(1)
            .filter(|w| declared && !w.subs.is_empty() && w.text.contains('='));
        for a in sc.assigns.iter().chain(arg_assigns) {
            let name = a.text.split(['=', '+']).next().unwrap_or("");
            let rule = if a
                .subs
                .iter()
                .any(|sub| script_runs(sub, &|n| DOWNLOADERS.contains(&n), &[]))
            {
                Some("builtin.shell.pipe-to-shell")
            } else if a
                .subs
                .iter()
                .any(|sub| script_runs(sub, &|_| false, DECODERS))
            {
                Some("builtin.shell.encoded-exec")
            } else {
                None
            };
            if let Some(rule) = rule {
                if self.tainted.len() < 64 && !name.is_empty() {
                    self.tainted.push((name.to_string(), rule));
                }
            }
            if !a.assign {
                continue; // an `export` argument: the command's own finding covers it
            }
            // `x=5; echo $x`, `t=$(date +%s)`: a shell variable reaches no program unless
            // it is exported already, as the inherited environment (`PATH`, …) is.
            // Before a command (`FOO=1 ls`) it is in that command's environment: only
            // lower-case names (which programs do not read by convention) are exempt.
            let standalone = sc.words.is_empty();
            let exempt = if standalone {
                // An exported `TZ` takes the new value: `TZ=~/.ssh/id_rsa; ls -l`.
                !sensitive_env(name) && !names_file(a)
            } else {
                name.bytes().any(|b| b.is_ascii_lowercase()) && !sensitive_env(name)
            };
            if exempt {
                continue;
            }
            if let Some(f) = self.assign_finding(a) {
                if f.tier > finding.tier {
                    finding = f;
                }
            }
        }
        self.parts.push(RawPart {
            span: sc.span,
            finding,
            norm: if self.env.want_norm { norm } else { None },
        });
        traits
    }

    /// The value of the variable of [`Walker::consts`] that word `w` is exactly
    /// (`$x`, `${x}`, `"$x"`, `"${x}"`), and whether it is quoted.
    fn const_ref(&self, w: &Word) -> Option<(&str, bool)> {
        let quoted = w.param?;
        let name = w.param_name()?;
        self.consts
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| (v.as_str(), quoted))
    }

    /// `sc` with each word that is exactly `$x`, `${x}`, `"$x"` or `"${x}"` for a
    /// variable of [`Walker::consts`] replaced by its value, as bash expands it (an
    /// unquoted value is split at blanks and may be a glob); `None` when there is none.
    fn substitute_consts(&mut self, sc: &SimpleCommand) -> Option<SimpleCommand> {
        if self.consts.is_empty() {
            return None;
        }
        // Copying the command and its values is work, paid for before it is done: a
        // long value referenced many times would otherwise cost its length each time.
        let cost: usize = sc
            .words
            .iter()
            .filter_map(|w| self.const_ref(w))
            .map(|(v, _)| v.len() + 1)
            .sum();
        if cost == 0 {
            return None;
        }
        let cost = cost + sc.span[1].saturating_sub(sc.span[0]);
        if cost > self.subst_allowance || !self.steps.spend(cost) {
            return None;
        }
        self.subst_allowance -= cost;
        let mut out = SimpleCommand {
            assigns: sc.assigns.clone(),
            words: Vec::new(),
            redirects: sc.redirects.clone(),
            span: sc.span,
        };
        for w in &sc.words {
            match self.const_ref(w) {
                Some((value, true)) => out.words.push(known_word(value, false, w.span)),
                Some((value, false)) => {
                    for piece in value.split([' ', '\t', '\n']).filter(|p| !p.is_empty()) {
                        let glob = piece.contains(['*', '?', '[']);
                        out.words.push(known_word(piece, glob, w.span));
                    }
                }
                None => out.words.push(w.clone()),
            }
        }
        Some(out)
    }

    /// Keeps [`Walker::consts`] true after `sc`: a standalone `x=VALUE` with a static
    /// value sets `x`; any other assignment to it forgets it; a builtin that can assign
    /// any variable (`read`, `declare`, `export`, `unset`, `eval`, `source`, …) or a
    /// `${x:=v}` forgets them all.
    fn track_consts(&mut self, sc: &SimpleCommand) {
        if self.consts.is_empty() && sc.assigns.is_empty() {
            return; // nothing known to forget, nothing to learn
        }
        let prog = sc.words.first().map(|w| w.text.as_str());
        let assigns_any = matches!(
            prog,
            Some(
                "read"
                    | "mapfile"
                    | "readarray"
                    | "declare"
                    | "typeset"
                    | "local"
                    | "export"
                    | "readonly"
                    | "printf"
                    | "getopts"
                    | "unset"
                    | "let"
                    | "eval"
                    | "source"
                    | "."
                    | "set"
                    | "shift"
                    | "builtin"
                    | "command"
                    | "exec"
            )
        ) || sc.words.iter().chain(sc.assigns.iter()).any(|w| {
            w.dynamic && (w.text.contains(":=") || w.text.contains("=")) && w.text.contains("${")
        });
        if assigns_any
            || prog.is_some_and(|p| {
                !p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
            })
        {
            self.consts.clear();
        }
        for w in &sc.assigns {
            let Some((name, value)) = w.text.split_once('=') else {
                continue;
            };
            let name = name.trim_end_matches('+');
            self.consts.retain(|(k, _)| k != name);
            let settable = sc.words.is_empty()
                && !w.text[..w.text.find('=').unwrap_or(0)].ends_with('+')
                && !w.dynamic
                && w.subs.is_empty()
                && self.consts.len() < 32;
            if settable {
                self.consts.push((name.to_string(), value.to_string()));
            }
        }
    }

    fn assign_finding(&self, a: &Word) -> Option<Finding> {
        let name = a.text.split(['=', '+']).next().unwrap_or("");
        if (SAFE_ENV.contains(&name) || name.starts_with("LC_")) && !names_file(a) {
            return None;
        }
        Some(Finding::new(
            self.default_tier(),
            "builtin.shell.env",
            format!("sets {name}, which can change what the command runs or reads"),
            a.span,
        ))
    }

    /// The strictest finding above `floor` for what `<` redirections open: a secret
    /// file, or a network connection (`/dev/tcp/…`).
    fn input_finding(&self, redirects: &[shell::Redirect], floor: Tier) -> Option<Finding> {
        let mut out: Option<Finding> = None;
        for r in redirects.iter().filter(|r| r.op == RedirOp::In) {
            let t = r.target.text.as_str();
            let f = if t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/") {
                Some(Finding::new(
                    self.default_tier(),
                    "builtin.shell.network",
                    format!("opens a network connection: {t}"),
                    r.span,
                ))
            } else {
                let secret = match r.target.value() {
                    Some(v) => self.path_secret(v, r.target.tilde),
                    None if r.target.glob && !r.target.dynamic => {
                        Some(glob_may_name_secret(&r.target, self))
                    }
                    None => home_relative(&r.target).map(|p| paths::is_secret(&p)),
                };
                match secret {
                    Some(false) => None,
                    Some(true) => Some(Finding::new(
                        Tier::Ask,
                        "builtin.shell.secret-file",
                        format!("reads a secret file: {t}"),
                        r.span,
                    )),
                    // `cat < $x`, `cat < "$(ls)"`: a file named at run time.
                    None => Some(Finding::new(
                        self.default_tier(),
                        "builtin.shell.dynamic",
                        format!("reads a file known only at run time: {t}"),
                        r.span,
                    )),
                }
            };
            let best = out.as_ref().map_or(floor, |o| o.tier);
            if let Some(f) = f.filter(|f| f.tier > best) {
                out = Some(f);
            }
        }
        out
    }

    fn redirect_finding(&self, sc: &SimpleCommand) -> Option<Finding> {
        let mut out: Option<Finding> = None;
        for r in &sc.redirects {
            if !r.op.writes() {
                continue;
            }
            let f = if r.target.value().is_none() {
                Finding::new(
                    Tier::Ask,
                    "builtin.shell.dynamic",
                    format!(
                        "writes to a path only known at run time: {}",
                        self.text(r.span)
                    ),
                    r.span,
                )
            } else {
                let t = r.target.text.as_str();
                let abs = self.resolve_word(&r.target);
                match abs.as_deref() {
                    Some("/dev/null") | Some("/dev/stdout") | Some("/dev/stderr") => continue,
                    Some(p) if DISK_DEVICES.iter().any(|d| p.starts_with(d)) => Finding::new(
                        Tier::Deny,
                        "builtin.shell.disk",
                        format!("writes straight to a disk device: {}", self.text(r.span)),
                        r.span,
                    ),
                    Some(p) if paths::under_any(p, SYSTEM_WRITE_DIRS) || is_lib_dir(p) => {
                        Finding::new(
                            Tier::Deny,
                            "builtin.shell.system-write",
                            format!("writes into a system directory: {}", self.text(r.span)),
                            r.span,
                        )
                    }
                    // Inside the workspace, a write is an edit of that file.
                    Some(p) if paths::is_within(p, self.env.workspace) => {
                        let (tier, rule, why) = self.edit_target(&r.target);
                        Finding::new(tier, rule, why, r.span)
                    }
                    _ => Finding::new(
                        self.default_tier(),
                        "builtin.shell.redirect",
                        cat(&["writes to a file: ", t]),
                        r.span,
                    ),
                }
            };
            if out.as_ref().is_none_or(|o| f.tier > o.tier) {
                out = Some(f);
            }
        }
        out
    }

    /// Can static path text `t` name a secret file from any directory bash may be in?
    /// `Some(true)` yes, `Some(false)` no, `None` when it is relative and the directory
    /// is only known at run time.
    fn path_secret(&self, t: &str, tilde: bool) -> Option<bool> {
        if paths::is_secret(t) {
            return Some(true);
        }
        if self.env.facts.is_some() || self.env.needs.is_some() {
            return self.path_secret_real(t, tilde);
        }
        if is_absolute(t, tilde) {
            return Some(paths::is_secret(&resolve(t, "/", self.env.home)));
        }
        let cwd = self.cwd.as_deref()?;
        // Without `..` the path stays under the directory: only a directory that names a
        // secret place (`.ssh`, `.gnupg`, `.aws` for `credentials`) can make it secret,
        // and the common case needs no joined path.
        let simple = !t.contains("..") && !t.starts_with('~');
        Some(
            std::iter::once(cwd)
                .chain(self.cwd_alts.iter().map(String::as_str))
                .any(|d| {
                    (!simple || may_hold_secrets(d))
                        && paths::is_secret(&resolve(t, d, self.env.home))
                }),
        )
    }

    /// [`Walker::path_secret`] with a file system's facts: each path is judged as
    /// written and as the file it really names through symbolic links (a loop asks),
    /// and noted as a need.
    fn path_secret_real(&self, t: &str, tilde: bool) -> Option<bool> {
        let dirs = self.base_dirs(t, tilde)?;
        Some(dirs.into_iter().any(|d| {
            let joined = paths::join(t, d, self.env.home);
            paths::is_secret(&paths::normalize(&joined)) || self.real_secret(&joined)
        }))
    }

    /// Is the file absolute path `joined` really names (through the facts' links) a
    /// secret, or unknowable (links that loop)? Notes the path as a need.
    fn real_secret(&self, joined: &str) -> bool {
        self.note_path(joined);
        match self.env.facts.map(|f| f.resolve(joined)) {
            None => false,
            Some(Some(real)) => paths::is_secret(&real),
            Some(None) => true,
        }
    }

    /// The directories path text `t` is taken from: `/` when it is absolute (`~` with
    /// `tilde` counts), else every directory bash may be in; `None` when that is known
    /// only at run time.
    fn base_dirs(&self, t: &str, tilde: bool) -> Option<Vec<&str>> {
        if is_absolute(t, tilde) {
            return Some(vec!["/"]);
        }
        let cwd = self.cwd.as_deref()?;
        Some(
            std::iter::once(cwd)
                .chain(self.cwd_alts.iter().map(String::as_str))
                .collect(),
        )
    }

    fn note_path(&self, abs: &str) {
        if let Some(needs) = self.env.needs {
            needs.borrow_mut().paths.insert(abs.to_string());
        }
    }

    /// May a recursive read of `roots` (static words; none: the working directory)
    /// open a secret file? Not when the host walked every tree (as the program walks
    /// it: `hidden` files too, `ignore` files honoured) and found none. Notes the trees
    /// as needs. Run-time names, globs and `..` always may.
    fn tree_may_hold_secret(&self, roots: &[&Word], hidden: bool, ignore: bool) -> bool {
        let mut trees: Vec<crate::facts::Tree> = Vec::new();
        if roots.iter().any(|r| {
            r.dynamic || r.glob || r.braces.is_some() || r.text.split('/').any(|c| c == "..")
        }) {
            return true;
        }
        // No root: the working directory.
        let mut named: Vec<(&str, bool)> =
            roots.iter().map(|r| (r.text.as_str(), r.tilde)).collect();
        if named.is_empty() {
            named.push((".", false));
        }
        for (t, tilde) in named {
            let Some(dirs) = self.base_dirs(t, tilde) else {
                return true;
            };
            trees.extend(dirs.into_iter().map(|d| crate::facts::Tree {
                root: resolve(t, d, self.env.home),
                hidden,
                ignore,
            }));
        }
        if let Some(needs) = self.env.needs {
            needs.borrow_mut().trees.extend(trees.iter().cloned());
        }
        let clean = self.env.trees
            && self
                .env
                .facts
                .is_some_and(|f| trees.iter().all(|t| f.tree_is_clean(t) == Some(true)));
        if clean {
            self.tree_used.set(true);
        }
        !clean
    }

    /// With a file system's facts: may the glob `a` match a symbolic link to a secret
    /// (`cat lnk/*` with `lnk/notes.txt -> ~/.ssh/id_rsa`)? Not when the host walked
    /// the tree under the directory before its first pattern component and found no
    /// link there that resolves to one. A tree not walked may; so does `..` before the
    /// pattern. Notes the tree as a need.
    fn glob_may_reach_secret_link(&self, a: &Word) -> bool {
        let t = a.text.as_str();
        let comps: Vec<&str> = t.split('/').collect();
        let k = comps
            .iter()
            .position(|c| c.contains(['*', '?', '[']))
            .unwrap_or(comps.len());
        let prefix = comps[..k].join("/");
        if comps[..k].contains(&"..") {
            return true;
        }
        let root = match prefix.as_str() {
            "" if t.starts_with('/') => "/",
            "" => ".",
            p => p,
        };
        let Some(dirs) = self.base_dirs(root, a.tilde) else {
            return true;
        };
        dirs.into_iter().any(|d| {
            let tree = crate::facts::Tree {
                root: resolve(root, d, self.env.home),
                hidden: true,
                ignore: false,
            };
            let clean = self
                .env
                .facts
                .map(|f| f.links_are_clean(&tree, comps.len() - k));
            if let Some(needs) = self.env.needs {
                needs.borrow_mut().trees.insert(tree);
            }
            matches!(clean, Some(None | Some(false)))
        })
    }

    /// The verdict for writing the file word `w` names (a redirect target, an operand
    /// of `touch`, `mkdir`, `tee`): the edit verdict of every path it may be from every
    /// directory bash may be in, the strictest. A name known only at run time, a glob
    /// and a path through `..` (a symlinked directory takes `..` anywhere) ask.
    fn edit_target(&self, w: &Word) -> (Tier, &'static str, String) {
        self.wrote.set(true);
        let t = w.text.as_str();
        if w.dynamic {
            return (
                self.default_tier(),
                "builtin.shell.dynamic",
                format!(
                    "writes to a path only known at run time: {}",
                    self.text(w.span)
                ),
            );
        }
        if w.glob || w.braces.is_some() {
            return (
                self.default_tier(),
                "builtin.shell.dynamic",
                format!("writes to the files a pattern matches: {t}"),
            );
        }
        if t.split('/').any(|s| s == "..") {
            return (
                Tier::Ask,
                "builtin.edit-outside",
                format!("edits through `..`, which a symlinked directory takes anywhere: {t}"),
            );
        }
        let Some(dirs) = self.base_dirs(t, w.tilde) else {
            return (
                self.default_tier(),
                "builtin.shell.dynamic",
                format!("writes {t} relative to a working directory known only at run time"),
            );
        };
        let mut out: Option<(Tier, &'static str, String)> = None;
        for d in dirs {
            let abs = resolve(t, d, self.env.home);
            self.note_path(&abs);
            // Through a symbolic link the host found, the file written is its target
            // too: both are judged (a loop is a path nothing can rely on).
            let real = match self.env.facts.map(|f| f.resolve(&abs)) {
                None => None,
                Some(Some(r)) if r == abs => None,
                Some(Some(r)) => Some(r),
                Some(None) => {
                    return (
                        Tier::Ask,
                        "builtin.edit-outside",
                        format!("writes through symbolic links that loop: {t}"),
                    )
                }
            };
            if let Some(r) = real {
                let v = crate::edit::verdict(&r, self.env.workspace, self.env.edits);
                let v = (v.0, v.1, format!("{} (through a symbolic link: {t})", v.2));
                if out.as_ref().is_none_or(|o| v.0 > o.0) {
                    out = Some(v);
                }
            }
            let v = if matches!(
                abs.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
            ) {
                (
                    Tier::Auto,
                    "builtin.shell.readonly",
                    format!("writes to {abs}, which keeps nothing"),
                )
            } else {
                crate::edit::verdict(&abs, self.env.workspace, self.env.edits)
            };
            if out.as_ref().is_none_or(|o| v.0 > o.0) {
                out = Some(v);
            }
        }
        out.unwrap_or((
            self.default_tier(),
            "builtin.shell.redirect",
            format!("writes to a file: {t}"),
        ))
    }

    /// The strictest [`Walker::edit_target`] of `files` (with the span of its word);
    /// `None` when there is none.
    fn edits_of<'w>(
        &self,
        files: impl Iterator<Item = &'w Word>,
    ) -> Option<(Tier, &'static str, String, Span)> {
        let mut out: Option<(Tier, &'static str, String, Span)> = None;
        for f in files {
            let (tier, rule, why) = self.edit_target(f);
            if out.as_ref().is_none_or(|o| tier > o.0) {
                out = Some((tier, rule, why, f.span));
            }
        }
        out
    }

    /// Resolves a static path word against the current directory.
    fn resolve_word(&self, w: &Word) -> Option<String> {
        let t = w.text.as_str();
        if is_absolute(t, w.tilde) {
            return Some(resolve(t, "/", self.env.home));
        }
        self.cwd.as_deref().map(|c| resolve(t, c, self.env.home))
    }

    /// True when a path argument names `/`, the home directory or a top-level system
    /// directory (also `/*`, `~/`, `$HOME`, `..`-escapes, and globs at the top level).
    fn is_root_like(&self, w: &Word) -> bool {
        let mut t = w.text.clone();
        let mut tilde = w.tilde;
        if w.dynamic {
            // `$HOME`, `${HOME}`, `"$HOME"/..`: the home directory is known.
            let rest = ["${HOME:?}", "${HOME}", "$HOME"]
                .iter()
                .find_map(|p| t.strip_prefix(p));
            match rest {
                Some(r) if !r.contains(['$', '`']) && (r.is_empty() || r.starts_with('/')) => {
                    t = format!("{}{r}", self.env.home);
                    tilde = false;
                }
                _ => return false,
            }
        }
        if tilde && !t.starts_with("~/") && t != "~" {
            // `~user`: another user's home directory.
            return !t[1..].trim_end_matches('/').contains('/');
        }
        while t.len() > 1 && t.ends_with('/') {
            t.pop();
        }
        if w.glob {
            // A glob deletes whatever it matches inside the directory before it:
            // `/*`, `~/.*`, `/usr/*/lib`, `/[a-z]*` all reach a protected directory.
            let comps: Vec<&str> = t.split('/').collect();
            if let Some(k) = comps.iter().position(|c| c.contains(['*', '?', '['])) {
                let prefix = comps[..k].join("/");
                let prefix = if prefix.is_empty() {
                    if t.starts_with('/') {
                        "/".to_string()
                    } else {
                        ".".to_string()
                    }
                } else {
                    prefix
                };
                return self.root_like_path(&prefix, tilde);
            }
        }
        self.root_like_path(&t, tilde)
    }

    fn root_like_path(&self, t: &str, tilde: bool) -> bool {
        let probe = Word {
            text: t.to_string(),
            tilde,
            ..Word::default()
        };
        match self.resolve_word(&probe) {
            Some(p) => p == "/" || p == self.env.home || paths::SYSTEM_DIRS.contains(&p.as_str()),
            None => false,
        }
    }

    /// Classifies a command given as words (wrappers unwrapped recursively).
    fn words(&mut self, words: &[&Word], sc: &SimpleCommand) -> (Finding, Traits, Option<String>) {
        if self.depth >= shell::MAX_DEPTH {
            let span = words_span(words, sc.span);
            let f = Finding::new(
                Tier::Ask,
                "builtin.shell.too-complex",
                "too complex to classify: nesting too deep (over 48 levels)",
                span,
            );
            return (f, Traits::default(), None);
        }
        self.depth += 1;
        let r = self.words_inner(words, sc);
        self.depth -= 1;
        r
    }

    fn words_inner(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let none = Traits::default();
        let Some(first) = words.first() else {
            return (
                Finding::new(Tier::Auto, "builtin.shell.empty", "no command", sc.span),
                none,
                Some(String::new()),
            );
        };
        let Some(value) = first.value() else {
            let f = Finding::new(
                Tier::Ask,
                "builtin.shell.dynamic",
                format!("the program is only known at run time: {}", first.text),
                first.span,
            );
            return (f, none, None);
        };
        let name = basename(value);
        let args = &words[1..];
        let want_norm = self.env.want_norm;
        let norm = || -> Option<String> {
            if !want_norm {
                return None;
            }
            let mut s = String::from(name);
            for a in args {
                s.push(' ');
                s.push_str(&a.text);
            }
            Some(s)
        };
        let all = words_span(words, sc.span);
        let deny = |rule: &'static str, why: String, span: Span| {
            (
                Finding::new(Tier::Deny, rule, why, span),
                Traits::default(),
                norm(),
            )
        };
        let ask_default = |why: String| {
            (
                Finding::new(self.default_tier(), "builtin.default", why, first.span),
                Traits::default(),
                norm(),
            )
        };

        if PRIV_ESC.contains(&name) {
            return deny(
                "builtin.shell.priv-esc",
                cat(&["privilege escalation: ", name]),
                first.span,
            );
        }
        if POWER.contains(&name) {
            return deny("builtin.shell.power", format!("power control: {name}"), all);
        }
        match name {
            "init" | "telinit" if args.iter().any(|a| matches!(a.text.as_str(), "0" | "6")) => {
                return deny(
                    "builtin.shell.power",
                    format!("power control: {name} 0/6"),
                    all,
                );
            }
            "systemctl" | "loginctl"
                if args.iter().any(|a| {
                    let t = a.text.trim_end_matches(".target");
                    matches!(t, "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")
                }) =>
            {
                return deny(
                    "builtin.shell.power",
                    format!("power control: {}", self.text(all)),
                    all,
                );
            }
            _ => {}
        }

        // --- wrappers -------------------------------------------------------------
        match name {
            "env" => return self.env_wrapper(words, sc),
            "command" => {
                // bash's `command` reads options only before the name (`--` ends
                // them): `command rm -rf / -v` runs `rm`.
                let lead = args
                    .iter()
                    .take_while(|a| a.text.starts_with('-') && a.text.len() > 1 && !a.dynamic)
                    .count();
                let looks_up = args[..lead]
                    .iter()
                    .take_while(|a| a.text != "--")
                    .any(|a| a.text[1..].contains(['v', 'V']));
                if looks_up {
                    return (
                        Finding::new(
                            Tier::Auto,
                            "builtin.shell.readonly",
                            "looks a command name up: command -v",
                            all,
                        ),
                        none,
                        norm(),
                    );
                }
                return self.wrapped(&words[1 + lead..], sc, name);
            }
            "trap" => {
                // `trap ACTION SIGNAL…`: bash runs ACTION later, as a script: classify
                // it now (a deny in it stands); deferring it is the default tier.
                let lead = args
                    .iter()
                    .take_while(|a| a.text.starts_with('-') && a.text.len() > 1)
                    .count();
                if let Some(action) = args.get(lead).filter(|_| args.len() > lead + 1) {
                    if action.value().is_some() && action.text != "-" {
                        let (text, base, span) =
                            (action.text.clone(), action.content_start, action.span);
                        self.nested_text(&text, base, span);
                    }
                }
                return (
                    Finding::new(
                        self.default_tier(),
                        "builtin.default",
                        "trap sets a command to run later (on a signal or at exit)",
                        all,
                    ),
                    none,
                    norm(),
                );
            }
            "builtin" | "coproc" => return self.wrapped(&words[1..], sc, name),
            "nohup" => {
                let k = skip_opts(args, "", &[]);
                return self.wrapped(&words[1 + k..], sc, name);
            }
            "exec" => {
                let k = skip_opts(args, "a", &[]);
                return self.wrapped(&words[1 + k..], sc, name);
            }
            "nice" => {
                let k = skip_opts(args, "n", &["adjustment"]);
                return self.wrapped(&words[1 + k..], sc, name);
            }
            "time" => {
                let o = Opts::parse(args, "fo", &["format", "output"]);
                let k = skip_opts(args, "fo", &["format", "output"]);
                let (f, t, n) = self.wrapped(&words[1 + k..], sc, name);
                if (o.has_short('o').is_some() || o.has_long("output").is_some())
                    && f.tier < self.default_tier()
                {
                    // The file it writes makes it at least the default; what it runs may
                    // be worse, and then that decides.
                    return (
                        Finding::new(
                            self.default_tier(),
                            "builtin.default",
                            "time -o writes a file",
                            first.span,
                        ),
                        t,
                        n,
                    );
                }
                return (f, t, n);
            }
            "timeout" => {
                let k = skip_opts(args, "sk", &["signal", "kill-after"]);
                // then DURATION, then the command
                return self.wrapped(words.get(2 + k..).unwrap_or(&[]), sc, name);
            }
            "stdbuf" => {
                let k = skip_opts(args, "ioe", &["input", "output", "error"]);
                return self.wrapped(&words[1 + k..], sc, name);
            }
            "ionice" => {
                let o = Opts::parse(args, "cnp", &["class", "classdata", "pid", "pgid", "uid"]);
                if o.has_short('p').is_some()
                    || o.has_short('P').is_some()
                    || o.has_short('u').is_some()
                {
                    return ask_default("ionice changes another process".to_string());
                }
                let k = skip_opts(args, "cnpPu", &["class", "classdata", "pid", "pgid", "uid"]);
                return self.wrapped(&words[1 + k..], sc, name);
            }
            "setsid" | "chronic" | "unbuffer" | "caffeinate" => {
                // Not transparent (not on the list), but what they run is still checked.
                let k = skip_opts(args, "", &[]);
                let (f, t, n) = self.wrapped(&words[1 + k..], sc, name);
                if f.tier >= self.default_tier() {
                    return (f, t, n);
                }
                return (
                    Finding::new(
                        self.default_tier(),
                        "builtin.default",
                        cat(&["not on the read-only allowlist: ", name]),
                        first.span,
                    ),
                    t,
                    n,
                );
            }
            "xargs" => {
                let k = skip_opts(
                    args,
                    "adEILnPs",
                    &[
                        // `--eof`, `--replace`, `--max-lines` take their optional
                        // value only as `--opt=value`: the next word is the command.
                        "arg-file",
                        "delimiter",
                        "max-args",
                        "max-procs",
                        "max-chars",
                        "process-slot-var",
                    ],
                );
                let rest = &words[1 + k..];
                // `xargs -a FILE`, `-0aFILE`, `--arg=FILE`: the items come from FILE,
                // which xargs opens (and echoes when no command follows).
                let arg_file = programs::XARGS
                    .scan(&args[..k])
                    .options
                    .into_iter()
                    .find(|f| f.option.is("-a") || f.option.is("--arg-file"))
                    .and_then(|f| f.value);
                if let Some((file, fw)) = &arg_file {
                    let why = if fw.dynamic {
                        Some((
                            "builtin.shell.dynamic",
                            format!("xargs -a reads a file named only at run time: {file}"),
                        ))
                    } else {
                        match self.path_secret(file, file.starts_with('~')) {
                            Some(false) => None,
                            Some(true) => Some(("builtin.shell.secret-file", format!("reads a secret file: {file}"))),
                            None => Some(("builtin.shell.dynamic", format!("xargs -a reads {file} relative to a working directory known only at run time"))),
                        }
                    };
                    if let Some((rule, why)) = why {
                        return (Finding::new(Tier::Ask, rule, why, fw.span), none, norm());
                    }
                }
                if rest.is_empty() {
                    return (
                        Finding::new(
                            Tier::Auto,
                            "builtin.shell.readonly",
                            "xargs with no command echoes its input",
                            all,
                        ),
                        none,
                        norm(),
                    );
                }
                let stdin_paths = self.stdin_paths;
                let (f, mut t, n) = self.wrapped(rest, sc, name);
                // `… | xargs sh -c '{}'`: the input becomes code.
                let prog = rest.first().map_or("", |w| basename(&w.text));
                // What xargs reads becomes arguments: options (`-o PWN`) unless they come
                // from `find DIR …`, and code where `-I {}` puts them in a script.
                let replace = args[..k].iter().any(|a| {
                    a.text.starts_with("-I")
                        || a.text.starts_with("-i")
                        || a.text.starts_with("--replace")
                });
                let code = replace && (is_interpreter(prog) || prog == "eval");
                let entry = programs::lookup(prog);
                let options = !entry.is_some_and(programs::Program::args_are_data) && !stdin_paths;
                if is_interpreter(prog) || prog == "eval" || prog == "source" || prog == "." {
                    t.stdin_exec = true;
                }
                // `find . | xargs cat`: it opens every file find lists, `.env` included.
                if f.tier == Tier::Auto
                    && stdin_paths
                    && self.stdin_paths_secret
                    && entry.is_some_and(programs::Program::opens_operands)
                {
                    return (
                        Finding::new(
                            self.default_tier(),
                            "builtin.shell.recursive-read",
                            format!("{prog} opens every file find lists, a secret file among them; only a host with a file system can check what it reaches"),
                            all,
                        ),
                        t,
                        n,
                    );
                }
                if f.tier == Tier::Auto && (code || options) {
                    return (
                        Finding::new(
                            self.default_tier(),
                            "builtin.shell.dynamic",
                            format!("xargs turns the data it reads into arguments of {prog}: they may be options or code"),
                            all,
                        ),
                        t,
                        n,
                    );
                }
                if is_interpreter(prog) || prog == "eval" || prog == "source" || prog == "." {
                    t.stdin_exec = true;
                }
                return (f, t, n);
            }
            "busybox" | "toybox" if args.first().is_some_and(|a| !a.text.starts_with('-')) => {
                // `busybox rm -rf /`: the applet is the command.
                return self.words(&words[1..], sc);
            }
            "watch" => {
                let o = Opts::parse(args, "nd", &["interval"]);
                let k = skip_opts(args, "n", &["interval"]);
                let rest = &words[1 + k..];
                if rest.is_empty() {
                    return ask_default("watch with no command".to_string());
                }
                if o.has_short('x').is_some() || o.has_long("exec").is_some() {
                    return self.wrapped(rest, sc, name);
                }
                return self.joined_script(rest, all, "watch");
            }
            "eval" => {
                if args.is_empty() {
                    return (
                        Finding::new(
                            Tier::Auto,
                            "builtin.shell.empty",
                            "eval with nothing to run",
                            all,
                        ),
                        none,
                        norm(),
                    );
                }
                if let Some(f) = self.sink_check(args, sc, "eval") {
                    return (f, none, None);
                }
                let (f, mut t, n) = self.joined_script(args, all, "eval");
                // `… | eval "$(cat)"`: runs what it reads from its input.
                t.stdin_exec |= args.iter().any(|a| {
                    a.subs
                        .iter()
                        .any(|sub| script_runs(sub, &|_| false, &["cat", "head", "tail", "tee"]))
                });
                return (f, t, n);
            }
            _ => {}
        }

        if SHELLS.contains(&name) {
            return self.shell_invocation(name, words, sc);
        }
        if is_interpreter(name) || name == "source" || name == "." {
            if let Some(f) = self.sink_check(args, sc, name) {
                return (f, none, None);
            }
            let reads_stdin = interpreter_reads_stdin(name, args);
            return (
                Finding::new(
                    self.default_tier(),
                    "builtin.default",
                    cat(&["runs a program: ", name]),
                    first.span,
                ),
                Traits {
                    stdin_exec: reads_stdin,
                    ..Traits::default()
                },
                norm(),
            );
        }

        // --- hard deny on specific programs ------------------------------------------
        match name {
            "rm" => {
                let o = Opts::parse(args, "", &[]);
                if let Some(w) = o.has_long("no-preserve-root") {
                    return deny(
                        "builtin.shell.rm-root",
                        "recursive delete with --no-preserve-root".to_string(),
                        w.span,
                    );
                }
                let recursive = o.has_short('r').is_some()
                    || o.has_short('R').is_some()
                    || o.has_long("recursive").is_some();
                if recursive {
                    if let Some(w) = o.operands.iter().find(|w| self.is_root_like(w)) {
                        return deny(
                            "builtin.shell.rm-root",
                            format!("recursive delete of {}: {}", w.text, self.text(all)),
                            w.span,
                        );
                    }
                }
                return ask_default(cat(&["deletes files: ", self.text(all)]));
            }
            "chmod" | "chown" | "chgrp" => {
                let o = Opts::parse(args, "", &["reference"]);
                let recursive = o.has_short('R').is_some() || o.has_long("recursive").is_some();
                if recursive {
                    if let Some(w) = o.operands.iter().find(|w| self.is_root_like(w)) {
                        return deny(
                            "builtin.shell.chmod-root",
                            format!("recursive {name} of {}", w.text),
                            w.span,
                        );
                    }
                }
                return ask_default(format!("changes file permissions or owners: {name}"));
            }
            "find" => return self.find(words, sc),
            "dd" => {
                for a in args {
                    if let Some(path) = a.text.strip_prefix("of=") {
                        let p = Word {
                            text: path.to_string(),
                            param: None,
                            ..(*a).clone()
                        };
                        let abs = self.resolve_word(&p);
                        if let Some(abs) = abs.as_deref() {
                            if abs.starts_with("/dev/")
                                && !matches!(abs, "/dev/null" | "/dev/stdout" | "/dev/stderr")
                            {
                                return deny(
                                    "builtin.shell.disk",
                                    format!("dd writes to a device: {}", a.text),
                                    a.span,
                                );
                            }
                            if paths::under_any(abs, SYSTEM_WRITE_DIRS) {
                                return deny(
                                    "builtin.shell.system-write",
                                    format!("dd writes into a system directory: {}", a.text),
                                    a.span,
                                );
                            }
                        }
                    }
                }
                return ask_default("dd copies raw data".to_string());
            }
            "shred" => {
                if let Some(a) = args
                    .iter()
                    .find(|a| a.text.starts_with("/dev/") && a.text != "/dev/null")
                {
                    return deny(
                        "builtin.shell.disk",
                        format!("shred of a device: {}", a.text),
                        a.span,
                    );
                }
                return ask_default("shred destroys files".to_string());
            }
            "wipefs" | "blkdiscard" | "mkswap" | "mke2fs" => {
                return deny("builtin.shell.disk", format!("disk tool: {name}"), all);
            }
            n if n.starts_with("mkfs") => {
                return deny(
                    "builtin.shell.disk",
                    format!("makes a file system: {name}"),
                    all,
                );
            }
            "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" => {
                // Listing only: `-l`/`--list`, or parted's `print`, with nothing else but
                // devices and flags (`parted -l /dev/sda rm 1` removes a partition).
                let only_listing_words = args.iter().all(|a| {
                    a.text.starts_with('-') || a.text.starts_with("/dev/") || a.text == "print"
                });
                let listing = (args
                    .iter()
                    .any(|a| matches!(a.text.as_str(), "-l" | "--list"))
                    && (name != "parted" || only_listing_words))
                    || (name == "parted"
                        && args.iter().any(|a| a.text == "print")
                        && args.iter().all(|a| {
                            a.text == "print"
                                || a.text.starts_with("/dev/")
                                || a.text.starts_with('-')
                        }));
                if !listing {
                    return deny(
                        "builtin.shell.disk",
                        format!("partitions a disk: {}", self.text(all)),
                        all,
                    );
                }
                return ask_default(format!("disk tool: {name}"));
            }
            "tee" => {
                let o = Opts::parse(args, "", &[]);
                for w in &o.operands {
                    if let Some(abs) = self.resolve_word(w) {
                        if DISK_DEVICES.iter().any(|d| abs.starts_with(d)) {
                            return deny(
                                "builtin.shell.disk",
                                format!("tee writes to a disk device: {}", w.text),
                                w.span,
                            );
                        }
                        if paths::under_any(&abs, SYSTEM_WRITE_DIRS) || is_lib_dir(&abs) {
                            return deny(
                                "builtin.shell.system-write",
                                format!("tee writes into a system directory: {}", w.text),
                                w.span,
                            );
                        }
                    }
                }
                let (f, mut t, n) = match readonly("tee", args, self, words[0].span) {
                    ReadOnly::Edit(tier, rule, why, span) => (
                        Finding::new(tier, rule, why, span),
                        Traits::default(),
                        norm(),
                    ),
                    ReadOnly::Flag(rule, why, span) => (
                        Finding::new(self.default_tier(), rule, why, span),
                        Traits::default(),
                        norm(),
                    ),
                    _ => (
                        Finding::new(
                            Tier::Auto,
                            "builtin.shell.readonly",
                            "tee with no file writes only its output",
                            words[0].span,
                        ),
                        Traits::default(),
                        norm(),
                    ),
                };
                // `… | tee >(sh)`: what it reads goes into an interpreter.
                t.stdin_exec = args.iter().any(|a| {
                    a.subs.iter().any(|sub| {
                        script_runs(sub, &|n| is_interpreter(n), &["eval", "source", "."])
                    })
                });
                return (f, t, n);
            }
            "cd" | "pushd" => {
                let next = match args
                    .iter()
                    .find(|a| !a.text.starts_with('-') || a.text == "-")
                {
                    None => Some(self.env.home.to_string()),
                    Some(a) if a.value().is_some() && a.text != "-" => self.resolve_word(a),
                    // `cd $HOME`, `cd "${HOME}/x"`: the home directory is known.
                    Some(a) => ["${HOME:?}", "${HOME}", "$HOME"]
                        .iter()
                        .find_map(|p| a.text.strip_prefix(p))
                        .filter(|rest| {
                            a.subs.is_empty()
                                && !rest.contains(['$', '`'])
                                && (rest.is_empty() || rest.starts_with('/'))
                        })
                        .map(|rest| resolve(&format!("~{rest}"), "/", self.env.home)),
                };
                // It may fail (a missing directory) and leave bash where it was.
                match (self.cwd.take(), next) {
                    (Some(old), Some(new)) => {
                        if *old != *new && !self.cwd_alts.iter().any(|a| *a == *old) {
                            self.cwd_alts.push(old.into_owned());
                        }
                        if self.cwd_alts.len() <= 8 {
                            self.cwd = Some(Cow::Owned(new));
                        }
                    }
                    _ => self.cwd_alts.clear(),
                }
            }
            // `popd` returns to a directory the stack holds: unknown here.
            "popd" => {
                self.cwd = None;
                self.cwd_alts.clear();
            }
            _ => {}
        }

        let mut traits = Traits::default();
        if DOWNLOADERS.contains(&name) {
            traits.downloader = true;
        }
        match name {
            "base64" | "base32" | "basenc" => {
                traits.decoder = args.iter().any(|a| {
                    a.text == "--decode"
                        || (a.text.starts_with('-')
                            && !a.text.starts_with("--")
                            && (a.text.contains('d') || a.text.contains('D')))
                })
            }
            "xxd" => {
                traits.decoder = args.iter().any(|a| {
                    a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('r')
                        || a.text == "--revert"
                })
            }
            "openssl" => {
                traits.decoder = args.iter().any(|a| {
                    a.text == "-d"
                        || a.text == "-decrypt"
                        || a.text == "-base64" && args.iter().any(|b| b.text == "-d")
                })
            }
            "uudecode" | "gpg" => traits.decoder = true,
            "echo" | "printf" => traits.echo = args.iter().all(|a| a.value().is_some()),
            // `… | tee >(sh)`: what it reads goes into an interpreter.
            // `cat <<EOF | sh`, `cat <<< 'cmd' | sh`: writes its here-document.
            "cat" => {
                traits.echo = args.iter().all(|a| a.text == "-")
                    && sc
                        .redirects
                        .iter()
                        .any(|r| matches!(r.op, RedirOp::HereDoc | RedirOp::HereString))
            }
            _ => {}
        }

        // `test -v 'a[$(cmd)]'`, `[[ 'a[$(cmd)]' -eq 0 ]]`: bash evaluates an array
        // subscript in a variable name or arithmetic operand, running what is in it.
        if matches!(name, "test" | "[" | "[[" | "let") {
            // `[[ $(cmd) -eq 0 ]]`, `test -v "$(cmd)"`: the output is arithmetic / a name.
            let arith = name == "let"
                || args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-v" | "-R"
                    )
                });
            if arith {
                for a in args.iter().filter(|a| !a.subs.is_empty()) {
                    self.arith_output(&a.subs, a.span);
                }
            }
            // `[[ $x -eq 1 ]]`, `[[ x -eq 1 ]]`: `[[` evaluates each operand of an
            // arithmetic comparison as an expression, so a value known only at run time
            // (`a[$(cmd)]`) runs code. `test` and `[` want integers and evaluate nothing.
            if name == "[[" {
                for (i, a) in args.iter().enumerate() {
                    if !matches!(
                        a.text.as_str(),
                        "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"
                    ) {
                        continue;
                    }
                    for op in [i.checked_sub(1), Some(i + 1)]
                        .into_iter()
                        .flatten()
                        .filter_map(|k| args.get(k))
                        .filter(|o| o.subs.is_empty())
                    {
                        let t = op.text.trim_matches('"');
                        let name = t
                            .strip_prefix("${")
                            .and_then(|r| r.strip_suffix('}'))
                            .or_else(|| t.strip_prefix('$'))
                            .unwrap_or(t);
                        let literal = name
                            .trim_start_matches(['-', '+'])
                            .bytes()
                            .all(|b| b.is_ascii_digit());
                        // `$?`, `$#`, `$$`, `$!` are numbers bash sets.
                        let special = matches!(name, "?" | "#" | "$" | "!");
                        if !literal && !special && !self.numeric.iter().any(|k| k == name) {
                            self.parts.push(RawPart {
                                span: op.span,
                                finding: Finding::new(
                                    self.default_tier(),
                                    "builtin.shell.dynamic",
                                    format!("[[ evaluates {} as arithmetic, and its value is only known at run time", op.text),
                                    op.span,
                                ),
                                norm: None,
                            });
                        }
                    }
                }
            }
            for a in args {
                if a.subs.is_empty() && subscript_code(&a.text) {
                    let text = a.text.clone();
                    self.code_in_data(&text, a.span);
                }
            }
        }

        match readonly(name, args, self, first.span) {
            ReadOnly::Yes => (
                Finding::new(
                    Tier::Auto,
                    "builtin.shell.readonly",
                    cat(&["read-only command: ", name]),
                    first.span,
                ),
                traits,
                norm(),
            ),
            ReadOnly::Flag(rule, why, span) => (
                Finding::new(self.default_tier(), rule, why, span),
                traits,
                norm(),
            ),
            ReadOnly::Edit(tier, rule, why, span) => {
                (Finding::new(tier, rule, why, span), traits, norm())
            }
            ReadOnly::Secret(w) => (
                Finding::new(
                    Tier::Ask,
                    "builtin.shell.secret-file",
                    format!("reads a secret file: {}", w.text),
                    w.span,
                ),
                traits,
                norm(),
            ),
            ReadOnly::No => (
                Finding::new(
                    self.default_tier(),
                    "builtin.default",
                    cat(&["not on the read-only allowlist: ", name]),
                    first.span,
                ),
                traits,
                norm(),
            ),
        }
    }

    /// A transparent wrapper: the wrapped command decides.
    fn wrapped(
        &mut self,
        rest: &[&Word],
        sc: &SimpleCommand,
        wrapper: &str,
    ) -> (Finding, Traits, Option<String>) {
        if rest.is_empty() {
            let f = Finding::new(
                Tier::Auto,
                "builtin.shell.readonly",
                format!("{wrapper} with no command"),
                sc.span,
            );
            return (f, Traits::default(), Some(wrapper.to_string()));
        }
        self.words(rest, sc)
    }

    fn env_wrapper(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let mut i = 1;
        let mut split: Option<&Word> = None;
        let mut split_inline: Option<String> = None;
        let mut findings = Vec::new();
        // `-C DIR` / `--chdir=DIR`: the command runs there (`Some(None)`: unknown dir).
        let mut chdir: Option<Option<String>> = None;
        while i < words.len() {
            let w = words[i];
            let t = w.text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            if let Some(long) = t.strip_prefix("--").filter(|_| !w.dynamic) {
                // Every spelling getopt accepts: `--split-str=…`, `--ch DIR`.
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                let full = ENV_LONG
                    .iter()
                    .find(|f| !name.is_empty() && f.starts_with(name))
                    .copied()
                    .unwrap_or("");
                match (full, value) {
                    ("split-string", Some(v)) => {
                        split_inline = Some(v.to_string());
                        split = Some(w);
                        i += 1;
                        break;
                    }
                    ("split-string", None) => {
                        split = words.get(i + 1).copied();
                        i += 2;
                        break;
                    }
                    ("chdir", Some(v)) => {
                        chdir = Some(Some(v.to_string()));
                        i += 1;
                    }
                    ("chdir", None) => {
                        chdir = Some(words.get(i + 1).and_then(|d| d.value().map(str::to_string)));
                        i += 2;
                    }
                    ("unset" | "argv0", None) => i += 2,
                    _ => i += 1,
                }
                continue;
            }
            if w.assign {
                if let Some(f) = self.assign_finding(w) {
                    findings.push(f);
                }
                i += 1;
                continue;
            }
            if t == "-"
                || t == "-i"
                || t == "--ignore-environment"
                || t == "-0"
                || t == "--null"
                || t == "-v"
                || t == "--debug"
            {
                i += 1;
                continue;
            }
            if t == "-C" {
                chdir = Some(words.get(i + 1).and_then(|d| d.value().map(str::to_string)));
                i += 2;
                continue;
            }
            if t == "-u" {
                i += 2;
                continue;
            }
            if t == "-S" || t == "--split-string" {
                split = words.get(i + 1).copied();
                i += 2;
                break;
            }
            // A short cluster like `-iS'…'` or `-iu NAME`.
            if t.len() > 2 && t.starts_with('-') && !t.starts_with("--") && !w.dynamic {
                let body = &t[1..];
                if let Some(k) = body.find(['S', 'u', 'C']) {
                    let letter = body.as_bytes()[k];
                    let rest_of = &body[k + 1..];
                    if letter == b'C' {
                        chdir = Some(if rest_of.is_empty() {
                            words.get(i + 1).and_then(|d| d.value().map(str::to_string))
                        } else {
                            Some(rest_of.to_string())
                        });
                    }
                    if letter == b'S' {
                        if rest_of.is_empty() {
                            split = words.get(i + 1).copied();
                            i += 2;
                        } else {
                            split_inline = Some(rest_of.to_string());
                            split = Some(w);
                            i += 1;
                        }
                        break;
                    }
                    i += if rest_of.is_empty() { 2 } else { 1 };
                    continue;
                }
            }
            if let Some(s) = t
                .strip_prefix("--split-string=")
                .or_else(|| t.strip_prefix("-S"))
            {
                split_inline = Some(s.to_string());
                split = Some(w);
                i += 1;
                break;
            }
            if t.starts_with('-') && !w.dynamic {
                i += 1;
                continue;
            }
            if t.contains('=') && !w.dynamic && !t.starts_with('=') {
                // NAME=value given to env (quoted or not)
                if let Some(f) = self.assign_finding(w) {
                    findings.push(f);
                }
                i += 1;
                continue;
            }
            break;
        }
        let rest: Vec<&Word> = words.get(i..).unwrap_or(&[]).to_vec();
        let result = if let Some(sw) = split {
            let text = split_inline.unwrap_or_else(|| sw.text.clone());
            if sw.value().is_none() {
                (
                    Finding::new(
                        Tier::Ask,
                        "builtin.shell.dynamic",
                        "env -S with a string known only at run time",
                        sw.span,
                    ),
                    Traits::default(),
                    None,
                )
            } else if text.len() > self.budget || self.depth >= shell::MAX_DEPTH {
                (
                    Finding::new(
                        Tier::Ask,
                        "builtin.shell.too-complex",
                        "too complex to classify: too much nested script",
                        sw.span,
                    ),
                    Traits::default(),
                    None,
                )
            } else {
                self.budget -= text.len();
                match shell::parse_in(&text, 0, Some(sw.span), self.depth + 1, &mut self.steps) {
                    Ok(script) => {
                        let cmds = shell::simple_commands(&script);
                        if cmds.len() == 1 && script.pipelines.len() == 1 {
                            // `env -S 'NAME=value cmd'`: env sets those variables.
                            for a in &cmds[0].assigns {
                                if let Some(f) = self.assign_finding(a) {
                                    findings.push(f);
                                }
                            }
                            let mut ws: Vec<&Word> = cmds[0].words.iter().collect();
                            ws.extend(rest.iter().copied());
                            let inner = SimpleCommand {
                                span: sc.span,
                                ..SimpleCommand::default()
                            };
                            self.words(&ws, &inner)
                        } else {
                            self.sub_script(&script);
                            (
                                Finding::new(
                                    self.default_tier(),
                                    "builtin.default",
                                    "env -S with several commands",
                                    sw.span,
                                ),
                                Traits::default(),
                                None,
                            )
                        }
                    }
                    Err(e) => {
                        let rule = match e.kind {
                            ParseErrorKind::TooComplex => "builtin.shell.too-complex",
                            ParseErrorKind::Syntax => "builtin.shell.unparseable",
                        };
                        (
                            Finding::new(
                                Tier::Ask,
                                rule,
                                format!("cannot parse env -S string: {}", e.message),
                                sw.span,
                            ),
                            Traits::default(),
                            None,
                        )
                    }
                }
            }
        } else if rest.is_empty() {
            (
                Finding::new(
                    self.default_tier(),
                    "builtin.default",
                    "env prints the environment, which may hold secrets",
                    sc.span,
                ),
                Traits::default(),
                Some("env".to_string()),
            )
        } else if let Some(dir) = chdir {
            // The command runs in DIR: resolve its paths from there.
            let saved = self.cwd.clone();
            self.cwd = match (dir, self.cwd.as_deref()) {
                (Some(d), Some(c)) => Some(Cow::Owned(resolve(&d, c, self.env.home))),
                _ => None,
            };
            let r = self.words(&rest, sc);
            self.cwd = saved;
            r
        } else {
            self.words(&rest, sc)
        };
        let (mut f, t, n) = result;
        for g in findings {
            if g.tier > f.tier {
                f = g;
            }
        }
        (f, t, n)
    }

    /// `bash -c '…'`, `sh <<EOF`, `sh <<< '…'`, `bash script.sh`.
    fn shell_invocation(
        &mut self,
        name: &str,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let args = &words[1..];
        let all = words_span(words, sc.span);
        if let Some(f) = self.sink_check(args, sc, name) {
            return (f, Traits::default(), None);
        }
        // Find -c and its string; skip other options (and values of -o/-O/+o/+O).
        let mut i = 0;
        let mut cmd_string: Option<&Word> = None;
        let mut script_file: Option<&Word> = None;
        let mut stdin_flag = false;
        let mut want_c = false;
        while i < args.len() {
            let a = args[i];
            let t = a.text.as_str();
            i += 1;
            if a.dynamic {
                if want_c {
                    cmd_string = Some(a);
                } else {
                    script_file = Some(a);
                }
                break;
            }
            if t == "--" {
                if want_c {
                    cmd_string = args.get(i).copied();
                } else {
                    script_file = args.get(i).copied();
                }
                break;
            }
            if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
                i += 1;
                continue;
            }
            if t.starts_with("--") {
                continue;
            }
            if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                if t[1..].contains('c') {
                    want_c = true;
                }
                if t[1..].contains('s') {
                    stdin_flag = true;
                }
                continue;
            }
            if want_c {
                cmd_string = Some(a);
            } else {
                script_file = Some(a);
            }
            break;
        }
        let norm = {
            let mut s = String::from(name);
            for a in args {
                s.push(' ');
                s.push_str(&a.text);
            }
            Some(s)
        };
        if want_c {
            let Some(cs) = cmd_string else {
                return (
                    Finding::new(
                        Tier::Ask,
                        "builtin.shell.unparseable",
                        format!("{name} -c without a command string"),
                        all,
                    ),
                    Traits::default(),
                    norm,
                );
            };
            if cs.value().is_none() {
                return (
                    Finding::new(
                        Tier::Ask,
                        "builtin.shell.dynamic",
                        format!("{name} -c with a script only known at run time"),
                        cs.span,
                    ),
                    Traits::default(),
                    None,
                );
            }
            // `bash -c 'cat "$1"' _ .env`: the words after the script are `$0`, `$1`, …
            // in it. A new shell inherits no other variable (unless exported: those it
            // keeps are at worst values judged more strictly).
            let positional: Vec<(String, String)> = args
                .iter()
                .skip_while(|a| !std::ptr::eq(**a, cs))
                .skip(1)
                .take(10)
                .enumerate()
                .filter_map(|(i, a)| a.value().map(|v| (i.to_string(), v.to_string())))
                .collect();
            let outer = std::mem::replace(&mut self.consts, positional);
            let inner = self.nested_text(&cs.text, cs.content_start, cs.span);
            self.consts = outer;
            return (
                Finding::new(
                    Tier::Auto,
                    "builtin.shell.nested",
                    format!("{name} -c: the nested script's commands are classified on their own"),
                    all,
                ),
                Traits {
                    // `curl … | bash -c 'cat | sh'`: the nested script runs its input.
                    stdin_exec: inner.stdin_exec,
                    ..Traits::default()
                },
                norm,
            );
        }
        if let Some(f) = script_file.filter(|_| !stdin_flag) {
            if f.text != "-" && f.text != "/dev/stdin" {
                return (
                    Finding::new(
                        self.default_tier(),
                        "builtin.default",
                        format!("runs a shell script: {}", f.text),
                        all,
                    ),
                    Traits::default(),
                    norm,
                );
            }
        }
        // Reads its script from stdin: a here-doc, a here-string, a file, or a pipe.
        let mut fed = false;
        for r in &sc.redirects {
            match r.op {
                RedirOp::HereDoc => {
                    if let Some(doc) = &r.heredoc {
                        let body = doc.body.clone();
                        self.nested_text(&body, Some(doc.start), r.span);
                        fed = true;
                        if !doc.quoted && expands(&body) {
                            // bash runs the body after expansion: `${x:-;}` can become
                            // a `;`, a value a whole command. The reading where every
                            // expansion ends a command is classified too.
                            let split = expansions_as_separators(&body);
                            self.nested_text(&split, None, r.span);
                            return (
                                Finding::new(
                                    Tier::Ask,
                                    "builtin.shell.dynamic",
                                    format!("{name} runs a here-document expanded at run time"),
                                    r.span,
                                ),
                                Traits::default(),
                                None,
                            );
                        }
                    }
                }
                RedirOp::HereString => {
                    if r.target.value().is_some() {
                        self.nested_text(&r.target.text, r.target.content_start, r.target.span);
                        fed = true;
                    } else {
                        return (
                            Finding::new(
                                Tier::Ask,
                                "builtin.shell.dynamic",
                                format!("{name} runs a script only known at run time"),
                                r.span,
                            ),
                            Traits::default(),
                            None,
                        );
                    }
                }
                RedirOp::In => {
                    return (
                        Finding::new(
                            self.default_tier(),
                            "builtin.default",
                            format!("runs a shell script: {}", r.target.text),
                            all,
                        ),
                        Traits::default(),
                        norm,
                    );
                }
                _ => {}
            }
        }
        if fed {
            return (
                Finding::new(Tier::Auto, "builtin.shell.nested", format!("{name} reads a script given inline; its commands are classified on their own"), all),
                Traits::default(),
                norm,
            );
        }
        (
            Finding::new(
                self.default_tier(),
                "builtin.default",
                format!("runs a shell reading commands from its input: {name}"),
                all,
            ),
            Traits {
                stdin_exec: true,
                ..Traits::default()
            },
            norm,
        )
    }

    /// An interpreter, `eval` or `source` given a substitution that downloads or decodes:
    /// `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(echo … | base64 -d)"`.
    fn sink_check(&self, args: &[&Word], sc: &SimpleCommand, name: &str) -> Option<Finding> {
        let mut words: Vec<&Word> = args.to_vec();
        for r in &sc.redirects {
            if matches!(r.op, RedirOp::In | RedirOp::HereString) {
                words.push(&r.target);
            }
        }
        for w in &words {
            // `x=$(curl …); bash -c "$x"`: the variable holds the download.
            for (var, rule) in &self.tainted {
                if mentions_var(&w.text, var) {
                    let what = if *rule == "builtin.shell.pipe-to-shell" {
                        "remote content"
                    } else {
                        "decoded content"
                    };
                    return Some(Finding::new(
                        Tier::Deny,
                        rule,
                        format!(
                            "{what} (in ${var}) executed by {name}: {}",
                            self.text(w.span)
                        ),
                        w.span,
                    ));
                }
            }
        }
        for w in words {
            for s in &w.subs {
                if script_runs(s, &|n| DOWNLOADERS.contains(&n), &[]) {
                    return Some(Finding::new(
                        Tier::Deny,
                        "builtin.shell.pipe-to-shell",
                        format!("remote content executed by {name}: {}", self.text(w.span)),
                        w.span,
                    ));
                }
                if script_runs(s, &|_| false, DECODERS) {
                    return Some(Finding::new(
                        Tier::Deny,
                        "builtin.shell.encoded-exec",
                        format!("decoded content executed by {name}: {}", self.text(w.span)),
                        w.span,
                    ));
                }
            }
        }
        None
    }

    /// `eval a b c`, `watch 'cmd'`: the arguments joined by spaces are a script.
    fn joined_script(
        &mut self,
        rest: &[&Word],
        all: Span,
        what: &str,
    ) -> (Finding, Traits, Option<String>) {
        if rest.iter().any(|w| w.value().is_none()) {
            return (
                Finding::new(
                    Tier::Ask,
                    "builtin.shell.dynamic",
                    format!("{what} runs a script only known at run time"),
                    words_span(rest, all),
                ),
                Traits::default(),
                None,
            );
        }
        let joined: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
        let text = joined.join(" ");
        // An unquoted word maps back to the source only where its span is its text
        // (not a decoded string, whose spans are all the enclosing one's).
        let base = if rest.len() == 1 {
            let w = &rest[0];
            w.content_start.or_else(|| {
                (!w.quoted && w.span[1] - w.span[0] == w.text.len()).then_some(w.span[0])
            })
        } else {
            None
        };
        let span = words_span(rest, all);
        // `eval` runs in this shell: its `cd` and its assignments stay.
        self.nested_text_in(&text, base, span, what == "eval");
        (
            Finding::new(
                Tier::Auto,
                "builtin.shell.nested",
                format!("{what}: the nested script's commands are classified on their own"),
                all,
            ),
            Traits::default(),
            Some(format!("{what} {text}")),
        )
    }

    fn find(&mut self, words: &[&Word], sc: &SimpleCommand) -> (Finding, Traits, Option<String>) {
        let args = &words[1..];
        let all = words_span(words, sc.span);
        let mut i = 0;
        // Leading options -H -L -P -D x -Olevel
        while i < args.len() {
            let t = args[i].text.as_str();
            if matches!(t, "-H" | "-L" | "-P") || t.starts_with("-O") {
                i += 1;
            } else if t == "-D" {
                i += 2;
            } else if t == "--" {
                // `find -- / -delete`: the end of options, then the paths.
                i += 1;
                break;
            } else {
                break;
            }
        }
        let mut roots: Vec<&Word> = Vec::new();
        while i < args.len() {
            let t = args[i].text.as_str();
            if (t.starts_with('-') && t.len() > 1) || t == "(" || t == "!" || t == "," {
                break;
            }
            roots.push(args[i]);
            i += 1;
        }
        let expr_start = i;
        let mut unsafe_action: Option<&Word> = None;
        let mut deletes = false;
        while i < args.len() {
            let w = args[i];
            let t = w.text.as_str();
            i += 1;
            match t {
                "-delete" => {
                    deletes = true;
                    unsafe_action.get_or_insert(w);
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    unsafe_action.get_or_insert(w);
                    let start = i;
                    while i < args.len() && args[i].text != ";" && args[i].text != "+" {
                        i += 1;
                    }
                    let inner = &args[start..i.min(args.len())];
                    i += 1;
                    if let Some(p) = inner.first() {
                        let deleter = |w: &&Word| {
                            matches!(basename(&w.text), "rm" | "rmdir" | "shred" | "unlink")
                        };
                        // `-exec rm …`, or a wrapper around it (`-exec env rm`,
                        // `-exec nice -n 5 rm`, `-exec timeout 5 rm`).
                        // `-exec sh -c 'rm "$1"' _ {} \;`: a shell whose script runs one.
                        let shell_deletes = SHELLS.contains(&basename(&p.text))
                            && inner.iter().any(|w| {
                                w.text
                                    .split(|c: char| c.is_whitespace() || ";|&()".contains(c))
                                    .any(|t| {
                                        matches!(basename(t), "rm" | "rmdir" | "shred" | "unlink")
                                    })
                            });
                        if deleter(p)
                            || shell_deletes
                            || (WRAPPERS.contains(&basename(&p.text)) && inner.iter().any(deleter))
                        {
                            deletes = true;
                        }
                        let span = words_span(inner, all);
                        let isc = SimpleCommand {
                            span,
                            ..SimpleCommand::default()
                        };
                        let (f, _t, n) = self.words(inner, &isc);
                        self.parts.push(RawPart {
                            span,
                            finding: f,
                            norm: if self.env.want_norm { n } else { None },
                        });
                    }
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    unsafe_action.get_or_insert(w);
                }
                _ => {}
            }
        }
        let norm = {
            let mut s = String::from("find");
            for a in args {
                s.push(' ');
                s.push_str(&a.text);
            }
            Some(s)
        };
        if deletes && roots.iter().any(|w| self.is_root_like(w)) {
            return (
                Finding::new(
                    Tier::Deny,
                    "builtin.shell.find-delete-root",
                    format!("find deleting from a system location: {}", self.text(all)),
                    all,
                ),
                Traits::default(),
                norm,
            );
        }
        if let Some(w) = unsafe_action {
            return (
                Finding::new(
                    self.default_tier(),
                    "builtin.shell.find-action",
                    format!("find {} runs commands, deletes or writes files", w.text),
                    w.span,
                ),
                Traits::default(),
                norm,
            );
        }
        if let Some(f) = self.find_expression(&args[expr_start..]) {
            return (f, Traits::default(), norm);
        }
        if let Some(w) = roots
            .iter()
            .find(|w| w.value().is_some_and(paths::is_secret))
        {
            return (
                Finding::new(
                    Tier::Ask,
                    "builtin.shell.secret-file",
                    format!("lists a secret location: {}", w.text),
                    w.span,
                ),
                Traits::default(),
                norm,
            );
        }
        (
            Finding::new(
                Tier::Auto,
                "builtin.shell.readonly",
                "read-only command: find",
                words[0].span,
            ),
            Traits::default(),
            norm,
        )
    }

    /// `find`'s expression read with [`programs::FIND_PRIMARIES`]: a word find does not
    /// know asks, as an unknown option does; `-files0-from F` opens F (whose lines
    /// find prints in its errors), judged as `cat F` would be.
    fn find_expression(&self, expr: &[&Word]) -> Option<Finding> {
        let mut i = 0;
        while i < expr.len() {
            let w = expr[i];
            i += 1;
            if w.dynamic {
                return Some(Finding::new(
                    self.default_tier(),
                    "builtin.shell.dynamic",
                    format!(
                        "a find expression word known only at run time: {}",
                        self.text(w.span)
                    ),
                    w.span,
                ));
            }
            let t = w.text.as_str();
            let Some(n) = programs::find_primary(t) else {
                return Some(Finding::new(
                    self.default_tier(),
                    "builtin.shell.unknown-option",
                    format!("{t} is not a find expression it knows: an option not in the table may write, run or open a file"),
                    w.span,
                ));
            };
            if n == u8::MAX {
                while i < expr.len() && expr[i].text != ";" && expr[i].text != "+" {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if t == "-files0-from" {
                if let Some(&v) = expr.get(i) {
                    match operand_reach(v, self) {
                        ReadOnly::Yes | ReadOnly::No => {}
                        ReadOnly::Secret(_) => {
                            return Some(Finding::new(
                                Tier::Ask,
                                "builtin.shell.secret-file",
                                format!("reads a secret file: {}", v.text),
                                v.span,
                            ))
                        }
                        ReadOnly::Flag(rule, why, _) | ReadOnly::Edit(_, rule, why, _) => {
                            return Some(Finding::new(self.default_tier(), rule, why, v.span))
                        }
                    }
                }
            }
            i += usize::from(n);
        }
        None
    }
}

fn is_lib_dir(p: &str) -> bool {
    let first = p.trim_start_matches('/').split('/').next().unwrap_or("");
    p.starts_with('/') && first.starts_with("lib") && p.len() > first.len() + 1
}

/// Number of leading option words of a wrapper (short letters in `takes` and long
/// names in `long_takes` consume a value; `-N` numbers count as options).
/// Programs that decode what they read (`base64 -d`, `xxd -r`, …), by name.
const DECODERS: &[&str] = &["base64", "base32", "xxd", "openssl", "uudecode", "basenc"];

/// Programs that run the command after them (with options of their own).
const WRAPPERS: &[&str] = &[
    "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout", "stdbuf", "ionice",
    "xargs", "setsid", "sudo", "doas",
];

/// The long options of GNU `env`, for matching abbreviations.
const ENV_LONG: &[&str] = &[
    "argv0",
    "block-signal",
    "chdir",
    "debug",
    "default-signal",
    "ignore-environment",
    "ignore-signal",
    "list-signal-handling",
    "null",
    "split-string",
    "unset",
];

/// Does long option `--name` (as written: getopt and git accept any unambiguous prefix,
/// `--kill` for `--kill-after`) take the next argument as its value?
fn long_takes_value(name: &str, long_takes: &[&str]) -> bool {
    !name.is_empty() && long_takes.iter().any(|full| full.starts_with(name))
}

fn skip_opts(args: &[&Word], takes: &str, long_takes: &[&str]) -> usize {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if args[i].dynamic || !t.starts_with('-') || t == "-" {
            return i;
        }
        if t == "--" {
            return i + 1;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            i += if !long.contains('=') && long_takes_value(name, long_takes) {
                2
            } else {
                1
            };
            continue;
        }
        let body = &t[1..];
        let mut consumed = 1;
        for (ci, c) in body.char_indices() {
            if takes.contains(c) {
                if ci + c.len_utf8() == body.len() {
                    consumed = 2;
                }
                break;
            }
        }
        i += consumed;
    }
    i.min(args.len())
}

fn command_span(c: &Command) -> Span {
    match c {
        Command::Simple(sc) => sc.span,
        Command::Compound { span, .. }
        | Command::Function { span, .. }
        | Command::Arith { span, .. } => *span,
    }
}

/// Does any command of `s` (recursively, through substitutions) run a program matching
/// `pred` or named in `names`? Looks past wrappers and sudo.
fn script_runs(s: &Script, pred: &dyn Fn(&str) -> bool, names: &[&str]) -> bool {
    shell::simple_commands(s).iter().any(|sc| {
        let prog = sc
            .words
            .iter()
            .map(|w| basename(&w.text))
            .find(|n| {
                !n.starts_with('-')
                    && !n
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b == b'.' || b == b's' || b == b'm')
                    && !matches!(
                        *n,
                        "env"
                            | "command"
                            | "builtin"
                            | "exec"
                            | "nice"
                            | "nohup"
                            | "time"
                            | "timeout"
                            | "stdbuf"
                            | "sudo"
                            | "doas"
                            | "xargs"
                    )
            })
            .unwrap_or("");
        pred(prog)
            || names.contains(&prog)
            || sc
                .words
                .iter()
                .chain(sc.redirects.iter().map(|r| &r.target))
                .any(|w| w.subs.iter().any(|sub| script_runs(sub, pred, names)))
    })
}

fn calls_itself_in_background_or_pipe(name: &str, body: &Command) -> bool {
    fn visit(name: &str, c: &Command) -> bool {
        match c {
            Command::Simple(_) => false,
            // Each stage is visited once (visiting nested stages twice, once to see
            // whether it calls and once for a fork bomb inside, was 2^depth: 33
            // nested `f() { … }` took minutes).
            Command::Compound { body, .. } => body.pipelines.iter().any(|pl| {
                let mut calls = false;
                for st in &pl.stages {
                    match st {
                        Command::Simple(sc) => {
                            calls |= sc.words.first().is_some_and(|w| w.text == name);
                        }
                        other if visit(name, other) => return true,
                        _ => {}
                    }
                }
                calls && (pl.stages.len() > 1 || pl.background)
            }),
            Command::Function { body, .. } => visit(name, body),
            Command::Arith { .. } => false,
        }
    }
    visit(name, body)
}

/// Does an interpreter invocation run code from stdin (no inline code, no script file)?
/// Does `text` expand variable `var` (`$var` not followed by a name character, or
/// `${var…}`)?
fn mentions_var(text: &str, var: &str) -> bool {
    let braced = format!("${{{var}");
    if text.match_indices(&braced).any(|(i, _)| {
        !text[i + braced.len()..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    }) {
        return true;
    }
    let plain = format!("${var}");
    text.match_indices(&plain).any(|(i, _)| {
        !text[i + plain.len()..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// Does every command of `s` print only numbers (or plain static words)?
fn prints_numbers(s: &Script) -> bool {
    // What a pipeline prints is what its last stage prints.
    s.pipelines.iter().all(|pl| {
        let Some(Command::Simple(sc)) = pl.stages.last() else {
            return false;
        };
        let Some(first) = sc.words.first() else {
            return false; // `$(<file)`: a file's text
        };
        match basename(&first.text) {
            "date" | "wc" | "nproc" | "expr" | "seq" | "stat" | "getconf" | "id" => true,
            "echo" | "printf" => sc.words[1..]
                .iter()
                .all(|w| w.value().is_some() && !w.text.contains(['[', '\\', '$', '`'])),
            _ => false,
        }
    })
}

/// The languages of secret names ([`paths::is_secret`]), one witness each: a glob
/// segment that can match some name of a language is tried as its witness. `Prefix`
/// and `Suffix` languages are closed under adding text, so any member is as secret as
/// the witness.
enum SecretName {
    Exact(&'static str),
    Prefix(&'static str),
    Suffix(&'static str),
}

const SECRET_NAMES: &[SecretName] = &[
    SecretName::Prefix(".env"),
    SecretName::Prefix("id_rsa"),
    SecretName::Prefix("id_ed25519"),
    SecretName::Prefix("id_ecdsa"),
    SecretName::Prefix("id_dsa"),
    SecretName::Suffix(".pem"),
    SecretName::Suffix(".key"),
    SecretName::Exact(".netrc"),
    SecretName::Exact("_netrc"),
    SecretName::Exact("credentials"),
    SecretName::Exact(".git-credentials"),
    SecretName::Exact(".pgpass"),
    SecretName::Exact(".npmrc"),
    SecretName::Exact(".pypirc"),
    SecretName::Exact(".ssh"),
    SecretName::Exact(".aws"),
    SecretName::Exact(".gnupg"),
];

/// A glob segment as a lower-case pattern of `*` and `?` (a bracket expression counts
/// as one `?`; just after `[` or `[!` / `[^`, a `]` is a member, not the end: bash
/// matches `.[]e]nv` against `.env`).
fn secret_pattern(seg: &str) -> String {
    let mut pattern = String::new();
    let mut in_bracket = false;
    let mut first = false;
    for c in seg.chars() {
        match c {
            '[' if !in_bracket => {
                in_bracket = true;
                first = true;
                pattern.push('?');
            }
            '!' | '^' if in_bracket && first => {}
            ']' if in_bracket && !first => in_bracket = false,
            _ if in_bracket => first = false,
            _ => pattern.extend(c.to_lowercase()),
        }
    }
    pattern
}

/// Extensions of source and text files: a glob ending in one (`*.rs`, `test_*.py`)
/// names no `id_rsa…` or `.env…` file that holds a secret, though `id_rsa.rs` starts
/// like one.
const CODE_EXTS: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "c", "h", "cc",
    "cpp", "hpp", "cs", "rb", "php", "swift", "scala", "md", "rst", "txt", "html", "css", "scss",
    "sh", "ipynb", "lock", "log", "csv",
];

/// Can `pattern` (from [`secret_pattern`]) match a name of the language `name`?
fn pattern_may_match(pattern: &str, name: &SecretName) -> bool {
    match name {
        SecretName::Exact(n) => crate::glob::match_str(pattern, n),
        SecretName::Prefix(n) => {
            let code = pattern
                .rsplit_once('.')
                .is_some_and(|(_, ext)| CODE_EXTS.contains(&ext));
            !code && crate::glob::may_start_with(pattern, n)
        }
        SecretName::Suffix(n) => crate::glob::may_end_with(pattern, n),
    }
}

/// Could some name matched by `pattern` (from [`secret_pattern`]) be secret?
fn pattern_may_be_secret_name(pattern: &str) -> bool {
    SECRET_NAMES
        .iter()
        .any(|name| pattern_may_match(pattern, name))
}

/// Could glob word `a` (`*`, `./*`, `~/.aws/cred*`, `.e?v`, `[.]env`, `~/.*/*`) name a
/// secret file? Each segment with a glob character is tried against every language of
/// [`SECRET_NAMES`] (case-insensitively, as `is_secret` compares; a bracket counts as
/// one character); where it can match one, the witness stands in that segment and the
/// path is judged. As bash matches, a segment beginning with `*` or `?` does not match
/// a name beginning with `.`.
fn glob_may_name_secret(a: &Word, w: &Walker) -> bool {
    if (w.env.facts.is_some() || w.env.needs.is_some()) && w.glob_may_reach_secret_link(a) {
        return true;
    }
    let text = a.text.as_str();
    let segs: Vec<&str> = text.split('/').collect();
    segs.iter().enumerate().any(|(i, seg)| {
        if !seg.contains(['*', '?', '[']) {
            return false;
        }
        let pattern = secret_pattern(seg);
        let hides_dots = seg.starts_with(['*', '?']);
        SECRET_NAMES.iter().any(|name| {
            let witness = match name {
                SecretName::Exact(n) | SecretName::Prefix(n) => (*n).to_string(),
                SecretName::Suffix(n) => format!("x{n}"),
            };
            let can = pattern_may_match(&pattern, name);
            if !can || (hides_dots && witness.starts_with('.')) {
                return false;
            }
            let mut parts: Vec<&str> = segs.clone();
            parts[i] = &witness;
            let candidate = parts.join("/");
            w.path_secret(&candidate, a.tilde) != Some(false)
        })
    })
}

/// `$HOME/x`, `${HOME}/x` as `~/x` (the home directory is known); `None` otherwise.
fn home_relative(w: &Word) -> Option<String> {
    ["${HOME:?}", "${HOME}", "$HOME"]
        .iter()
        .find_map(|p| w.text.strip_prefix(p))
        .filter(|rest| w.subs.is_empty() && !rest.contains(['$', '`']) && rest.starts_with('/'))
        .map(|rest| format!("~{rest}"))
}

/// A word whose value is known from the command (a substituted value), standing where
/// the reference stood: static text, a glob only where an unquoted value holds one.
fn known_word(text: &str, glob: bool, span: Span) -> Word {
    Word {
        text: text.to_string(),
        glob,
        quoted: true,
        span,
        ..Word::default()
    }
}

/// Is path text `t` absolute: from `/`, or from the home directory (`~`, `~/x`) when it
/// was written with an unquoted `~` (`tilde`)?
fn is_absolute(t: &str, tilde: bool) -> bool {
    t.starts_with('/') || (tilde && (t == "~" || t.starts_with("~/")))
}

/// Could a path under directory `d` be secret because of `d` itself? Only if it names
/// `.ssh`, `.gnupg` or `.aws` (in any case, as [`paths::is_secret`] compares).
fn may_hold_secrets(d: &str) -> bool {
    d.as_bytes().windows(4).any(|w| {
        w.eq_ignore_ascii_case(b".ssh")
            || w.eq_ignore_ascii_case(b".gnu")
            || w.eq_ignore_ascii_case(b".aws")
    })
}

/// An assignment to a variable of [`SAFE_ENV`] (or `LC_*`) whose value may name a file
/// that programs open: `TZ=~/.ssh/id_rsa` or `TZ=:/x` (the zone file), a locale with a
/// `/` (glibc loads it from that path), or any value known only at run time. `TZ=UTC`
/// and `TZ=Europe/Paris` (under the zoneinfo directory) do not.
fn names_file(a: &Word) -> bool {
    let Some((name, value)) = a.text.split_once('=') else {
        return false;
    };
    let name = name.trim_end_matches('+');
    if !(SAFE_ENV.contains(&name) || name.starts_with("LC_")) {
        return false;
    }
    let file_valued = matches!(name, "TZ" | "LANG" | "LANGUAGE") || name.starts_with("LC_");
    if !file_valued {
        return false;
    }
    let value = value.trim_start_matches(':');
    a.dynamic
        || a.glob
        || value.starts_with(['/', '~', '.'])
        || value.contains("..")
        || (name != "TZ" && value.contains('/'))
}

/// Environment variables that change what programs run or read (a loop variable of
/// that name is exported and reaches them): `PATH`, `LD_*`, `GIT_*`, `BASH_ENV`, …
fn sensitive_env(name: &str) -> bool {
    matches!(
        name,
        "PATH"
            | "HOME"
            | "IFS"
            | "ENV"
            | "BASH_ENV"
            | "CDPATH"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PS4"
            | "PROMPT_COMMAND"
            | "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "GIT_PAGER"
            | "TMPDIR"
            | "XDG_CONFIG_HOME"
    ) || [
        "LD_",
        "DYLD_",
        "GIT_",
        "PYTHON",
        "NODE_",
        "PERL",
        "RUBY",
        "JAVA_",
        "npm_config_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// Does an unquoted here-document body expand anything (`$x`, `${…}`, `$(…)`,
/// `$((…))`, a backtick) that bash substitutes before a shell reads the body?
fn expands(body: &str) -> bool {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => return true,
            b'$' if b
                .get(i + 1)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || b"_{([@*#?$!-".contains(&c)) =>
            {
                return true
            }
            _ => i += 1,
        }
    }
    false
}

/// The body with every expansion replaced by a newline: the reading of an expanded
/// here-document in which each value ends a command (`ls ${x:-;} rm -rf /` runs `rm`).
fn expansions_as_separators(body: &str) -> String {
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        let end = match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'`' => b[i + 1..]
                .iter()
                .position(|&c| c == b'`')
                .map_or(b.len(), |k| i + 2 + k),
            b'$' => match b.get(i + 1) {
                Some(&open @ (b'{' | b'(' | b'[')) => {
                    let close = match open {
                        b'{' => b'}',
                        b'(' => b')',
                        _ => b']',
                    };
                    let mut depth = 0usize;
                    let mut j = i + 1;
                    while j < b.len() {
                        if b[j] == open {
                            depth += 1;
                        } else if b[j] == close {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        j += 1;
                    }
                    (j + 1).min(b.len())
                }
                Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                    let n = b[i + 1..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                        .count();
                    i + 1 + n
                }
                Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(c) => i + 2,
                _ => {
                    i += 1;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(body.get(last..i).unwrap_or(""));
        out.push('\n');
        i = end.max(i + 1);
        last = i;
    }
    out.push_str(body.get(last..).unwrap_or(""));
    out
}

/// The variable names read inside the `$((…))` and `$[…]` of a word: bare names and
/// `$name` / `${name…}` (a letter after a digit or `#` is part of a number, `0xff`,
/// `16#ff`).
fn arith_names(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (open_len, close) = if b[i..].starts_with(b"$((") {
            (3, b')')
        } else if b[i..].starts_with(b"$[") {
            (2, b']')
        } else {
            i += 1;
            continue;
        };
        let open = if close == b')' { b'(' } else { b'[' };
        let mut depth = 1usize;
        let mut j = i + open_len;
        while j < b.len() && depth > 0 {
            let c = b[j];
            if (c == b'$' && b.get(j + 1) == Some(&b'(') && b.get(j + 2) != Some(&b'('))
                || c == b'`'
            {
                // A command substitution: its output is judged by `arith_output`.
                let (o, cl) = if c == b'`' { (0u8, b'`') } else { (b'(', b')') };
                let mut d = 0usize;
                let mut k = j + 1;
                while k < b.len() {
                    if o != 0 && b[k] == o {
                        d += 1;
                    } else if b[k] == cl {
                        if d <= 1 {
                            break;
                        }
                        d -= 1;
                    }
                    k += 1;
                }
                j = k + 1;
                continue;
            }
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
            } else if (c.is_ascii_alphabetic() || c == b'_')
                && !(j > 0
                    && (b[j - 1].is_ascii_alphanumeric() || b[j - 1] == b'#' || b[j - 1] == b'_'))
            {
                let n = b[j..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                names.push(&text[j..j + n]);
                j += n;
                continue;
            } else if c == b'$'
                && b.get(j + 1)
                    .is_some_and(|d| d.is_ascii_digit() || b"@*#?$!-".contains(d))
            {
                names.push(&text[j..j + 2]);
            }
            j += 1;
        }
        i = j.max(i + 1);
    }
    names
}

/// A word whose value is known only at run time and could begin with `-`: a variable,
/// a substitution or a default (`$x`, `"$(cmd)"`, `${x:--o}`) at its start. A literal
/// first character (`./$f`, `src/$f`, `x$y`) cannot be a `-` from the value.
fn may_be_option(w: &Word) -> bool {
    if !w.dynamic || w.assign {
        return false;
    }
    let t = w.text.trim_start_matches(['"', '\'']);
    if !(t.starts_with('$') || t.starts_with('`')) {
        return false;
    }
    // `$(pwd)`, `$(find src …)`: output that cannot begin with `-`.
    let whole_sub = w.subs.len() == 1 && (t.starts_with("$(") || t.starts_with('`'));
    !(whole_sub && prints_paths_only(&w.subs[0]))
}

/// A glob that can expand to a name beginning with `-` (`*`, `?*`, `[-a]*`): a
/// repository can hold a file named `--output=x` or `-o`.
fn glob_may_be_option(w: &Word) -> bool {
    w.glob && !w.assign && w.text.starts_with(['*', '?', '['])
}

/// Does this pipeline stage print only paths that cannot begin with `-`? `find DIR …`,
/// `pwd`, and `xargs grep -l …` fed such paths (it prints the names it was given).
fn stage_prints_paths(sc: &SimpleCommand, stdin_paths: bool) -> bool {
    // Most stages are neither: decided before collecting anything.
    match sc.words.first().map(|w| basename(&w.text)) {
        Some("xargs" | "find" | "pwd") => {}
        _ => return false,
    }
    let words: Vec<&str> = sc.words.iter().map(|w| w.text.as_str()).collect();
    match words.as_slice() {
        ["xargs", rest @ ..] if stdin_paths => {
            let prog = rest
                .iter()
                .find(|w| !w.starts_with('-'))
                .copied()
                .unwrap_or("");
            matches!(basename(prog), "grep" | "egrep" | "fgrep" | "rg")
                && rest.iter().any(|w| {
                    matches!(
                        *w,
                        "-l" | "-L" | "--files-with-matches" | "--files-without-match"
                    ) || (w.starts_with('-')
                        && !w.starts_with("--")
                        && (w.contains('l') || w.contains('L')))
                })
        }
        _ => simple_prints_paths(sc),
    }
}

/// Does `s` print only paths that cannot begin with `-`? `pwd` (absolute) and `find`
/// from literal start points that do not begin with `-`, printing names (no
/// `-printf`, `-fprintf`, `-exec`, `-ls`).
fn prints_paths_only(s: &Script) -> bool {
    let [pl] = s.pipelines.as_slice() else {
        return false;
    };
    let Some(Command::Simple(sc)) = pl.stages.last() else {
        return false;
    };
    simple_prints_paths(sc)
}

/// [`prints_paths_only`] for one simple command.
fn simple_prints_paths(sc: &SimpleCommand) -> bool {
    let Some(first) = sc.words.first() else {
        return false;
    };
    match basename(&first.text) {
        "pwd" => sc.words.len() == 1,
        "find" => {
            let starts: Vec<&Word> = sc.words[1..]
                .iter()
                .take_while(|w| {
                    !w.text.starts_with('-') && !w.text.starts_with('(') && w.text != "!"
                })
                .collect();
            !starts.is_empty()
                && starts.iter().all(|w| w.value().is_some())
                && !sc.words.iter().any(|w| {
                    matches!(
                        w.text.as_str(),
                        "-printf"
                            | "-fprintf"
                            | "-exec"
                            | "-execdir"
                            | "-ok"
                            | "-okdir"
                            | "-ls"
                            | "-fls"
                            | "-print0"
                    )
                })
        }
        _ => false,
    }
}

/// Does a word expand a variable's value as code? `${x@P}` (prompt expansion runs the
/// command substitutions in the value) and `${!x}` (indirection evaluates a subscript
/// in the value, `a[$(cmd)]`) do; `${!x*}`, `${!x@}` and `${!a[@]}` only list names or
/// keys. The reason, when it does.
fn evaluates_value_as_code(text: &str) -> Option<&'static str> {
    if text.contains("@P}") {
        return Some("prompt expansion (${x@P}) runs the command substitutions in a value known only at run time");
    }
    let mut rest = text;
    while let Some(i) = rest.find("${!") {
        let after = &rest[i + 3..];
        let name_len = after
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let tail = &after[name_len..];
        let lists = tail.starts_with("*}")
            || tail.starts_with("@}")
            || tail.starts_with("[@]}")
            || tail.starts_with("[*]}");
        if name_len > 0 && !lists {
            return Some("indirect expansion (${!x}) evaluates a subscript in a value known only at run time");
        }
        rest = after;
    }
    None
}

/// Literal text holding an array subscript with code in it (`a[$(cmd)]`, ``a[`cmd`]``):
/// bash runs that code when the text is used as a variable name or in arithmetic.
fn subscript_code(text: &str) -> bool {
    text.find('[').is_some_and(|i| {
        let rest = &text[i..];
        rest.contains("$(") || rest.contains('`')
    })
}

/// Inline interpreter code that reads its standard input and executes what it read.
fn inline_code_execs_stdin(code: &str) -> bool {
    let reads = [
        "stdin",
        "STDIN",
        "<>",
        "gets",
        "readFileSync(0",
        "/dev/stdin",
    ]
    .iter()
    .any(|m| code.contains(m));
    // A call, not a substring: `exec(`, `eval `, not `execution_time` or `retrieval`.
    let execs = ["exec", "eval", "compile", "system", "popen", "spawn"]
        .iter()
        .any(|m| calls(code, m))
        || code.contains('`');
    reads && execs
}

/// Does `code` contain `name` as a whole identifier followed by `(`, a space or `{`?
fn calls(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && matches!(after, Some('(' | ' ' | '{'))
    })
}

fn interpreter_reads_stdin(name: &str, args: &[&Word]) -> bool {
    let inline: &[&str] = if name.starts_with("python") || name.starts_with("pypy") {
        &["-c", "-m"]
    } else if name.starts_with("perl") || name.starts_with("ruby") {
        &["-e", "-E"]
    } else if name.starts_with("node") || name == "deno" || name == "bun" {
        &["-e", "--eval", "-p", "--print", "run", "eval"]
    } else if name.starts_with("php") {
        &["-r", "-f"]
    } else {
        &["-e", "-c"]
    };
    let takes_value: &[&str] = &["-W", "-X", "-I", "-r", "--require", "-M"];
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if let Some(f) = inline
            .iter()
            .find(|f| t == **f || (f.len() == 2 && t.starts_with(**f) && !t.starts_with("--")))
        {
            // Inline code runs instead of stdin, unless that code reads its input and
            // executes it: `python3 -c 'exec(sys.stdin.read())'`, `perl -e 'eval <STDIN>'`.
            let code = if t.len() > f.len() && f.len() == 2 {
                &t[2..]
            } else {
                args.get(i + 1).map_or("", |w| w.text.as_str())
            };
            return inline_code_execs_stdin(code);
        }
        if t == "-" || t == "/dev/stdin" {
            return true;
        }
        if takes_value.contains(&t) {
            i += 2;
            continue;
        }
        if !t.starts_with('-') {
            // A script file.
            return false;
        }
        i += 1;
    }
    true
}

/// Expands brace alternatives into separate words, as the shell does.
fn expand_words(words: &[Word]) -> Vec<Word> {
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        match &w.braces {
            Some(alts) => {
                for a in alts {
                    out.push(Word {
                        text: a.clone(),
                        param: None,
                        braces: None,
                        glob: w.glob || a.contains(['*', '?']),
                        ..w.clone()
                    });
                }
            }
            None => out.push(w.clone()),
        }
    }
    out
}

/// `printf`/`echo -e` escapes: `\n`, `\t`, `\\`, `\NNN` octal, `\xHH`.
fn decode_escapes(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'\\' => out.push(b'\\'),
            b'x' => {
                let mut v = 0u8;
                let mut n = 0;
                while n < 2 && i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v
                        .wrapping_mul(16)
                        .wrapping_add(char::from(b[i]).to_digit(16).map_or(0, |d| d as u8));
                    i += 1;
                    n += 1;
                }
                out.push(v);
            }
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                let mut n = 0;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push((v & 0xff) as u8);
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

enum ReadOnly<'w> {
    Yes,
    /// A program that writes files (`touch`, `mkdir`, `tee`): the edit verdict of the
    /// strictest of them (tier, rule, reason, span).
    Edit(Tier, &'static str, String, Span),
    /// On the list, but with an option that writes, runs programs or never ends.
    Flag(&'static str, String, Span),
    /// On the list, but reading a secret file.
    Secret(&'w Word),
    No,
}

fn readonly<'w>(name: &str, args: &[&'w Word], w: &Walker, prog: Span) -> ReadOnly<'w> {
    let flag =
        |rule: &'static str, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let result = match name {
        "printf" if args.first().is_some_and(|a| a.text.starts_with("-v")) => flag(
            "builtin.shell.printf-v",
            "printf -v assigns a shell variable, which can change what later commands run",
            args[0].span,
        ),
        "tail" => {
            let o = Opts::parse(
                args,
                "ncs",
                &[
                    "lines",
                    "bytes",
                    "sleep-interval",
                    "pid",
                    "max-unchanged-stats",
                ],
            );
            match o
                .has_short('f')
                .or_else(|| o.has_short('F'))
                .or_else(|| o.has_long("follow"))
                .or_else(|| o.has_long("retry"))
                .or_else(|| {
                    // The obsolete `tail +1f FILE` / `tail +10lf`: follow as well.
                    args.first().copied().filter(|a| {
                        a.text.strip_prefix('+').is_some_and(|n| {
                            let n = n.trim_end_matches('f');
                            n.len() < a.text.len() - 1
                                && n.trim_end_matches(['b', 'c', 'l'])
                                    .chars()
                                    .all(|c| c.is_ascii_digit())
                        })
                    })
                }) {
                Some(x) => flag(
                    "builtin.shell.tail-follow",
                    "tail -f follows the file forever",
                    x.span,
                ),
                None => ReadOnly::Yes,
            }
        }
        "rg" => {
            let o = Opts::parse(args, "ABCEefgjMmrTtd", RG_LONG_TAKES);
            match o
                .has_long("pre")
                .or_else(|| o.has_long("hostname-bin"))
                .or_else(|| o.has_long("search-zip"))
                .or_else(|| o.has_short('z'))
            {
                Some(x) => flag(
                    "builtin.shell.rg-pre",
                    "rg --pre / --hostname-bin / -z run other programs",
                    x.span,
                ),
                None => ReadOnly::Yes,
            }
        }
        "date" => {
            let o = Opts::parse(args, "dfrsI", &["date", "file", "reference"]);
            // `date MMDDhhmm[[CC]YY][.ss]` (an operand not starting with `+`) sets it too.
            let set_operand = o
                .operands
                .iter()
                .copied()
                .find(|a| !a.text.starts_with('+'));
            match o
                .has_short('s')
                .or_else(|| o.has_long("set"))
                .or(set_operand)
            {
                Some(x) => flag(
                    "builtin.shell.date-set",
                    "date -s sets the system clock",
                    x.span,
                ),
                // `date -f FILE` parses each line of FILE and prints the ones it cannot
                // read in its errors: any file, a secret included.
                None => match o.has_short('f').or_else(|| o.has_long("file")) {
                    Some(x) => flag(
                        "builtin.shell.date-file",
                        "date -f prints the lines of the file it reads",
                        x.span,
                    ),
                    None => ReadOnly::Yes,
                },
            }
        }
        "hostname" => match args.first() {
            Some(a) => flag(
                "builtin.shell.hostname-args",
                "hostname with arguments can rename the host",
                a.span,
            ),
            None => ReadOnly::Yes,
        },
        "tree" => {
            let o = Opts::parse(args, "LPIoHT", &["filelimit", "timefmt", "charset", "sort"]);
            // `-R` (with `-H`) writes a 00Tree.html into every directory it lists.
            match o.has_short('o').or_else(|| o.has_short('R')) {
                Some(x) => flag("builtin.shell.tree-o", "tree -o / -R writes files", x.span),
                None => ReadOnly::Yes,
            }
        }
        "sort" => {
            let o = Opts::parse(
                args,
                "ktSTo",
                &[
                    "key",
                    "field-separator",
                    "buffer-size",
                    "temporary-directory",
                    "output",
                    "compress-program",
                    "files0-from",
                    "parallel",
                    "batch-size",
                ],
            );
            match o
                .has_short('o')
                .or_else(|| o.has_long("output"))
                .or_else(|| o.has_long("compress-program"))
            {
                Some(x) => flag(
                    "builtin.shell.sort-o",
                    "sort -o / --compress-program write files or run programs",
                    x.span,
                ),
                None => ReadOnly::Yes,
            }
        }
        "uniq" => {
            let o = Opts::parse(args, "fsw", &["skip-fields", "skip-chars", "check-chars"]);
            if o.operands.len() > 1 {
                flag(
                    "builtin.shell.uniq-2",
                    "uniq with two file arguments writes the second",
                    o.operands[1].span,
                )
            } else {
                ReadOnly::Yes
            }
        }
        "git" => git_readonly(args, w),
        "sed" => sed_readonly(args, w),
        // GNU binutils read more arguments from the file an `@FILE` operand names.
        "strings" => match args.iter().find(|a| a.text.starts_with('@') || a.dynamic) {
            Some(a) => flag(
                "builtin.shell.option-effect",
                "strings reads more arguments from the file an @FILE operand names",
                a.span,
            ),
            None => ReadOnly::Yes,
        },
        // The rest of the list: a table entry each, read below.
        _ if programs::lookup(name).is_some() => ReadOnly::Yes,
        _ => ReadOnly::No,
    };
    if let ReadOnly::Yes = result {
        if let Some(span) = recursive_read(name, args, w, prog) {
            return ReadOnly::Flag(
                "builtin.shell.recursive-read",
                format!("{name} reads every file under a directory, a secret file among them; only a host with a file system can check what it reaches"),
                span,
            );
        }
    }
    if let ReadOnly::Yes = result {
        if let Some(p) = programs::lookup(name) {
            return table_readonly(p, args, w);
        }
    }
    result
}

/// `sed`'s scripts ([`crate::sed`]): each `-e`/`--expression` value, else the first
/// operand, must only read and print; a script from a file (`-f`) or known only at run
/// time asks. Without `-i` its options and files are then read with its table entry.
/// With `-i` (`--in-place`) a script may also add text (`a`, `i`, `c`), and each file,
/// and its backup with a suffix (`-i.bak`), gets the verdict an edit tool gets for it.
fn sed_readonly<'w>(args: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let Some(p) = programs::lookup("sed") else {
        return ReadOnly::No;
    };
    let scan = p.scan(args);
    if let Some((word, why)) = scan.unknown {
        return unknown_option(word, &why);
    }
    let mut scripts: Vec<(&str, &Word)> = Vec::new();
    let mut in_place: Option<&programs::Found> = None;
    for f in &scan.options {
        match p.effect(f) {
            Some(Effect::PatternFile) => {
                return ReadOnly::Flag(
                    "builtin.shell.sed-script",
                    format!(
                        "sed {} runs a script from a file, which is not read here",
                        f.option
                    ),
                    f.word.span,
                )
            }
            Some(Effect::Pattern) => scripts.extend(f.value),
            Some(Effect::Writes) => in_place = in_place.or(Some(f)),
            _ => {}
        }
    }
    let pattern_given = !scripts.is_empty();
    if !pattern_given {
        scripts.extend(scan.operands.first().map(|w| (w.text.as_str(), *w)));
    }
    for (text, word) in scripts {
        if word.dynamic {
            return ReadOnly::Flag(
                "builtin.shell.dynamic",
                "a sed script known only at run time".to_string(),
                word.span,
            );
        }
        let checked = if in_place.is_some() {
            crate::sed::edits_only(text)
        } else {
            crate::sed::reads_only(text)
        };
        match checked {
            Ok(()) => {}
            Err(crate::sed::NotReadOnly::Effect(why)) => {
                return ReadOnly::Flag("builtin.shell.sed-script", format!("sed: {why}"), word.span)
            }
            Err(crate::sed::NotReadOnly::Unknown(why)) => {
                return ReadOnly::Flag(
                    "builtin.shell.sed-script",
                    format!("a sed script that is not read-only, or not understood: {why}"),
                    word.span,
                )
            }
        }
    }
    let Some(inp) = in_place else {
        return ReadOnly::Yes;
    };
    let files: &[&Word] = if pattern_given {
        &scan.operands
    } else {
        scan.operands.get(1..).unwrap_or(&[])
    };
    // `-i.bak` / `--in-place=.bak` also writes FILE.bak; a suffix with `*` or `/`
    // names another place.
    let suffix = inp.value.map(|(v, _)| v).unwrap_or("");
    if suffix.contains(['*', '/']) || inp.value.is_some_and(|(_, vw)| vw.dynamic) {
        return ReadOnly::Flag(
            "builtin.shell.dynamic",
            format!(
                "sed {} writes backups to a place its suffix names: {suffix}",
                inp.option
            ),
            inp.word.span,
        );
    }
    // What it reads is judged like `cat`'s operands first (a secret asks).
    match files_reach(files.iter().copied(), w) {
        ReadOnly::Yes | ReadOnly::No => {}
        other => return other,
    }
    let backups: Vec<Word> = if suffix.is_empty() {
        Vec::new()
    } else {
        files
            .iter()
            .map(|f| {
                let mut b = (*f).clone();
                b.text.push_str(suffix);
                b
            })
            .collect()
    };
    match w.edits_of(files.iter().copied().chain(backups.iter())) {
        Some((tier, rule, why, span)) => ReadOnly::Edit(tier, rule, why, span),
        None => ReadOnly::Yes,
    }
}

/// An option a table entry does not list (`builtin.shell.unknown-option`).
fn unknown_option<'w>(word: &Word, why: &str) -> ReadOnly<'w> {
    ReadOnly::Flag(
        "builtin.shell.unknown-option",
        format!("{why}: an option not in the table may write, run or open a file"),
        word.span,
    )
}

/// A read-only program read with its table entry ([`programs`]): an option the entry
/// does not know asks; an option value that names a file, and every operand the program
/// opens, are judged like `cat`'s operands; a recursive option asks.
fn table_readonly<'w>(p: &programs::Program, args: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let scan = p.scan(args);
    if let Some((word, why)) = scan.unknown {
        return unknown_option(word, &why);
    }
    let mut pattern_given = false;
    let mut opens_operands = false;
    // What a recursive option walks: the file operands (none: the working directory).
    let roots: &[&Word] = match p.operands {
        programs::Operands::PatternThenFiles
            if !scan
                .options
                .iter()
                .any(|f| matches!(p.effect(f), Some(Effect::Pattern | Effect::PatternFile))) =>
        {
            scan.operands.get(1..).unwrap_or(&[])
        }
        _ => &scan.operands,
    };
    // `-R` follows every link below its roots: no walk can vouch for that.
    let walked = |f: &programs::Found| {
        let follows = f.option.is("-R") || f.option.is("--dereference-recursive");
        !follows && !w.tree_may_hold_secret(roots, true, false)
    };
    for f in &scan.options {
        let effect = p.effect(f);
        pattern_given |= matches!(effect, Some(Effect::Pattern | Effect::PatternFile));
        opens_operands |= effect == Some(Effect::OpensOperands);
        let list_secret = effect == Some(Effect::ReadsFileList)
            && f.value.as_ref().is_some_and(|(v, vw)| {
                !vw.dynamic && w.path_secret(v, v.starts_with('~')) == Some(true)
            });
        if list_secret {
            return ReadOnly::Secret(f.word);
        }
        if effect == Some(Effect::ReadsFileList) && p.operands == programs::Operands::Files {
            return ReadOnly::Flag(
                "builtin.shell.dynamic",
                format!(
                    "{} {} opens the files its value lists, named only at run time",
                    p.name, f.option
                ),
                f.word.span,
            );
        }
        match effect {
            Some(Effect::ReadsFile | Effect::ReadsFileList | Effect::PatternFile) => {
                let Some((value, vw)) = &f.value else {
                    continue;
                };
                if vw.dynamic {
                    return ReadOnly::Flag(
                        "builtin.shell.dynamic",
                        format!("{} opens a file named only at run time", f.option),
                        vw.span,
                    );
                }
                match w.path_secret(value, value.starts_with('~')) {
                    Some(false) => {}
                    Some(true) => return ReadOnly::Secret(f.word),
                    None => {
                        return ReadOnly::Flag(
                            "builtin.shell.dynamic",
                            format!("{} opens {value} relative to a working directory known only at run time", f.option),
                            vw.span,
                        )
                    }
                }
            }
            Some(Effect::Recursive) if walked(f) => {}
            Some(Effect::Recursive) => {
                return ReadOnly::Flag(
                    "builtin.shell.recursive-read",
                    format!("{} {} reads every file under a directory, a secret file among them; only a host with a file system can check what it reaches", p.name, f.option),
                    f.word.span,
                )
            }
            Some(Effect::Writes | Effect::Runs | Effect::Follows) => {
                let what = match effect {
                    Some(Effect::Writes) => "writes a file",
                    Some(Effect::Runs) => "runs another program",
                    _ => "never ends by itself",
                };
                return ReadOnly::Flag(
                    "builtin.shell.option-effect",
                    format!("{} {} {what}", p.name, f.option),
                    f.word.span,
                );
            }
            // `-d recurse` (any abbreviation `grep` accepts: `rec`, `recu`, …).
            Some(Effect::RecurseValue)
                if f
                    .value
                    .as_ref()
                    .is_some_and(|(v, _)| v.len() >= 3 && "recurse".starts_with(*v))
                    && !walked(f) =>
            {
                return ReadOnly::Flag(
                    "builtin.shell.recursive-read",
                    format!("{} {} recurse reads every file under a directory, a secret file among them; only a host with a file system can check what it reaches", p.name, f.option),
                    f.word.span,
                );
            }
            Some(Effect::RecurseValue | Effect::Pattern | Effect::OpensOperands) | None => {}
        }
    }
    use programs::Operands;
    if p.operands == Operands::SourcesThenDestination {
        return copy_move(p, &scan, w);
    }
    if p.operands == Operands::Written {
        return match w.edits_of(scan.operands.iter().copied()) {
            Some((tier, rule, why, span)) => ReadOnly::Edit(tier, rule, why, span),
            None => ReadOnly::Yes,
        };
    }
    if p.operands == Operands::InputThenOutput {
        // `uniq IN OUT` writes OUT; `uniq *.txt` or `uniq $f` may be two files.
        let second = scan.operands.get(1).copied().or_else(|| {
            scan.operands
                .iter()
                .copied()
                .find(|a| a.glob || a.dynamic || a.braces.is_some())
        });
        if let Some(out) = second {
            return ReadOnly::Flag(
                "builtin.shell.option-effect",
                format!(
                    "{} writes its second operand, and {} is or may be one",
                    p.name, out.text
                ),
                out.span,
            );
        }
    }
    let files: &[&Word] = match p.operands {
        _ if opens_operands => &scan.operands,
        Operands::Files | Operands::InputThenOutput => &scan.operands,
        Operands::PatternThenFiles if pattern_given => &scan.operands,
        Operands::PatternThenFiles => scan.operands.get(1..).unwrap_or(&[]),
        Operands::Names
        | Operands::Data
        | Operands::Printed
        | Operands::Dir
        | Operands::Written
        | Operands::SourcesThenDestination => &[],
    };
    files_reach(files.iter().copied(), w)
}

/// `cp` and `mv` (without the options that copy trees, link or back up, which the
/// table asks on): every source must be a workspace file an edit may touch — read, and
/// for `mv` removed — and not a secret; the destination, and the destination joined
/// with each source's name (it may be a directory), get the edit verdict. A source of
/// `mv` without an extension may be a directory carrying protected files into place
/// (`mv staged/.github .`): it asks, as a run-time name or a glob does.
fn copy_move<'w>(p: &programs::Program, scan: &programs::Scan<'w>, w: &Walker) -> ReadOnly<'w> {
    let ops = &scan.operands;
    let Some((dest, sources)) = ops.split_last() else {
        return ReadOnly::Yes; // `cp` alone: an error, nothing copied
    };
    if sources.is_empty() {
        return ReadOnly::Yes; // `cp a`: a missing destination, an error
    }
    let is_mv = p.name == "mv";
    let mut targets: Vec<Word> = vec![(*dest).clone()];
    for s in sources {
        if s.dynamic || s.glob || s.braces.is_some() {
            return ReadOnly::Flag(
                "builtin.shell.dynamic",
                format!("{} of files named only at run time: {}", p.name, s.text),
                s.span,
            );
        }
        // Read like `cat`'s operands: a secret asks.
        match operand_reach(s, w) {
            ReadOnly::Yes | ReadOnly::No => {}
            other => return other,
        }
        let name = s.text.trim_end_matches('/');
        let last = name.rsplit('/').next().unwrap_or(name);
        if is_mv && last.find('.').is_none_or(|i| i == 0) {
            return ReadOnly::Flag(
                "builtin.shell.dynamic",
                format!("mv {}: a name without an extension may be a directory, which may carry protected or secret files into place", s.text),
                s.span,
            );
        }
        let mut joined = (*dest).clone();
        joined.text = format!("{}/{last}", dest.text.trim_end_matches('/'));
        targets.push(joined);
    }
    // Every source stays inside the workspace (`mv` removes it: an edit too).
    let sources_edit = w.edits_of(sources.iter().copied());
    // (`cp` only reads them: a system file is not denied, it asks as outside.)
    if let Some((tier, rule, why, span)) = sources_edit {
        if tier != Tier::Auto {
            if is_mv {
                return ReadOnly::Edit(tier, rule, why, span);
            }
            return ReadOnly::Edit(
                Tier::Ask,
                rule,
                format!("cp copies from a file an edit may not touch ({why})"),
                span,
            );
        }
    }
    match w.edits_of(targets.iter()) {
        Some((tier, rule, why, _)) => ReadOnly::Edit(tier, rule, why, dest.span),
        None => ReadOnly::Yes,
    }
}

/// The first of `files` (operands a program opens) that reaches a secret or a file
/// named only at run time ([`operand_reach`]); a `for` variable is each of its values
/// (`for f in *; do cat "$f"; done`).
fn files_reach<'w>(files: impl Iterator<Item = &'w Word>, w: &Walker) -> ReadOnly<'w> {
    for a in files {
        if let Some(values) = w.loop_values(a) {
            for v in values {
                match operand_reach(v, w) {
                    ReadOnly::Yes | ReadOnly::No => {}
                    ReadOnly::Secret(_) => return ReadOnly::Secret(a),
                    ReadOnly::Flag(rule, why, _) => return ReadOnly::Flag(rule, why, a.span),
                    ReadOnly::Edit(t, rule, why, _) => return ReadOnly::Edit(t, rule, why, a.span),
                }
            }
            continue;
        }
        match operand_reach(a, w) {
            ReadOnly::Yes => {}
            other => return other,
        }
    }
    ReadOnly::Yes
}

/// What reading operand `a` of a program that opens its operands can reach: a secret
/// file (a name, `~/…`, `$HOME/…`, a glob as bash matches it, a name relative to any
/// directory bash may be in, an option's value), every file `$(find …)` lists, or a
/// file named only at run time.
fn operand_reach<'w>(a: &'w Word, w: &Walker) -> ReadOnly<'w> {
    if !a.dynamic && !a.text.starts_with('-') && paths::is_secret(&a.text) {
        return ReadOnly::Secret(a);
    }
    if let Some(p) = home_relative(a) {
        return if paths::is_secret(&p) {
            ReadOnly::Secret(a)
        } else {
            ReadOnly::Yes
        };
    }
    if a.glob && !a.dynamic {
        return if glob_may_name_secret(a, w) {
            ReadOnly::Secret(a)
        } else {
            ReadOnly::Yes
        };
    }
    if a.dynamic {
        let t = a.text.trim_matches('"');
        // `<(ls)`: a pipe carrying the output of a command classified on its own.
        if (t.starts_with("<(") || t.starts_with(">(")) && t.ends_with(')') && a.subs.len() == 1 {
            return ReadOnly::Yes;
        }
        // `$(find src -name '*.py')` prints paths: judged like `find … | xargs cat`.
        // `"$(pwd)/name"`: `name` in the working directory.
        if let Some(rest) = t.strip_prefix("$(pwd)") {
            if a.subs.len() == 1 && !rest.contains(['$', '`']) {
                let rest = rest.trim_start_matches('/');
                return match w.path_secret(if rest.is_empty() { "." } else { rest }, false) {
                    Some(false) => ReadOnly::Yes,
                    _ => ReadOnly::Secret(a),
                };
            }
        }
        if a.subs.len() == 1 && (t.starts_with("$(") || t.starts_with('`')) {
            if let Some(sc) = last_simple(&a.subs[0]).filter(|sc| simple_prints_paths(sc)) {
                return if find_may_list_secret(sc, w) {
                    ReadOnly::Flag(
                        "builtin.shell.recursive-read",
                        "it opens every file find lists, a secret file among them; only a host with a file system can check what it reaches".to_string(),
                        a.span,
                    )
                } else {
                    ReadOnly::Yes
                };
            }
        }
        return ReadOnly::Flag(
            "builtin.shell.dynamic",
            format!("reads a file named only at run time: {}", a.text),
            a.span,
        );
    }
    if !a.text.starts_with('-') && a.text != "-" {
        // Relative names count from every directory bash may be in:
        // `cd ~/.aws && cat credentials`, `cd ~/.ssh; cd /nope; cat config`.
        return match w.path_secret(&a.text, a.tilde) {
            Some(true) => ReadOnly::Secret(a),
            Some(false) => ReadOnly::Yes,
            None => ReadOnly::Flag(
                "builtin.shell.dynamic",
                format!(
                    "reads {} relative to a working directory known only at run time",
                    a.text
                ),
                a.span,
            ),
        };
    }
    // An option's value: `grep --file=~/.netrc x`, `grep -f/home/u/.netrc x`.
    if a.text.starts_with('-') {
        let value = match a.text.split_once('=') {
            Some((_, v)) => Some(v),
            None if !a.text.starts_with("--") && a.text.len() > 2 => a.text.get(2..),
            None => None,
        };
        if let Some(v) = value.filter(|v| v.contains('/') || v.starts_with('.')) {
            if w.path_secret(v, v.starts_with('~')) != Some(false) {
                return ReadOnly::Secret(a);
            }
        }
    }
    ReadOnly::Yes
}

/// The last simple command of a one-pipeline script (`$(find … | sort)` → `sort`,
/// `$(find …)` → `find`).
fn last_simple(s: &Script) -> Option<&SimpleCommand> {
    let [pl] = s.pipelines.as_slice() else {
        return None;
    };
    match pl.stages.last() {
        Some(Command::Simple(sc)) => Some(sc),
        _ => None,
    }
}

const RG_LONG_TAKES: &[&str] = &[
    "regexp",
    "file",
    "glob",
    "iglob",
    "type",
    "type-not",
    "max-count",
    "context",
    "before-context",
    "after-context",
    "replace",
    "max-depth",
    "encoding",
    "pre-glob",
    "threads",
    "sort",
    "sortr",
];

/// Does `rg` open every file under a directory? It does on anything but a pipe or
/// `--files`. (`grep -r`, `diff -r` are effects in their table entries.) The span of
/// what makes it recursive.
fn recursive_read(name: &str, args: &[&Word], w: &Walker, prog: Span) -> Option<Span> {
    match name {
        "rg" => {
            let o = Opts::parse(args, "ABCEefgjMmrTtd", RG_LONG_TAKES);
            // `--files` and `--type-list` print names only.
            if o.has_long("files").is_some() || o.has_long("type-list").is_some() {
                return None;
            }
            let pattern_given = o.has_short('e').is_some()
                || o.has_short('f').is_some()
                || o.has_long("regexp").is_some()
                || o.has_long("file").is_some();
            let paths = o.operands.len().saturating_sub(usize::from(!pattern_given));
            if paths == 0 && w.piped_in {
                return None;
            }
            // A named path may be a directory: rg searches everything under it.
            let roots = &o.operands[usize::from(!pattern_given).min(o.operands.len())..];
            let span = roots.first().map_or(prog, |a| a.span);
            // `-L` follows links anywhere: no walk can vouch for that.
            if o.has_short('L').is_some() || o.has_long("follow").is_some() {
                return Some(span);
            }
            // What rg skips by default: hidden files, and what ignore files exclude. A
            // glob or a type may bring back what is ignored; `-u` lifts the rules.
            let given = |names: &[&str]| {
                o.longs.iter().any(|(n, _)| {
                    !n.is_empty() && names.iter().any(|f| f.starts_with(n) || n.starts_with(f))
                })
            };
            let widened = o.has_short('u').is_some()
                || o.has_short('g').is_some()
                || o.has_short('t').is_some()
                || given(&["unrestricted", "glob", "iglob", "type", "no-ignore"]);
            let hidden = widened || o.has_short('.').is_some() || given(&["hidden"]);
            if w.tree_may_hold_secret(roots, hidden, !widened) {
                return Some(span);
            }
            None
        }
        _ => None,
    }
}

/// May `find …` (a stage printing paths) list a secret file? Yes unless it stays at
/// depth 1 (`-maxdepth 0|1`), starts at directories that are not secret, and a
/// top-level `-name`/`-iname` test has a pattern no secret name matches (find's
/// `-name` matches a leading `.` with `*`, unlike bash).
fn find_may_list_secret(sc: &SimpleCommand, w: &Walker) -> bool {
    let words: Vec<&str> = sc.words.iter().map(|x| x.text.as_str()).collect();
    match basename(words.first().copied().unwrap_or("")) {
        "find" => {}
        // `pwd` prints a directory; `xargs grep -l` the names it was given (the caller
        // adds what its input may name).
        "pwd" | "xargs" => return false,
        _ => return true,
    }
    let shallow = words
        .windows(2)
        .any(|p| p[0] == "-maxdepth" && matches!(p[1], "0" | "1"));
    if !shallow
        || words
            .iter()
            .any(|t| matches!(*t, "-o" | "-or" | "!" | "-not" | "(" | ","))
    {
        return true;
    }
    let starts_secret = sc.words[1..]
        .iter()
        .take_while(|x| !x.text.starts_with('-'))
        .any(|x| w.resolve_word(x).is_none_or(|p| paths::is_secret(&p)));
    if starts_secret {
        return true;
    }
    let names: Vec<String> = words
        .windows(2)
        .filter(|p| matches!(p[0], "-name" | "-iname"))
        .map(|p| secret_pattern(p[1]))
        .collect();
    !names.iter().any(|pat| !pattern_may_be_secret_name(pat))
}

fn git_readonly<'w>(args: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let flag =
        |rule: &'static str, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if args[i].dynamic {
            return flag(
                "builtin.shell.git-dynamic",
                "git with an argument known only at run time",
                args[i].span,
            );
        }
        let git_dir = t.strip_prefix("--git-dir=").or_else(|| {
            (t == "--git-dir").then(|| args.get(i + 1).map_or("", |w| w.text.as_str()))
        });
        if let Some(dir) = git_dir {
            // A repository whose `config` the agent could have written (any directory
            // but a `.git` one, whose edits are `ask`): config can run programs.
            let is_git = dir
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .is_some_and(|last| last.eq_ignore_ascii_case(".git") || last.ends_with(".git"));
            if !is_git {
                return flag(
                    "builtin.shell.git-config",
                    "git --git-dir outside a .git directory: its config can run programs",
                    args[i].span,
                );
            }
        }
        if t == "-C" {
            i += 2;
        } else if t == "--no-pager" || t.starts_with("--git-dir=") || t.starts_with("--work-tree=")
        {
            i += 1;
        } else if t == "--git-dir" || t == "--work-tree" {
            i += 2;
        } else if t == "-c" || t.starts_with("-c") || t.starts_with("--config-env") {
            return flag(
                "builtin.shell.git-config",
                "git -c sets configuration, which can run programs",
                args[i].span,
            );
        } else if t.starts_with('-') {
            return flag(
                "builtin.shell.git-option",
                "git global option not on the read-only list",
                args[i].span,
            );
        } else {
            break;
        }
    }
    let Some(sub) = args.get(i) else {
        return ReadOnly::No;
    };
    let rest = &args[i + 1..];
    if sub.text == "add" {
        // Global options before `add` (`-C DIR`, `--work-tree`) move where its paths are.
        if let Some(g) = args[..i].iter().find(|a| a.text != "--no-pager") {
            return flag(
                "builtin.shell.git-add",
                "git add after a global option that moves where its paths are",
                g.span,
            );
        }
        return git_add(rest, w);
    }
    // Short options of `git grep` whose value is the rest of the cluster: an `O` after
    // one of them is part of that value (`-eFOO`), not `-O`.
    let grep = sub.text == "grep";
    let mut value_next = false;
    let mut paths_only = false;
    for a in rest {
        let t = a.text.as_str();
        // `git show HEAD:.env`, `git diff --no-index ~/.ssh/id_rsa /dev/null`,
        // `git log -p -- .env`: reads a secret file.
        if !a.dynamic && !t.starts_with('-') {
            let path = t.rsplit_once(':').map_or(t, |(_, p)| p);
            if paths::is_secret(path) {
                return ReadOnly::Secret(a);
            }
        }
        if value_next || paths_only {
            // The value of `-e PATTERN`, `-f FILE`, …: `git grep -e -O` searches for "-O".
            value_next = false;
            continue;
        }
        if t == "--" {
            paths_only = true; // paths from here on (checked above for secrets)
            continue;
        }
        if grep
            && matches!(
                t,
                "-e" | "-f"
                    | "-A"
                    | "-B"
                    | "-C"
                    | "-m"
                    | "--regexp"
                    | "--file"
                    | "--max-count"
                    | "--after-context"
                    | "--before-context"
                    | "--context"
            )
        {
            value_next = true;
            continue;
        }
        let dangerous = if let Some(long) = t.strip_prefix("--") {
            // Any spelling git accepts: `--open=…` for `--open-files-in-pager=…`.
            let name = long.split('=').next().unwrap_or(long);
            !name.is_empty()
                && ["output", "ext-diff", "open-files-in-pager"]
                    .iter()
                    .any(|full| full.starts_with(name))
        } else if let Some(cluster) = t.strip_prefix('-') {
            // `git grep -O`, `-Ocmd`, `-nO'cmd'` (`-O` anywhere in a cluster of flags)
            // runs a program; elsewhere `-O<orderfile>` only reads one.
            if grep {
                cluster
                    .chars()
                    .take_while(|c| !"ABCefm".contains(*c))
                    .any(|c| c == 'O')
            } else {
                cluster.starts_with('O')
            }
        } else {
            false
        };
        if dangerous {
            return flag(
                "builtin.shell.git-ext-diff",
                "git --output / --ext-diff / -O write files or run programs",
                a.span,
            );
        }
    }
    match sub.text.as_str() {
        "status" | "diff" | "log" | "show" | "blame" | "ls-files" | "rev-parse" => ReadOnly::Yes,
        // Every tracked file is opened, a tracked `.env` included.
        "grep" => flag(
            "builtin.shell.recursive-read",
            "git grep reads every tracked file, a secret file among them; only a host with a file system can check what it reaches",
            sub.span,
        ),
        "branch" => {
            for a in rest {
                let t = a.text.as_str();
                let ok = matches!(
                    t,
                    "--list" | "--show-current" | "--all" | "--remotes" | "--verbose"
                ) || (t.starts_with('-')
                    && !t.starts_with("--")
                    && t.len() > 1
                    && t[1..].chars().all(|c| matches!(c, 'a' | 'r' | 'v' | 'l')));
                if !ok {
                    return flag(
                        "builtin.shell.git-branch",
                        "git branch that creates, renames or deletes a branch",
                        a.span,
                    );
                }
            }
            ReadOnly::Yes
        }
        _ => ReadOnly::No,
    }
}

/// `git add` of named files (`git add src/lib.rs tests/t.py`): it changes only git's
/// index, and each file must be one an edit may touch (inside the workspace, not a
/// secret, not protected) and look like a file. A name without an extension may be a
/// directory, whose files (a `.env` among them) git would stage and `git diff --cached`
/// then print; so may `-A`, `--all`, `-u`, `.`, a glob, and `-f` (ignored files): they
/// ask, as do the modes that run an editor or read the terminal (`-p`, `-i`, `-e`).
fn git_add<'w>(rest: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let mut paths_only = false;
    let mut files: Vec<&Word> = Vec::new();
    for a in rest {
        let t = a.text.as_str();
        if !paths_only && !a.dynamic && t == "--" {
            paths_only = true;
            continue;
        }
        if !paths_only && !a.dynamic && t.starts_with('-') {
            if matches!(t, "-v" | "--verbose" | "-n" | "--dry-run") {
                continue;
            }
            return ReadOnly::Flag(
                "builtin.shell.git-add",
                format!("git add {t} may stage files not named here (a secret file among them) or run an editor"),
                a.span,
            );
        }
        let name = t.trim_end_matches('/');
        let last = name.rsplit('/').next().unwrap_or(name);
        if a.dynamic || a.glob || a.braces.is_some() || last.find('.').is_none_or(|i| i == 0) {
            return ReadOnly::Flag(
                "builtin.shell.git-add",
                format!("git add {t}: a directory, a glob or a run-time name stages every file it reaches, a secret file among them"),
                a.span,
            );
        }
        files.push(a);
    }
    match w.edits_of(files.iter().copied()) {
        Some((Tier::Auto, _, _, span)) => ReadOnly::Edit(
            Tier::Auto,
            "builtin.shell.git-add",
            "git add stages named workspace files".to_string(),
            span,
        ),
        Some((tier, rule, why, span)) => ReadOnly::Edit(tier, rule, why, span),
        None => ReadOnly::Yes,
    }
}

/// Concatenates string pieces into one exactly-sized `String` (cheaper than `format!`
/// on the hot path).
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}
