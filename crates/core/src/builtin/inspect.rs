//! Questions about parsed words and scripts that need no walk: spans, what a stage prints, what code a value runs.

use super::names::{basename, SAFE_ENV};
use super::programs::kind;
use crate::needle::HasChar;
use crate::shell::{self, Command, Script, SimpleCommand, Span, Word};

pub(super) fn join_span(a: Span, b: Span) -> Span {
    [a[0].min(b[0]), a[1].max(b[1])]
}

pub(super) fn words_span(ws: &[&Word], fallback: Span) -> Span {
    match (ws.first(), ws.last()) {
        (Some(f), Some(l)) => join_span(f.span, l.span),
        _ => fallback,
    }
}

pub(super) fn is_lib_dir(p: &str) -> bool {
    let first = p.trim_start_matches('/').split('/').next().unwrap_or("");
    p.starts_with('/') && first.starts_with("lib") && p.len() > first.len() + 1
}

pub(super) fn command_span(c: &Command) -> Span {
    match c {
        Command::Simple(sc) => sc.span,
        Command::Compound { span, .. }
        | Command::Function { span, .. }
        | Command::Arith { span, .. } => *span,
    }
}

/// Does any command of `s` (recursively, through substitutions) run a program matching
/// `pred` or named in `names`? Looks past wrappers and sudo.
pub(super) fn script_runs(s: &Script, pred: &dyn Fn(&str) -> bool, names: &[&str]) -> bool {
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
                    && !kind(n).runs_its_arguments()
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

pub(super) fn calls_itself_in_background_or_pipe(name: &str, body: &Command) -> bool {
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
pub(super) fn mentions_var(text: &str, var: &str) -> bool {
    let braced = format!("${{{var}");
    if crate::needle::match_indices(text, &braced).any(|i| {
        !text
            .get(i + braced.len()..)
            .unwrap_or_default()
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    }) {
        return true;
    }
    let plain = format!("${var}");
    crate::needle::match_indices(text, &plain).any(|i| {
        !text
            .get(i + plain.len()..)
            .unwrap_or_default()
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// Does every command of `s` print only numbers (or plain static words)?
pub(super) fn prints_numbers(s: &Script) -> bool {
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
            "echo" | "printf" => sc
                .words
                .get(1..)
                .unwrap_or_default()
                .iter()
                .all(|w| w.value().is_some() && !w.text.contains(['[', '\\', '$', '`'])),
            _ => false,
        }
    })
}

/// `$HOME/x`, `${HOME}/x` as `~/x` (the home directory is known); `None` otherwise.
pub(super) fn home_relative(w: &Word) -> Option<String> {
    ["${HOME:?}", "${HOME}", "$HOME"]
        .iter()
        .find_map(|p| w.text.strip_prefix(p))
        .filter(|rest| w.subs.is_empty() && !rest.contains(['$', '`']) && rest.starts_with('/'))
        .map(|rest| format!("~{rest}"))
}

/// A word whose value is known from the command (a substituted value), standing where
/// the reference stood: static text, a glob only where an unquoted value holds one.
pub(super) fn known_word(text: &str, glob: bool, span: Span) -> Word {
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
pub(super) fn is_absolute(t: &str, tilde: bool) -> bool {
    t.starts_with('/') || (tilde && (t == "~" || t.starts_with("~/")))
}

/// Could a path under directory `d` be secret because of `d` itself? Only if it names
/// `.ssh`, `.gnupg` or `.aws` (in any case, as [`paths::is_secret`] compares).
pub(super) fn may_hold_secrets(d: &str) -> bool {
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
pub(super) fn names_file(a: &Word) -> bool {
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
        || crate::needle::contains(value, "..")
        || (name != "TZ" && value.has_char('/'))
}

/// A word whose value is known only at run time and could begin with `-`: a variable,
/// a substitution or a default (`$x`, `"$(cmd)"`, `${x:--o}`) at its start. A literal
/// first character (`./$f`, `src/$f`, `x$y`) cannot be a `-` from the value.
pub(super) fn may_be_option(w: &Word) -> bool {
    if !w.dynamic || w.assign {
        return false;
    }
    let t = w.text.trim_start_matches(['"', '\'']);
    if !(t.starts_with('$') || t.starts_with('`')) {
        return false;
    }
    // `$(pwd)`, `$(find src …)`: output that cannot begin with `-`.
    let whole_sub = w.subs.len() == 1 && (t.starts_with("$(") || t.starts_with('`'));
    !(whole_sub && w.subs.first().is_some_and(prints_paths_only))
}

/// A glob that can expand to a name beginning with `-` (`*`, `?*`, `[-a]*`): a
/// repository can hold a file named `--output=x` or `-o`.
pub(super) fn glob_may_be_option(w: &Word) -> bool {
    w.glob && !w.assign && w.text.starts_with(['*', '?', '['])
}

/// Does this pipeline stage print only paths that cannot begin with `-`? `find DIR …`,
/// `pwd`, and `xargs grep -l …` fed such paths (it prints the names it was given).
pub(super) fn stage_prints_paths(sc: &SimpleCommand, stdin_paths: bool) -> bool {
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
                        && (w.has_char('l') || w.has_char('L')))
                })
        }
        _ => simple_prints_paths(sc),
    }
}

