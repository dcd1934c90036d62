//! The approval panel's domain state as plain data: what a poll changes, how often to
//! poll, the time left on a prompt, a person's decisions on a multi-call prompt, and
//! which key is a shortcut. No signals, no DOM: the components wire these to signals,
//! and the tests below run natively.

use toolgate_core::{RunStatus, Tier};

/// Poll period while some run is running or awaiting permission (ms).
pub const ACTIVE_POLL_MS: u64 = 3_000;
/// Poll period when every run is finished or there is none (ms).
pub const IDLE_POLL_MS: u64 = 5_000;
/// A prompt ignores shortcut keys for this long after it appears (ms): no type-ahead
/// approvals from keys meant for something else.
pub const KEY_GRACE_MS: f64 = 500.0;

/// One pending tool call of a parked run, as the prompt shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallView {
    pub tool_call_id: String,
    pub tool: String,
    /// The arguments as text (pretty JSON); rendered as text, never as HTML.
    pub args_text: String,
    /// The shell command, for a shell tool: what `span` points into.
    pub command: Option<String>,
    /// A shell call's other arguments (`cwd`, a timeout) as pretty JSON, if any.
    pub rest_text: Option<String>,
    /// A decision must carry this (it binds the decision to these exact args).
    pub anchor: String,
    pub tier: Tier,
    pub rule: String,
    pub reason: String,
    /// Byte range of `command` that decided the verdict.
    pub span: Option<[usize; 2]>,
    /// Every deciding part's byte range in `command` (the marker's `spans`).
    pub spans: Vec<[usize; 2]>,
    /// "Always allow" scopes (rule strings), narrowest first; empty: not offered.
    pub scopes: Vec<String>,
    /// What each scope would match, in words (shown before it is given).
    pub scope_matches: Vec<String>,
}

impl CallView {
    /// A question for the person (its `reason` is the question): answered or declined,
    /// never approved.
    pub fn is_question(&self) -> bool {
        self.rule == toolgate_core::QUESTION_RULE
    }
}

/// A run as the panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunView {
    pub run_id: String,
    pub status: RunStatus,
    pub revision: u64,
    pub updated_at: u64,
    pub last_error: Option<String>,
    /// Set when the run was cancelled because its permission request expired.
    pub expired_at: Option<u64>,
    /// The marker's deadline, while it awaits permission.
    pub expires_at: Option<u64>,
    /// The pending calls: the marker's while awaiting; kept from the last marker seen
    /// when the request expired (so the prompt can say "expired").
    pub calls: Vec<CallView>,
    /// The agent that asked (a server's `parkedBy`), when the source says.
    pub parked_by: Option<String>,
}

impl RunView {
    /// Shows a prompt: parked, or expired with the calls it had.
    pub fn has_prompt(&self) -> bool {
        !self.calls.is_empty()
            && (self.status == RunStatus::AwaitingPermission || self.expired_at.is_some())
    }

    /// The prompt's identity: a new marker (new revision) is a new prompt.
    pub fn prompt_key(&self) -> (String, u64) {
        (self.run_id.clone(), self.revision)
    }

    /// Status in words for the run list.
    pub fn status_text(&self) -> String {
        match (self.status, self.expired_at) {
            (RunStatus::Cancelled, Some(_)) => "expired (cancelled; nothing ran)".to_string(),
            (RunStatus::AwaitingPermission, _) => "awaiting permission".to_string(),
            (status, _) => status.as_str().to_string(),
        }
    }
}

/// Merges a poll into the current runs. `None` when the poll brings nothing new (the
/// caller then leaves its signals, and so the DOM, alone). A run whose request
/// expired keeps the calls of the marker it had, so its prompt can say "expired".
pub fn apply_poll(current: &[RunView], mut fresh: Vec<RunView>) -> Option<Vec<RunView>> {
    for run in &mut fresh {
        if run.expired_at.is_some() && run.calls.is_empty() {
            if let Some(old) = current.iter().find(|o| o.run_id == run.run_id) {
                run.calls = old.calls.clone();
                run.expires_at = old.expires_at.or(run.expired_at);
            }
        }
    }
    if fresh == current {
        None
    } else {
        Some(fresh)
    }
}

