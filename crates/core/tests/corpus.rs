//! Labeled corpora: `tests/corpus/own.jsonl` (always) and `../shared/corpus/public.jsonl`,
//! `reach.jsonl` and `edits.jsonl` (when present; `TOOLGATE_PUBLIC_CORPUS` overrides the
//! public path), classified with the
//! built-in policy, workspace `/home/dev/app`, home `/home/dev`.
//!
//! Each line is `{"tool":…,"args":…,"expect":"auto|ask|deny","rule":"short-id"?,"note":…}`.
//! Three lists are reported, every entry with its file, line, call, expectation and
//! what came back:
//! - tier mismatches (fail; the ones weaker than expected come first, marked WEAKER);
//! - rule-id mismatches: the verdict's `rule` must end with the short id. Enforced for
//!   the hard-deny ids ([`ENFORCED_RULE_IDS`]), reported only for the rest — unless
//!   `TOOLGATE_CORPUS_STRICT_RULES=1`;
//! - `classify` vs `classify_value` disagreements (fail): the two entry points must
//!   give the same verdict for a well-formed call;
//! - bad spans (fail): every span of a shell verdict and of its parts must be a byte
//!   range of the command on char boundaries (the UI and `toolgate explain` mark it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use toolgate_core::{Policy, Tier, ToolCall, Verdict};

const WORKSPACE: &str = "/home/dev/app";
const HOME: &str = "/home/dev";

/// The hard-deny ids of DESIGN §1: the verdict's rule must end with these.
const ENFORCED_RULE_IDS: &[&str] = &[
    "priv-esc",
    "rm-root",
    "find-delete-root",
    "disk",
    "fork-bomb",
    "power",
    "chmod-root",
    "system-write",
    "pipe-to-shell",
    "encoded-exec",
];

/// Every program of DESIGN §1's read-only allowlist: the own corpus must cover each.
const ALLOWLIST: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "echo", "printf", "pwd",
    "whoami", "id", "date", "uname", "hostname", "which", "type", "file", "stat", "du", "df",
    "tree", "sort", "uniq", "cut", "tr", "nl", "diff", "cmp", "comm", "basename", "dirname",
    "realpath", "readlink", "true", "false", "test", "[", "seq", "jq", "cd", "find", "git",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn policy() -> Policy {
    Policy::defaults(WORKSPACE, HOME)
}

struct Case {
    line: usize,
    /// The line without the label keys: what the classifier sees.
    call: Value,
    expect: Tier,
    rule: Option<String>,
    note: String,
}

/// Reads a corpus; a line that is not a labeled case is a broken corpus, not a
/// classifier failure, and panics with its line.
fn load(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read corpus {}: {e}", path.display()));
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}:{n}: not JSON: {e}", path.display()));
        let Value::Object(mut map) = value else {
            panic!("{}:{n}: not a JSON object", path.display());
        };
        let expect = map
            .remove("expect")
            .and_then(|v| v.as_str().and_then(Tier::parse))
            .unwrap_or_else(|| panic!("{}:{n}: missing or bad \"expect\"", path.display()));
        let rule = map
            .remove("rule")
            .and_then(|v| v.as_str().map(str::to_string));
        let note = map
            .remove("note")
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        cases.push(Case {
            line: n,
            call: Value::Object(map),
            expect,
            rule,
            note,
        });
    }
    cases
}

#[derive(Default)]
struct Report {
    cases: usize,
    tier_mismatches: Vec<(bool, String)>,
    /// Confusion counts of the tier mismatches: (expected, got) → n.
    confusion: BTreeMap<(Tier, Tier), usize>,
    rule_enforced: Vec<String>,
    rule_info: Vec<String>,
    entry_points: Vec<String>,
    bad_spans: Vec<String>,
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 300 {
        let cut: String = s.chars().take(300).collect();
        format!("{cut}… ({} bytes)", s.len())
    } else {
        s
    }
}

