//! What a path reaches: secrets, system directories, the workspace, links and walked trees.

use super::inspect::{
    home_relative, is_absolute, last_simple, may_hold_secrets, simple_prints_paths,
};
use super::secrets::{find_may_list_secret, glob_may_name_secret};
use super::Walker;
use crate::needle::HasChar;
use crate::paths::{self, resolve};
use crate::rule_id::RuleId;
use crate::shell::{Span, Word};
use crate::verdict::Tier;

pub(super) enum ReadOnly<'w> {
    Yes,
    /// A program that writes files (`touch`, `mkdir`, `tee`): the edit verdict of the
    /// strictest of them (tier, rule, reason, span).
    Edit(Tier, RuleId, String, Span),
    /// On the list, but with an option that writes, runs programs or never ends.
    Flag(RuleId, String, Span),
    /// On the list, but reading a secret file.
    Secret(&'w Word),
    No,
}

/// An option a table entry does not list (`builtin.shell.unknown-option`).
pub(super) fn unknown_option<'w>(word: &Word, why: &str) -> ReadOnly<'w> {
    ReadOnly::Flag(
        RuleId::ShellUnknownOption,
        format!("{why}: an option not in the table may write, run or open a file"),
        word.span,
    )
}

/// The first of `files` (operands a program opens) that reaches a secret or a file
/// named only at run time ([`operand_reach`]); a `for` variable is each of its values
/// (`for f in *; do cat "$f"; done`).
pub(super) fn files_reach<'w>(files: impl Iterator<Item = &'w Word>, w: &Walker) -> ReadOnly<'w> {
    for a in files {
        if let Some(values) = w.loop_values(a) {
            for v in values {
                match operand_reach(v, w) {
                    ReadOnly::Yes | ReadOnly::No => {}
                    ReadOnly::Secret(_) => return ReadOnly::Secret(a),
                    ReadOnly::Flag(rule, why, _) => return ReadOnly::Flag(rule, why, a.span),
                    ReadOnly::Edit(t, rule, why, _) => return ReadOnly::Edit(t, rule, why, a.span),
                }
            }
            continue;
        }
        match operand_reach(a, w) {
            ReadOnly::Yes => {}
            other => return other,
        }
    }
    ReadOnly::Yes
}

/// What reading operand `a` of a program that opens its operands can reach: a secret
/// file (a name, `~/…`, `$HOME/…`, a glob as bash matches it, a name relative to any
/// directory bash may be in, an option's value), every file `$(find …)` lists, or a
/// file named only at run time.
pub(super) fn operand_reach<'w>(a: &'w Word, w: &Walker) -> ReadOnly<'w> {
    if !a.dynamic && !a.text.starts_with('-') && paths::is_secret(&a.text) {
        return ReadOnly::Secret(a);
    }
    if let Some(p) = home_relative(a) {
        return if paths::is_secret(&p) {
            ReadOnly::Secret(a)
        } else {
            ReadOnly::Yes
        };
    }
    if a.glob && !a.dynamic {
        return if glob_may_name_secret(a, w) {
            ReadOnly::Secret(a)
        } else {
            ReadOnly::Yes
        };
    }
    if a.dynamic {
        let t = a.text.trim_matches('"');
        // `<(ls)`: a pipe carrying the output of a command classified on its own.
        if (t.starts_with("<(") || t.starts_with(">(")) && t.ends_with(')') && a.subs.len() == 1 {
            return ReadOnly::Yes;
        }
        // `$(find src -name '*.py')` prints paths: judged like `find … | xargs cat`.
        // `"$(pwd)/name"`: `name` in the working directory.
        if let Some(rest) = t.strip_prefix("$(pwd)") {
            if a.subs.len() == 1 && !rest.contains(['$', '`']) {
                let rest = rest.trim_start_matches('/');
                return match w.path_secret(if rest.is_empty() { "." } else { rest }, false) {
                    Some(false) => ReadOnly::Yes,
                    _ => ReadOnly::Secret(a),
                };
            }
        }
        if a.subs.len() == 1 && (t.starts_with("$(") || t.starts_with('`')) {
            if let Some(sc) = a
                .subs
                .first()
                .and_then(last_simple)
                .filter(|sc| simple_prints_paths(sc))
            {
                return if find_may_list_secret(sc, w) {
                    ReadOnly::Flag(
                        RuleId::ShellRecursiveRead,
                        "it opens every file find lists, secret files too if there are any; only a host with a file system can check what it reaches".to_string(),
                        a.span,
                    )
                } else {
                    ReadOnly::Yes
                };
            }
        }
        return ReadOnly::Flag(
            RuleId::ShellDynamic,
            format!("reads a file named only at run time: {}", a.text),
            a.span,
        );
    }
    if !a.text.starts_with('-') && a.text != "-" {
        // Relative names count from every directory bash may be in:
        // `cd ~/.aws && cat credentials`, `cd ~/.ssh; cd /nope; cat config`.
        return match w.path_secret(&a.text, a.tilde) {
            Some(true) => ReadOnly::Secret(a),
            Some(false) => ReadOnly::Yes,
            None => ReadOnly::Flag(
                RuleId::ShellDynamic,
                format!(
                    "reads {} relative to a working directory known only at run time",
                    a.text
                ),
                a.span,
            ),
        };
    }
    // An option's value: `grep --file=~/.netrc x`, `grep -f/home/u/.netrc x`.
    if a.text.starts_with('-') {
        let value = match a.text.split_once('=') {
            Some((_, v)) => Some(v),
            None if !a.text.starts_with("--") && a.text.len() > 2 => a.text.get(2..),
            None => None,
        };
        if let Some(v) = value.filter(|v| v.has_char('/') || v.starts_with('.')) {
            if w.path_secret(v, v.starts_with('~')) != Some(false) {
                return ReadOnly::Secret(a);
            }
        }
    }
    ReadOnly::Yes
}

