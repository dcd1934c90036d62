//! A shell parser that finds every simple command in a command string.
//!
//! It understands quoting (`'…'`, `"…"`, `$'…'`, `\`), substitutions (`$(…)`, backticks,
//! `${…}`, `$((…))`, `<(…)`, `>(…)`), operators (`;` `&&` `||` `|` `|&` `&` newlines),
//! subshells and groups, redirections, here-docs and here-strings, leading assignments,
//! comments, function definitions and `if/for/while/until/case` bodies. It never touches a
//! file system and never runs anything. Every byte is looked at a bounded number of times
//! (nesting is limited to [`MAX_DEPTH`]), so the cost is linear in the input; on top of
//! that every parse spends from a [`Budget`] of steps proportional to the input, so a
//! bug that stops the parser from advancing ends in [`ParseErrorKind::TooComplex`], never
//! in a hang or an unbounded allocation.

mod ast;
mod brace;
mod compound;
mod heredoc;
mod parser;
mod word;

pub use crate::budget::Budget;
pub use ast::{
    Command, HereDoc, ParseError, ParseErrorKind, Pipeline, RedirOp, Redirect, Script,
    SimpleCommand, Span, Word,
};
use parser::Parser;

/// Deepest nesting of substitutions, subshells and nested shell strings.
pub const MAX_DEPTH: usize = 48;

/// Parses a whole command string, with a budget of its own.
pub fn parse(src: &str) -> Result<Script, ParseError> {
    parse_in(src, 0, None, 0, &mut Budget::for_input(src.len()))
}

/// Parses `src`, which sits at `base` in the original string, or whose spans are all
/// `fixed` when it is a decoded string (backticks, `bash -c "…"` with escapes), with a
/// budget of its own.
pub fn parse_nested(
    src: &str,
    base: usize,
    fixed: Option<Span>,
    depth: usize,
) -> Result<Script, ParseError> {
    parse_in(src, base, fixed, depth, &mut Budget::for_input(src.len()))
}

/// [`parse_nested`] spending from `budget`, which a caller shares across the parses of
/// one classification (the command and the scripts nested in it).
pub fn parse_in(
    src: &str,
    base: usize,
    fixed: Option<Span>,
    depth: usize,
    budget: &mut Budget,
) -> Result<Script, ParseError> {
    // Line continuations go first, as in bash; spans map back through `map`.
    let cleaned = crate::continuation::remove(src);
    let (text, map) = match &cleaned {
        Some((text, map)) => (text.as_str(), map.as_slice()),
        None => (src, &[][..]),
    };
    let mut p = Parser {
        s: text.as_bytes(),
        src: text,
        map,
        pos: 0,
        base,
        fixed,
        depth,
        pending: Vec::new(),
        bodies: Vec::new(),
        open_if: 0,
        open_do: 0,
        comsub: 0,
        budget: std::mem::take(budget),
    };
    let r = p.parse_all();
    *budget = p.budget;
    r
}

/// Every simple command of a script in source order, descending into compound commands
/// and function bodies (not into substitutions: those are in the words' `subs`).
pub fn simple_commands(script: &Script) -> Vec<&SimpleCommand> {
    let mut out = Vec::new();
    for pl in &script.pipelines {
        for c in &pl.stages {
            collect_simple(c, &mut out);
        }
    }
    out
}

