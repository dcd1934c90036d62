//! `toolgate explain`: a verdict in words — the tier, the deciding rule and reason,
//! every part of a shell command, and the deciding span marked `^^^` under the
//! command. The command is untrusted text: control characters are shown escaped,
//! never sent to the terminal, and long commands are shown around the span.

use crate::error::CliError;
use crate::load::{FsFlags, PolicyOpts};
use serde_json::Value;
use std::fmt::Write as _;
use toolgate_core::{Family, Policy, ToolCall, Verdict};

/// Lines of a long command shown around the span (and at most this many from the top
/// when there is no span).
const CONTEXT_LINES: usize = 2;
const MAX_LINES_NO_SPAN: usize = 12;
/// Characters of a long line shown around the span.
const MAX_COLUMNS: usize = 160;
const PART_TEXT_MAX: usize = 100;

/// `toolgate explain`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub policy: PolicyOpts,
    #[command(flatten)]
    pub fs: FsFlags,
    #[command(flatten)]
    pub sandbox: crate::load::SandboxFlag,
    /// A whole tool call as JSON ({"tool":…,"args":…}) instead of a shell command
    #[arg(long, value_name = "JSON")]
    pub call: Option<String>,
    /// The shell command, quoted as one argument
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl ExplainArgs {
    /// What to explain: the one COMMAND or the --call JSON, or a usage error.
    pub fn input(&self) -> Result<ExplainInput, CliError> {
        let usage = |m: String| CliError::Usage(m);
        match (&self.call, self.command.as_slice()) {
            (Some(json), []) => Ok(ExplainInput::Call(json.clone())),
            (Some(_), _) => Err(usage(
                "explain: give COMMAND or --call JSON, not both".into(),
            )),
            (None, [one]) => Ok(ExplainInput::Command(one.clone())),
            (None, []) => Err(usage("explain: missing COMMAND (or --call JSON)".into())),
            (None, more) => Err(usage(format!(
                "explain: expected one COMMAND, got {} words: quote the command, e.g. \
                 toolgate explain 'rm -rf build'",
                more.len()
            ))),
        }
    }
}

/// What `explain` explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExplainInput {
    /// A shell command, classified as `{"tool":"bash","args":{"command":…}}`.
    Command(String),
    /// A whole tool call as JSON.
    Call(String),
}

/// Classifies `input` and renders the explanation.
pub fn explain(policy: &Policy, input: &ExplainInput, fs: bool) -> Result<String, CliError> {
    match input {
        ExplainInput::Command(command) => {
            let call = ToolCall::new("bash", serde_json::json!({ "command": command }));
            let verdict = toolgate_fs::classify(policy, &call, fs);
            Ok(render(&verdict, &Shown::Command(command)))
        }
        ExplainInput::Call(json) => {
            let value: Value = serde_json::from_str(json)
                .map_err(|e| CliError::Usage(format!("--call: invalid JSON: {e}")))?;
            let verdict = toolgate_fs::classify_value(policy, &value, fs);
            let tool = value.get("tool").and_then(Value::as_str);
            let command = value
                .get("args")
                .and_then(|a| a.get("command"))
                .and_then(Value::as_str);
            let shown = match (tool, command) {
                (Some(t), Some(c)) if Family::of(t) == Family::Shell => Shown::Command(c),
                _ => Shown::Call(&value),
            };
            Ok(render(&verdict, &shown))
        }
    }
}

/// What the explanation shows of the input.
enum Shown<'a> {
    Command(&'a str),
    Call(&'a Value),
}

fn render(v: &Verdict, shown: &Shown) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "verdict: {}", v.tier);
    let _ = writeln!(s, "rule:    {}", v.rule);
    let _ = writeln!(s, "reason:  {}", one_line(&v.reason, usize::MAX));
    s.push('\n');
    match shown {
        Shown::Command(command) => {
            s.push_str("command:\n");
            s.push_str(&mark_span(command, v.span));
            match v.span {
                Some([a, b]) if valid_span(command, [a, b]) => {
                    let _ = writeln!(s, "  (deciding span: bytes {a}..{b})");
                }
                Some([a, b]) => {
                    let _ = writeln!(s, "  (span {a}..{b} does not fit the command; not marked)");
                }
                None => s.push_str("  (no deciding span)\n"),
            }
        }
        Shown::Call(value) => {
            let _ = writeln!(s, "call:\n  {}", one_line(&value.to_string(), 400));
        }
    }
    if !v.parts.is_empty() {
        let _ = writeln!(s, "\nparts ({}, the strictest decides):", v.parts.len());
        for (i, p) in v.parts.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:>2}. {:<4}  {}",
                i + 1,
                p.tier.as_str(),
                one_line(p.text.trim(), PART_TEXT_MAX)
            );
            let _ = writeln!(
                s,
                "            {}: {}",
                p.rule,
                one_line(&p.reason, usize::MAX)
            );
        }
    }
    s
}

