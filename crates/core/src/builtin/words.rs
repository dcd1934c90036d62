//! A simple command's words: the program and its arguments against the built-in rules.

use super::getopt::{skip_opts, Opts};
use super::inspect::{
    interpreter_reads_stdin, is_lib_dir, script_runs, subscript_code, words_span,
};
use super::names::{
    basename, is_interpreter, DISK_DEVICES, DOWNLOADERS, POWER, PRIV_ESC, SHELLS, SYSTEM_WRITE_DIRS,
};
use super::reach::ReadOnly;
use super::readonly::readonly;
use super::{cat, Finding, RawPart, Traits, Walker};
use crate::paths::{self, resolve};
use crate::programs::{self};
use crate::shell::{self, RedirOp, SimpleCommand, Span, Word};
use crate::verdict::Tier;
use std::borrow::Cow;

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

    pub(super) fn words_inner(
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
}