impl<'a> Walker<'a> {
    /// Can static path text `t` name a secret file from any directory bash may be in?
    /// `Some(true)` yes, `Some(false)` no, `None` when it is relative and the directory
    /// is only known at run time.
    pub(super) fn path_secret(&self, t: &str, tilde: bool) -> Option<bool> {
        if paths::is_secret(t) {
            return Some(true);
        }
        if self.env.facts.is_some() || self.env.needs.is_some() {
            return self.path_secret_real(t, tilde);
        }
        if is_absolute(t, tilde) {
            return Some(paths::is_secret(&resolve(t, "/", self.env.home)));
        }
        let cwd = self.cwd.as_deref()?;
        // Without `..` the path stays under the directory: only a directory that names a
        // secret place (`.ssh`, `.gnupg`, `.aws` for `credentials`) can make it secret,
        // and the common case needs no joined path.
        let simple = !crate::needle::contains(t, "..") && !t.starts_with('~');
        Some(
            std::iter::once(cwd)
                .chain(self.cwd_alts.iter().map(String::as_str))
                .any(|d| {
                    (!simple || may_hold_secrets(d))
                        && paths::is_secret(&resolve(t, d, self.env.home))
                }),
        )
    }

    /// [`Walker::path_secret`] with a file system's facts: each path is judged as
    /// written and as the file it really names through symbolic links (a loop asks),
    /// and noted as a need.
    pub(super) fn path_secret_real(&self, t: &str, tilde: bool) -> Option<bool> {
        let dirs = self.base_dirs(t, tilde)?;
        Some(dirs.into_iter().any(|d| {
            let joined = paths::join(t, d, self.env.home);
            paths::is_secret(&paths::normalize(&joined)) || self.real_secret(&joined)
        }))
    }

    /// Is the file absolute path `joined` really names (through the facts' links) a
    /// secret, or unknowable (links that loop)? Notes the path as a need.
    pub(super) fn real_secret(&self, joined: &str) -> bool {
        self.note_path(joined);
        match self.env.facts.map(|f| f.resolve(joined)) {
            None => false,
            Some(Some(real)) => paths::is_secret(&real),
            Some(None) => true,
        }
    }

    /// The directories path text `t` is taken from: `/` when it is absolute (`~` with
    /// `tilde` counts), else every directory bash may be in; `None` when that is known
    /// only at run time.
    pub(super) fn base_dirs(&self, t: &str, tilde: bool) -> Option<Vec<&str>> {
        if is_absolute(t, tilde) {
            return Some(vec!["/"]);
        }
        let cwd = self.cwd.as_deref()?;
        Some(
            std::iter::once(cwd)
                .chain(self.cwd_alts.iter().map(String::as_str))
                .collect(),
        )
    }

    pub(super) fn note_path(&self, abs: &str) {
        if let Some(needs) = self.env.needs {
            needs.borrow_mut().paths.push(abs.to_string());
        }
    }