fn collect_simple<'s>(c: &'s Command, out: &mut Vec<&'s SimpleCommand>) {
    match c {
        Command::Simple(sc) => out.push(sc),
        Command::Compound { body, .. } => {
            for pl in &body.pipelines {
                for c in &pl.stages {
                    collect_simple(c, out);
                }
            }
        }
        Command::Function { body, .. } => collect_simple(body, out),
        Command::Arith { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Vec<String>> {
        let s = parse(src).unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
        simple_commands(&s)
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_commands_and_unquotes() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("ls -la", &[&["ls", "-la"]]),
            ("r''m -rf /", &[&["rm", "-rf", "/"]]),
            ("\"rm\" x", &[&["rm", "x"]]),
            ("\\rm x", &[&["rm", "x"]]),
            (
                "a && b || c; d & e | f |& g",
                &[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"], &["g"]],
            ),
            ("(a; b) && { c; }", &[&["a"], &["b"], &["c"]]),
            (
                "if a; then b; elif c; then d; else e; fi",
                &[&["a"], &["b"], &["c"], &["d"], &["e"]],
            ),
            ("for x in 1 2; do echo $x; done", &[&["echo", "$x"]]),
            ("while true; do ls; done", &[&["true"], &["ls"]]),
            (
                "case $x in a) rm a;; b|c) ls;; esac",
                &[&["rm", "a"], &["ls"]],
            ),
            ("echo $'\\x72m'", &[&["echo", "rm"]]),
            ("ls # rm -rf /", &[&["ls"]]),
            ("X=1 Y=2 ls", &[&["ls"]]),
            ("f() { rm x; }; f", &[&["rm", "x"], &["f"]]),
            ("echo a\\\nb", &[&["echo", "ab"]]),
        ];
        for (src, want) in cases {
            let want: Vec<Vec<String>> = want
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect();
            assert_eq!(words(src), want, "{src:?}");
        }
    }

    #[test]
    fn finds_substitutions_and_heredocs() {
        let s = parse("echo $(sudo id) `whoami` <(curl x)").unwrap();
        let sc = simple_commands(&s)[0];
        assert_eq!(sc.words[1].subs.len(), 1);
        assert_eq!(sc.words[2].subs.len(), 1);
        assert_eq!(sc.words[3].subs.len(), 1);
        let s = parse("bash <<EOF\nrm -rf ~\nEOF\nls").unwrap();
        let cmds = simple_commands(&s);
        assert_eq!(cmds.len(), 2);
        let doc = cmds[0].redirects[0].heredoc.as_ref().unwrap();
        assert_eq!(doc.body, "rm -rf ~\n");
        assert_eq!(
            &"bash <<EOF\nrm -rf ~\nEOF\nls"[doc.start..doc.start + 8],
            "rm -rf ~"
        );
    }

    #[test]
    fn spans_point_into_the_source() {
        let src = "git status && sudo reboot";
        let s = parse(src).unwrap();
        let cmds = simple_commands(&s);
        let w = &cmds[1].words[0];
        assert_eq!(&src[w.span[0]..w.span[1]], "sudo");
    }

    #[test]
    fn braces_expand() {
        let s = parse("{rm,-rf,/}").unwrap();
        let w = &simple_commands(&s)[0].words[0];
        assert_eq!(
            w.braces.as_deref(),
            Some(&["rm".to_string(), "-rf".to_string(), "/".to_string()][..])
        );
        let s = parse("echo '{a,b}'").unwrap();
        assert_eq!(simple_commands(&s)[0].words[1].braces, None);
    }

    #[test]
    fn brace_sequences_expand_as_bash_does() {
        let items = |src: &str| {
            let s = parse(&format!("echo {src}")).unwrap();
            simple_commands(&s)[0].words[1].braces.clone()
        };
        let v = |xs: &[&str]| Some(xs.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(items(".e{n..n}v"), v(&[".env"]));
        assert_eq!(items("{1..3}"), v(&["1", "2", "3"]));
        assert_eq!(items("{3..1}"), v(&["3", "2", "1"]));
        assert_eq!(items("{01..03}"), v(&["01", "02", "03"]));
        assert_eq!(items("{-1..1}"), v(&["-1", "0", "1"]));
        assert_eq!(items("{a..e..2}"), v(&["a", "c", "e"]));
        assert_eq!(items("{1..10..4}"), v(&["1", "5", "9"]));
        assert_eq!(items("{1..2..9223372036854775807}"), v(&["1"]));
        assert_eq!(items("x{a,b}{1..2}"), v(&["xa1", "xa2", "xb1", "xb2"]));
        // Not a sequence: literal braces.
        assert_eq!(items("{x..yz}"), None);
        assert_eq!(items("{1..b}"), None);
        // Too long a sequence: a dynamic word, not its literal text.
        let s = parse("cat {1..1000}").unwrap();
        let w = &simple_commands(&s)[0].words[1];
        assert!(w.braces.is_none() && w.dynamic);
    }

    #[test]
    fn errors() {
        for src in [
            "echo \"a",
            "grep 'x",
            "echo $(ls",
            "echo `ls",
            "(ls",
            "ls )",
            "echo ${x",
        ] {
            assert!(parse(src).is_err(), "{src:?}");
        }
        let deep = "$(".repeat(10_000);
        assert!(parse(&deep).is_err());
    }
}