fn describe(name: &str, c: &Case, v: &Verdict) -> String {
    format!(
        "{name}:{}: expected {}{}, got {} — rule {} — reason {:?}\n      call: {}\n      note: {}",
        c.line,
        c.expect,
        c.rule
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default(),
        v.tier,
        v.rule,
        v.reason,
        short(&c.call),
        c.note
    )
}

fn check(name: &str, cases: &[Case], strict_rules: bool) -> Report {
    let policy = policy();
    let mut r = Report {
        cases: cases.len(),
        ..Report::default()
    };
    for c in cases {
        let v = policy.classify_value(&c.call);
        if v.tier != c.expect {
            let weaker = v.tier < c.expect;
            let mark = if weaker { "WEAKER " } else { "" };
            r.tier_mismatches
                .push((weaker, format!("{mark}{}", describe(name, c, &v))));
            *r.confusion.entry((c.expect, v.tier)).or_default() += 1;
        } else if let Some(id) = &c.rule {
            if !v.rule.ends_with(id.as_str()) {
                let msg = format!("rule should end with `{id}`: {}", describe(name, c, &v));
                if strict_rules || ENFORCED_RULE_IDS.contains(&id.as_str()) {
                    r.rule_enforced.push(msg);
                } else {
                    r.rule_info.push(msg);
                }
            }
        }
        if let Some(command) = shell_command(&c.call) {
            let fits = |s: Option<[usize; 2]>| {
                s.is_none_or(|[a, b]| a <= b && command.get(a..b).is_some())
            };
            let bad: Vec<Option<[usize; 2]>> = std::iter::once(v.span)
                .chain(v.parts.iter().map(|p| p.span))
                .filter(|s| !fits(*s))
                .collect();
            if !bad.is_empty() {
                r.bad_spans.push(format!(
                    "{name}:{}: spans {bad:?} do not fit the {}-byte command {}",
                    c.line,
                    command.len(),
                    short(&c.call)
                ));
            }
        }
        if let Ok(call) = serde_json::from_value::<ToolCall>(c.call.clone()) {
            let direct = policy.classify(&call);
            if (direct.tier, &direct.rule) != (v.tier, &v.rule) {
                r.entry_points.push(format!(
                    "{name}:{}: classify gave {} ({}), classify_value gave {} ({}) for {}",
                    c.line,
                    direct.tier,
                    direct.rule,
                    v.tier,
                    v.rule,
                    short(&c.call)
                ));
            }
        }
    }
    r.tier_mismatches.sort_by_key(|(weaker, _)| !weaker);
    r
}

/// The command of a shell-family call, when it is a string.
fn shell_command(call: &Value) -> Option<&str> {
    let tool = call.get("tool")?.as_str()?;
    let shell = ["bash", "shell", "sh", "terminal", "exec"]
        .iter()
        .any(|t| t.eq_ignore_ascii_case(tool));
    if !shell {
        return None;
    }
    call.get("args")?.get("command")?.as_str()
}

