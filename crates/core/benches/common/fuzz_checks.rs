//! What every fuzz target checks, one function per target, shared by the targets in
//! `fuzz/fuzz_targets/` and by the test that replays `fuzz/regressions/`
//! (`crates/core/tests/fuzz_regressions.rs`), both including this file by path.

use toolgate_core::budget::Budget;
use toolgate_core::builtin::{analyze_with, Env};
use toolgate_core::marker::AnyHistory;
use toolgate_core::{Error, Marker, Policy, Run, Tier, ToolCall};

fn policy() -> Policy {
    Policy::defaults("/home/dev/app", "/home/dev")
}

/// A shell command: the walk ends within its work budget (spending all of it would
/// mean some path is not linear), the verdict is the strictest of its parts, spans fit,
/// and a command with a `too-complex` part is never `auto`.
pub fn shell(cmd: &str) {
    let env = Env {
        workspace: "/home/dev/app",
        home: "/home/dev",
        default: Tier::Ask,
        edits: Tier::Auto,
        facts: None,
        needs: None,
        trees: false,
        want_norm: true,
    };
    let mut budget = Budget::for_input(cmd.len());
    let parts = analyze_with(cmd, &env, &mut budget);
    assert!(!parts.is_empty());
    assert!(
        !budget.is_exhausted(),
        "the work budget ran out ({} steps for {} bytes): some path is not linear",
        budget.spent(),
        cmd.len()
    );
    let v = policy().classify(&ToolCall::new(
        "bash",
        serde_json::json!({ "command": cmd }),
    ));
    // The npm package's JavaScript reads the verdict's fields (`write_fields`) into the
    // object `write_json`'s text is, whatever the parts' texts hold.
    let (mut fields, mut json) = (String::new(), String::new());
    v.write_fields(&mut fields);
    v.write_json(&mut json);
    assert_eq!(
        toolgate_core::verdict::fields_to_json(&fields, false),
        Some(json),
        "the fields of {v:?}"
    );
    // The verdict stays linear in the command: the parts' texts hold at most four times
    // the command and 4 KiB in full, then an 80-byte excerpt each.
    let text: usize = v.parts.iter().map(|p| p.text.len()).sum();
    assert!(
        text <= cmd.len() * 4 + 4096 + v.parts.len() * (80 + '…'.len_utf8()),
        "{} parts hold {text} bytes of text for a {}-byte command",
        v.parts.len(),
        cmd.len()
    );
    for p in &v.parts {
        assert!(p.tier <= v.tier, "part {p:?} stricter than verdict {v:?}");
        if let Some([a, b]) = p.span {
            assert!(
                a <= b && b <= cmd.len(),
                "span {a}..{b} outside {}",
                cmd.len()
            );
        }
    }
    if v.parts
        .iter()
        .any(|p| p.rule == "builtin.shell.too-complex")
    {
        assert_ne!(v.tier, Tier::Auto, "{v:?}");
    }
    // For a host that runs calls contained, `sandbox` only ever replaces an `ask`, part
    // by part; nothing else moves.
    let host = policy().with_sandbox_host(true).classify(&ToolCall::new(
        "bash",
        serde_json::json!({ "command": cmd }),
    ));
    assert!(
        host.tier == v.tier || (v.tier == Tier::Ask && host.tier == Tier::Sandbox),
        "{v:?} became {host:?}"
    );
    assert_eq!(host.parts.len(), v.parts.len());
    for (a, b) in v.parts.iter().zip(&host.parts) {
        if b.tier == Tier::Sandbox {
            assert_eq!(a.tier, Tier::Ask, "{a:?} became {b:?}");
        } else {
            assert_eq!((a.tier, &a.rule), (b.tier, &b.rule), "{a:?} became {b:?}");
        }
    }
}

/// Any text as the path of a read or edit call and as the URL of a fetch call: a
/// verdict, and an edit under `/etc/` stays `deny` whatever the spelling.
pub fn args(text: &str) {
    let policy = policy();
    for (tool, key) in [("read", "path"), ("edit", "file_path"), ("webfetch", "url")] {
        let v = policy.classify(&ToolCall::new(tool, serde_json::json!({ key: text })));
        assert!(!v.rule.is_empty());
        let plain = !text.contains("..") && !text.contains('\0') && text.len() < 1000;
        if tool == "edit" && text.starts_with("/etc/") && plain {
            assert_eq!(v.tier, Tier::Deny, "{text:?}: {v:?}");
        }
    }
    // Redaction's structure shows in short texts; long ones only slow the smoke run.
    if text.len() <= 512 {
        redaction(text);
    }
    std_equivalents(text);
}

