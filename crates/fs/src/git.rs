//! What a repository's own configuration makes read-only git commands run.
//!
//! A cloned repository brings its `.git/config` (and whatever it includes): that file is
//! the repository's, not the user's, and git runs programs it names during `git diff`,
//! `git log -p`, `git show`, `git status` (git-config(1), gitattributes(5)):
//! `diff.external`, a diff driver's `textconv` or `command`, a filter driver's `clean`,
//! `smudge` or `process`, a non-boolean `core.fsmonitor` (a hook program), `gpg.program`
//! (and `gpg.<format>.program`) for signatures; and `git status` writes the index, which
//! runs a `post-index-change` hook. The repository is found as git finds it (the
//! directory, then its parents: a `.git` directory, a `.git` file naming the git
//! directory of a worktree or submodule, a bare repository), its configuration read
//! from the common directory's `config` and the worktree's `config.worktree`, with every
//! `include.path` and `includeIf.*.path` followed (whatever the condition: a condition
//! may hold). A driver counts whether or not `.gitattributes` selects it (attributes are
//! files the agent can write). The user's global and system configuration are trusted
//! and not read.

use std::path::{Path, PathBuf};
use toolgate_core::facts::RepoPrograms;

/// Configuration files read per repository, includes among them.
const MAX_FILES: usize = 64;
/// The size of one configuration file read.
const MAX_BYTES: u64 = 1024 * 1024;
/// How deep includes nest (git stops at 10).
const MAX_DEPTH: usize = 10;

/// The programs the repository of a git command starting in `dir` runs from its own
/// configuration (`key = value` each); empty outside any repository.
pub fn repo_programs(dir: &str, home: Option<&str>) -> RepoPrograms {
    let Some(repo) = find(Path::new(dir))? else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    let mut read = 0;
    let common = repo.common.join("config");
    let worktree = repo.git_dir.join("config.worktree");
    let mut hooks_path: Option<String> = None;
    for file in [common, worktree] {
        read_config(&file, home, 0, &mut read, &mut |e: &Entry| {
            let (sub, value) = (e.sub.as_deref(), e.value.as_deref());
            if let Some(p) = program(&e.section, sub, &e.name, value) {
                found.push(p);
            }
            if e.section == "core" && sub.is_none() && e.name == "hookspath" {
                hooks_path = Some(value.unwrap_or_default().to_string());
            }
        })?;
    }
    // `git status` writes the index: a `post-index-change` hook runs.
    let hooks = match hooks_path.as_deref() {
        Some(p) => resolve_config_path(p, repo.work_tree.as_deref().unwrap_or(&repo.git_dir), home),
        None => repo.common.join("hooks"),
    };
    let hook = hooks.join("post-index-change");
    if is_executable(&hook) {
        found.push(format!("hook post-index-change = {}", hook.display()));
    }
    Ok(found)
}

/// `key = value` when a configuration entry names a program a read-only git command
/// runs.
fn program(section: &str, sub: Option<&str>, name: &str, value: Option<&str>) -> Option<String> {
    let v = value.unwrap_or("");
    let key = match sub {
        Some(s) => format!("{section}.{s}.{name}"),
        None => format!("{section}.{name}"),
    };
    let runs = match (section, sub, name) {
        ("core", None, "fsmonitor") => !is_bool(v) && value.is_some(),
        ("diff", None, "external") => true,
        ("diff", Some(_), "textconv" | "command") => true,
        ("filter", Some(_), "clean" | "smudge" | "process") => true,
        ("gpg", _, "program") => true,
        _ => false,
    };
    (runs && !v.trim().is_empty()).then(|| format!("{key} = {v}"))
}

fn is_bool(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "true" | "yes" | "on" | "1" | "false" | "no" | "off" | "0"
    )
}