/// Prints the report (visible with `--nocapture` or on failure) and fails the test if
/// any enforced list is non-empty.
fn report(name: &str, r: &Report, strict: bool) {
    let mut s = String::new();
    let ok = r.cases - r.tier_mismatches.len();
    let weaker = r.tier_mismatches.iter().filter(|(w, _)| *w).count();
    let confusion: Vec<String> = r
        .confusion
        .iter()
        .map(|((e, g), n)| format!("{e}→{g} {n}"))
        .collect();
    let _ = writeln!(
        s,
        "{name}: {} cases, {ok} tiers right ({:.1} %), {} tier mismatches ({weaker} weaker than expected{}{}), \
         {} rule-id mismatches enforced, {} reported only{}, {} entry-point disagreements, {} bad spans",
        r.cases,
        100.0 * ok as f64 / r.cases.max(1) as f64,
        r.tier_mismatches.len(),
        if confusion.is_empty() { "" } else { "; " },
        confusion.join(", "),
        r.rule_enforced.len(),
        r.rule_info.len(),
        if strict { " (strict)" } else { "" },
        r.entry_points.len(),
        r.bad_spans.len(),
    );
    let sections: [(&str, Vec<&String>); 5] = [
        (
            "TIER MISMATCHES",
            r.tier_mismatches.iter().map(|(_, m)| m).collect(),
        ),
        (
            "RULE-ID MISMATCHES (enforced)",
            r.rule_enforced.iter().collect(),
        ),
        (
            "CLASSIFY vs CLASSIFY_VALUE",
            r.entry_points.iter().collect(),
        ),
        ("BAD SPANS", r.bad_spans.iter().collect()),
        (
            "RULE-ID MISMATCHES (reported only; TOOLGATE_CORPUS_STRICT_RULES=1 enforces)",
            r.rule_info.iter().collect(),
        ),
    ];
    for (title, items) in sections {
        if !items.is_empty() {
            let _ = writeln!(s, "\n== {name}: {title} ({}) ==", items.len());
            for m in items {
                let _ = writeln!(s, "  {m}");
            }
        }
    }
    eprintln!("{s}");
    let failed = !r.tier_mismatches.is_empty()
        || !r.rule_enforced.is_empty()
        || !r.entry_points.is_empty()
        || !r.bad_spans.is_empty();
    assert!(
        !failed,
        "{name}: corpus failures (full report above)\n{}",
        s.lines().next().unwrap_or("")
    );
}

fn strict_rules() -> bool {
    std::env::var("TOOLGATE_CORPUS_STRICT_RULES").is_ok_and(|v| v == "1")
}

#[test]
fn own_corpus() {
    let path = root().join("tests/corpus/own.jsonl");
    let cases = load(&path);
    let strict = strict_rules();
    report("own.jsonl", &check("own.jsonl", &cases, strict), strict);
}

#[test]
fn public_corpus() {
    let path = std::env::var_os("TOOLGATE_PUBLIC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus/public.jsonl"));
    if !path.exists() {
        eprintln!("public corpus not found at {}: skipped", path.display());
        return;
    }
    let cases = load(&path);
    let strict = strict_rules();
    report(
        "public.jsonl",
        &check("public.jsonl", &cases, strict),
        strict,
    );
}

/// A corpus beside `public.jsonl` in `../shared/corpus/`, skipped when absent (a clone
/// without the shared folder).
fn shared(name: &str) -> Option<PathBuf> {
    let path = root().join("../shared/corpus").join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("{name} not found at {}: skipped", path.display());
        None
    }
}

/// What a read can reach: recursive reads, globs that can become options or match
/// secret files.
#[test]
fn reach_corpus() {
    let Some(path) = shared("reach.jsonl") else {
        return;
    };
    let cases = load(&path);
    let strict = strict_rules();
    report("reach.jsonl", &check("reach.jsonl", &cases, strict), strict);
}

/// Edits by shell commands and edit tools: writes inside the workspace that are edits,
/// read-only `sed` and text tools, protected paths, and the look-alikes that must ask.
#[test]
fn edits_corpus() {
    let Some(path) = shared("edits.jsonl") else {
        return;
    };
    let cases = load(&path);
    let strict = strict_rules();
    report("edits.jsonl", &check("edits.jsonl", &cases, strict), strict);
}

