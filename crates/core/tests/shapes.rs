//! The host tool shapes (`toolgate_core::shapes::SHAPES`), table-driven: every entry
//! has a harmless call (`auto`), a dangerous one (`deny`) where its kind can do harm
//! the policy refuses, and a malformed one (`ask`, naming the argument it expected).
//! An entry without examples fails `every_shape_has_examples`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use toolgate_core::shapes::{argv_command, patch_paths, SHAPES};
use toolgate_core::{Policy, Tier, ToolCall};

const WS: &str = "/home/dev/app";

fn policy() -> Policy {
    Policy::defaults(WS, "/home/dev")
}

/// (tool, args, expected tier, a word the reason must hold): `tests/corpus/agents.jsonl`,
/// calls in each host's own shapes (the npm package's parity test walks the same file
/// through the package and the CLI: `web/e2e/parity.test.mjs`).
fn examples() -> Vec<(String, Value, Tier, String)> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/agents.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let tier = match v["expect"].as_str().unwrap() {
                "auto" => Tier::Auto,
                "ask" => Tier::Ask,
                "deny" => Tier::Deny,
                other => panic!("agents.jsonl: expect `{other}`"),
            };
            let tool = v["tool"].as_str().unwrap().to_string();
            let says = v["says"].as_str().unwrap().to_string();
            (tool, v["args"].clone(), tier, says)
        })
        .collect()
}

