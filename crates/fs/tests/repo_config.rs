//! A cloned repository's own configuration is a fact: real repositories made with the
//! real `git`, each with one key that makes read-only git commands run a program. With
//! facts, `git status`, `git diff`, `git log -1` and `git show` there ask, naming the
//! key; in a clean repository they stay `auto`; without facts the verdicts are as
//! before. For the keys git runs during `git diff`, the real git is run too and the
//! program is seen to run: the threat is real, not assumed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use toolgate_core::{Policy, Tier, ToolCall};

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("toolgate-repo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("home")).unwrap();
        Dir(d)
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
    fn s(&self, rel: &str) -> String {
        self.path(rel).to_string_lossy().into_owned()
    }
    /// The real git, with this directory's `home` as `$HOME` and no system config.
    fn git(&self, dir: &str, args: &[&str]) -> std::process::Output {
        let o = Command::new("git")
            .args(args)
            .current_dir(self.path(dir))
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        o
    }
    /// A repository at `rel` with one committed file and one change to it.
    fn repo(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).unwrap();
        assert!(self.git(rel, &["init", "-q"]).status.success());
        std::fs::write(self.path(rel).join("a.txt"), "one\n").unwrap();
        assert!(self.git(rel, &["add", "a.txt"]).status.success());
        assert!(self.git(rel, &["commit", "-qm", "one"]).status.success());
        std::fs::write(self.path(rel).join("a.txt"), "one\ntwo\n").unwrap();
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn classify(p: &Policy, cmd: &str, fs: bool) -> toolgate_core::Verdict {
    toolgate_fs::classify(p, &ToolCall::new("bash", json!({ "command": cmd })), fs)
}

const READS: [&str; 4] = ["git status", "git diff", "git log -1", "git show"];

#[test]
fn each_program_key_of_a_repositorys_own_config_asks_with_facts() {
    let d = Dir::new("keys");
    let marker = d.path("RAN");
    let prog = format!("sh -c 'touch {}' --", marker.display());
    // (key, value, does real `git diff` run it here)
    let keys: Vec<(&str, String, bool)> = vec![
        ("diff.external", prog.clone(), true),
        (
            "diff.txt.textconv",
            format!("sh -c 'touch {}; cat \"$1\"' --", marker.display()),
            true,
        ),
        ("diff.txt.command", prog.clone(), true),
        (
            "filter.txt.clean",
            format!("sh -c 'touch {}; cat'", marker.display()),
            true,
        ),
        ("filter.txt.smudge", "cat".into(), false),
        ("filter.txt.process", "x".into(), false),
        ("core.fsmonitor", prog.clone(), true),
        ("gpg.program", prog.clone(), false),
        ("gpg.ssh.program", prog.clone(), false),
    ];
    for (i, (key, value, runs)) in keys.iter().enumerate() {
        let rel = format!("r{i}");
        d.repo(&rel);
        std::fs::write(
            d.path(&rel).join(".gitattributes"),
            "*.txt diff=txt filter=txt\n",
        )
        .unwrap();
        assert!(
            d.git(&rel, &["config", key, value]).status.success(),
            "{key}"
        );
        let p = Policy::defaults(&d.s(&rel), &d.s("home"));
        for cmd in READS {
            let v = classify(&p, cmd, true);
            assert_eq!(v.tier, Tier::Ask, "{key}: {cmd}: {}", v.reason);
            assert!(v.reason.contains(key), "{key}: {cmd}: {}", v.reason);
            assert_eq!(
                classify(&p, cmd, false).tier,
                Tier::Auto,
                "{key}: {cmd} without facts"
            );
        }
        if *runs {
            let _ = std::fs::remove_file(&marker);
            let _ = d.git(&rel, &["diff"]);
            let _ = d.git(&rel, &["status"]);
            assert!(marker.exists(), "{key}: the real git ran the program");
        }
    }
}

#[test]
fn a_clean_repository_stays_auto_and_the_repository_is_found_as_git_finds_it() {
    let d = Dir::new("find");
    d.repo("clean");
    std::fs::create_dir_all(d.path("clean/src/deep")).unwrap();
    // A husky-style hooks path and a pager are not programs read-only commands run.
    assert!(d
        .git("clean", &["config", "core.hooksPath", ".husky"])
        .status
        .success());
    assert!(d
        .git("clean", &["config", "core.pager", "less -R"])
        .status
        .success());
    let p = Policy::defaults(&d.s("clean"), &d.s("home"));
    for cmd in READS
        .iter()
        .chain(&["cd src/deep && git log -1", "git -C src diff"])
    {
        let v = classify(&p, cmd, true);
        assert_eq!(v.tier, Tier::Auto, "{cmd}: {}", v.reason);
    }

    d.repo("evil");
    assert!(d
        .git("evil", &["config", "diff.external", "x"])
        .status
        .success());
    // From a parent, with -C, with cd, from a subdirectory, with --git-dir.
    let outside = Policy::defaults(&d.s(""), &d.s("home"));
    for cmd in [
        "git -C evil diff",
        "cd evil && git status",
        "git --git-dir=evil/.git log -1",
    ] {
        assert_eq!(classify(&outside, cmd, true).tier, Tier::Ask, "{cmd}");
    }
    std::fs::create_dir_all(d.path("evil/sub")).unwrap();
    let sub = Policy::defaults(&d.s("evil/sub"), &d.s("home"));
    assert_eq!(classify(&sub, "git diff", true).tier, Tier::Ask);

    // Included files, whatever their condition; a missing include is nothing.
    d.repo("inc");
    std::fs::write(d.path("extra.cfg"), "[diff]\n\texternal = x\n").unwrap();
    assert!(d
        .git(
            "inc",
            &[
                "config",
                "includeIf.gitdir:/nowhere/.path",
                "../../extra.cfg"
            ]
        )
        .status
        .success());
    assert!(d
        .git("inc", &["config", "include.path", "missing.cfg"])
        .status
        .success());
    let inc = Policy::defaults(&d.s("inc"), &d.s("home"));
    let v = classify(&inc, "git log -1", true);
    assert_eq!(v.tier, Tier::Ask, "{}", v.reason);

    // A worktree: its `.git` is a file; the common config is the main repository's.
    assert!(d
        .git("evil", &["worktree", "add", "-q", "../wt"])
        .status
        .success());
    assert!(d.path("wt/.git").is_file());
    let wt = Policy::defaults(&d.s("wt"), &d.s("home"));
    assert_eq!(classify(&wt, "git status", true).tier, Tier::Ask);

    // A post-index-change hook runs when `git status` writes the index.
    d.repo("hooked");
    let hook = d.path("hooked/.git/hooks/post-index-change");
    std::fs::write(&hook, "#!/bin/sh\ntrue\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hooked = Policy::defaults(&d.s("hooked"), &d.s("home"));
    let v = classify(&hooked, "git status", true);
    assert_eq!(v.tier, Tier::Ask, "{}", v.reason);
    assert!(v.reason.contains("post-index-change"), "{}", v.reason);

    // A configuration git cannot read either: asks, saying so.
    d.repo("broken");
    std::fs::write(d.path("broken/.git/config"), "[core\n").unwrap();
    let broken = Policy::defaults(&d.s("broken"), &d.s("home"));
    let v = classify(&broken, "git status", true);
    assert_eq!(v.tier, Tier::Ask, "{}", v.reason);
    assert!(v.reason.contains("could not be read"), "{}", v.reason);

    // Outside any repository: nothing to run.
    let none = Policy::defaults(&d.s("home"), &d.s("home"));
    assert_eq!(classify(&none, "git status", true).tier, Tier::Auto);
    let _ = Path::new("");
}
