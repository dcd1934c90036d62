//! Secret file names and secret environment variables.

use super::names::basename;
use super::Walker;
use crate::paths::{self, SecretName, SECRET_NAMES};
use crate::shell::{SimpleCommand, Word};
use std::borrow::Cow;

/// A glob segment as a lower-case pattern of `*` and `?` (a bracket expression counts
/// as one `?`; just after `[` or `[!` / `[^`, a `]` is a member, not the end: bash
/// matches `.[]e]nv` against `.env`).
pub(super) fn secret_pattern(seg: &str) -> String {
    let mut pattern = String::new();
    let mut in_bracket = false;
    let mut first = false;
    for c in seg.chars() {
        match c {
            '[' if !in_bracket => {
                in_bracket = true;
                first = true;
                pattern.push('?');
            }
            '!' | '^' if in_bracket && first => {}
            ']' if in_bracket && !first => in_bracket = false,
            _ if in_bracket => first = false,
            _ => pattern.extend(c.to_lowercase()),
        }
    }
    pattern
}

/// Extensions of source and text files: a glob ending in one (`*.rs`, `test_*.py`)
/// names no `id_rsa…` or `.env…` file that holds a secret, though `id_rsa.rs` starts
/// like one.
pub(super) const CODE_EXTS: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "c", "h", "cc",
    "cpp", "hpp", "cs", "rb", "php", "swift", "scala", "md", "rst", "txt", "html", "css", "scss",
    "sh", "ipynb", "lock", "log", "csv",
];

/// The names glob `pattern` (from [`secret_pattern`]) is tried as for one secret name:
/// a witness of each of the name's languages the pattern can match (`Prefix` and
/// `Suffix` languages are closed under adding text, so any member is as secret as the
/// witness); none when it can match no name of them.
fn witnesses(pattern: &str, name: &SecretName) -> [Option<Cow<'static, str>>; 2] {
    let exact = |n: &'static str| crate::glob::match_str(pattern, n).then_some(Cow::Borrowed(n));
    match *name {
        SecretName::Exact(n) | SecretName::Dir(n) => [exact(n), None],
        SecretName::Under { parent, name } => [exact(parent), exact(name)],
        SecretName::Prefix(n) => {
            let code = pattern
                .rsplit_once('.')
                .is_some_and(|(_, ext)| CODE_EXTS.contains(&ext));
            let may = !code && crate::glob::may_start_with(pattern, n);
            [may.then_some(Cow::Borrowed(n)), None]
        }
        SecretName::Suffix(n) => {
            let may = crate::glob::may_end_with(pattern, n);
            [may.then(|| Cow::Owned(format!("x{n}"))), None]
        }
    }
}

/// Could some name matched by `pattern` (from [`secret_pattern`]) be secret?
pub(super) fn pattern_may_be_secret_name(pattern: &str) -> bool {
    SECRET_NAMES
        .iter()
        .any(|name| witnesses(pattern, name).iter().any(Option::is_some))
}

/// Could glob word `a` (`*`, `./*`, `~/.aws/cred*`, `.e?v`, `[.]env`, `~/.*/*`) name a
/// secret file? Each segment with a glob character is tried against every language of
/// [`SECRET_NAMES`] (case-insensitively, as `is_secret` compares; a bracket counts as
/// one character); where it can match one, the witness stands in that segment and the
/// path is judged. As bash matches, a segment beginning with `*` or `?` does not match
/// a name beginning with `.`.
pub(super) fn glob_may_name_secret(a: &Word, w: &Walker) -> bool {
    if (w.env.facts.is_some() || w.env.needs.is_some()) && w.glob_may_reach_secret_link(a) {
        return true;
    }
    let text = a.text.as_str();
    let segs: Vec<&str> = text.split('/').collect();
    segs.iter().enumerate().any(|(i, seg)| {
        if !seg.contains(['*', '?', '[']) {
            return false;
        }
        let pattern = secret_pattern(seg);
        let hides_dots = seg.starts_with(['*', '?']);
        SECRET_NAMES.iter().any(|name| {
            witnesses(&pattern, name)
                .into_iter()
                .flatten()
                .any(|witness| {
                    if hides_dots && witness.starts_with('.') {
                        return false;
                    }
                    let mut parts: Vec<&str> = segs.clone();
                    parts[i] = &witness;
                    let candidate = parts.join("/");
                    w.path_secret(&candidate, a.tilde) != Some(false)
                })
        })
    })
}

/// Environment variables that change what programs run or read (a loop variable of
/// that name is exported and reaches them): `PATH`, `LD_*`, `GIT_*`, `BASH_ENV`, …
pub(super) fn sensitive_env(name: &str) -> bool {
    matches!(
        name,
        "PATH"
            | "HOME"
            | "IFS"
            | "ENV"
            | "BASH_ENV"
            | "CDPATH"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PS4"
            | "PROMPT_COMMAND"
            | "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "GIT_PAGER"
            | "TMPDIR"
            | "XDG_CONFIG_HOME"
    ) || [
        "LD_",
        "DYLD_",
        "GIT_",
        "PYTHON",
        "NODE_",
        "PERL",
        "RUBY",
        "JAVA_",
        "npm_config_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// May `find …` (a stage printing paths) list a secret file? Yes unless it stays at
/// depth 1 (`-maxdepth 0|1`), starts at directories that are not secret, and a
/// top-level `-name`/`-iname` test has a pattern no secret name matches (find's
/// `-name` matches a leading `.` with `*`, unlike bash).
pub(super) fn find_may_list_secret(sc: &SimpleCommand, w: &Walker) -> bool {
    let words: Vec<&str> = sc.words.iter().map(|x| x.text.as_str()).collect();
    match basename(words.first().copied().unwrap_or("")) {
        "find" => {}
        // `pwd` prints a directory; `xargs grep -l` the names it was given (the caller
        // adds what its input may name).
        "pwd" | "xargs" => return false,
        _ => return true,
    }
    let shallow = words
        .windows(2)
        .any(|p| p[0] == "-maxdepth" && matches!(p[1], "0" | "1"));
    if !shallow
        || words
            .iter()
            .any(|t| matches!(*t, "-o" | "-or" | "!" | "-not" | "(" | ","))
    {
        return true;
    }
    let starts_secret = sc.words[1..]
        .iter()
        .take_while(|x| !x.text.starts_with('-'))
        .any(|x| w.resolve_word(x).is_none_or(|p| paths::is_secret(&p)));
    if starts_secret {
        return true;
    }
    let names: Vec<String> = words
        .windows(2)
        .filter(|p| matches!(p[0], "-name" | "-iname"))
        .map(|p| secret_pattern(p[1]))
        .collect();
    !names.iter().any(|pat| !pattern_may_be_secret_name(pat))
}