/// A repository as git discovers it.
struct Repo {
    /// The git directory (`.git`, a worktree's `.git/worktrees/NAME`, a bare one).
    git_dir: PathBuf,
    /// Where the shared `config` and hooks are (`commondir`, else the git directory).
    common: PathBuf,
    /// The working tree's top, for a non-bare repository.
    work_tree: Option<PathBuf>,
}

/// Walks up from `start` as git's setup does; `Ok(None)` outside any repository.
fn find(start: &Path) -> Result<Option<Repo>, String> {
    let Ok(mut dir) = start.canonicalize() else {
        // A directory that does not exist: git fails there, running nothing.
        return Ok(None);
    };
    loop {
        let dot_git = dir.join(".git");
        let found = match std::fs::metadata(&dot_git) {
            Ok(m) if m.is_dir() => Some((dot_git, Some(dir.clone()))),
            Ok(m) if m.is_file() => Some((gitdir_file(&dot_git, &dir)?, Some(dir.clone()))),
            _ if is_git_dir(&dir) => Some((dir.clone(), None)),
            _ => None,
        };
        if let Some((git_dir, work_tree)) = found {
            let common = match std::fs::read_to_string(git_dir.join("commondir")) {
                Ok(t) => {
                    let c = PathBuf::from(t.trim());
                    if c.is_absolute() {
                        c
                    } else {
                        git_dir.join(c)
                    }
                }
                Err(_) => git_dir.clone(),
            };
            return Ok(Some(Repo {
                git_dir,
                common,
                work_tree,
            }));
        }
        if !dir.pop() {
            return Ok(None);
        }
    }
}

/// A `.git` file (`gitdir: PATH`, a worktree or a submodule): the directory it names.
fn gitdir_file(file: &Path, dir: &Path) -> Result<PathBuf, String> {
    let text = read_small(file)?;
    let target = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
        .ok_or_else(|| format!("{}: not a `gitdir:` file", file.display()))?;
    let p = PathBuf::from(target);
    Ok(if p.is_absolute() { p } else { dir.join(p) })
}

/// A bare repository or a git directory named directly: `HEAD`, `objects/`, `refs/`.
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// Is `p` a file this user's system would run: an execute bit on Unix; on Windows, a
/// file (git for Windows runs hooks through its own shell whatever their extension).
pub fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(p).is_ok_and(|m| m.is_file())
    }
}

fn read_small(file: &Path) -> Result<String, String> {
    let m = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if m.len() > MAX_BYTES {
        return Err(format!("{}: over {MAX_BYTES} bytes", file.display()));
    }
    std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))
}

/// A path in a configuration value: `~/` under home, relative to `base`.
fn resolve_config_path(value: &str, base: &Path, home: Option<&str>) -> PathBuf {
    match (value.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => Path::new(h).join(rest),
        _ => {
            let p = PathBuf::from(value);
            if p.is_absolute() {
                p
            } else {
                base.join(p)
            }
        }
    }
}

/// Reads configuration file `file` (a missing one is nothing, as git has it), calling
/// `each` for every entry, following includes.
fn read_config(
    file: &Path,
    home: Option<&str>,
    depth: usize,
    read: &mut usize,
    each: &mut dyn FnMut(&Entry),
) -> Result<(), String> {
    if !file.exists() {
        return Ok(());
    }
    *read += 1;
    if *read > MAX_FILES || depth > MAX_DEPTH {
        return Err(format!("{}: too many or too deep includes", file.display()));
    }
    let text = read_small(file)?;
    let entries =
        parse(&text).map_err(|(line, why)| format!("{}:{line}: {why}", file.display()))?;
    let base = file.parent().unwrap_or(Path::new("/")).to_path_buf();
    for e in entries {
        each(&e);
        let include = e.name == "path"
            && (e.section == "include" && e.sub.is_none() || e.section == "includeif");
        if let (true, Some(v)) = (include, e.value.as_deref()) {
            let path = resolve_config_path(v, &base, home);
            read_config(&path, home, depth + 1, read, each)?;
        }
    }
    Ok(())
}