fn valid_span(command: &str, [a, b]: [usize; 2]) -> bool {
    a <= b && command.get(a..b).is_some()
}

/// One display cell of the command: how a source char is shown, and whether it is
/// inside the span.
struct Cell {
    shown: String,
    marked: bool,
    tab: bool,
}

/// The command, line by line (numbered when there are several), with a caret line
/// under each line the span touches. Columns are chars, so non-ASCII text lines up.
fn mark_span(command: &str, span: Option<[usize; 2]>) -> String {
    let span = span.filter(|s| valid_span(command, *s));
    // Byte ranges of the lines, without their '\n'.
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (i, _) in command.match_indices('\n') {
        lines.push((start, i));
        start = i + 1;
    }
    // The empty "line" after a final newline is shown only if the span is on it.
    if start < command.len() || lines.is_empty() || span.is_some_and(|[a, _]| a == command.len()) {
        lines.push((start, command.len()));
    }

    // A line is touched when the span overlaps its text, or starts on it and runs
    // past its end (covering only the newline), or is empty and sits on it.
    let touches = |(ls, le): (usize, usize)| match span {
        Some([a, b]) => a.max(ls) < b.min(le) || (a >= ls && a <= le && (a == b || b > le)),
        None => false,
    };
    let first = lines.iter().position(|l| touches(*l));
    let last = lines.iter().rposition(|l| touches(*l));
    let (from, to) = match (first, last) {
        (Some(f), Some(l)) => (
            f.saturating_sub(CONTEXT_LINES),
            (l + CONTEXT_LINES).min(lines.len() - 1),
        ),
        _ => (0, lines.len().min(MAX_LINES_NO_SPAN) - 1),
    };
    let numbered = lines.len() > 1;
    let width = lines.len().to_string().len();

    let mut out = String::new();
    if from > 0 {
        let _ = writeln!(out, "  … {from} line(s) above");
    }
    for (n, &(ls, le)) in lines.iter().enumerate().take(to + 1).skip(from) {
        let cells = cells(command, ls, le, span);
        let (text, carets) = window(&cells);
        let gutter = if numbered {
            format!("  {:>width$} | ", n + 1)
        } else {
            "  ".to_string()
        };
        let _ = writeln!(out, "{gutter}{text}");
        if !carets.trim().is_empty() {
            let pad = if numbered {
                format!("  {:>width$} | ", "")
            } else {
                "  ".to_string()
            };
            let _ = writeln!(out, "{pad}{}", carets.trim_end());
        }
    }
    if to + 1 < lines.len() {
        let _ = writeln!(out, "  … {} line(s) below", lines.len() - to - 1);
    }
    out
}

fn cells(command: &str, ls: usize, le: usize, span: Option<[usize; 2]>) -> Vec<Cell> {
    let line = command.get(ls..le).unwrap_or("");
    let mut cells: Vec<Cell> = line
        .char_indices()
        .map(|(i, c)| {
            let at = ls + i;
            let marked = match span {
                Some([a, b]) => at >= a && at < b,
                None => false,
            };
            Cell {
                shown: show_char(c),
                marked,
                tab: c == '\t',
            }
        })
        .collect();
    // An empty span, or one that covers only the line's end, still gets a caret.
    if let Some([a, b]) = span {
        let covers_end = (a == b && a == le) || (a <= le && b > le);
        if covers_end && !cells.iter().any(|c| c.marked) {
            cells.push(Cell {
                shown: String::new(),
                marked: true,
                tab: false,
            });
        }
    }
    cells
}

/// The line text and its caret line, cut to [`MAX_COLUMNS`] chars around the span.
fn window(cells: &[Cell]) -> (String, String) {
    let width = |c: &Cell| c.shown.chars().count().max(usize::from(c.marked));
    let total: usize = cells.iter().map(width).sum();
    let (mut lo, mut hi) = (0, cells.len());
    if total > MAX_COLUMNS {
        let anchor = cells.iter().position(|c| c.marked).unwrap_or(0);
        lo = anchor.saturating_sub(MAX_COLUMNS / 4);
        let mut used = 0;
        hi = lo;
        while hi < cells.len() && used + width(&cells[hi]) <= MAX_COLUMNS {
            used += width(&cells[hi]);
            hi += 1;
        }
    }
    let mut text = String::new();
    let mut carets = String::new();
    if lo > 0 {
        text.push('…');
        carets.push(' ');
    }
    for c in &cells[lo..hi] {
        text.push_str(&c.shown);
        let w = width(c);
        if c.marked {
            carets.push_str(&"^".repeat(w));
        } else if c.tab {
            carets.push('\t');
        } else {
            carets.push_str(&" ".repeat(w));
        }
    }
    if hi < cells.len() {
        text.push('…');
    }
    (text, carets)
}