    /// May a recursive read of `roots` (static words; none: the working directory)
    /// open a secret file? Not when the host walked every tree (as the program walks
    /// it: `hidden` files too, `ignore` files honoured) and found none. Notes the trees
    /// as needs. Run-time names, globs and `..` always may.
    pub(super) fn tree_may_hold_secret(&self, roots: &[&Word], hidden: bool, ignore: bool) -> bool {
        let mut trees: Vec<crate::facts::Tree> = Vec::new();
        if roots.iter().any(|r| {
            r.dynamic || r.glob || r.braces.is_some() || r.text.split('/').any(|c| c == "..")
        }) {
            self.tree_outside.set(true);
            return true;
        }
        // No root: the working directory.
        let mut named: Vec<(&str, bool)> =
            roots.iter().map(|r| (r.text.as_str(), r.tilde)).collect();
        if named.is_empty() {
            named.push((".", false));
        }
        for (t, tilde) in named {
            let Some(dirs) = self.base_dirs(t, tilde) else {
                self.tree_outside.set(true);
                return true;
            };
            trees.extend(dirs.into_iter().map(|d| crate::facts::Tree {
                root: resolve(t, d, self.env.home),
                hidden,
                ignore,
            }));
        }
        if cfg!(feature = "sandbox-verdict")
            && trees
                .iter()
                .any(|t| !paths::is_within(&t.root, self.env.workspace))
        {
            self.tree_outside.set(true);
        }
        if let Some(needs) = self.env.needs {
            needs.borrow_mut().trees.extend(trees.iter().cloned());
        }
        let clean = self.env.trees
            && self
                .env
                .facts
                .is_some_and(|f| trees.iter().all(|t| f.tree_is_clean(t) == Some(true)));
        if clean {
            self.tree_used.set(true);
        }
        !clean
    }

    /// With a file system's facts: may the glob `a` match a symbolic link to a secret
    /// (`cat lnk/*` with `lnk/notes.txt -> ~/.ssh/id_rsa`)? Not when the host walked
    /// the tree under the directory before its first pattern component and found no
    /// link there that resolves to one. A tree not walked may; so does `..` before the
    /// pattern. Notes the tree as a need.
    pub(super) fn glob_may_reach_secret_link(&self, a: &Word) -> bool {
        let t = a.text.as_str();
        let comps: Vec<&str> = t.split('/').collect();
        let k = comps
            .iter()
            .position(|c| c.contains(['*', '?', '[']))
            .unwrap_or(comps.len());
        let prefix = comps.get(..k).unwrap_or_default().join("/");
        if comps.get(..k).unwrap_or_default().contains(&"..") {
            return true;
        }
        let root = match prefix.as_str() {
            "" if t.starts_with('/') => "/",
            "" => ".",
            p => p,
        };
        let Some(dirs) = self.base_dirs(root, a.tilde) else {
            return true;
        };
        dirs.into_iter().any(|d| {
            let tree = crate::facts::Tree {
                root: resolve(root, d, self.env.home),
                hidden: true,
                ignore: false,
            };
            let clean = self
                .env
                .facts
                .map(|f| f.links_are_clean(&tree, comps.len() - k));
            if let Some(needs) = self.env.needs {
                needs.borrow_mut().trees.push(tree);
            }
            matches!(clean, Some(None | Some(false)))
        })
    }

    /// The verdict for writing the file word `w` names (a redirect target, an operand
    /// of `touch`, `mkdir`, `tee`): the edit verdict of every path it may be from every
    /// directory bash may be in, the strictest. A name known only at run time, a glob
    /// and a path through `..` (a symlinked directory takes `..` anywhere) ask.
    pub(super) fn edit_target(&self, w: &Word) -> (Tier, RuleId, String) {
        self.wrote.set(true);
        let t = w.text.as_str();
        if w.dynamic {
            return (
                self.default_tier(),
                RuleId::ShellDynamic,
                format!(
                    "writes to a path only known at run time: {}",
                    self.text(w.span)
                ),
            );
        }
        if w.glob || w.braces.is_some() {
            return (
                self.default_tier(),
                RuleId::ShellDynamic,
                format!("writes to the files a pattern matches: {t}"),
            );
        }
        if t.split('/').any(|s| s == "..") {
            return (
                Tier::Ask,
                RuleId::EditOutside,
                format!("edits through `..`, which a symlinked directory takes anywhere: {t}"),
            );
        }
        let Some(dirs) = self.base_dirs(t, w.tilde) else {
            return (
                self.default_tier(),
                RuleId::ShellDynamic,
                format!("writes {t} relative to a working directory known only at run time"),
            );
        };
        let mut out: Option<(Tier, RuleId, String)> = None;
        for d in dirs {
            let abs = resolve(t, d, self.env.home);
            self.note_path(&abs);
            // Through a symbolic link the host found, the file written is its target
            // too: both are judged (a loop is a path nothing can rely on).
            let real = match self.env.facts.map(|f| f.resolve(&abs)) {
                None => None,
                Some(Some(r)) if r == abs => None,
                Some(Some(r)) => Some(r),
                Some(None) => {
                    return (
                        Tier::Ask,
                        RuleId::EditOutside,
                        format!("writes through symbolic links that loop: {t}"),
                    )
                }
            };
            if let Some(r) = real {
                let v = crate::edit::verdict(&r, self.env.workspace, self.env.home, self.env.edits);
                let v = (v.0, v.1, format!("{} (through a symbolic link: {t})", v.2));
                if out.as_ref().is_none_or(|o| v.0 > o.0) {
                    out = Some(v);
                }
            }
            let v = if matches!(
                abs.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
            ) {
                (
                    Tier::Auto,
                    RuleId::ShellReadonly,
                    format!("writes to {abs}, which keeps nothing"),
                )
            } else {
                crate::edit::verdict(&abs, self.env.workspace, self.env.home, self.env.edits)
            };
            if out.as_ref().is_none_or(|o| v.0 > o.0) {
                out = Some(v);
            }
        }
        out.unwrap_or((
            self.default_tier(),
            RuleId::ShellRedirect,
            format!("writes to a file: {t}"),
        ))
    }

