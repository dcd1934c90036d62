//! Read-only `git` subcommands and `git add`.

use super::reach::ReadOnly;
use super::Walker;
use crate::paths::{self};
use crate::rule_id::RuleId;
use crate::shell::{Span, Word};
use crate::verdict::Tier;

pub(super) fn git_readonly<'w>(args: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let i = match git_globals(args) {
        Ok(i) => i,
        Err(flagged) => return flagged,
    };
    let Some(sub) = args.get(i) else {
        return ReadOnly::No;
    };
    let rest = &args[i + 1..];
    if sub.text == "add" {
        // Global options before `add` (`-C DIR`, `--work-tree`) move where its paths are.
        if let Some(g) = args[..i].iter().find(|a| a.text != "--no-pager") {
            return flag(
                RuleId::ShellGitAdd,
                "git add after a global option that moves where its paths are",
                g.span,
            );
        }
        return git_add(rest, w);
    }
    if let Some(flagged) = git_options(sub, rest) {
        return flagged;
    }
    match sub.text.as_str() {
        "status" | "diff" | "log" | "show" | "blame" | "ls-files" | "rev-parse" => ReadOnly::Yes,
        // Every tracked file is opened, a tracked `.env` included.
        "grep" => flag(
            RuleId::ShellRecursiveRead,
            "git grep reads every tracked file, a secret file among them; only a host with a file system can check what it reaches",
            sub.span,
        ),
        "branch" => {
            for a in rest {
                let t = a.text.as_str();
                let ok = matches!(
                    t,
                    "--list" | "--show-current" | "--all" | "--remotes" | "--verbose"
                ) || (t.starts_with('-')
                    && !t.starts_with("--")
                    && t.len() > 1
                    && t[1..].chars().all(|c| matches!(c, 'a' | 'r' | 'v' | 'l')));
                if !ok {
                    return flag(
                        RuleId::ShellGitBranch,
                        "git branch that creates, renames or deletes a branch",
                        a.span,
                    );
                }
            }
            ReadOnly::Yes
        }
        _ => ReadOnly::No,
    }
}

/// git's global options before the subcommand: the index of the subcommand, or why
/// they are not read-only (`-c`, `--git-dir` outside a `.git` directory, any other).
fn git_globals<'w>(args: &[&'w Word]) -> Result<usize, ReadOnly<'w>> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if args[i].dynamic {
            return Err(flag(
                RuleId::ShellGitDynamic,
                "git with an argument known only at run time",
                args[i].span,
            ));
        }
        let git_dir = t.strip_prefix("--git-dir=").or_else(|| {
            (t == "--git-dir").then(|| args.get(i + 1).map_or("", |w| w.text.as_str()))
        });
        if let Some(dir) = git_dir {
            // A repository whose `config` the agent could have written (any directory
            // but a `.git` one, whose edits are `ask`): config can run programs.
            let is_git = dir
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .is_some_and(|last| last.eq_ignore_ascii_case(".git") || last.ends_with(".git"));
            if !is_git {
                return Err(flag(
                    RuleId::ShellGitConfig,
                    "git --git-dir outside a .git directory: its config can run programs",
                    args[i].span,
                ));
            }
        }
        if t == "-C" {
            i += 2;
        } else if t == "--no-pager" || t.starts_with("--git-dir=") || t.starts_with("--work-tree=")
        {
            i += 1;
        } else if t == "--git-dir" || t == "--work-tree" {
            i += 2;
        } else if t == "-c" || t.starts_with("-c") || t.starts_with("--config-env") {
            return Err(flag(
                RuleId::ShellGitConfig,
                "git -c sets configuration, which can run programs",
                args[i].span,
            ));
        } else if t.starts_with('-') {
            return Err(flag(
                RuleId::ShellGitOption,
                "git global option not on the read-only list",
                args[i].span,
            ));
        } else {
            break;
        }
    }
    Ok(i)
}