/// Does `s` print only paths that cannot begin with `-`? `pwd` (absolute) and `find`
/// from literal start points that do not begin with `-`, printing names (no
/// `-printf`, `-fprintf`, `-exec`, `-ls`).
pub(super) fn prints_paths_only(s: &Script) -> bool {
    let [pl] = s.pipelines.as_slice() else {
        return false;
    };
    let Some(Command::Simple(sc)) = pl.stages.last() else {
        return false;
    };
    simple_prints_paths(sc)
}

/// [`prints_paths_only`] for one simple command.
pub(super) fn simple_prints_paths(sc: &SimpleCommand) -> bool {
    let Some(first) = sc.words.first() else {
        return false;
    };
    match basename(&first.text) {
        "pwd" => sc.words.len() == 1,
        "find" => {
            let starts: Vec<&Word> = sc
                .words
                .get(1..)
                .unwrap_or_default()
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
pub(super) fn evaluates_value_as_code(text: &str) -> Option<&'static str> {
    if crate::needle::contains(text, "@P}") {
        return Some("prompt expansion (${x@P}) runs the command substitutions in a value known only at run time");
    }
    let mut rest = text;
    while let Some(i) = crate::needle::find(rest, "${!") {
        let after = rest.get(i + 3..).unwrap_or_default();
        let name_len = after
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let tail = after.get(name_len..).unwrap_or_default();
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
pub(super) fn subscript_code(text: &str) -> bool {
    text.find('[').is_some_and(|i| {
        let rest = text.get(i..).unwrap_or_default();
        crate::needle::contains(rest, "$(") || rest.has_char('`')
    })
}

/// Inline interpreter code that reads its standard input and executes what it read.
pub(super) fn inline_code_execs_stdin(code: &str) -> bool {
    let reads = [
        "stdin",
        "STDIN",
        "<>",
        "gets",
        "readFileSync(0",
        "/dev/stdin",
    ]
    .iter()
    .any(|m| crate::needle::contains(code, m));
    // A call, not a substring: `exec(`, `eval `, not `execution_time` or `retrieval`.
    let execs = ["exec", "eval", "compile", "system", "popen", "spawn"]
        .iter()
        .any(|m| calls(code, m))
        || code.has_char('`');
    reads && execs
}

/// Does `code` contain `name` as a whole identifier followed by `(`, a space or `{`?
/// Only an ASCII letter, digit or `_` before it makes it part of a longer name: any other
/// character (a non-ASCII space such as U+00A0, which JavaScript skips) counts as a
/// boundary, so a doubtful case is a call.
pub(super) fn calls(code: &str, name: &str) -> bool {
    crate::needle::match_indices(code, name).any(|i| {
        let before = code.get(..i).unwrap_or_default().chars().next_back();
        let after = code
            .get(i + name.len()..)
            .unwrap_or_default()
            .chars()
            .next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && matches!(after, Some('(' | ' ' | '{'))
    })
}

pub(super) fn interpreter_reads_stdin(name: &str, args: &[&Word]) -> bool {
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
    while let Some(t_word) = args.get(i) {
        let t = t_word.text.as_str();
        if let Some(f) = inline
            .iter()
            .find(|f| t == **f || (f.len() == 2 && t.starts_with(**f) && !t.starts_with("--")))
        {
            // Inline code runs instead of stdin, unless that code reads its input and
            // executes it: `python3 -c 'exec(sys.stdin.read())'`, `perl -e 'eval <STDIN>'`.
            let code = if t.len() > f.len() && f.len() == 2 {
                t.get(2..).unwrap_or_default()
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
pub(super) fn expand_words(words: &[Word]) -> Vec<Word> {
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

/// The last simple command of a one-pipeline script (`$(find … | sort)` → `sort`,
/// `$(find …)` → `find`).
pub(super) fn last_simple(s: &Script) -> Option<&SimpleCommand> {
    let [pl] = s.pipelines.as_slice() else {
        return None;
    };
    match pl.stages.last() {
        Some(Command::Simple(sc)) => Some(sc),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::calls;

    /// Only an ASCII identifier character joins `name` to a longer name; any other
    /// character before it (JavaScript skips U+00A0 and U+FEFF as spaces) is a boundary.
    #[test]
    fn a_call_is_found_after_any_non_identifier_character() {
        for code in [
            "eval(x)",
            "x = eval (y)",
            "\u{a0}eval(x)",
            "\u{feff}exec{",
            "é.eval(x)",
        ] {
            assert!(calls(code, "eval") || calls(code, "exec"), "{code}");
        }
        for code in [
            "myeval(x)",
            "_eval(x)",
            "eval2(x)",
            "evaluate(x)",
            "retrieval",
        ] {
            assert!(!calls(code, "eval"), "{code}");
        }
    }
}