/// Other guards' blocked cases (`peers/`): none may be `auto`. `cc-safety-net-blocked`
/// lists commands (`command`); `dcg` lists calls with that tool's verdict (`dcg`), of
/// which only its `deny` cases count.
#[test]
fn peers_blocked_never_auto() {
    let Some(dir) = shared("peers") else {
        return;
    };
    let policy = policy();
    let mut checked = 0;
    let mut auto = Vec::new();
    for file in ["cc-safety-net-blocked.jsonl", "dcg.jsonl"] {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{file}:{}: not JSON: {e}", i + 1));
            let call = match (v.get("command"), v.get("dcg")) {
                (Some(Value::String(c)), _) => {
                    serde_json::json!({"tool": "bash", "args": {"command": c}})
                }
                (_, Some(Value::String(d))) if d == "deny" => {
                    serde_json::json!({"tool": v["tool"], "args": v["args"]})
                }
                (_, Some(_)) => continue,
                _ => panic!("{file}:{}: neither a command nor a dcg verdict", i + 1),
            };
            let verdict = policy.classify_value(&call);
            checked += 1;
            if verdict.tier == Tier::Auto {
                auto.push(format!("{file}:{}: {}", i + 1, short(&call)));
            }
        }
    }
    eprintln!("peers: {checked} blocked cases, {} auto", auto.len());
    assert!(checked >= 400, "only {checked} peer cases read");
    assert!(
        auto.is_empty(),
        "blocked by a peer, auto here:\n{}",
        auto.join("\n")
    );
}

/// The own corpus covers what DESIGN §1 lists: every hard-deny id, every allowlisted
/// program, every tool family, each tier. (A check of the corpus, not the classifier.)
#[test]
fn own_corpus_covers_the_spec() {
    let cases = load(&root().join("tests/corpus/own.jsonl"));
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let mut missing = Vec::new();
    for id in ENFORCED_RULE_IDS {
        if !cases
            .iter()
            .any(|c| c.rule.as_deref() == Some(id) && c.expect == Tier::Deny)
        {
            missing.push(format!("hard-deny id {id}"));
        }
    }
    let programs: Vec<String> = cases
        .iter()
        .filter(|c| c.expect == Tier::Auto)
        .filter_map(|c| {
            c.call
                .get("args")?
                .get("command")?
                .as_str()
                .map(str::to_string)
        })
        .collect();
    for prog in ALLOWLIST {
        let used = programs.iter().any(|cmd| {
            cmd.split(|ch: char| ch.is_whitespace() || ";|&(){}`".contains(ch))
                .any(|w| w == *prog || w.rsplit('/').next() == Some(prog))
        });
        if !used {
            missing.push(format!("auto case for allowlisted `{prog}`"));
        }
    }
    for tool in [
        "bash",
        "read",
        "edit",
        "webfetch",
        "fetch",
        "http_get",
        "create",
        "str_replace",
        "view",
    ] {
        if !cases.iter().any(|c| {
            c.call
                .get("tool")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case(tool))
        }) {
            missing.push(format!("tool {tool}"));
        }
    }
    for expect in [Tier::Auto, Tier::Ask, Tier::Deny] {
        if !cases.iter().any(|c| c.expect == expect) {
            missing.push(format!("a case expecting {expect}"));
        }
    }
    assert!(missing.is_empty(), "own corpus lacks: {missing:#?}");
    // Label keys only; the rest is the call.
    for c in &cases {
        let extra: Vec<&String> = c
            .call
            .as_object()
            .map(Map::keys)
            .into_iter()
            .flatten()
            .filter(|k| !["tool", "args"].contains(&k.as_str()))
            .collect();
        assert!(
            extra.is_empty(),
            "own.jsonl:{}: unexpected keys {extra:?}",
            c.line
        );
        assert!(
            !c.note.is_empty(),
            "own.jsonl:{}: a case needs a note",
            c.line
        );
    }
}