/// The pieces written out in place of std's (for the WebAssembly's size) answer as
/// std's do on any text: the IPv6 parser, and the byte searches with needles cut from
/// the text itself (so that matches and near misses happen).
pub fn std_equivalents(text: &str) {
    use toolgate_core::needle::{self, HasChar};
    assert_eq!(
        toolgate_core::url::parse_ipv6(text),
        text.parse::<std::net::Ipv6Addr>().ok(),
        "{text:?}"
    );
    // The searches are a byte loop times the needle: long texts only slow the run.
    if text.len() > 1024 {
        return;
    }
    let cuts: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .take(6)
        .chain(
            text.char_indices()
                .map(|(i, _)| i)
                .skip(text.chars().count().saturating_sub(3)),
        )
        .chain([text.len()])
        .collect();
    for &a in &cuts {
        for &b in &cuts {
            let Some(n) = text.get(a..b) else { continue };
            assert_eq!(needle::find(text, n), text.find(n), "{text:?} {n:?}");
            assert_eq!(needle::rfind(text, n), text.rfind(n), "{text:?} {n:?}");
            assert_eq!(
                needle::split_once(text, n),
                text.split_once(n),
                "{text:?} {n:?}"
            );
            assert_eq!(
                needle::rsplit_once(text, n),
                text.rsplit_once(n),
                "{text:?} {n:?}"
            );
            assert_eq!(
                needle::trim_start_matches(text, n),
                text.trim_start_matches(n)
            );
            assert_eq!(needle::trim_end_matches(text, n), text.trim_end_matches(n));
            if !n.is_empty() {
                assert_eq!(needle::replace(text, n, "<>"), text.replace(n, "<>"));
                assert!(needle::split(text, n).eq(text.split(n)), "{text:?} {n:?}");
                assert!(
                    needle::match_indices(text, n).eq(text.match_indices(n).map(|(i, _)| i)),
                    "{text:?} {n:?}"
                );
            }
        }
    }
    for c in text.chars().take(8) {
        assert_eq!(text.has_char(c), text.contains(c), "{text:?} {c:?}");
    }
}

/// What may leave for a webhook: redacting any text and summarizing it as a command,
/// a path or a URL never panics; the redaction of a redaction is itself (nothing is
/// left to find), and a `KEY=secret` or a bearer credential appended never survives
/// (unless the text held that secret already).
pub fn redaction(text: &str) {
    use toolgate_core::redact;
    let once = redact::text(text);
    assert_eq!(redact::text(&once), once, "{text:?}");
    for key in ["command", "file_path", "url"] {
        let _ = redact::summary(&serde_json::json!({ key: text }));
    }
    let secret = "Zq7xR2mW9kLp4vT8";
    if text.contains(secret) {
        // The text holds it already, somewhere redaction has no reason to look.
        return;
    }
    for probe in [
        format!("{text} API_TOKEN={secret}"),
        format!("{text}\ncurl -H 'Authorization: Bearer {secret}' x"),
    ] {
        let out = redact::text(&probe);
        assert!(!out.contains(secret), "{probe:?} → {out:?}");
    }
}

/// Any text as a policy file compiles or gives an error naming a line; a compiled
/// policy classifies.
pub fn policy_toml(text: &str) {
    let read = Policy::from_toml(text);
    match &read {
        Ok(p) => {
            // The core's own TOML reader never reads a file a general one refuses.
            assert!(
                basic_toml::from_str::<serde_json::Value>(text).is_ok(),
                "a policy the reference TOML reader refuses: {text:?}"
            );
            let call = ToolCall::new("bash", serde_json::json!({ "command": "ls; rm -rf x" }));
            let verdict = p.classify(&call);
            // The npm package's path: the policy reader's spec, taken back by the Gate's
            // module, is the same policy (the same spec, the same verdict).
            let spec = p.to_spec();
            let back = Policy::from_spec(&spec)
                .unwrap_or_else(|e| panic!("a spec that does not read back: {spec}: {e}"));
            assert_eq!(back.to_spec(), spec);
            assert_eq!(back.classify(&call), verdict);
        }
        Err(Error::Policy { line, .. }) => assert!(*line >= 1),
        Err(other) => panic!("policy errors must name a line: {other:?}"),
    }
    // And the reader's answer (as `read_toml` writes it) gives what `from_toml` gave,
    // errors too.
    let answer = match &read {
        Ok(p) => Ok(p.to_spec()),
        Err(_) => toolgate_core::policy::read_toml(text),
    };
    let got = Policy::from_answer(answer.as_deref().map_err(String::as_str));
    match (read, got) {
        (Ok(want), Ok(got)) => assert_eq!(got.to_spec(), want.to_spec()),
        (Err(want), Err(got)) => assert_eq!(got, want),
        (want, got) => panic!("the reader's answer differs: {want:?} {got:?}"),
    }
}