#[test]
fn every_example_classifies_as_expected() {
    let p = policy();
    let mut wrong = Vec::new();
    for (tool, args, want, says) in examples() {
        let v = p.classify(&ToolCall::new(tool.as_str(), args.clone()));
        if v.tier != want || !(v.reason.contains(says.as_str()) || v.rule.contains(says.as_str())) {
            wrong.push(format!(
                "{tool} {args}: want {want:?} with `{says}`, got {:?} {} — {}",
                v.tier, v.rule, v.reason
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_shape_has_examples() {
    let names: Vec<String> = examples()
        .iter()
        .map(|(t, ..)| {
            let t = t.to_ascii_lowercase();
            t.strip_prefix("mcp__filesystem__")
                .map(str::to_string)
                .unwrap_or(t)
        })
        .collect();
    for (name, _) in SHAPES {
        let n = names.iter().filter(|x| x == name).count();
        assert!(n >= 2, "shape `{name}` has {n} example calls; give it a harmless, a dangerous and a malformed one");
    }
}

#[test]
fn an_argv_array_is_quoted_as_bash_reads_it() {
    for (argv, want) in [
        (json!(["ls", "-la"]), "ls -la"),
        (
            json!(["echo", "a b", "it's", "$HOME", ""]),
            r#"echo 'a b' 'it'\''s' '$HOME' ''"#,
        ),
        (
            json!(["grep", "-e", "x;y", "--", "*.rs"]),
            "grep -e 'x;y' -- '*.rs'",
        ),
    ] {
        assert_eq!(argv_command(argv.as_array().unwrap()).unwrap(), want);
    }
    // What the words say is what runs: a `;` inside a word is not a second command.
    let v = policy().classify(&ToolCall::new(
        "shell",
        json!({"command": ["echo", "x; rm -rf /"]}),
    ));
    assert_eq!(v.tier, Tier::Auto, "{}", v.reason);
}

#[test]
fn a_patch_names_every_file_it_touches() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-a\n+b\n*** Delete File: d.txt\n*** End Patch\n";
    assert_eq!(
        patch_paths(patch).unwrap(),
        ["a.txt", "b.txt", "c.txt", "d.txt"]
    );
}

const MAPPED: &str = r#"
workspace = "/home/dev/app"
home = "/home/dev"
rules.allow = ["Bash(ls -la)"]
rules.deny = ["never_run"]

[tools.never_run]
family = "shell"
command = "c"

[tools.my_exec]
family = "shell"
command = "cmd"

[tools.Open_Doc]
family = "read"
path = ["doc", "docs"]

[tools.mcp__files__put]
family = "edit"
path = "target"

[tools.find_in]
family = "search"
path = "under"

[tools.get_page]
family = "fetch"
url = "address"

[tools.grep]
family = "read"
path = "file"
"#;

#[test]
fn a_policy_maps_other_tools_to_families() {
    use Tier::{Ask, Auto, Deny};
    let p = Policy::from_toml(MAPPED).unwrap();
    for (tool, args, want, says) in [
        ("my_exec", json!({"cmd": "git status"}), Auto, "read-only"),
        ("my_exec", json!({"cmd": "rm -rf /"}), Deny, "rm-root"),
        (
            "my_exec",
            json!({"cmd": ["rm", "-rf", "/"]}),
            Deny,
            "rm-root",
        ),
        ("MY_EXEC", json!({"cmd": "rm -rf ~"}), Deny, "rm-root"),
        ("my_exec", json!({"command": "ls"}), Ask, "cmd"),
        ("my_exec", json!({"cmd": 7}), Ask, "cmd"),
        // The policy's rules judge the command it runs; a rule naming the tool is
        // tried before its mapping.
        ("my_exec", json!({"cmd": "ls -la"}), Auto, "user.allow"),
        ("never_run", json!({"c": "ls"}), Deny, "user.deny"),
        ("open_doc", json!({"doc": "README.md"}), Auto, "workspace"),
        (
            "open_doc",
            json!({"docs": ["a.md", "/home/dev/.ssh/id_rsa"]}),
            Ask,
            "read-secret",
        ),
        ("open_doc", json!({"path": "a.md"}), Ask, "doc"),
        (
            "mcp__files__put",
            json!({"target": "src/x.rs"}),
            Auto,
            "workspace",
        ),
        (
            "mcp__files__put",
            json!({"target": "/etc/passwd"}),
            Deny,
            "system",
        ),
        // A recursive read asks unless a host's file system shows no secret under it.
        ("find_in", json!({"under": "src"}), Ask, "recursive-read"),
        ("find_in", json!({"under": 3}), Ask, "under"),
        (
            "get_page",
            json!({"address": "https://docs.rs/serde"}),
            Auto,
            "fetch",
        ),
        (
            "get_page",
            json!({"url": "https://docs.rs"}),
            Ask,
            "address",
        ),
        // The policy's mapping replaces the built-in shape of the same name.
        (
            "grep",
            json!({"file": "/home/dev/.ssh/id_rsa"}),
            Ask,
            "read-secret",
        ),
        ("grep", json!({"file": "src/main.rs"}), Auto, "workspace"),
        ("grep", json!({"pattern": "x"}), Ask, "file"),
    ] {
        let v = p.classify(&ToolCall::new(tool, args.clone()));
        assert!(
            v.tier == want && (v.reason.contains(says) || v.rule.contains(says)),
            "{tool} {args}: want {want:?} with `{says}`, got {:?} {} — {}",
            v.tier,
            v.rule,
            v.reason
        );
    }
}

#[test]
fn a_bad_tool_mapping_is_refused_naming_its_line() {
    for (toml, line, says) in [
        ("[tools.x]\nfamily = \"exec\"\ncommand = \"c\"\n", 1, "`family` must be one of"),
        ("[tools.x]\nfamily = \"shell\"\n", 1, "needs `command`"),
        ("[tools.x]\nfamily = \"shell\"\npath = \"p\"\ncommand = \"c\"\n", 1, "`path` is not a key of a shell tool"),
        ("\n\n[tools.bash]\nfamily = \"read\"\npath = \"p\"\n", 3, "already a shell tool"),
        ("[tools.x]\nfamily = \"read\"\npath = []\n", 1, "names no argument"),
        ("[tools.x]\nfamily = \"read\"\npath = \"\"\n", 1, "names no argument"),
        ("[tools.x]\nfamily = \"read\"\nargs = \"p\"\n", 1, "unknown key `args`"),
        ("[tools.x]\nfamily = \"read\"\npath = 3\n", 1, "must be an argument name"),
        ("[tools.x]\nfamily = \"read\"\npath = [\"a\", 3]\n", 1, "must list argument names"),
        ("tools = 3\n", 1, "must be tables"),
        ("[tools.A]\nfamily = \"read\"\npath = \"p\"\n[tools.a]\nfamily = \"read\"\npath = \"p\"\n", 4, "mapped twice"),
        ("[tools.x]\npath = \"p\"\n", 1, "missing `family`"),
    ] {
        match Policy::from_toml(toml) {
            Ok(_) => panic!("accepted:\n{toml}"),
            Err(toolgate_core::Error::Policy { line: l, message }) => {
                assert!(message.contains(says), "{toml}: {message}");
                if !says.is_empty() {
                    assert_eq!(l, line, "{toml}: {message}");
                }
            }
            Err(e) => panic!("{toml}: {e}"),
        }
    }
}