/// The subcommand's arguments: a secret path, or an option that writes a file or runs a
/// program (`--output`, `--ext-diff`, `-O`).
fn git_options<'w>(sub: &Word, rest: &[&'w Word]) -> Option<ReadOnly<'w>> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    // Short options of `git grep` whose value is the rest of the cluster: an `O` after
    // one of them is part of that value (`-eFOO`), not `-O`.
    let grep = sub.text == "grep";
    let mut value_next = false;
    let mut paths_only = false;
    for a in rest {
        let t = a.text.as_str();
        // `git show HEAD:.env`, `git diff --no-index ~/.ssh/id_rsa /dev/null`,
        // `git log -p -- .env`: reads a secret file.
        if !a.dynamic && !t.starts_with('-') {
            let path = t.rsplit_once(':').map_or(t, |(_, p)| p);
            if paths::is_secret(path) {
                return Some(ReadOnly::Secret(a));
            }
        }
        if value_next || paths_only {
            // The value of `-e PATTERN`, `-f FILE`, …: `git grep -e -O` searches for "-O".
            value_next = false;
            continue;
        }
        if t == "--" {
            paths_only = true; // paths from here on (checked above for secrets)
            continue;
        }
        if grep
            && matches!(
                t,
                "-e" | "-f"
                    | "-A"
                    | "-B"
                    | "-C"
                    | "-m"
                    | "--regexp"
                    | "--file"
                    | "--max-count"
                    | "--after-context"
                    | "--before-context"
                    | "--context"
            )
        {
            value_next = true;
            continue;
        }
        let dangerous = if let Some(long) = t.strip_prefix("--") {
            // Any spelling git accepts: `--open=…` for `--open-files-in-pager=…`.
            let name = long.split('=').next().unwrap_or(long);
            !name.is_empty()
                && ["output", "ext-diff", "open-files-in-pager"]
                    .iter()
                    .any(|full| full.starts_with(name))
        } else if let Some(cluster) = t.strip_prefix('-') {
            // `git grep -O`, `-Ocmd`, `-nO'cmd'` (`-O` anywhere in a cluster of flags)
            // runs a program; elsewhere `-O<orderfile>` only reads one.
            if grep {
                cluster
                    .chars()
                    .take_while(|c| !"ABCefm".contains(*c))
                    .any(|c| c == 'O')
            } else {
                cluster.starts_with('O')
            }
        } else {
            false
        };
        if dangerous {
            return Some(flag(
                RuleId::ShellGitExtDiff,
                "git --output / --ext-diff / -O write files or run programs",
                a.span,
            ));
        }
    }
    None
}

/// `git add` of named files (`git add src/lib.rs tests/t.py`): it changes only git's
/// index, and each file must be one an edit may touch (inside the workspace, not a
/// secret, not protected) and look like a file. A name without an extension may be a
/// directory, whose files (a `.env` among them) git would stage and `git diff --cached`
/// then print; so may `-A`, `--all`, `-u`, `.`, a glob, and `-f` (ignored files): they
/// ask, as do the modes that run an editor or read the terminal (`-p`, `-i`, `-e`).
pub(super) fn git_add<'w>(rest: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let mut paths_only = false;
    let mut files: Vec<&Word> = Vec::new();
    for a in rest {
        let t = a.text.as_str();
        if !paths_only && !a.dynamic && t == "--" {
            paths_only = true;
            continue;
        }
        if !paths_only && !a.dynamic && t.starts_with('-') {
            if matches!(t, "-v" | "--verbose" | "-n" | "--dry-run") {
                continue;
            }
            return ReadOnly::Flag(
                RuleId::ShellGitAdd,
                format!("git add {t} may stage files not named here (a secret file among them) or run an editor"),
                a.span,
            );
        }
        let name = t.trim_end_matches('/');
        let last = name.rsplit('/').next().unwrap_or(name);
        if a.dynamic || a.glob || a.braces.is_some() || last.find('.').is_none_or(|i| i == 0) {
            return ReadOnly::Flag(
                RuleId::ShellGitAdd,
                format!("git add {t}: a directory, a glob or a run-time name stages every file it reaches, a secret file among them"),
                a.span,
            );
        }
        files.push(a);
    }
    match w.edits_of(files.iter().copied()) {
        Some((Tier::Auto, _, _, span)) => ReadOnly::Edit(
            Tier::Auto,
            RuleId::ShellGitAdd,
            "git add stages named workspace files".to_string(),
            span,
        ),
        Some((tier, rule, why, span)) => ReadOnly::Edit(tier, rule, why, span),
        None => ReadOnly::Yes,
    }
}