/// How often to poll given the runs: 3 s while anything is active, else 5 s.
pub fn poll_period(runs: &[RunView]) -> u64 {
    if runs.iter().any(|r| !r.status.is_terminal()) {
        ACTIVE_POLL_MS
    } else {
        IDLE_POLL_MS
    }
}

/// The time left on a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeLeft {
    /// Still open; the text says how long (coarse when far away, so the page does
    /// not change every second for a request due tomorrow).
    Left(String),
    /// The deadline passed: nobody said no, yet it will not run.
    Expired,
}

impl TimeLeft {
    pub fn at(now: u64, expires_at: u64) -> TimeLeft {
        if now >= expires_at {
            return TimeLeft::Expired;
        }
        let s = (expires_at - now).div_ceil(1000);
        TimeLeft::Left(if s >= 3600 {
            format!("{} h {:02} min left", s / 3600, (s % 3600) / 60)
        } else if s >= 600 {
            format!("{} min left", s.div_ceil(60))
        } else {
            format!("{}:{:02} left", s / 60, s % 60)
        })
    }

    pub fn is_expired(&self) -> bool {
        matches!(self, TimeLeft::Expired)
    }

    pub fn text(&self) -> String {
        match self {
            TimeLeft::Left(t) => t.clone(),
            TimeLeft::Expired => "expired — not run".to_string(),
        }
    }
}

/// How long an "always allow" lasts: the choices the prompt offers (ms, words); the
/// second is the default.
pub const GRANT_TTLS: [(u64, &str); 4] = [
    (15 * 60_000, "15 minutes"),
    (3_600_000, "1 hour"),
    (8 * 3_600_000, "8 hours"),
    (24 * 3_600_000, "1 day"),
];

/// An "always allow" as the person chose it: one of the call's scopes, how long it
/// lasts (none: as long as the host keeps it), and whether it serves only the next
/// call it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Always {
    pub scope: String,
    pub ttl_ms: Option<u64>,
    pub single_use: bool,
}

/// A person's decision on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    AllowOnce,
    /// Allow, and keep this scope for the session as a grant (for a time, maybe once).
    AllowAlways(Always),
    /// Deny, with an optional message for the agent.
    Deny(String),
    /// Allow once the person's edit of the arguments (their JSON text, an object),
    /// which the source classifies again (an edit its policy denies is refused).
    AllowEdited(String),
    /// The person's answer to a question.
    Answer(String),
}

impl Decision {
    pub fn label(&self) -> String {
        match self {
            Decision::AllowOnce => "approved once".to_string(),
            Decision::AllowAlways(a) => {
                let ttl = GRANT_TTLS
                    .iter()
                    .find(|(ms, _)| Some(*ms) == a.ttl_ms)
                    .map_or(String::new(), |(_, w)| format!(" for {w}"));
                let once = if a.single_use { ", next call only" } else { "" };
                format!("always allowed: {}{ttl}{once}", a.scope)
            }
            Decision::AllowEdited(_) => "approved as edited".to_string(),
            Decision::Answer(a) => format!("answered: {}", a.trim()),
            Decision::Deny(m) if m.trim().is_empty() => "denied".to_string(),
            Decision::Deny(m) => format!("denied: {}", m.trim()),
        }
    }
}

/// The decisions taken so far on one prompt (one marker). A marker resumes with one
/// decision per call, so the calls are decided one by one and sent together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Draft {
    /// By call id, in order, each id once (a few calls per prompt: a sorted `Vec`, not a
    /// B-tree map, whose code is ~2 KB of the element's gzipped WebAssembly).
    decided: Vec<(String, Decision)>,
}