    /// The strictest [`Walker::edit_target`] of `files` (with the span of its word);
    /// `None` when there is none.
    pub(super) fn edits_of<'w>(
        &self,
        files: impl Iterator<Item = &'w Word>,
    ) -> Option<(Tier, RuleId, String, Span)> {
        let mut out: Option<(Tier, RuleId, String, Span)> = None;
        for f in files {
            let (tier, rule, why) = self.edit_target(f);
            if out.as_ref().is_none_or(|o| tier > o.0) {
                out = Some((tier, rule, why, f.span));
            }
        }
        out
    }

    /// Resolves a static path word against the current directory.
    pub(super) fn resolve_word(&self, w: &Word) -> Option<String> {
        let t = w.text.as_str();
        if is_absolute(t, w.tilde) {
            return Some(resolve(t, "/", self.env.home));
        }
        self.cwd.as_deref().map(|c| resolve(t, c, self.env.home))
    }

    /// True when a path argument names `/`, the home directory or a top-level system
    /// directory (also `/*`, `~/`, `$HOME`, `..`-escapes, and globs at the top level).
    pub(super) fn is_root_like(&self, w: &Word) -> bool {
        let mut t = w.text.clone();
        let mut tilde = w.tilde;
        if w.dynamic {
            // `$HOME`, `${HOME}`, `"$HOME"/..`: the home directory is known.
            let rest = ["${HOME:?}", "${HOME}", "$HOME"]
                .iter()
                .find_map(|p| t.strip_prefix(p));
            match rest {
                Some(r) if !r.contains(['$', '`']) && (r.is_empty() || r.starts_with('/')) => {
                    t = format!("{}{r}", self.env.home);
                    tilde = false;
                }
                _ => return false,
            }
        }
        if tilde && !t.starts_with("~/") && t != "~" {
            // `~user`: another user's home directory.
            return !t
                .get(1..)
                .unwrap_or_default()
                .trim_end_matches('/')
                .has_char('/');
        }
        while t.len() > 1 && t.ends_with('/') {
            t.pop();
        }
        if w.glob {
            // A glob deletes whatever it matches inside the directory before it:
            // `/*`, `~/.*`, `/usr/*/lib`, `/[a-z]*` all reach a protected directory.
            let comps: Vec<&str> = t.split('/').collect();
            if let Some(k) = comps.iter().position(|c| c.contains(['*', '?', '['])) {
                let prefix = comps.get(..k).unwrap_or_default().join("/");
                let prefix = if prefix.is_empty() {
                    if t.starts_with('/') {
                        "/".to_string()
                    } else {
                        ".".to_string()
                    }
                } else {
                    prefix
                };
                return self.root_like_path(&prefix, tilde);
            }
        }
        self.root_like_path(&t, tilde)
    }

    pub(super) fn root_like_path(&self, t: &str, tilde: bool) -> bool {
        let probe = Word {
            text: t.to_string(),
            tilde,
            ..Word::default()
        };
        match self.resolve_word(&probe) {
            Some(p) => p == "/" || p == self.env.home || paths::SYSTEM_DIRS.contains(&p.as_str()),
            None => false,
        }
    }
}