/// A char as shown on a terminal: control characters escaped (`\x1b`, `\r`).
fn show_char(c: char) -> String {
    match c {
        '\t' => "\t".to_string(),
        '\r' => "\\r".to_string(),
        c if c.is_control() => c.escape_unicode().to_string(),
        c => c.to_string(),
    }
}

/// Text on one line: newlines as `⏎`, control characters escaped, cut at `max` chars.
pub fn one_line(text: &str, max: usize) -> String {
    let mut s = String::new();
    for (n, c) in text.chars().enumerate() {
        if n >= max {
            s.push('…');
            break;
        }
        match c {
            '\n' => s.push('⏎'),
            '\t' => s.push(' '),
            c => s.push_str(&show_char(c)),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_span_by_chars_on_its_line() {
        let cases: Vec<(&str, Option<[usize; 2]>, &str)> = vec![
            (
                "git status && sudo rm -rf /tmp/x",
                Some([14, 18]),
                "  git status && sudo rm -rf /tmp/x\n                ^^^^\n",
            ),
            // Non-ASCII before the span: 'é' is two bytes but one column.
            (
                "echo é; sudo x",
                Some([9, 13]),
                "  echo é; sudo x\n          ^^^^\n",
            ),
            (
                "ls\nsudo id\npwd",
                Some([3, 7]),
                "  1 | ls\n  2 | sudo id\n    | ^^^^\n  3 | pwd\n",
            ),
            // Tabs are copied into the caret line so the carets line up.
            ("\tsudo", Some([1, 5]), "  \tsudo\n  \t^^^^\n"),
            // A control character is shown escaped and never reaches the terminal raw.
            (
                "echo \u{1b}[2J; rm",
                Some([11, 13]),
                "  echo \\u{1b}[2J; rm\n                  ^^\n",
            ),
            // An empty span at the end still gets a caret.
            ("echo \"x", Some([7, 7]), "  echo \"x\n         ^\n"),
            // No span or a span that does not fit: the command, unmarked.
            ("ls", None, "  ls\n"),
            ("ls", Some([1, 9]), "  ls\n"),
            ("é", Some([1, 2]), "  é\n"),
        ];
        for (cmd, span, want) in cases {
            assert_eq!(mark_span(cmd, span), want, "command {cmd:?} span {span:?}");
        }
    }

    #[test]
    fn renders_verdict_parts_and_span() {
        use toolgate_core::{Part, Tier};
        let command = "git status && sudo rm -rf /tmp/x";
        let part = |tier, text: &str, rule: &str, reason: &str, span| Part {
            tier,
            text: text.to_string(),
            rule: rule.to_string().into(),
            reason: reason.to_string().into(),
            span,
        };
        let verdict = Verdict {
            tier: Tier::Deny,
            rule: "builtin.shell.priv-esc".into(),
            reason: "privilege escalation: sudo".into(),
            span: Some([14, 18]),
            parts: vec![
                part(
                    Tier::Auto,
                    "git status",
                    "builtin.shell.readonly",
                    "read-only: git status",
                    Some([0, 10]),
                ),
                part(
                    Tier::Deny,
                    "sudo rm -rf /tmp/x",
                    "builtin.shell.priv-esc",
                    "privilege escalation: sudo",
                    Some([14, 32]),
                ),
            ],
        };
        let want = "\
verdict: deny
rule:    builtin.shell.priv-esc
reason:  privilege escalation: sudo

command:
  git status && sudo rm -rf /tmp/x
                ^^^^
  (deciding span: bytes 14..18)

parts (2, the strictest decides):
   1. auto  git status
            builtin.shell.readonly: read-only: git status
   2. deny  sudo rm -rf /tmp/x
            builtin.shell.priv-esc: privilege escalation: sudo
";
        assert_eq!(render(&verdict, &Shown::Command(command)), want);
    }

    #[test]
    fn long_commands_are_shown_around_the_span() {
        let mut cmd = "ls\n".repeat(50);
        let at = cmd.len();
        cmd.push_str("sudo id\n");
        cmd.push_str(&"ls\n".repeat(50));
        let shown = mark_span(&cmd, Some([at, at + 4]));
        assert!(shown.starts_with("  … 48 line(s) above\n"), "{shown}");
        assert!(shown.contains("   51 | sudo id\n      | ^^^^\n"), "{shown}");
        assert!(shown.ends_with("  … 48 line(s) below\n"), "{shown}");
        assert!(
            mark_span("ls\n", None) == "  ls\n",
            "a final newline adds no line"
        );

        let long = format!("{}sudo{}", "a".repeat(1000), "b".repeat(1000));
        let shown = mark_span(&long, Some([1000, 1004]));
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 2, "{shown}");
        assert!(lines[0].chars().count() <= MAX_COLUMNS + 4, "{shown}");
        let caret_col = lines[1].find('^').unwrap();
        let sudo_col = lines[0].chars().position(|c| c == 's').unwrap();
        assert_eq!(caret_col, sudo_col, "{shown}");
    }
}
