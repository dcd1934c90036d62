//! The walk over a parsed script: lists, pipelines, compound commands, substitutions and nested scripts.

use super::inspect::{
    calls_itself_in_background_or_pipe, command_span, evaluates_value_as_code, join_span,
    prints_numbers, stage_prints_paths, subscript_code, words_span,
};
use super::names::basename;
use super::secrets::{find_may_list_secret, secret_reference_except, sensitive_env};
use super::text::{arith_names, expands, expansions_as_separators, heredoc_text};
use super::{Finding, RawPart, Traits, Walker};
use crate::escapes::decode_echo;
use crate::needle::HasChar;
use crate::rule_id::RuleId;
use crate::shell::{
    self, Command, ParseError, ParseErrorKind, RedirOp, Script, SimpleCommand, Span, Word,
};
use crate::verdict::Tier;

impl<'a> Walker<'a> {
    pub(super) fn script(&mut self, s: &Script) -> Traits {
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
                        .find(|&i| self.parts.get(i).is_some_and(|p| p.span == span))
                        .unwrap_or(self.parts.len().saturating_sub(1))
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
    pub(super) fn pipe_checks(
        &mut self,
        stages: &[(Traits, Option<usize>, Span)],
        pl: &shell::Pipeline,
    ) {
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
                    RuleId::ShellPipeToShell,
                    "remote content piped into an interpreter",
                    i,
                ),
                (None, Some(i)) => (
                    RuleId::ShellEncodedExec,
                    "decoded content piped into an interpreter",
                    i,
                ),
                (None, None) => {
                    // `echo STATIC | sh`: classify what is echoed as a script.
                    if j.checked_sub(1)
                        .and_then(|k| stages.get(k))
                        .is_some_and(|s| s.0.echo)
                    {
                        if let Some(Command::Simple(sc)) = pl.stages.get(j - 1) {
                            self.echoed_script(sc);
                        }
                    }
                    continue;
                }
            };
            let span = join_span(stages.get(from).map_or(*span_j, |s| s.2), *span_j);
            let f = Finding::new(
                Tier::Deny,
                rule,
                format!("{what}: {}", self.text(span)),
                span,
            );
            match main_j.and_then(|i| self.parts.get_mut(i)) {
                Some(part) => part.finding = f,
                None => self.parts.push(RawPart {
                    span,
                    finding: f,
                    norm: None,
                }),
            }
        }
    }

    /// A here-document a shell runs: a quoted body as it is written, an unquoted one as
    /// the shell receives it ([`heredoc_text`]: `\$` and `` \` `` become live).
    pub(super) fn heredoc_script(&mut self, body: &str, quoted: bool, start: usize, span: Span) {
        if quoted {
            self.nested_text(body, Some(start), span);
            return;
        }
        let text = heredoc_text(body);
        if text == body {
            self.nested_text(body, Some(start), span);
        } else {
            self.nested_text(&text, None, span);
        }
    }

    pub(super) fn echoed_script(&mut self, sc: &SimpleCommand) {
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
                        self.heredoc_script(&body, doc.quoted, doc.start, r.span);
                        if !doc.quoted && expands(&body) {
                            let split = heredoc_text(&expansions_as_separators(&body));
                            self.nested_text(&split, None, r.span);
                            self.parts.push(RawPart {
                                span: r.span,
                                finding: Finding::new(
                                    Tier::Ask,
                                    RuleId::ShellDynamic,
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
        let args: Vec<&Word> = sc.words.get(1..).unwrap_or_default().iter().collect();
        let text = if prog == "printf" {
            args.first().map(|w| decode_echo(&w.text))
        } else {
            let escapes = args.first().is_some_and(|w| w.text == "-e");
            let rest: Vec<&str> = args
                .iter()
                .map(|w| w.text.as_str())
                .skip_while(|t| t.starts_with('-') && t.len() > 1)
                .collect();
            let joined = rest.join(" ");
            Some(if escapes {
                decode_echo(&joined)
            } else {
                joined
            })
        };
        if let Some(text) = text {
            let span = words_span(&args, sc.span);
            self.nested_text(&text, None, span);
        }
    }

    pub(super) fn command(&mut self, cmd: &Command) -> Traits {
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

    pub(super) fn command_inner(&mut self, cmd: &Command) -> Traits {
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
                            || (crate::needle::contains(self.text(*span), "@P")
                                && (crate::needle::contains(&w.text, "$(")
                                    || w.text.has_char('`'))))
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
                let input = self.input_finding(&sc.redirects);
                if let Some(f) = input.filter(|f| f.tier > Tier::Auto) {
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
                            RuleId::ShellForkBomb,
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
                        RuleId::ShellFunction,
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
                        RuleId::ShellDynamic,
                        "arithmetic evaluation can run substitutions",
                        *span,
                    ),
                    norm: None,
                });
                Traits::default()
            }
        }
    }

    /// Text that expands a variable whose name looks secret (`$AWS_SECRET_ACCESS_KEY`):
    /// its value, a real key in an agent host's environment, may reach the output.
    pub(super) fn secret_env(&mut self, text: &str, span: Span) {
        let own = |name: &str| {
            self.loop_static.iter().any(|(k, _)| k == name)
                || self.consts.iter().any(|(k, _)| k == name)
        };
        if let Some(name) = secret_reference_except(text, own) {
            self.parts.push(RawPart {
                span,
                finding: Finding::new(
                    Tier::Ask,
                    RuleId::ShellSecretEnv,
                    format!(
                        "expands ${name}, whose name looks like a secret: its value may be printed"
                    ),
                    span,
                ),
                norm: None,
            });
        }
    }

    /// The values of a `for` variable of [`Walker::loop_static`] that `w` expands.
    pub(super) fn loop_values(&self, w: &Word) -> Option<&[Word]> {
        let t = w.text.trim_matches('"');
        let name = t
            .strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .or_else(|| t.strip_prefix('$'))?;
        let values = self
            .loop_static
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_slice())?;
        // Unquoted, a value is split into words and globbed again (bash's "Word
        // Splitting"): `for x in ". -delete"; do find $x; done` runs `find . -delete`,
        // and a file name a glob gave may hold spaces or glob characters. Only values
        // that stay one literal word are each of them.
        let unquoted = w.param != Some(true);
        if unquoted
            && values.iter().any(|v| {
                v.glob || v.text.is_empty() || v.text.contains([' ', '\t', '\n', '*', '?', '['])
            })
        {
            return None;
        }
        Some(values)
    }

    /// Text that bash may evaluate as code although it is written as data (a subscript
    /// in `test -v 'a[$(cmd)]'`): the substitutions in it are classified; text that
    /// does not parse as a script adds nothing (it is data after all).
    pub(super) fn code_in_data(&mut self, text: &str, span: Span) {
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
    pub(super) fn word_subs(&mut self, w: &Word) {
        for s in &w.subs {
            self.sub_script(s);
        }
        if w.dynamic && !self.quiet_words.contains(&w.span) {
            self.secret_env(&w.text, w.span);
        }
        if w.dynamic
            && (crate::needle::contains(&w.text, "$((") || crate::needle::contains(&w.text, "$["))
        {
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
                        RuleId::ShellDynamic,
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
                    finding: Finding::new(self.default_tier(), RuleId::ShellDynamic, why, w.span),
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
    pub(super) fn arith_output(&mut self, subs: &[Script], span: Span) {
        if subs.iter().all(prints_numbers) {
            return;
        }
        self.parts.push(RawPart {
            span,
            finding: Finding::new(
                self.default_tier(),
                RuleId::ShellDynamic,
                "arithmetic evaluates a command's output (a subscript in it would run code)",
                span,
            ),
            norm: None,
        });
    }

    /// A script run in a subshell (`$(…)`, `<(…)`, a nested shell): its `cd` and its
    /// assignments do not outlive it.
    pub(super) fn sub_script(&mut self, s: &Script) -> Traits {
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
    pub(super) fn nested_text(&mut self, text: &str, base: Option<usize>, span: Span) -> Traits {
        self.nested_text_in(text, base, span, false)
    }

    /// [`Walker::nested_text`]; `same_shell` when the script runs in this shell
    /// (`eval`), so that its `cd` and assignments outlive it.
    pub(super) fn nested_text_in(
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
}
