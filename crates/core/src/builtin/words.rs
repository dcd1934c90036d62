//! A simple command's words: the program and its arguments against the built-in rules.

use super::getopt::{skip_opts, Opts};
use super::inspect::{interpreter_reads_stdin, script_runs, subscript_code, words_span};
use super::names::{basename, is_interpreter};
use super::programs::Kind;
use super::reach::ReadOnly;
use super::readonly::readonly;
use super::{cat, Finding, RawPart, Traits, Walker};
use crate::builtin::programs::{self};
use crate::needle::HasChar;
use crate::rule_id::RuleId;
use crate::shell::{self, RedirOp, SimpleCommand, Span, Word};
use crate::verdict::Tier;

/// Commands of at most this many words are walked from a list on the stack.
pub(super) const WORDS_ON_STACK: usize = 8;

/// The filler of that list's unused slots (never read: the list is sliced to the words).
pub(super) static NO_WORD: Word = Word {
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

impl<'a> Walker<'a> {
    /// Classifies a command given as words (wrappers unwrapped recursively).
    pub(super) fn words(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        if self.depth >= shell::MAX_DEPTH {
            let span = words_span(words, sc.span);
            let f = Finding::new(
                Tier::Ask,
                RuleId::ShellTooComplex,
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

    pub(super) fn words_inner(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let (finding, traits, norm) = self.program_words(words, sc);
        // `./ls`, `bin/cat`, `~/bin/rg`: the program is whatever that file is (a file
        // the agent may have written), not the program of that name; what it would do
        // as that program can still be denied.
        let local = words
            .first()
            .and_then(|w| w.value())
            .filter(|v| v.has_char('/') && !system_program(v));
        match local {
            Some(path) if finding.tier == Tier::Auto => {
                let span = words.first().map_or(sc.span, |w| w.span);
                let why =
                    format!("runs {path}, a file that is not a system program: whatever it holds");
                (
                    Finding::new(Tier::Ask, RuleId::ShellLocalProgram, why, span)
                        .contained_unless(None),
                    traits,
                    norm,
                )
            }
            _ => (finding, traits, norm),
        }
    }

    fn program_words(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let none = Traits::default();
        let Some(first) = words.first() else {
            return (
                Finding::new(Tier::Auto, RuleId::ShellEmpty, "no command", sc.span),
                none,
                Some(String::new()),
            );
        };
        let Some(value) = first.value() else {
            let f = Finding::new(
                Tier::Ask,
                RuleId::ShellDynamic,
                format!("the program is only known at run time: {}", first.text),
                first.span,
            );
            return (f, none, None);
        };
        let name = basename(value);
        let args = words.get(1..).unwrap_or_default();
        let c = &Cmd {
            words,
            sc,
            name,
            kind: programs::kind(name),
            first,
            all: words_span(words, sc.span),
        };
        // One lookup of what the program is, then its rule.
        let judged = match c.kind {
            Kind::PrivEsc | Kind::Power | Kind::PowerVerb => self.power_or_priv_esc(c),
            Kind::Wrapper => self.wrapper(c),
            Kind::ScriptRunner => self.script_runner(c),
            Kind::Multicall { shell } => match self.script_runner(c) {
                Some(judged) => Some(judged),
                None if shell => Some(self.shell_invocation(name, words, sc)),
                None => None,
            },
            Kind::Shell => Some(self.shell_invocation(name, words, sc)),
            Kind::Interpreter | Kind::Source => {
                if let Some(f) = self.sink_check(args, sc, name) {
                    return (f, none, None);
                }
                let reads_stdin = interpreter_reads_stdin(name, args);
                Some((
                    Finding::new(
                        self.default_tier(),
                        RuleId::Default,
                        cat(&["runs a program: ", name]),
                        first.span,
                    )
                    .contained_unless(super::withheld_interpreter(name, args)),
                    Traits {
                        stdin_exec: reads_stdin,
                        ..Traits::default()
                    },
                    self.norm(c),
                ))
            }
            Kind::OwnRule => self.destructive(c),
            Kind::Downloader | Kind::Decoder | Kind::Test | Kind::Other => None,
        };
        if let Some(judged) = judged {
            return judged;
        }
        let traits = stream_traits(c);
        self.test_operands(c);
        self.readonly_finding(c, traits)
    }

    /// A wrapper runs the command in its arguments: that command is judged.
    pub(super) fn wrapper(&mut self, c: &Cmd) -> Option<Judged> {
        let (words, sc, name, first, all) = (c.words, c.sc, c.name, c.first, c.all);
        let args = c.words.get(1..).unwrap_or_default();
        let none = Traits::default();
        // --- wrappers -------------------------------------------------------------
        match name {
            "env" => return Some(self.env_wrapper(words, sc)),
            "command" => {
                // bash's `command` reads options only before the name (`--` ends
                // them): `command rm -rf / -v` runs `rm`.
                let lead = args
                    .iter()
                    .take_while(|a| a.text.starts_with('-') && a.text.len() > 1 && !a.dynamic)
                    .count();
                let looks_up = args
                    .get(..lead)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|a| a.text != "--")
                    .any(|a| a.text.get(1..).unwrap_or_default().contains(['v', 'V']));
                if looks_up {
                    return Some((
                        Finding::new(
                            Tier::Auto,
                            RuleId::ShellReadonly,
                            "looks a command name up: command -v",
                            all,
                        ),
                        none,
                        self.norm(c),
                    ));
                }
                return Some(self.wrapped(words.get(1 + lead..).unwrap_or_default(), sc, name));
            }
            "builtin" | "coproc" => {
                return Some(self.wrapped(words.get(1..).unwrap_or_default(), sc, name))
            }
            "nohup" => {
                let k = skip_opts(args, "", &[]);
                return Some(self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name));
            }
            "exec" => {
                let k = skip_opts(args, "a", &[]);
                return Some(self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name));
            }
            "nice" => {
                let k = skip_opts(args, "n", &["adjustment"]);
                return Some(self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name));
            }
            "time" => {
                let o = Opts::parse(args, "fo", &["format", "output"]);
                let k = skip_opts(args, "fo", &["format", "output"]);
                let (f, t, n) = self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name);
                if (o.has_short('o').is_some() || o.has_long("output").is_some())
                    && f.tier < self.default_tier()
                {
                    // The file it writes makes it at least the default; what it runs may
                    // be worse, and then that decides.
                    return Some((
                        Finding::new(
                            self.default_tier(),
                            RuleId::Default,
                            "time -o writes a file",
                            first.span,
                        ),
                        t,
                        n,
                    ));
                }
                return Some((f, t, n));
            }
            "timeout" => {
                let k = skip_opts(args, "sk", &["signal", "kill-after"]);
                // then DURATION, then the command
                return Some(self.wrapped(words.get(2 + k..).unwrap_or(&[]), sc, name));
            }
            "stdbuf" => {
                let k = skip_opts(args, "ioe", &["input", "output", "error"]);
                return Some(self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name));
            }
            "ionice" => {
                let o = Opts::parse(args, "cnp", &["class", "classdata", "pid", "pgid", "uid"]);
                if o.has_short('p').is_some()
                    || o.has_short('P').is_some()
                    || o.has_short('u').is_some()
                {
                    return Some(self.ask_default(c, "ionice changes another process".to_string()));
                }
                let k = skip_opts(args, "cnpPu", &["class", "classdata", "pid", "pgid", "uid"]);
                return Some(self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name));
            }
            "setsid" | "chronic" | "unbuffer" | "caffeinate" => {
                // Not transparent (not on the list), but what they run is still checked.
                let k = skip_opts(args, "", &[]);
                let (f, t, n) = self.wrapped(words.get(1 + k..).unwrap_or_default(), sc, name);
                if f.tier >= self.default_tier() {
                    return Some((f, t, n));
                }
                return Some((
                    Finding::new(
                        self.default_tier(),
                        RuleId::Default,
                        cat(&["not on the read-only allowlist: ", name]),
                        first.span,
                    )
                    .contained_unless(super::withheld(name, c.kind, args)),
                    t,
                    n,
                ));
            }
            "xargs" => return Some(self.xargs(c)),
            _ => {}
        }
        None
    }

    /// Commands that run their arguments as a script, now or later: `trap`, `watch`,
    /// `eval`, and `busybox`/`toybox` applets.
    pub(super) fn script_runner(&mut self, c: &Cmd) -> Option<Judged> {
        let (words, sc, name, _first, all) = (c.words, c.sc, c.name, c.first, c.all);
        let args = c.words.get(1..).unwrap_or_default();
        let none = Traits::default();
        match name {
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
                return Some((
                    Finding::new(
                        self.default_tier(),
                        RuleId::Default,
                        "trap sets a command to run later (on a signal or at exit)",
                        all,
                    ),
                    none,
                    self.norm(c),
                ));
            }
            "busybox" | "toybox" if args.first().is_some_and(|a| !a.text.starts_with('-')) => {
                // `busybox rm -rf /`: the applet is the command.
                return Some(self.words(words.get(1..).unwrap_or_default(), sc));
            }
            "watch" => {
                let o = Opts::parse(args, "nd", &["interval"]);
                let k = skip_opts(args, "n", &["interval"]);
                let rest = words.get(1 + k..).unwrap_or_default();
                if rest.is_empty() {
                    return Some(self.ask_default(c, "watch with no command".to_string()));
                }
                if o.has_short('x').is_some() || o.has_long("exec").is_some() {
                    return Some(self.wrapped(rest, sc, name));
                }
                return Some(self.joined_script(rest, all, "watch"));
            }
            "eval" => {
                if args.is_empty() {
                    return Some((
                        Finding::new(
                            Tier::Auto,
                            RuleId::ShellEmpty,
                            "eval with nothing to run",
                            all,
                        ),
                        none,
                        self.norm(c),
                    ));
                }
                if let Some(f) = self.sink_check(args, sc, "eval") {
                    return Some((f, none, None));
                }
                let (f, mut t, n) = self.joined_script(args, all, "eval");
                // `… | eval "$(cat)"`: runs what it reads from its input.
                t.stdin_exec |= args.iter().any(|a| {
                    a.subs
                        .iter()
                        .any(|sub| script_runs(sub, &|_| false, &["cat", "head", "tail", "tee"]))
                });
                return Some((f, t, n));
            }
            _ => {}
        }
        None
    }

    /// `xargs`: the command it runs, the file it reads, and what the data it reads becomes.
    pub(super) fn xargs(&mut self, c: &Cmd) -> Judged {
        let (words, sc, name, all) = (c.words, c.sc, c.name, c.all);
        let args = c.words.get(1..).unwrap_or_default();
        let none = Traits::default();
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
        let rest = words.get(1 + k..).unwrap_or_default();
        // `xargs -a FILE`, `-0aFILE`, `--arg=FILE`: the items come from FILE,
        // which xargs opens (and echoes when no command follows).
        let arg_file = programs::XARGS
            .scan(args.get(..k).unwrap_or_default())
            .options
            .into_iter()
            .find(|f| f.option.is("-a") || f.option.is("--arg-file"))
            .and_then(|f| f.value);
        if let Some((file, fw)) = &arg_file {
            let why = if fw.dynamic {
                Some((
                    RuleId::ShellDynamic,
                    format!("xargs -a reads a file named only at run time: {file}"),
                ))
            } else {
                match self.path_secret(file, file.starts_with('~')) {
                    Some(false) => None,
                    Some(true) => Some((RuleId::ShellSecretFile, format!("reads a secret file: {file}"))),
                    None => Some((RuleId::ShellDynamic, format!("xargs -a reads {file} relative to a working directory known only at run time"))),
                }
            };
            if let Some((rule, why)) = why {
                return (
                    Finding::new(Tier::Ask, rule, why, fw.span),
                    none,
                    self.norm(c),
                );
            }
        }
        if rest.is_empty() {
            return (
                Finding::new(
                    Tier::Auto,
                    RuleId::ShellReadonly,
                    "xargs with no command echoes its input",
                    all,
                ),
                none,
                self.norm(c),
            );
        }
        let stdin_paths = self.stdin_paths;
        let (f, mut t, n) = self.wrapped(rest, sc, name);
        // `… | xargs sh -c '{}'`: the input becomes code.
        let prog = rest.first().map_or("", |w| basename(&w.text));
        // What xargs reads becomes arguments: options (`-o PWN`) unless they come
        // from `find DIR …`, and code where `-I {}` puts them in a script.
        let replace = args.get(..k).unwrap_or_default().iter().any(|a| {
            a.text.starts_with("-I") || a.text.starts_with("-i") || a.text.starts_with("--replace")
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
                    RuleId::ShellRecursiveRead,
                    format!("{prog} opens every file find lists, secret files too if there are any; only a host with a file system can check what it reaches"),
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
                    RuleId::ShellDynamic,
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
        (f, t, n)
    }

    /// `test`, `[`, `[[`, `let`: operands bash evaluates as arithmetic or subscripts.
    pub(super) fn test_operands(&mut self, c: &Cmd) {
        let name = c.name;
        let args = c.words.get(1..).unwrap_or_default();
        // `test -v 'a[$(cmd)]'`, `[[ 'a[$(cmd)]' -eq 0 ]]`: bash evaluates an array
        // subscript in a variable name or arithmetic operand, running what is in it.
        if c.kind == Kind::Test {
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
                                    RuleId::ShellDynamic,
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
    }

    /// What the read-only allowlist says of the program.
    pub(super) fn readonly_finding(&mut self, c: &Cmd, traits: Traits) -> Judged {
        let (name, first) = (c.name, c.first);
        let args = c.words.get(1..).unwrap_or_default();
        self.tree_outside.set(false);
        match readonly(name, args, self, first.span) {
            ReadOnly::Yes => (
                Finding::new(
                    Tier::Auto,
                    RuleId::ShellReadonly,
                    cat(&["read-only command: ", name]),
                    first.span,
                ),
                traits,
                self.norm(c),
            ),
            // A recursive read of trees inside the workspace is containable: the sandbox
            // hides the secret files there (and the whole home).
            ReadOnly::Flag(rule, why, span) => (
                Finding::new(self.default_tier(), rule, why, span).contained_unless(
                    (rule != RuleId::ShellRecursiveRead || self.tree_outside.get())
                        .then_some("it may read files outside the workspace"),
                ),
                traits,
                self.norm(c),
            ),
            ReadOnly::Edit(tier, rule, why, span) => {
                (Finding::new(tier, rule, why, span), traits, self.norm(c))
            }
            ReadOnly::Secret(w) => (
                Finding::new(
                    Tier::Ask,
                    RuleId::ShellSecretFile,
                    format!("reads a secret file: {}", w.text),
                    w.span,
                ),
                traits,
                self.norm(c),
            ),
            ReadOnly::No => (
                Finding::new(
                    self.default_tier(),
                    RuleId::Default,
                    cat(&["not on the read-only allowlist: ", name]),
                    first.span,
                )
                .contained_unless(super::withheld(name, c.kind, args)),
                traits,
                self.norm(c),
            ),
        }
    }

    /// The normalised command (program basename and arguments) for user rules, when
    /// the policy wants it.
    pub(super) fn norm(&self, c: &Cmd) -> Option<String> {
        if !self.env.want_norm {
            return None;
        }
        let mut s = String::from(c.name);
        for a in c.words.get(1..).unwrap_or_default() {
            s.push(' ');
            s.push_str(&a.text);
        }
        Some(s)
    }

    pub(super) fn deny(&self, c: &Cmd, rule: RuleId, why: String, span: Span) -> Judged {
        (
            Finding::new(Tier::Deny, rule, why, span),
            Traits::default(),
            self.norm(c),
        )
    }

    pub(super) fn ask_default(&self, c: &Cmd, why: String) -> Judged {
        (
            Finding::new(self.default_tier(), RuleId::Default, why, c.first.span),
            Traits::default(),
            self.norm(c),
        )
    }
}

/// A simple command's program and words, as the rules of this file read them.
pub(super) struct Cmd<'c, 'w> {
    pub(super) words: &'c [&'w Word],
    pub(super) sc: &'c SimpleCommand,
    /// The program's basename.
    pub(super) name: &'w str,
    /// What the program is ([`programs::kind`]).
    pub(super) kind: Kind,
    pub(super) first: &'w Word,
    /// The span of all the words.
    pub(super) all: Span,
}

/// A finding, the traits that matter across a pipeline, and the normalised command.
pub(super) type Judged = (Finding, Traits, Option<String>);

/// What a program does to a pipeline: downloads, decodes, echoes static text.
fn stream_traits(c: &Cmd) -> Traits {
    let (sc, name) = (c.sc, c.name);
    let args = c.words.get(1..).unwrap_or_default();
    let mut traits = Traits::default();
    if c.kind == Kind::Downloader {
        traits.downloader = true;
    }
    match name {
        "base64" | "base32" | "basenc" => {
            traits.decoder = args.iter().any(|a| {
                a.text == "--decode"
                    || (a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && (a.text.has_char('d') || a.text.has_char('D')))
            })
        }
        "xxd" => {
            traits.decoder = args.iter().any(|a| {
                a.text.starts_with('-') && !a.text.starts_with("--") && a.text.has_char('r')
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
    traits
}

/// A program named by an absolute path in a system directory (`/usr/bin/ls`), which
/// only an edit outside the workspace (which asks) could have changed.
fn system_program(path: &str) -> bool {
    const DIRS: &[&str] = &[
        "/bin/",
        "/sbin/",
        "/usr/bin/",
        "/usr/sbin/",
        "/usr/local/bin/",
        "/usr/local/sbin/",
    ];
    DIRS.iter().any(|d| {
        path.strip_prefix(d)
            .is_some_and(|rest| !rest.is_empty() && !rest.has_char('/'))
    })
}