impl Draft {
    fn at(&self, tool_call_id: &str) -> Result<usize, usize> {
        self.decided
            .binary_search_by(|(id, _)| id.as_str().cmp(tool_call_id))
    }

    pub fn decide(&mut self, tool_call_id: &str, decision: Decision) {
        match self.at(tool_call_id) {
            Ok(i) => {
                if let Some(slot) = self.decided.get_mut(i) {
                    slot.1 = decision;
                }
            }
            Err(i) => self.decided.insert(i, (tool_call_id.to_string(), decision)),
        }
    }

    pub fn undo(&mut self, tool_call_id: &str) {
        if let Ok(i) = self.at(tool_call_id) {
            self.decided.remove(i);
        }
    }

    pub fn get(&self, tool_call_id: &str) -> Option<&Decision> {
        let i = self.at(tool_call_id).ok()?;
        self.decided.get(i).map(|(_, d)| d)
    }

    /// Every call's decision in marker order, once each call has one.
    pub fn complete(&self, calls: &[CallView]) -> Option<Vec<(CallView, Decision)>> {
        calls
            .iter()
            .map(|c| self.get(&c.tool_call_id).map(|d| (c.clone(), d.clone())))
            .collect()
    }

    /// The first call still undecided that a key may decide (shortcuts act on it): a
    /// question is answered in words, so keys pass it by.
    pub fn next_open<'a>(&self, calls: &'a [CallView]) -> Option<&'a CallView> {
        calls
            .iter()
            .find(|c| !c.is_question() && self.get(&c.tool_call_id).is_none())
    }
}

/// A keyboard shortcut of the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// `a`: approve once.
    ApproveOnce,
    /// `s`: open Always allow… (what each scope matches; nothing is given by the key).
    AlwaysAllow,
    /// `d`: deny (with the message typed, if any).
    Deny,
}

/// What the key handler knows about a key press.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyPress<'a> {
    pub key: &'a str,
    /// Ctrl, Alt or Meta held (browser / OS shortcuts are not ours).
    pub modifier: bool,
    /// Auto-repeat of a held key.
    pub repeat: bool,
    /// Focus is in a text field (input, textarea, select, contenteditable).
    pub typing: bool,
    /// Milliseconds since the prompt appeared.
    pub since_shown_ms: f64,
}

/// The shortcut a key press means, if any. Never while typing, never with a modifier
/// or auto-repeat, never in the first [`KEY_GRACE_MS`] after the prompt appeared.
pub fn shortcut(k: KeyPress<'_>) -> Option<Shortcut> {
    if k.typing || k.modifier || k.repeat || k.since_shown_ms < KEY_GRACE_MS {
        return None;
    }
    match k.key {
        "a" => Some(Shortcut::ApproveOnce),
        "s" => Some(Shortcut::AlwaysAllow),
        "d" => Some(Shortcut::Deny),
        _ => None,
    }
}

/// Splits `command` into its pieces in order, each marked when it is one of `spans`
/// (the deciding parts); a span that is empty, out of range, off a character boundary
/// or overlapping an earlier one is left unmarked. The pieces join to the command.
pub fn segments<'a>(command: &'a str, spans: &[[usize; 2]]) -> Vec<(&'a str, bool)> {
    let usable: Vec<[usize; 2]> = spans
        .iter()
        .copied()
        .filter(|&[a, b]| {
            a < b
                && b <= command.len()
                && command.is_char_boundary(a)
                && command.is_char_boundary(b)
        })
        .collect();
    // In order of start, then end: through the core's one sort (a sort of spans would
    // be ~1.6 KB of the gzipped WebAssembly), by keys that order as the numbers do.
    let usable =
        toolgate_core::store::sort_by_text(usable, |[a, b]| format!("{a:020}{b:020}"), false);
    let mut out = Vec::new();
    let mut at = 0;
    for [a, b] in usable {
        if a < at {
            continue;
        }
        if a > at {
            out.push((&command[at..a], false));
        }
        out.push((&command[a..b], true));
        at = b;
    }
    if at < command.len() || out.is_empty() {
        out.push((&command[at..], false));
    }
    out
}

