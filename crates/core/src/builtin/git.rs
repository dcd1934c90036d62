//! Read-only `git` subcommands and `git add`.

use super::programs::GIT_FILE_OPTIONS;
use super::reach::{operand_reach, ReadOnly};
use super::Walker;
use crate::needle::HasChar;
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
    let rest = args.get(i + 1..).unwrap_or(&[]);
    if sub.text == "add" {
        // Global options before `add` (`-C DIR`, `--work-tree`) move where its paths are.
        if let Some(g) = args
            .get(..i)
            .unwrap_or(&[])
            .iter()
            .find(|a| a.text != "--no-pager")
        {
            return flag(
                RuleId::ShellGitAdd,
                "git add after a global option that moves where its paths are",
                g.span,
            );
        }
        // `git add` runs the repository's clean filters on what it stages.
        if let Some(flagged) = repo_programs(&[], sub, w) {
            return flagged;
        }
        return git_add(rest, w);
    }
    let globals = args.get(..i).unwrap_or(&[]);
    if let Some(flagged) = git_options(sub, rest, &git_dirs(globals), w) {
        return flagged;
    }
    let verdict = git_subcommand(sub, rest);
    if matches!(verdict, ReadOnly::Yes) {
        if let Some(flagged) = repo_programs(globals, sub, w) {
            return flagged;
        }
    }
    verdict
}

/// With a host's file system: does the repository this git command runs in have its
/// own configuration run a program (`diff.external`, a diff or filter driver,
/// `core.fsmonitor`, `gpg.program`)? A cloned repository's `.git/config` is the
/// repository's, not the user's, and read-only git commands run those programs. The
/// directories are noted as needs; the facts say what each repository runs.
#[cfg(not(feature = "repo-facts"))]
fn repo_programs<'w>(_: &[&'w Word], _: &'w Word, _: &Walker) -> Option<ReadOnly<'w>> {
    None
}

#[cfg(feature = "repo-facts")]
fn repo_programs<'w>(globals: &[&'w Word], sub: &'w Word, w: &Walker) -> Option<ReadOnly<'w>> {
    let facts = w.env.facts;
    if facts.is_none() && w.env.needs.is_none() {
        return None;
    }
    let named = globals
        .iter()
        .position(|a| a.text == "--git-dir" || a.text.starts_with("--git-dir="))
        .and_then(|k| {
            let a = globals.get(k)?;
            match a.text.strip_prefix("--git-dir=") {
                Some(d) => Some(d.to_string()),
                None => globals.get(k + 1).map(|v| v.text.clone()),
            }
        });
    let start = named
        .or_else(|| git_dirs(globals))
        .unwrap_or_else(|| ".".into());
    let Some(cwd) = w.cwd.as_deref() else {
        return facts.map(|_| {
            ReadOnly::Flag(
                RuleId::ShellGitConfig,
                format!(
                    "git {} in a directory known only at run time: that repository's own \
                     configuration may run programs",
                    sub.text
                ),
                sub.span,
            )
        });
    };
    let dirs = std::iter::once(cwd).chain(w.cwd_alts.iter().map(String::as_str));
    for d in dirs {
        let dir = crate::paths::resolve(&start, d, w.env.home);
        if let Some(needs) = w.env.needs {
            needs.borrow_mut().repos.insert(dir.clone());
        }
        let why = match facts.and_then(|f| f.repo(&dir)) {
            Some(Ok(keys)) => match keys.first() {
                Some(key) => format!(
                    "git {} in {dir} runs a program its repository's own configuration sets: {key}",
                    sub.text
                ),
                None => continue,
            },
            Some(Err(e)) => format!(
                "git {} in {dir}: its repository's configuration could not be read ({e})",
                sub.text
            ),
            None => continue,
        };
        return Some(ReadOnly::Flag(RuleId::ShellGitConfig, why, sub.span));
    }
    None
}

/// What a git subcommand after its options is: read-only, a flag, or not read-only.
fn git_subcommand<'w>(sub: &'w Word, rest: &[&'w Word]) -> ReadOnly<'w> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    match sub.text.as_str() {
        "status" | "diff" | "log" | "show" | "blame" | "ls-files" | "rev-parse" => ReadOnly::Yes,
        // Every tracked file is opened, a tracked `.env` included.
        "grep" => flag(
            RuleId::ShellRecursiveRead,
            "git grep reads every tracked file, secret files too if there are any; only a host with a file system can check what it reaches",
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
                    && t.get(1..).unwrap_or_default().chars().all(|c| matches!(c, 'a' | 'r' | 'v' | 'l')));
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
    while let Some(t_word) = args.get(i) {
        let t = t_word.text.as_str();
        if t_word.dynamic {
            return Err(flag(
                RuleId::ShellGitDynamic,
                "git with an argument known only at run time",
                t_word.span,
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
                    t_word.span,
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
                t_word.span,
            ));
        } else if t.starts_with('-') {
            return Err(flag(
                RuleId::ShellGitOption,
                "git global option not on the read-only list",
                t_word.span,
            ));
        } else {
            break;
        }
    }
    Ok(i)
}

/// The directories `-C DIR` moves git to, in order (relative paths git opens are
/// relative to the last of them joined).
fn git_dirs(globals: &[&Word]) -> Option<String> {
    let mut dir: Option<String> = None;
    let mut it = globals.iter();
    while let Some(a) = it.next() {
        if a.text == "-C" {
            let d = it.next().map_or("", |w| w.text.as_str());
            dir = Some(match dir {
                Some(prev) if !d.starts_with(['/', '~']) => format!("{prev}/{d}"),
                _ => d.to_string(),
            });
        }
    }
    dir
}

/// Judges `value`, a path git opens, written in word `a` (an operand, or an option's
/// value in every spelling): a secret (by name, from any directory bash or `-C` may
/// put git in, or a glob, bash's or git's own pathspec one, that may name one), or a
/// name known only at run time.
fn git_path<'w>(
    a: &'w Word,
    value: &str,
    dir: &Option<String>,
    w: &Walker,
) -> Option<ReadOnly<'w>> {
    if a.dynamic {
        return Some(ReadOnly::Flag(
            RuleId::ShellGitDynamic,
            format!("git opens a file named only at run time: {}", a.text),
            a.span,
        ));
    }
    if value.is_empty() || value == "-" {
        return None;
    }
    let tilde = a.tilde && std::ptr::eq(value, a.text.as_str());
    let text = match dir {
        Some(d) if !value.starts_with('/') && !tilde => format!("{d}/{value}"),
        _ => value.to_string(),
    };
    let probe = Word {
        span: a.span,
        glob: text.contains(['*', '?', '[']),
        tilde: tilde || text.starts_with('~'),
        text,
        ..Word::default()
    };
    match operand_reach(&probe, w) {
        ReadOnly::Yes | ReadOnly::No => None,
        ReadOnly::Secret(_) => Some(ReadOnly::Secret(a)),
        ReadOnly::Flag(rule, why, _) => Some(ReadOnly::Flag(rule, why, a.span)),
        ReadOnly::Edit(t, rule, why, _) => Some(ReadOnly::Edit(t, rule, why, a.span)),
    }
}