/// Any text as a stored marker or run record decodes to a value or an error; whatever
/// decodes re-encodes to something that decodes the same.
pub fn marker(text: &str) {
    json(text);
    if let Ok(marker) = Marker::decode(text) {
        if let Ok(again) = marker.encode() {
            assert_eq!(Marker::decode(&again).ok(), Some(marker));
        }
    }
    if let Ok(run) = Run::decode(text, &AnyHistory) {
        if let Ok(again) = run.encode() {
            assert_eq!(Run::decode(&again, &AnyHistory).ok(), Some(run));
        }
    }
    resume_request(text);
}

/// The JSON reader every stored record and every JavaScript input goes through
/// (`json_text::parse`) reads any text as serde_json does: the same value, or the same
/// error text.
pub fn json(text: &str) {
    use toolgate_core::json_text::{parse, WriteJson};
    match (parse(text), serde_json::from_str::<serde_json::Value>(text)) {
        (Ok(ours), Ok(theirs)) => {
            assert_eq!(ours, theirs);
            assert_eq!(ours.to_json(), theirs.to_json());
        }
        (Err(ours), Err(theirs)) => assert_eq!(ours.to_string(), theirs.to_string()),
        (ours, theirs) => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
    }
}

/// The same text as a resume request (`{"decisions": […]}`) for a parked `rm -rf build`,
/// call `c1` (an anchor `"A"` stands for the parked call's): whatever it decides, with
/// edits or without, an approved call is the parked one or an edit of it that the
/// policy does not deny, and the run resumes at most once.
fn resume_request(text: &str) {
    use std::rc::Rc;
    use toolgate_core::wire::ResumeRequest;
    use toolgate_core::{EditCheck, MemoryStore, Park, ParkCall, Runs};
    let Ok(request) = serde_json::from_str::<ResumeRequest>(text) else {
        return;
    };
    let Ok(mut decisions) = request.into_decisions() else {
        return;
    };
    let parked = ToolCall::new("bash", serde_json::json!({ "command": "rm -rf build" }));
    for d in &mut decisions {
        if d.anchor == "A" {
            d.anchor = parked.anchor();
        }
    }
    let p = policy();
    let edits: EditCheck = Rc::new(move |c: &ToolCall| p.classify(c));
    let runs = Runs::new(MemoryStore::new()).with_edit_check(Some(edits));
    let park = Park {
        run_id: "r".into(),
        session_id: "s".into(),
        owner: "o".into(),
        calls: vec![ParkCall {
            tool_call_id: "c1".into(),
            verdict: policy().classify(&parked),
            call: parked.clone(),
        }],
        history: String::new(),
        ttl_ms: None,
        parked_by: None,
    };
    let parked_ok = runs.park(park, 1).is_ok();
    assert!(parked_ok, "the parked call is `ask`");
    let Ok(resumed) = runs.resume("r", "o", &decisions, 2) else {
        return;
    };
    for r in resumed.results.iter().filter(|r| r.outcome.is_approved()) {
        let v = policy().classify(&ToolCall::new(r.tool.clone(), r.args.clone()));
        assert!(v.tier != Tier::Deny, "approved a denied call: {}", r.args);
        if r.edited_from.is_none() {
            assert_eq!(r.args, parked.args, "an edit that does not say so");
        }
    }
    assert!(runs.resume("r", "o", &decisions, 3).is_err());
}

/// Any text as a `sed` script: reading it never panics; a script that only reads and
/// prints also passes as an edit script (`-i`); one `w` command more makes it write;
/// and `sed -n -e 'SCRIPT' notes.txt` is `auto` exactly when the script only reads.
pub fn sed(script: &str) {
    use toolgate_core::sed::{edits_only, reads_only, NotReadOnly};
    let read = reads_only(script);
    let edit = edits_only(script);
    if read.is_ok() {
        assert_eq!(
            edit,
            Ok(()),
            "{script:?} reads only, yet as an edit script: {edit:?}"
        );
        let more = format!("{script}\nw out.txt");
        assert!(
            matches!(reads_only(&more), Err(NotReadOnly::Effect(_))),
            "{more:?}: {:?}",
            reads_only(&more)
        );
    }
    if script.contains('\0') {
        return; // bash cannot hold a NUL in a command
    }
    let quoted = script.replace('\'', "'\\''");
    let cmd = format!("sed -n -e '{quoted}' notes.txt");
    let v = policy().classify(&ToolCall::new(
        "bash",
        serde_json::json!({ "command": cmd }),
    ));
    assert_eq!(
        v.tier == Tier::Auto,
        read.is_ok(),
        "{cmd:?}: {} {} ({read:?})",
        v.tier,
        v.rule
    );
}

/// A command built from the program tables: the checks of [`shell`], and a verdict
/// whose rule id is a built-in one (no policy rules here).
pub fn table_command(cmd: &str) {
    shell(cmd);
    let v = policy().classify(&ToolCall::new(
        "bash",
        serde_json::json!({ "command": cmd }),
    ));
    assert!(
        toolgate_core::rule_id::RuleId::parse(&v.rule).is_some(),
        "unknown rule id {} for {cmd:?}",
        v.rule
    );
}
