//! Wrappers (`env`, `timeout`, `xargs`, …) and nested shells (`bash -c`, `eval`, interpreters).

use super::inspect::{mentions_var, script_runs, words_span};
use super::programs::{kind, Kind};
use super::text::{expands, expansions_as_separators, heredoc_text};
use super::{Finding, Traits, Walker};
use crate::needle::HasChar;
use crate::paths::resolve;
use crate::rule_id::RuleId;
use crate::shell::{self, ParseErrorKind, RedirOp, SimpleCommand, Span, Word};
use crate::verdict::Tier;
use std::borrow::Cow;

/// The long options of GNU `env`, for matching abbreviations.
pub(super) const ENV_LONG: &[&str] = &[
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

impl<'a> Walker<'a> {
    /// A transparent wrapper: the wrapped command decides.
    pub(super) fn wrapped(
        &mut self,
        rest: &[&Word],
        sc: &SimpleCommand,
        wrapper: &str,
    ) -> (Finding, Traits, Option<String>) {
        if rest.is_empty() {
            let f = Finding::new(
                Tier::Auto,
                RuleId::ShellReadonly,
                format!("{wrapper} with no command"),
                sc.span,
            );
            return (f, Traits::default(), Some(wrapper.to_string()));
        }
        self.words(rest, sc)
    }

    pub(super) fn env_wrapper(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let mut findings = Vec::new();
        let EnvOptions {
            end: i,
            split,
            split_inline,
            chdir,
        } = self.env_options(words, &mut findings);
        let rest: Vec<&Word> = words.get(i..).unwrap_or(&[]).to_vec();
        let result = if let Some(sw) = split {
            let text = split_inline.unwrap_or_else(|| sw.text.clone());
            self.env_split(sw, &text, &rest, sc, &mut findings)
        } else if rest.is_empty() {
            (
                Finding::new(
                    self.default_tier(),
                    RuleId::Default,
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

    /// Scans `env`'s options up to the command: assignments (their findings go to
    /// `findings`), `-C DIR`, `-S STRING` in every spelling getopt accepts.
    fn env_options<'w>(&self, words: &[&'w Word], findings: &mut Vec<Finding>) -> EnvOptions<'w> {
        let mut i = 1;
        let mut split: Option<&Word> = None;
        let mut split_inline: Option<String> = None;
        // `-C DIR` / `--chdir=DIR`: the command runs there (`Some(None)`: unknown dir).
        let mut chdir: Option<Option<String>> = None;
        while let Some(&w) = words.get(i) {
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
                let body = t.get(1..).unwrap_or_default();
                if let Some((k, letter)) =
                    body.bytes().enumerate().find(|(_, c)| b"SuC".contains(c))
                {
                    let rest_of = body.get(k + 1..).unwrap_or_default();
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
            if t.has_char('=') && !w.dynamic && !t.starts_with('=') {
                // NAME=value given to env (quoted or not)
                if let Some(f) = self.assign_finding(w) {
                    findings.push(f);
                }
                i += 1;
                continue;
            }
            break;
        }
        EnvOptions {
            end: i,
            split,
            split_inline,
            chdir,
        }
    }

    /// `env -S STRING`: the string is split into a command (`NAME=value cmd …` sets
    /// variables), with the words after it appended; several commands are a script.
    fn env_split(
        &mut self,
        sw: &Word,
        text: &str,
        rest: &[&Word],
        sc: &SimpleCommand,
        findings: &mut Vec<Finding>,
    ) -> (Finding, Traits, Option<String>) {
        if sw.value().is_none() {
            (
                Finding::new(
                    Tier::Ask,
                    RuleId::ShellDynamic,
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
                    RuleId::ShellTooComplex,
                    "too complex to classify: too much nested script",
                    sw.span,
                ),
                Traits::default(),
                None,
            )
        } else {
            self.budget -= text.len();
            match shell::parse_in(text, 0, Some(sw.span), self.depth + 1, &mut self.steps) {
                Ok(script) => {
                    let cmds = shell::simple_commands(&script);
                    if let ([only], 1) = (cmds.as_slice(), script.pipelines.len()) {
                        // `env -S 'NAME=value cmd'`: env sets those variables.
                        for a in &only.assigns {
                            if let Some(f) = self.assign_finding(a) {
                                findings.push(f);
                            }
                        }
                        let mut ws: Vec<&Word> = only.words.iter().collect();
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
                                RuleId::Default,
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
                        ParseErrorKind::TooComplex => RuleId::ShellTooComplex,
                        ParseErrorKind::Syntax => RuleId::ShellUnparseable,
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
    }

    /// `bash -c '…'`, `sh <<EOF`, `sh <<< '…'`, `bash script.sh`.
    pub(super) fn shell_invocation(
        &mut self,
        name: &str,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let args = words.get(1..).unwrap_or_default();
        let all = words_span(words, sc.span);
        if let Some(f) = self.sink_check(args, sc, name) {
            return (f, Traits::default(), None);
        }
        let ShellOptions {
            cmd_string,
            script_file,
            stdin_flag,
            want_c,
        } = shell_options(args);
        let norm = {
            let mut s = String::from(name);
            for a in args {
                s.push(' ');
                s.push_str(&a.text);
            }
            Some(s)
        };
        if want_c {
            return self.shell_dash_c(name, args, cmd_string, all, norm);
        }
        if let Some(f) = script_file.filter(|_| !stdin_flag) {
            if f.text != "-" && f.text != "/dev/stdin" {
                return (
                    Finding::new(
                        self.default_tier(),
                        RuleId::Default,
                        format!("runs a shell script: {}", f.text),
                        all,
                    )
                    .contained_unless(None),
                    Traits::default(),
                    norm,
                );
            }
        }
        // Reads its script from stdin: a here-doc, a here-string, a file, or a pipe.
        let fed = match self.shell_stdin(name, sc, all, &norm) {
            Ok(fed) => fed,
            Err(judged) => return judged,
        };
        if fed {
            return (
                Finding::new(Tier::Auto, RuleId::ShellNested, format!("{name} reads a script given inline; its commands are classified on their own"), all),
                Traits::default(),
                norm,
            );
        }
        (
            Finding::new(
                self.default_tier(),
                RuleId::Default,
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

    /// `bash -c STRING [ARG…]`: the string is a nested script; the words after it are
    /// its positional parameters.
    fn shell_dash_c(
        &mut self,
        name: &str,
        args: &[&Word],
        cmd_string: Option<&Word>,
        all: Span,
        norm: Option<String>,
    ) -> (Finding, Traits, Option<String>) {
        let Some(cs) = cmd_string else {
            return (
                Finding::new(
                    Tier::Ask,
                    RuleId::ShellUnparseable,
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
                    RuleId::ShellDynamic,
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
        (
            Finding::new(
                Tier::Auto,
                RuleId::ShellNested,
                format!("{name} -c: the nested script's commands are classified on their own"),
                all,
            ),
            Traits {
                // `curl … | bash -c 'cat | sh'`: the nested script runs its input.
                stdin_exec: inner.stdin_exec,
                ..Traits::default()
            },
            norm,
        )
    }

    /// A shell reading its script from stdin: a here-document or here-string is a
    /// nested script (`Ok(true)`); a file or an expansion at run time decides (`Err`).
    fn shell_stdin(
        &mut self,
        name: &str,
        sc: &SimpleCommand,
        all: Span,
        norm: &Option<String>,
    ) -> Result<bool, (Finding, Traits, Option<String>)> {
        let mut fed = false;
        for r in &sc.redirects {
            match r.op {
                RedirOp::HereDoc => {
                    if let Some(doc) = &r.heredoc {
                        let body = doc.body.clone();
                        self.heredoc_script(&body, doc.quoted, doc.start, r.span);
                        fed = true;
                        if !doc.quoted && expands(&body) {
                            // bash runs the body after expansion: `${x:-;}` can become
                            // a `;`, a value a whole command. The reading where every
                            // expansion ends a command is classified too.
                            let split = heredoc_text(&expansions_as_separators(&body));
                            self.nested_text(&split, None, r.span);
                            return Err((
                                Finding::new(
                                    Tier::Ask,
                                    RuleId::ShellDynamic,
                                    format!("{name} runs a here-document expanded at run time"),
                                    r.span,
                                ),
                                Traits::default(),
                                None,
                            ));
                        }
                    }
                }
                RedirOp::HereString => {
                    if r.target.value().is_some() {
                        self.nested_text(&r.target.text, r.target.content_start, r.target.span);
                        fed = true;
                    } else {
                        return Err((
                            Finding::new(
                                Tier::Ask,
                                RuleId::ShellDynamic,
                                format!("{name} runs a script only known at run time"),
                                r.span,
                            ),
                            Traits::default(),
                            None,
                        ));
                    }
                }
                RedirOp::In => {
                    return Err((
                        Finding::new(
                            self.default_tier(),
                            RuleId::Default,
                            format!("runs a shell script: {}", r.target.text),
                            all,
                        )
                        .contained_unless(None),
                        Traits::default(),
                        norm.clone(),
                    ));
                }
                _ => {}
            }
        }
        Ok(fed)
    }

    /// An interpreter, `eval` or `source` given a substitution that downloads or decodes:
    /// `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(echo … | base64 -d)"`.
    pub(super) fn sink_check(
        &self,
        args: &[&Word],
        sc: &SimpleCommand,
        name: &str,
    ) -> Option<Finding> {
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
                    let what = if *rule == RuleId::ShellPipeToShell {
                        "remote content"
                    } else {
                        "decoded content"
                    };
                    return Some(Finding::new(
                        Tier::Deny,
                        *rule,
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
                if script_runs(s, &|n| kind(n) == Kind::Downloader, &[]) {
                    return Some(Finding::new(
                        Tier::Deny,
                        RuleId::ShellPipeToShell,
                        format!("remote content executed by {name}: {}", self.text(w.span)),
                        w.span,
                    ));
                }
                if script_runs(s, &|n| kind(n) == Kind::Decoder, &[]) {
                    return Some(Finding::new(
                        Tier::Deny,
                        RuleId::ShellEncodedExec,
                        format!("decoded content executed by {name}: {}", self.text(w.span)),
                        w.span,
                    ));
                }
            }
        }
        None
    }

    /// `eval a b c`, `watch 'cmd'`: the arguments joined by spaces are a script.
    pub(super) fn joined_script(
        &mut self,
        rest: &[&Word],
        all: Span,
        what: &str,
    ) -> (Finding, Traits, Option<String>) {
        if rest.iter().any(|w| w.value().is_none()) {
            return (
                Finding::new(
                    Tier::Ask,
                    RuleId::ShellDynamic,
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
        let base = if let [w] = rest {
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
                RuleId::ShellNested,
                format!("{what}: the nested script's commands are classified on their own"),
                all,
            ),
            Traits::default(),
            Some(format!("{what} {text}")),
        )
    }
}

/// What `env`'s options say: where the command starts, the `-S` string, `-C DIR`.
struct EnvOptions<'w> {
    /// The index of the command's first word.
    end: usize,
    /// The word holding the `-S` string.
    split: Option<&'w Word>,
    /// The `-S` string when it is inside that word (`-Sstr`, `--split-string=str`).
    split_inline: Option<String>,
    /// `-C DIR` / `--chdir=DIR`: the command runs there (`Some(None)`: unknown dir).
    chdir: Option<Option<String>>,
}

/// A shell's options up to its script: `-c` and its string, a script file, `-s`; the
/// values of `-o`/`-O`/`+o`/`+O` and `--rcfile` are skipped.
fn shell_options<'w>(args: &[&'w Word]) -> ShellOptions<'w> {
    let mut i = 0;
    let mut cmd_string: Option<&Word> = None;
    let mut script_file: Option<&Word> = None;
    let mut stdin_flag = false;
    let mut want_c = false;
    while let Some(&a) = args.get(i) {
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
            if t.get(1..).unwrap_or_default().has_char('c') {
                want_c = true;
            }
            if t.get(1..).unwrap_or_default().has_char('s') {
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
    ShellOptions {
        cmd_string,
        script_file,
        stdin_flag,
        want_c,
    }
}

/// What a shell's options say (see [`shell_options`]).
struct ShellOptions<'w> {
    cmd_string: Option<&'w Word>,
    script_file: Option<&'w Word>,
    stdin_flag: bool,
    want_c: bool,
}
