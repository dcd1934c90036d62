//! One simple command: assignments, constants, redirections, then its words.

use super::inspect::{
    expand_words, glob_may_be_option, home_relative, is_lib_dir, known_word, may_be_option,
    names_file, prints_numbers, script_runs,
};
use super::names::{basename, is_interpreter, DISK_DEVICES, SAFE_ENV, SYSTEM_WRITE_DIRS};
use super::programs::{kind, Kind};
use super::secrets::{glob_may_name_secret, sensitive_env};
use super::words::{NO_WORD, WORDS_ON_STACK};
use super::{cat, Finding, RawPart, Traits, Walker};
use crate::builtin::programs::{self};
use crate::needle::HasChar;
use crate::paths::{self};
use crate::rule_id::RuleId;
use crate::shell::{self, RedirOp, SimpleCommand, Word};
use crate::verdict::Tier;

impl<'a> Walker<'a> {
    pub(super) fn simple(&mut self, sc: &SimpleCommand) -> Traits {
        if let Some(known) = self.substitute_consts(sc) {
            return self.simple(&known);
        }
        self.track_consts(sc);
        let quiet = test_quiet_words(sc);
        let outer = std::mem::replace(&mut self.quiet_words, quiet);
        self.walk_values(sc);
        self.quiet_words = outer;
        // The command's finding first: on equal tiers it explains best.
        let (mut finding, mut traits, norm) = self.command_finding(sc);
        self.option_like_values(sc, &mut finding);
        self.substitution_traits(sc, &mut traits, &mut finding);
        if let Some(f) = self.redirect_finding(sc) {
            finding.fold(f);
        }
        // What it reads through `<`: `cat < .env`, `$(<~/.ssh/id_rsa)`, and `/dev/tcp/…`
        // (bash opens a network connection).
        if let Some(f) = self.input_finding(&sc.redirects) {
            finding.fold(f);
        }
        self.assignments(sc, &mut finding);
        self.parts.push(RawPart {
            span: sc.span,
            finding,
            norm: if self.env.want_norm { norm } else { None },
        });
        traits
    }

    /// An unquoted here-document's body is expanded: a secret variable in it is printed
    /// by whatever reads it (`cat <<E⏎$AWS_SECRET_ACCESS_KEY⏎E`).
    fn heredoc_secret_env(&mut self, sc: &SimpleCommand) {
        for r in &sc.redirects {
            if let Some(doc) = r.heredoc.as_ref().filter(|d| !d.quoted) {
                let body = doc.body.clone();
                self.secret_env(&body, r.span);
            }
        }
    }

    /// The substitutions in a command's assignments, words and redirections, and the
    /// variables it makes numeric or fills with code kept as data.
    fn walk_values(&mut self, sc: &SimpleCommand) {
        self.heredoc_secret_env(sc);
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
                    && w.subs.first().is_some_and(prints_numbers);
                let literal = literal || printed_number;
                self.numeric.retain(|k| k != name);
                if literal && !name.ends_with('+') {
                    self.numeric.push(name.to_string());
                }
            }
            if w.assign
                && w.subs.is_empty()
                && (crate::needle::contains(&w.text, "$(") || w.text.has_char('`'))
            {
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
    }

