//! toolgate-fs: classify with what this machine's file system says (the CLI's `--fs`,
//! the Tauri plugin's `classify`). The core lists what a
//! verdict depends on ([`Policy::fs_needs`]); this module looks it up — every symbolic
//! link along each path, and each tree a recursive read opens, walked as ripgrep walks
//! it (the `ignore` crate is ripgrep's own walker) — and classifies again with the
//! facts ([`Policy::classify_with_facts`]).
//!
//! What cannot be looked up is left out, and the core then asks: a tree with more than
//! [`MAX_TREE_ENTRIES`] entries, or one whose walk hits an error. For each directory a
//! git command starts in, the repository's own configuration is read for the programs
//! it makes git run (`git.rs`); one that cannot be read asks.

#![deny(missing_docs)]
mod git;

pub use git::is_executable;

use toolgate_core::facts::{follow_links, FsFacts, FsNeeds, Step, Tree};
use toolgate_core::rule_id::RuleId;
use toolgate_core::{Policy, SessionRules, Tier, ToolCall, Verdict};

/// Entries one tree walk may visit; a larger tree is not vouched for (its reads ask).
pub const MAX_TREE_ENTRIES: usize = 200_000;

/// The rule id of a call whose classification panicked.
pub const INTERNAL_ERROR_RULE: &str = RuleId::InternalError.as_str();

/// Runs one classification; if it panics (a bug in the classifier), the call is
/// answered `ask` with [`INTERNAL_ERROR_RULE`] instead of ending the process, so a
/// stream goes on with its next line and a host that reads a crashed gate as "no
/// objection" never sees one. The policy is read-only shared state (a classification
/// keeps its own), so the next call is judged by the same, unchanged policy. The panic
/// message still reaches stderr through the default hook.
fn guarded(classify: impl FnOnce() -> Verdict) -> Verdict {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(classify)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        Verdict::new(
            Tier::Ask,
            INTERNAL_ERROR_RULE,
            format!("the classifier failed ({what}); asking instead"),
        )
    })
}

/// Classifies `call`, with file-system facts when `fs` is set; a panic asks
/// (`guarded`).
pub fn classify(policy: &Policy, call: &ToolCall, fs: bool) -> Verdict {
    classify_with(policy, call, &SessionRules::default(), fs)
}

/// [`classify`] with a session's always-allow / always-deny rules.
pub fn classify_with(policy: &Policy, call: &ToolCall, rules: &SessionRules, fs: bool) -> Verdict {
    guarded(|| classify_unguarded(policy, call, rules, fs))
}

fn classify_unguarded(policy: &Policy, call: &ToolCall, rules: &SessionRules, fs: bool) -> Verdict {
    if !fs {
        return policy.classify_with(call, rules);
    }
    let facts = gather(&policy.fs_needs(call));
    policy.classify_with_facts(call, rules, &facts)
}

/// [`classify`] for a raw JSON object `{"tool":…,"args":…}`; anything malformed is
/// classified as the core classifies it (`ask`).
pub fn classify_value(policy: &Policy, value: &serde_json::Value, fs: bool) -> Verdict {
    guarded(|| match ToolCall::from_value(value) {
        Ok(call) if fs => classify_unguarded(policy, &call, &SessionRules::default(), true),
        _ => policy.classify_value(value),
    })
}

/// Looks up `needs` on this machine's file system.
pub fn gather(needs: &FsNeeds) -> FsFacts {
    let mut facts = FsFacts::new();
    for p in &needs.paths {
        follow(p, &mut facts);
    }
    for tree in &needs.trees {
        walk(tree, &mut facts);
    }
    let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
    for dir in &needs.repos {
        facts.add_repo(dir, git::repo_programs(dir, home.as_deref()));
    }
    facts
}