/// One configuration entry: section and name lower-cased, the subsection as written.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    section: String,
    sub: Option<String>,
    name: String,
    /// `None` for a bare `name` (a boolean true).
    value: Option<String>,
}

/// Parses git's configuration syntax (git-config(1), CONFIGURATION FILE): `[section]`,
/// `[section "subsection"]`, the older `[section.subsection]`, `name = value` with
/// quotes, escapes and `\` line continuations, `#` and `;` comments, and an entry on a
/// header's line. What git would reject is an error with its line.
fn parse(text: &str) -> Result<Vec<Entry>, (usize, String)> {
    let mut out = Vec::new();
    let mut section: Option<Section> = None;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let c = chars.get(i).copied().unwrap_or('\n');
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            ' ' | '\t' | '\r' => i += 1,
            '#' | ';' => {
                while i < chars.len() && chars.get(i) != Some(&'\n') {
                    i += 1;
                }
            }
            '[' => {
                let (s, next) = header(&chars, i + 1).map_err(|e| (line, e))?;
                section = Some(s);
                i = next;
            }
            c if c.is_ascii_alphabetic() => {
                let Some((sec, sub)) = &section else {
                    return Err((line, "an entry before any section".into()));
                };
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '-')
                {
                    i += 1;
                }
                let name: String = chars
                    .get(start..i)
                    .unwrap_or_default()
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase();
                while matches!(chars.get(i), Some(' ' | '\t')) {
                    i += 1;
                }
                let value = match chars.get(i) {
                    Some('=') => {
                        let (v, next, lines) = value(&chars, i + 1).map_err(|e| (line, e))?;
                        i = next;
                        line += lines;
                        Some(v)
                    }
                    None | Some('\n' | '#' | ';' | '\r') => None,
                    Some(other) => return Err((line, format!("unexpected `{other}`"))),
                };
                out.push(Entry {
                    section: sec.clone(),
                    sub: sub.clone(),
                    name,
                    value,
                });
            }
            other => return Err((line, format!("unexpected `{other}`"))),
        }
    }
    Ok(out)
}

/// A section header after its `[`: (section, subsection) and where it ends.
/// A section and its subsection.
type Section = (String, Option<String>);

fn header(chars: &[char], mut i: usize) -> Result<(Section, usize), String> {
    let start = i;
    while chars
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
    {
        i += 1;
    }
    let name: String = chars.get(start..i).unwrap_or_default().iter().collect();
    match chars.get(i) {
        Some(']') => {
            // `[section.subsection]`: the older form, all lower case.
            let lower = name.to_ascii_lowercase();
            let (sec, sub) = match lower.split_once('.') {
                Some((s, sub)) => (s.to_string(), Some(sub.to_string())),
                None => (lower, None),
            };
            Ok(((sec, sub), i + 1))
        }
        Some(' ' | '\t') => {
            while matches!(chars.get(i), Some(' ' | '\t')) {
                i += 1;
            }
            if chars.get(i) != Some(&'"') {
                return Err("a section header with a space but no quoted subsection".into());
            }
            i += 1;
            let mut sub = String::new();
            loop {
                match chars.get(i) {
                    Some('"') => break,
                    Some('\\') => {
                        i += 1;
                        match chars.get(i) {
                            Some('\n') | None => return Err("an unterminated subsection".into()),
                            Some(c) => sub.push(*c),
                        }
                    }
                    Some('\n') | None => return Err("an unterminated subsection".into()),
                    Some(c) => sub.push(*c),
                }
                i += 1;
            }
            if chars.get(i + 1) != Some(&']') {
                return Err("a section header not closed by `]`".into());
            }
            Ok(((name.to_ascii_lowercase(), Some(sub)), i + 2))
        }
        _ => Err("a bad section header".into()),
    }
}