/// Characters that change what text looks like without being seen: bidirectional
/// controls (which can show `rm -rf /` reversed or reordered) and zero-width or
/// invisible characters (which hide a difference between two look-alike words).
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` with each invisible character ([`is_invisible`]) written as a visible escape
/// `\u{202E}`, so a person sees every character that runs.
pub fn visible(text: &str) -> String {
    if !text.chars().any(is_invisible) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_invisible(c) {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The arguments a person's edit stands for, as JSON text (an object): for a shell
/// call, `args` (the call's, as JSON text) with its command replaced by `text`; for any
/// other call, `text` itself, which must be a JSON object. `Err`: why not.
pub fn edited_args(args: &str, command: Option<&str>, text: &str) -> Result<String, String> {
    let value: serde_json::Value = match command {
        Some(command) => {
            if text.trim().is_empty() {
                return Err("the command is empty".into());
            }
            let mut args: serde_json::Value = toolgate_core::json_text::parse(args)
                .map_err(|e| format!("the call's arguments: {e}"))?;
            let Some(slot) = args
                .as_object_mut()
                .and_then(|o| o.values_mut().find(|v| v.as_str() == Some(command)))
            else {
                return Err("the command is not one of the call's arguments".into());
            };
            *slot = serde_json::Value::String(text.to_string());
            args
        }
        None => toolgate_core::json_text::parse(text).map_err(|e| format!("not JSON: {e}"))?,
    };
    if !value.is_object() {
        return Err("the arguments must be a JSON object".into());
    }
    Ok(toolgate_core::json_text::WriteJson::to_json(&value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> CallView {
        CallView {
            tool_call_id: id.to_string(),
            tool: "bash".to_string(),
            args_text: "{}".to_string(),
            command: Some("git push".to_string()),
            anchor: format!("anchor-{id}"),
            tier: Tier::Ask,
            rule: "user.ask[0]".to_string(),
            reason: "asks".to_string(),
            span: Some([0, 8]),
            spans: vec![[0, 8]],
            rest_text: None,
            scopes: vec!["Bash(git push)".to_string()],
            scope_matches: vec!["exactly the command `git push`".to_string()],
        }
    }

    fn run(id: &str, status: RunStatus, revision: u64, calls: Vec<CallView>) -> RunView {
        RunView {
            run_id: id.to_string(),
            status,
            revision,
            updated_at: 1,
            last_error: None,
            expired_at: None,
            expires_at: Some(10_000),
            calls,
            parked_by: None,
        }
    }

    #[test]
    fn invisible_characters_become_visible_escapes() {
        let rlo = "echo ok \u{202E}fr- mr\u{202C} # \u{200B}x";
        assert_eq!(
            visible(rlo),
            "echo ok \\u{202E}fr- mr\\u{202C} # \\u{200B}x"
        );
        assert!(!rlo.chars().all(|c| !is_invisible(c)));
        assert_eq!(visible("plain é ü 日本"), "plain é ü 日本");
        for c in ['\u{2066}', '\u{2069}', '\u{FEFF}', '\u{E0041}', '\u{061C}'] {
            assert!(visible(&c.to_string()).starts_with("\\u{"), "{c:?}");
        }
    }

    #[test]
    fn unchanged_poll_changes_nothing() {
        let runs = vec![run(
            "r-1",
            RunStatus::AwaitingPermission,
            2,
            vec![call("c1")],
        )];
        assert_eq!(apply_poll(&runs, runs.clone()), None);
        assert_eq!(apply_poll(&[], Vec::new()), None);
        let moved = vec![run("r-1", RunStatus::Running, 3, Vec::new())];
        assert_eq!(apply_poll(&runs, moved.clone()), Some(moved));
    }

    #[test]
    fn expired_run_keeps_its_calls() {
        let before = vec![run(
            "r-1",
            RunStatus::AwaitingPermission,
            2,
            vec![call("c1")],
        )];
        let mut expired = run("r-1", RunStatus::Cancelled, 3, Vec::new());
        expired.expired_at = Some(10_000);
        expired.expires_at = None;
        let got = apply_poll(&before, vec![expired.clone()]);
        let mut want = expired;
        want.calls = vec![call("c1")];
        want.expires_at = Some(10_000);
        assert_eq!(got, Some(vec![want.clone()]));
        assert!(want.has_prompt());
        assert_eq!(want.status_text(), "expired (cancelled; nothing ran)");
        // The next identical poll (calls empty again) is still "nothing new".
        let mut again = run("r-1", RunStatus::Cancelled, 3, Vec::new());
        again.expired_at = Some(10_000);
        again.expires_at = None;
        assert_eq!(apply_poll(&[want], vec![again]), None);
    }

    #[test]
    fn poll_period_table() {
        let cases: [(&[RunStatus], u64); 5] = [
            (&[], IDLE_POLL_MS),
            (&[RunStatus::Completed, RunStatus::Failed], IDLE_POLL_MS),
            (&[RunStatus::Completed, RunStatus::Running], ACTIVE_POLL_MS),
            (&[RunStatus::AwaitingPermission], ACTIVE_POLL_MS),
            (&[RunStatus::Cancelled], IDLE_POLL_MS),
        ];
        for (statuses, want) in cases {
            let runs: Vec<RunView> = statuses.iter().map(|s| run("r", *s, 1, vec![])).collect();
            assert_eq!(poll_period(&runs), want, "{statuses:?}");
        }
    }

    #[test]
    fn time_left_table() {
        let cases = [
            (0, 1, "0:01 left"),
            (0, 59_001, "1:00 left"),
            (0, 599_000, "9:59 left"),
            (0, 600_000, "10 min left"),
            (0, 3_600_000, "1 h 00 min left"),
            (0, 86_400_000, "24 h 00 min left"),
            (5, 5, "expired — not run"),
            (6, 5, "expired — not run"),
        ];
        for (now, exp, want) in cases {
            assert_eq!(
                TimeLeft::at(now, exp).text(),
                want,
                "now={now} expires={exp}"
            );
        }
        assert!(TimeLeft::at(10, 10).is_expired());
        assert!(!TimeLeft::at(9, 10).is_expired());
    }

    #[test]
    fn draft_completes_when_every_call_is_decided() {
        let mut question = call("q0");
        question.rule = toolgate_core::QUESTION_RULE.to_string();
        let d = Draft::default();
        let asked = [question, call("c1")];
        assert_eq!(
            d.next_open(&asked),
            Some(&asked[1]),
            "keys pass a question by"
        );
        let calls = vec![call("c1"), call("c2")];
        let mut d = Draft::default();
        assert_eq!(d.next_open(&calls), Some(&calls[0]));
        d.decide("c1", Decision::AllowOnce);
        assert_eq!(d.complete(&calls), None);
        assert_eq!(d.next_open(&calls), Some(&calls[1]));
        d.decide("c2", Decision::Deny("no".into()));
        assert_eq!(
            d.complete(&calls),
            Some(vec![
                (calls[0].clone(), Decision::AllowOnce),
                (calls[1].clone(), Decision::Deny("no".into()))
            ])
        );
        d.undo("c1");
        assert_eq!(d.complete(&calls), None);
        // Decided out of order, one call decided again: the last decision counts,
        // undoing one leaves the other.
        let mut d = Draft::default();
        d.decide("c2", Decision::AllowOnce);
        d.decide("c1", Decision::Deny("no".into()));
        d.decide("c1", Decision::AllowOnce);
        assert_eq!(d.get("c1"), Some(&Decision::AllowOnce));
        assert_eq!(d.get("c3"), None);
        assert_eq!(
            d.complete(&calls),
            Some(vec![
                (calls[0].clone(), Decision::AllowOnce),
                (calls[1].clone(), Decision::AllowOnce)
            ])
        );
        d.undo("c2");
        d.undo("c9");
        assert_eq!(d.get("c1"), Some(&Decision::AllowOnce));
        assert_eq!(d.get("c2"), None);
    }

    #[test]
    fn shortcut_table() {
        let base = KeyPress {
            key: "a",
            modifier: false,
            repeat: false,
            typing: false,
            since_shown_ms: 1_000.0,
        };
        let cases = [
            (base, Some(Shortcut::ApproveOnce)),
            (KeyPress { key: "s", ..base }, Some(Shortcut::AlwaysAllow)),
            (KeyPress { key: "d", ..base }, Some(Shortcut::Deny)),
            (
                KeyPress {
                    key: "Enter",
                    ..base
                },
                None,
            ),
            (KeyPress { key: "A", ..base }, None),
            (
                KeyPress {
                    typing: true,
                    ..base
                },
                None,
            ),
            (
                KeyPress {
                    modifier: true,
                    ..base
                },
                None,
            ),
            (
                KeyPress {
                    repeat: true,
                    ..base
                },
                None,
            ),
            (
                KeyPress {
                    since_shown_ms: 499.0,
                    ..base
                },
                None,
            ),
            (
                KeyPress {
                    since_shown_ms: 500.0,
                    ..base
                },
                Some(Shortcut::ApproveOnce),
            ),
        ];
        for (press, want) in cases {
            assert_eq!(shortcut(press), want, "{press:?}");
        }
    }

    #[test]
    fn segments_table() {
        type Case<'a> = (&'a str, Vec<[usize; 2]>, Vec<(&'a str, bool)>);
        let cases: [Case; 10] = [
            (
                "abcdef",
                vec![[0, 4], [0, 2]],
                vec![("ab", true), ("cdef", false)],
            ),
            (
                "0123456789abc",
                vec![[11, 12], [2, 3], [10, 11]],
                vec![
                    ("01", false),
                    ("2", true),
                    ("3456789", false),
                    ("a", true),
                    ("b", true),
                    ("c", false),
                ],
            ),
            (
                "git push x",
                vec![[0, 8]],
                vec![("git push", true), (" x", false)],
            ),
            (
                "a && rm -rf /",
                vec![[5, 13]],
                vec![("a && ", false), ("rm -rf /", true)],
            ),
            (
                "git push; npm publish",
                vec![[10, 21], [0, 8]],
                vec![("git push", true), ("; ", false), ("npm publish", true)],
            ),
            ("ls", vec![], vec![("ls", false)]),
            ("ls", vec![[0, 9]], vec![("ls", false)]),
            ("ls", vec![[2, 1]], vec![("ls", false)]),
            ("é x", vec![[1, 3]], vec![("é x", false)]),
            (
                "abcdef",
                vec![[0, 4], [2, 6]],
                vec![("abcd", true), ("ef", false)],
            ),
        ];
        for (cmd, spans, want) in cases {
            assert_eq!(segments(cmd, &spans), want, "{cmd:?} {spans:?}");
            let joined: String = segments(cmd, &spans).iter().map(|s| s.0).collect();
            assert_eq!(joined, cmd);
        }
    }

    #[test]
    fn an_edit_replaces_the_command_or_is_a_json_object() {
        let args = r#"{"command": "rm -rf build", "description": "clean"}"#;
        assert_eq!(
            edited_args(args, Some("rm -rf build"), "rm -rf build/cache").unwrap(),
            r#"{"command":"rm -rf build/cache","description":"clean"}"#
        );
        assert!(edited_args(args, Some("rm -rf build"), "  ").is_err());
        assert!(edited_args(args, Some("not there"), "ls").is_err());
        assert_eq!(
            edited_args("{}", None, r#"{"path": "a.txt"}"#).unwrap(),
            r#"{"path":"a.txt"}"#
        );
        assert!(edited_args("{}", None, "[1]").is_err());
        assert!(edited_args("{}", None, "{").is_err());
    }
}