    /// The finding of the command's words (brace expansion done, short lists on the
    /// stack).
    fn command_finding(&mut self, sc: &SimpleCommand) -> (Finding, Traits, Option<String>) {
        if sc.words.is_empty() {
            (
                Finding::new(
                    Tier::Auto,
                    RuleId::ShellEmpty,
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
            self.words(buf.get(..sc.words.len()).unwrap_or_default(), sc)
        } else {
            let words: Vec<&Word> = sc.words.iter().collect();
            self.words(&words, sc)
        }
    }

    /// A read-only program given a value known only at run time that could be an option.
    fn option_like_values(&self, sc: &SimpleCommand, finding: &mut Finding) {
        // A read-only program given a value known only at run time that could begin
        // with `-` (`sort $x f`, `sort ${x:--o PWN} f`): it may be an option that writes
        // or runs. Only the programs that print their arguments read them as data.
        if finding.tier == Tier::Auto && finding.rule == RuleId::ShellReadonly {
            let prog = sc.words.first().map_or("", |w| basename(&w.text));
            let entry = programs::lookup(prog);
            if !entry.is_some_and(programs::Program::args_are_data) {
                // Words after `--` are operands. A `--` right after an option may be
                // that option's value (`rg -e -- *`), so only one after the program or
                // an operand counts.
                let needs = sc
                    .words
                    .get(1..)
                    .unwrap_or_default()
                    .iter()
                    .any(|w| w.glob || w.dynamic);
                let end = match entry.filter(|_| needs) {
                    // The table knows which options take a value.
                    Some(p) => {
                        let args: Vec<&Word> =
                            sc.words.get(1..).unwrap_or_default().iter().collect();
                        p.scan(&args).end.map_or(sc.words.len(), |e| e + 1)
                    }
                    None => sc
                        .words
                        .windows(2)
                        .position(|p| {
                            matches!(p, [before, w] if w.value() == Some("--")
                                && !before.text.starts_with('-'))
                        })
                        .map_or(sc.words.len(), |i| i + 1),
                };
                // A loop variable is each of its values: `for f in *; do sort $f; done`
                // sorts a file named `-o`.
                let harmless = entry.is_some_and(programs::Program::options_harmless);
                let loop_ok = |w: &Word| {
                    self.loop_values(w)
                        .is_some_and(|vals| harmless || !vals.iter().any(glob_may_be_option))
                };
                if let Some(w) = sc
                    .words
                    .get(1..end)
                    .unwrap_or_default()
                    .iter()
                    .find(|w| may_be_option(w) && !loop_ok(w))
                {
                    *finding = Finding::new(
                        self.default_tier(),
                        RuleId::ShellDynamic,
                        format!(
                            "a value known only at run time could be an option of {prog}: {}",
                            self.text(w.span)
                        ),
                        w.span,
                    );
                } else if let Some(w) = sc
                    .words
                    .get(1..end)
                    .unwrap_or_default()
                    .iter()
                    .find(|w| glob_may_be_option(w) && !harmless)
                {
                    *finding = Finding::new(
                        self.default_tier(),
                        RuleId::ShellDynamic,
                        format!(
                            "a glob could expand to a file name that is an option of {prog}: {}",
                            self.text(w.span)
                        ),
                        w.span,
                    );
                }
            }
        }
    }

    /// Downloads and decoded text from the substitutions of its words, and written into
    /// an interpreter through a process substitution.
    fn substitution_traits(&self, sc: &SimpleCommand, traits: &mut Traits, finding: &mut Finding) {
        // Content from a substitution in its arguments is what it writes:
        // `cat <(curl …) | sh`, `echo "$(curl …)" | sh`.
        for w in &sc.words {
            for sub in &w.subs {
                traits.downloader |= script_runs(sub, &|n| kind(n) == Kind::Downloader, &[]);
                traits.decoder |= script_runs(sub, &|n| kind(n) == Kind::Decoder, &[]);
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
                    (RuleId::ShellPipeToShell, "remote content")
                } else {
                    (RuleId::ShellEncodedExec, "decoded content")
                };
                *finding = Finding::new(
                    Tier::Deny,
                    rule,
                    format!("{what} written into an interpreter: {}", self.text(sc.span)),
                    sc.span,
                );
            }
        }
    }

    /// Assignments (before the command, or as `export`/`local` arguments): the
    /// variables they taint, and the environment they give the command.
    fn assignments(&mut self, sc: &SimpleCommand, finding: &mut Finding) {
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
            .filter(|w| declared && !w.subs.is_empty() && w.text.has_char('='));
        for a in sc.assigns.iter().chain(arg_assigns) {
            let name = a.text.split(['=', '+']).next().unwrap_or("");
            let rule = if a
                .subs
                .iter()
                .any(|sub| script_runs(sub, &|n| kind(n) == Kind::Downloader, &[]))
            {
                Some(RuleId::ShellPipeToShell)
            } else if a
                .subs
                .iter()
                .any(|sub| script_runs(sub, &|n| kind(n) == Kind::Decoder, &[]))
            {
                Some(RuleId::ShellEncodedExec)
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
                finding.fold(f);
            }
        }
    }

    /// The value of the variable of [`Walker::consts`] that word `w` is exactly
    /// (`$x`, `${x}`, `"$x"`, `"${x}"`), and whether it is quoted.
    pub(super) fn const_ref(&self, w: &Word) -> Option<(&str, bool)> {
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
    pub(super) fn substitute_consts(&mut self, sc: &SimpleCommand) -> Option<SimpleCommand> {
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
    pub(super) fn track_consts(&mut self, sc: &SimpleCommand) {
        if self.consts.is_empty() && sc.assigns.is_empty() {
            return; // nothing known to forget, nothing to learn
        }
        let prog = sc.words.first().map(|w| w.text.as_str());
        let assigns_any =
            matches!(
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
                w.dynamic && w.text.has_char('=') && crate::needle::contains(&w.text, "${")
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
                && !w
                    .text
                    .get(..w.text.find('=').unwrap_or(0))
                    .unwrap_or_default()
                    .ends_with('+')
                && !w.dynamic
                && w.subs.is_empty()
                && self.consts.len() < 32;
            if settable {
                self.consts.push((name.to_string(), value.to_string()));
            }
        }
    }

    pub(super) fn assign_finding(&self, a: &Word) -> Option<Finding> {
        let name = a.text.split(['=', '+']).next().unwrap_or("");
        if (SAFE_ENV.contains(&name) || name.starts_with("LC_")) && !names_file(a) {
            return None;
        }
        // What it makes the command run or read stays inside the sandbox: containable.
        Some(
            Finding::new(
                self.default_tier(),
                RuleId::ShellEnv,
                format!("sets {name}, which can change what the command runs or reads"),
                a.span,
            )
            .contained_unless(None),
        )
    }

    /// The strictest finding (the first of equals) for what `<` redirections open: a
    /// secret file, or a network connection (`/dev/tcp/…`).
    pub(super) fn input_finding(&self, redirects: &[shell::Redirect]) -> Option<Finding> {
        let mut out: Option<Finding> = None;
        for r in redirects.iter().filter(|r| r.op == RedirOp::In) {
            let t = r.target.text.as_str();
            let f = if t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/") {
                Some(Finding::new(
                    self.default_tier(),
                    RuleId::ShellNetwork,
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
                        RuleId::ShellSecretFile,
                        format!("reads a secret file: {t}"),
                        r.span,
                    )),
                    // `cat < $x`, `cat < "$(ls)"`: a file named at run time.
                    None => Some(Finding::new(
                        self.default_tier(),
                        RuleId::ShellDynamic,
                        format!("reads a file known only at run time: {t}"),
                        r.span,
                    )),
                }
            };
            match (&mut out, f) {
                (Some(best), Some(f)) => best.fold(f),
                (None, f) => out = f,
                (Some(_), None) => {}
            }
        }
        out
    }

    pub(super) fn redirect_finding(&self, sc: &SimpleCommand) -> Option<Finding> {
        let mut out: Option<Finding> = None;
        for r in &sc.redirects {
            if !r.op.writes() {
                continue;
            }
            let f = if r.target.value().is_none() {
                Finding::new(
                    Tier::Ask,
                    RuleId::ShellDynamic,
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
                        RuleId::ShellDisk,
                        format!("writes straight to a disk device: {}", self.text(r.span)),
                        r.span,
                    ),
                    Some(p) if paths::under_any(p, SYSTEM_WRITE_DIRS) || is_lib_dir(p) => {
                        Finding::new(
                            Tier::Deny,
                            RuleId::ShellSystemWrite,
                            format!("writes into a system directory: {}", self.text(r.span)),
                            r.span,
                        )
                    }
                    Some(p) if paths::self_approval(p, self.env.home).is_some() => Finding::new(
                        Tier::Deny,
                        RuleId::SelfApproval,
                        format!(
                            "an agent may not write toolgate's or its host's approvals: {}",
                            self.text(r.span)
                        ),
                        r.span,
                    ),
                    // Inside the workspace, a write is an edit of that file.
                    Some(p) if paths::is_within(p, self.env.workspace) => {
                        let (tier, rule, why) = self.edit_target(&r.target);
                        Finding::new(tier, rule, why, r.span)
                    }
                    _ => Finding::new(
                        self.default_tier(),
                        RuleId::ShellRedirect,
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
}

/// The words of a `test`, `[` or `[[` command whose value cannot reach the output: a
/// whole parameter expansion (quoted, but for `[[`, which does not split) that is the
/// operand of `-n` / `-z` or a side of `=`, `==`, `!=`. An operand of `-eq` and the
/// like can (bash prints it in "integer expression expected").
fn test_quiet_words(sc: &SimpleCommand) -> Vec<crate::shell::Span> {
    let words = &sc.words;
    let name = words.first().map_or("", |w| w.text.as_str());
    let double = name == "[[";
    if !matches!(name, "test" | "[" | "[[") {
        return Vec::new();
    }
    let text = |i: Option<usize>| i.and_then(|i| words.get(i)).map_or("", |w| w.text.as_str());
    words
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, w)| {
            let whole = w.param == Some(true) || (double && w.param.is_some());
            let before = text(i.checked_sub(1));
            let after = text(Some(i + 1));
            whole
                && (matches!(before, "-n" | "-z" | "=" | "==" | "!=")
                    || matches!(after, "=" | "==" | "!="))
        })
        .map(|(_, w)| w.span)
        .collect()
}
