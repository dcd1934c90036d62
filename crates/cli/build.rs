//! Stamps the commit the binary was built from into `toolgate --version`
//! (`TOOLGATE_COMMIT`): the environment's `TOOLGATE_COMMIT` (the release script sets
//! it), else the `.cargo_vcs_info.json` that `cargo publish` puts in a crate (a
//! `cargo install` from crates.io), else `git rev-parse` in a checkout, else `unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=TOOLGATE_COMMIT");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = std::env::var("TOOLGATE_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| vcs_info(&dir))
        .or_else(|| git(&dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=TOOLGATE_COMMIT={}", commit.trim());
}

/// `{"git": {"sha1": "…"}}` of a published crate.
fn vcs_info(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let at = text.find("\"sha1\"")?;
    let rest = text.get(at + 6..)?;
    let start = rest.find('"')? + 1;
    let sha: String = rest
        .get(start..)?
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha.len() >= 12).then(|| sha.chars().take(12).collect())
}

/// The checkout's commit (`-dirty` when files differ), rebuilt when HEAD moves.
fn git(dir: &Path) -> Option<String> {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let sha = run(&["rev-parse", "--short=12", "HEAD"])?;
    if let Some(git_dir) = run(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "packed-refs", "index"] {
            let p = Path::new(&git_dir).join(f);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
        if let Some(r) = run(&["symbolic-ref", "-q", "HEAD"]) {
            let p = Path::new(&git_dir).join(r);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    let dirty =
        run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{sha}-dirty") } else { sha })
}