/// The `sandbox` verdict only ever replaces an `ask`: classified for a host that runs
/// such calls contained, every labeled case (own, public, reach, edits) and every peer
/// case keeps its tier or goes from `ask` to `sandbox`; never from `auto`, never from
/// `deny`, never to anything else. Nothing the corpora label `deny` is sandboxed.
#[test]
fn sandbox_only_replaces_ask() {
    let plain = policy();
    let host = policy().with_sandbox_host(true);
    let mut calls: Vec<(String, Value)> = Vec::new();
    let mut files = vec![root().join("tests/corpus/own.jsonl")];
    files.extend(
        ["public.jsonl", "reach.jsonl", "edits.jsonl"]
            .iter()
            .filter_map(|f| shared(f)),
    );
    for path in &files {
        for c in load(path) {
            calls.push((format!("{}:{}", path.display(), c.line), c.call));
        }
    }
    if let Some(dir) = shared("peers") {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let call = match (v.get("command"), v.get("tool")) {
                    (Some(Value::String(c)), _) => {
                        serde_json::json!({"tool": "bash", "args": {"command": c}})
                    }
                    (_, Some(_)) => serde_json::json!({"tool": v["tool"], "args": v["args"]}),
                    _ => continue,
                };
                calls.push((format!("{}:{}", path.display(), i + 1), call));
            }
        }
    }
    let (mut sandboxed, mut asks) = (0, 0);
    let mut wrong = Vec::new();
    for (at, call) in &calls {
        let (a, b) = (plain.classify_value(call), host.classify_value(call));
        asks += usize::from(a.tier == Tier::Ask);
        if a.tier == b.tier && (a.tier != Tier::Ask || a.rule == b.rule) {
            continue;
        }
        if a.tier == Tier::Ask && b.tier == Tier::Sandbox && b.rule == "builtin.sandbox" {
            sandboxed += 1;
            continue;
        }
        if a.tier == Tier::Ask && b.tier == Tier::Ask {
            continue;
        }
        wrong.push(format!(
            "{at}: {} ({}) became {} ({}): {}",
            a.tier,
            a.rule,
            b.tier,
            b.rule,
            short(call)
        ));
    }
    eprintln!(
        "sandbox host: {} calls, {asks} ask, {sandboxed} of them sandbox",
        calls.len()
    );
    assert!(calls.len() > 500, "only {} calls read", calls.len());
    assert!(sandboxed > 0, "nothing was sandboxed");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The policy can turn it off.
    let off = Policy::from_toml(
        "workspace = \"/home/dev/app\"\nhome = \"/home/dev\"\nsandbox = \"off\"\n",
    )
    .unwrap()
    .with_sandbox_host(true);
    for (at, call) in &calls {
        assert_eq!(off.classify_value(call), plain.classify_value(call), "{at}");
    }
}

/// A program that runs code beside another reason to ask at the same tier (a write
/// outside the workspace, a secret read through `<`): the program's finding decides, as
/// in builds without the sandbox verdict (the browser's), and for a host that contains
/// calls the command still asks, saying what the sandbox cannot serve.
#[test]
fn the_first_reason_decides_and_the_other_withholds_the_sandbox() {
    let plain = policy();
    let host = policy().with_sandbox_host(true);
    let bash = |c: &str| ToolCall::new("bash", serde_json::json!({ "command": c }));
    let alone = plain.classify(&bash("python3 t.py"));
    for (cmd, why) in [
        ("python3 t.py > ~/x", "writes to a file: ~/x"),
        ("python3 t.py < .env", "reads a secret file: .env"),
        ("./run.sh 2> ~/log", "writes to a file: ~/log"),
    ] {
        let a = plain.classify(&bash(cmd));
        assert_eq!(a.tier, Tier::Ask, "{cmd}");
        if cmd.starts_with("python3") {
            assert_eq!(a.rule, alone.rule, "{cmd}: {a:?}");
        }
        let b = host.classify(&bash(cmd));
        assert_eq!((b.tier, &b.rule), (Tier::Ask, &a.rule), "{cmd}: {b:?}");
        assert!(
            b.reason.starts_with(a.reason.as_ref())
                && b.reason
                    .ends_with(&format!("; not run in the sandbox: {why}")),
            "{cmd}: {:?}",
            b.reason
        );
    }
}