/// The file options of subcommand `sub` that word `t` writes: for a long option, the
/// attached value if any (`Some(None)`: the value is the next word); for a short
/// cluster, the value after each file letter in it (conservatively, any letter of
/// the cluster may be the option).
fn file_option_values<'t>(sub: &str, t: &'t str) -> Vec<Option<&'t str>> {
    let mut out = Vec::new();
    let options = GIT_FILE_OPTIONS.iter().filter(|o| o.subs.contains(&sub));
    if let Some(long) = t.strip_prefix("--") {
        let (name, value) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        if name.is_empty() || name.starts_with("no-") {
            return out;
        }
        for o in options {
            if o.long.is_some_and(|l| l.starts_with(name)) {
                out.push(value);
            }
        }
    } else if let Some(cluster) = t.strip_prefix('-') {
        for o in options {
            let Some(c) = o.short else { continue };
            for (at, _) in cluster.match_indices(c) {
                let rest = cluster.get(at + c.len_utf8()..).unwrap_or("");
                out.push((!rest.is_empty()).then_some(rest));
            }
        }
    }
    out
}

/// `-L<range>:<file>`: the file after the range; any other value is a path.
fn file_of(sub_short_l: bool, value: &str) -> &str {
    if sub_short_l {
        value.rsplit_once(':').map_or("", |(_, f)| f)
    } else {
        value
    }
}

/// The subcommand's arguments: a secret path (an operand, `REV:PATH`, or the value of
/// an option that opens a file, [`GIT_FILE_OPTIONS`]), or an option that writes a file
/// or runs a program (`--output`, `--ext-diff`, `-O`).
fn git_options<'w>(
    sub: &Word,
    rest: &[&'w Word],
    dir: &Option<String>,
    w: &Walker,
) -> Option<ReadOnly<'w>> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    // Short options of `git grep` whose value is the rest of the cluster: an `O` after
    // one of them is part of that value (`-eFOO`), not `-O`.
    let grep = sub.text == "grep";
    let line_range = matches!(sub.text.as_str(), "log" | "show");
    let mut value_next = false;
    // The next word is a file option's value (`--contents .env`, `-S .env`, `-L 1,2:.env`).
    let mut file_next = false;
    let mut paths_only = false;
    for a in rest {
        let t = a.text.as_str();
        if file_next {
            file_next = false;
            let is_l = line_range && !t.starts_with('-');
            if let Some(r) = git_path(a, file_of(is_l && t.has_char(':'), t), dir, w) {
                return Some(r);
            }
            continue;
        }
        // `git show HEAD:.env`, `git diff --no-index ~/.ssh/id_rsa /dev/null`,
        // `git log -p -- .env`, `git log -- '.e*'` (git's own pathspec glob): reads a
        // secret file.
        if !t.starts_with('-') || paths_only || a.dynamic {
            // `REV:path` after the first `:` (a ref name has no `:`, a path may), and
            // the word as a whole: a `:` may be the path's own, or a bracket class's
            // (`.[[:lower:]]nv`).
            let after_rev = t.split_once(':').map(|(_, p)| p);
            for path in [Some(t), after_rev].into_iter().flatten() {
                if let Some(r) = git_path(a, path, dir, w) {
                    return Some(r);
                }
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
        for value in file_option_values(&sub.text, t) {
            match value {
                Some(v) => {
                    let is_l = line_range && !t.starts_with("--");
                    if let Some(r) = git_path(a, file_of(is_l, v), dir, w) {
                        return Some(r);
                    }
                }
                None => file_next = true,
            }
        }
        if file_next {
            continue;
        }
        if grep
            && matches!(
                t,
                "-e" | "-A"
                    | "-B"
                    | "-C"
                    | "-m"
                    | "--regexp"
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
                    .take_while(|c| !"ABCefm".has_char(*c))
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
                format!("git add {t} may stage files not named here (secret files too, if there are any) or run an editor"),
                a.span,
            );
        }
        let name = t.trim_end_matches('/');
        let last = name.rsplit('/').next().unwrap_or(name);
        if a.dynamic || a.glob || a.braces.is_some() || last.find('.').is_none_or(|i| i == 0) {
            return ReadOnly::Flag(
                RuleId::ShellGitAdd,
                format!("git add {t}: a directory, a glob or a run-time name stages every file it reaches, secret files too if there are any"),
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