/// Walks `abs` as the kernel does ([`follow_links`]) on this machine, recording every
/// symbolic link met; returns the path it really names, `None` past 40 links. A link
/// that cannot be read is recorded as a loop, which the core cannot rely on.
fn follow(abs: &str, facts: &mut FsFacts) -> Option<String> {
    follow_links(abs, |here| {
        match std::fs::symlink_metadata(here) {
            Ok(m) if m.file_type().is_symlink() => {}
            // Not a link, or nothing there (no link further along either).
            _ => return Step::Plain,
        }
        let Ok(target) = std::fs::read_link(here) else {
            facts.add_link(here, here);
            return Step::Unknown;
        };
        // A target that is not UTF-8 cannot be judged: the core sees a link into a
        // directory no rule trusts.
        let target = target
            .to_str()
            .map_or_else(|| "/\u{fffd}".to_string(), str::to_string);
        facts.add_link(here, &target);
        Step::Link(target)
    })
}

/// Walks `tree` as the reading program would and records it: its secret files and
/// every symbolic link under it. Nothing is recorded when the walk fails or is too
/// large.
fn walk(tree: &Tree, facts: &mut FsFacts) {
    let Some(root) = follow(&tree.root, facts) else {
        return;
    };
    let mut builder = ignore::WalkBuilder::new(&root);
    builder
        .follow_links(false)
        .hidden(!tree.hidden)
        .parents(tree.ignore)
        .ignore(tree.ignore)
        .git_ignore(tree.ignore)
        .git_global(tree.ignore)
        .git_exclude(tree.ignore)
        .require_git(true);
    if tree.ignore {
        builder.add_custom_ignore_filename(".rgignore");
    }
    let mut files: Vec<String> = Vec::new();
    let mut links: Vec<(String, String)> = Vec::new();
    for (n, entry) in builder.build().enumerate() {
        if n >= MAX_TREE_ENTRIES {
            return;
        }
        let Ok(entry) = entry else {
            return;
        };
        let Some(path) = entry.path().to_str() else {
            return; // a name that is not UTF-8 cannot be judged
        };
        if entry.path_is_symlink() {
            let Ok(target) = std::fs::read_link(entry.path()) else {
                return;
            };
            let Some(target) = target.to_str() else {
                return;
            };
            links.push((path.to_string(), target.to_string()));
        }
        files.push(path.to_string());
    }
    for (link, target) in &links {
        facts.add_link(link, target);
    }
    // The core judges which of them are secret.
    facts.add_tree(tree.clone(), files);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolgate_core::Tier;

    /// A temporary workspace with planted links and secret files; removed on drop.
    struct Sandbox {
        dir: std::path::PathBuf,
    }

    impl Sandbox {
        fn new(name: &str) -> Sandbox {
            let dir =
                std::env::temp_dir().join(format!("toolgate-fs-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            assert!(std::fs::create_dir_all(dir.join("ws/src")).is_ok());
            assert!(std::fs::create_dir_all(dir.join("home/.ssh")).is_ok());
            Sandbox { dir }
        }
        fn ws(&self) -> String {
            self.dir.join("ws").to_string_lossy().into_owned()
        }
        fn home(&self) -> String {
            self.dir.join("home").to_string_lossy().into_owned()
        }
        fn file(&self, rel: &str, text: &str) {
            let p = self.dir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).ok();
            }
            assert!(std::fs::write(&p, text).is_ok(), "{rel}");
        }
        fn link(&self, rel: &str, target: &str) {
            assert!(
                std::os::unix::fs::symlink(target, self.dir.join(rel)).is_ok(),
                "{rel}"
            );
        }
        fn policy(&self) -> Policy {
            Policy::defaults(&self.ws(), &self.home())
        }
    }

    impl Drop for Sandbox {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn sh(cmd: &str) -> ToolCall {
        ToolCall::new("bash", json!({ "command": cmd }))
    }

    #[test]
    fn links_planted_in_the_workspace_are_followed() {
        let s = Sandbox::new("links");
        s.file("home/.ssh/id_rsa", "KEY");
        s.file("home/.bashrc", "");
        s.file("ws/README.md", "hi");
        s.link("ws/notes.txt", &format!("{}/.ssh/id_rsa", s.home()));
        s.link("ws/out.txt", "../home/.bashrc");
        s.link("ws/readme", "README.md");
        s.link("ws/loop", "loop");
        s.link("ws/keys", &format!("{}/.ssh", s.home()));
        s.file("home/.ssh/sub/x", "");
        s.link("ws/deep", &format!("{}/.ssh/sub", s.home()));
        let p = s.policy();
        for (cmd, lexical, real) in [
            ("cat notes.txt", Tier::Auto, Tier::Ask),
            ("echo x > out.txt", Tier::Auto, Tier::Ask),
            // `..` after a link leaves its target: this is `~/.ssh/config`.
            ("cat deep/../config", Tier::Auto, Tier::Ask),
            ("cat keys/config", Tier::Auto, Tier::Ask),
            ("cat loop", Tier::Auto, Tier::Ask),
            ("cat readme src/none.txt", Tier::Auto, Tier::Auto),
            ("echo x > src/new.txt", Tier::Auto, Tier::Auto),
        ] {
            let a = classify(&p, &sh(cmd), false);
            let b = classify(&p, &sh(cmd), true);
            assert_eq!((a.tier, b.tier), (lexical, real), "{cmd}: {}", b.reason);
        }
        let read = ToolCall::new("read", json!({ "path": "notes.txt" }));
        assert_eq!(classify(&p, &read, true).tier, Tier::Ask);
        let write = ToolCall::new("write", json!({ "path": "out.txt", "content": "" }));
        assert_eq!(classify(&p, &write, true).tier, Tier::Ask);
    }

    #[test]
    fn recursive_reads_are_auto_only_without_secrets_in_reach() {
        let s = Sandbox::new("trees");
        s.file("ws/src/a.py", "TODO");
        s.file("ws/docs/b.md", "TODO");
        s.file("ws/conf/.env", "SECRET=1");
        s.file("ws/build/server.key", "KEY");
        s.file("ws/.gitignore", "build/\n");
        assert!(std::fs::create_dir_all(format!("{}/.git", s.ws())).is_ok());
        s.file("ws/keys/x.txt", "");
        s.link("ws/keys/id", &format!("{}/.ssh/id_rsa", s.home()));
        let p = s.policy();
        for (cmd, tier) in [
            ("grep -rn TODO src docs", Tier::Auto),
            ("rg TODO src", Tier::Auto),
            // A link to a key under the root: rg does not follow it, yet it asks.
            ("rg TODO", Tier::Ask),
            ("rg -uu TODO", Tier::Ask),
            ("rg --hidden TODO", Tier::Ask),
            ("rg --no-ignore TODO", Tier::Ask),
            ("grep -r TODO .", Tier::Ask),
            ("grep -r TODO conf", Tier::Ask),
            ("grep -r TODO keys", Tier::Ask),
            ("grep -r TODO missing", Tier::Ask),
            ("grep -r TODO src > out.txt", Tier::Ask),
        ] {
            let v = classify(&p, &sh(cmd), true);
            assert_eq!(v.tier, tier, "{cmd}: {}", v.reason);
        }
        // Without facts every one of them asks.
        assert_eq!(classify(&p, &sh("rg TODO src"), false).tier, Tier::Ask);
        // rg skips the hidden `conf/.env` and the ignored `build/`; grep -r does not.
        assert!(std::fs::remove_file(format!("{}/keys/id", s.ws())).is_ok());
        assert_eq!(classify(&p, &sh("rg -n TODO"), true).tier, Tier::Auto);
        assert_eq!(classify(&p, &sh("grep -rn TODO"), true).tier, Tier::Ask);
        assert!(std::fs::remove_file(format!("{}/build/server.key", s.ws())).is_ok());
        assert!(std::fs::remove_file(format!("{}/conf/.env", s.ws())).is_ok());
        assert_eq!(classify(&p, &sh("grep -rn TODO"), true).tier, Tier::Auto);
    }

    /// Every credential store of the secret table (`toolgate_core::paths::SECRET_NAMES`),
    /// each beside a file of the same tool that holds no secret: the store asks through a
    /// read tool, an edit tool, `cat`, a `<` redirection, a glob and a recursive search
    /// (with the file system's facts and without), and its neighbour stays `auto`.
    #[test]
    fn credential_stores_ask_through_every_way_of_reading_them() {
        let s = Sandbox::new("creds");
        let stores = [
            (".docker/config.json", ".docker/daemon.json"),
            (".dockercfg", ".dockerignore"),
            (
                ".config/containers/auth.json",
                ".config/containers/registries.conf",
            ),
            (".kube/config", ".kube/kuberc"),
            (".config/gh/hosts.yml", ".config/gh/config.yml"),
            (".config/hub", ".config/hubble.toml"),
            (".config/git/credentials", ".config/git/ignore"),
            (".config/gcloud/credentials.db", ".config/gcloudx/notes.txt"),
            (
                ".config/gcloud/application_default_credentials.json",
                ".config/gcloudx/readme.md",
            ),
            (".azure/msal_token_cache.json", ".azurerc"),
            (".cargo/credentials.toml", ".cargo/config.toml"),
            (".cargo/credentials", ".cargo/env"),
            (
                ".terraform.d/credentials.tfrc.json",
                ".terraform.d/checkpoint_cache",
            ),
            (".terraformrc", ".terraform-version"),
            (".vault-token", ".vault-config"),
            (".gem/credentials", ".gem/specs.txt"),
            (".cache/huggingface/token", ".cache/huggingface/version.txt"),
            (".config/composer/auth.json", ".config/composer/config.json"),
            (".m2/settings-security.xml", ".m2/settings.xml"),
            (".s3cfg", ".s3cfg.example.md"),
            (".boto", ".botorc"),
        ];
        for (secret, plain) in stores {
            s.file(&format!("home/{secret}"), "x");
            s.file(&format!("home/{plain}"), "x");
        }
        let p = s.policy();
        let home = s.home();
        for (secret, plain) in stores {
            let (dir, file) = secret.rsplit_once('/').unwrap_or((".", secret));
            let stem = file.get(..file.len().min(4)).unwrap_or(file);
            let top = secret.split('/').next().unwrap_or(secret);
            let asks = [
                format!("cat ~/{secret}"),
                format!("wc -l < ~/{secret}"),
                format!("cat ~/{dir}/{stem}*"),
                format!("grep -rn token ~/{top}"),
                format!("rg token ~/{top}"),
                format!("cp {home}/{secret} /tmp/x"),
            ];
            for cmd in &asks {
                for fs in [false, true] {
                    let v = classify(&p, &sh(cmd), fs);
                    assert_eq!(
                        v.tier,
                        Tier::Ask,
                        "{cmd} (fs {fs}): {} {}",
                        v.rule,
                        v.reason
                    );
                }
            }
            for tool in ["read", "write"] {
                let call = ToolCall::new(
                    tool,
                    json!({ "path": format!("{home}/{secret}"), "content": "" }),
                );
                let v = classify(&p, &call, true);
                assert_eq!(v.tier, Tier::Ask, "{tool} {secret}: {}", v.reason);
                assert!(v.rule.contains("secret"), "{tool} {secret}: {}", v.rule);
            }
            // The same tool's other files read as before.
            let v = classify(&p, &sh(&format!("cat ~/{plain}")), true);
            assert_eq!(v.tier, Tier::Auto, "cat ~/{plain}: {} {}", v.rule, v.reason);
        }
        // With the stores gone, a recursive search of the same directories is read-only.
        for (secret, _) in stores {
            let _ = std::fs::remove_file(format!("{home}/{secret}"));
        }
        for top in [
            ".docker",
            ".kube",
            ".config/gh",
            ".config/containers",
            ".cargo",
            ".m2",
            ".gem",
        ] {
            let cmd = format!("grep -rn token ~/{top}");
            let v = classify(&p, &sh(&cmd), true);
            assert_eq!(v.tier, Tier::Auto, "{cmd}: {} {}", v.rule, v.reason);
        }
    }
}