/// A value after its `=`: the value, where it ends, and the lines it continued over.
fn value(chars: &[char], mut i: usize) -> Result<(String, usize, usize), String> {
    let mut out = String::new();
    let mut quoted = false;
    let mut lines = 0;
    // Whitespace outside quotes is kept only between words.
    let mut pending_space = String::new();
    while matches!(chars.get(i), Some(' ' | '\t')) {
        i += 1;
    }
    loop {
        match chars.get(i) {
            None => break,
            Some('\n') if !quoted => break,
            Some('\n') => return Err("a newline inside quotes".into()),
            Some('#' | ';') if !quoted => {
                while i < chars.len() && chars.get(i) != Some(&'\n') {
                    i += 1;
                }
                break;
            }
            Some(' ' | '\t' | '\r') if !quoted => {
                if chars.get(i) != Some(&'\r') {
                    pending_space.push(' ');
                }
                i += 1;
                continue;
            }
            Some('"') => {
                out.push_str(&std::mem::take(&mut pending_space));
                quoted = !quoted;
            }
            Some('\\') => {
                out.push_str(&std::mem::take(&mut pending_space));
                i += 1;
                match chars.get(i) {
                    Some('\n') => lines += 1,
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('b') => {
                        out.pop();
                    }
                    Some('\\') => out.push('\\'),
                    Some('"') => out.push('"'),
                    _ => return Err("a bad escape in a value".into()),
                }
            }
            Some(c) => {
                out.push_str(&std::mem::take(&mut pending_space));
                out.push(*c);
            }
        }
        i += 1;
    }
    if quoted {
        return Err("an unterminated quote".into());
    }
    Ok((out, i, lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_git_config_syntax() {
        let text = "# a comment\n[core]\n\tfsmonitor = .git/fsmon.sh ; run\n\tbare = false\n\
                    [diff \"x\\\"y\"] textconv = \"sh -c 'cat \\\"$1\\\"'\" -- \n\
                    [Filter.LFS]\n\tsmudge = git-lfs smudge -- %f\n\tquiet\n\
                    [alias]\n\tlg = log \\\n --oneline\n";
        let e = parse(text).unwrap_or_default();
        let got: Vec<(String, Option<String>, String, Option<String>)> = e
            .into_iter()
            .map(|e| (e.section, e.sub, e.name, e.value))
            .collect();
        let s = |x: &str| x.to_string();
        assert_eq!(
            got,
            vec![
                (s("core"), None, s("fsmonitor"), Some(s(".git/fsmon.sh"))),
                (s("core"), None, s("bare"), Some(s("false"))),
                (
                    s("diff"),
                    Some(s("x\"y")),
                    s("textconv"),
                    Some(s("sh -c 'cat \"$1\"' --"))
                ),
                (
                    s("filter"),
                    Some(s("lfs")),
                    s("smudge"),
                    Some(s("git-lfs smudge -- %f"))
                ),
                (s("filter"), Some(s("lfs")), s("quiet"), None),
                // git keeps each blank around a continuation (config.c, parse_value).
                (s("alias"), None, s("lg"), Some(s("log  --oneline"))),
            ]
        );
        for bad in [
            "x = 1\n",
            "[core\n",
            "[core \"a]\n",
            "[core]\n a = \"b\n",
            "[core]\n 9 = 1\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn programs_are_the_keys_that_run_one() {
        assert!(program("core", None, "fsmonitor", Some("true")).is_none());
        assert!(program("core", None, "fsmonitor", Some("./x")).is_some());
        assert!(program("diff", None, "external", Some("x")).is_some());
        assert!(program("diff", Some("a"), "textconv", Some("x")).is_some());
        assert!(program("diff", Some("a"), "xfuncname", Some("x")).is_none());
        assert!(program("filter", Some("a"), "process", Some("x")).is_some());
        assert!(program("gpg", Some("ssh"), "program", Some("x")).is_some());
        assert!(program("core", None, "hookspath", Some(".husky")).is_none());
        assert!(program("core", None, "pager", Some("less")).is_none());
    }
}
