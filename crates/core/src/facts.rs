//! What a host with a file system found out about paths: the core never touches one.
//!
//! Classifying is two steps for a host that has the files: [`crate::Policy::fs_needs`]
//! lists what a verdict depends on (the paths it judges, the directory trees a
//! recursive read opens), the host looks them up and hands back [`FsFacts`], and
//! [`crate::Policy::classify_with_facts`] decides with them. Without facts every path is
//! judged lexically, as written, and a recursive read asks.
//!
//! With facts:
//! - a path through a symbolic link is also judged as the file it really names
//!   (`out.txt -> ~/.bashrc`: writing `out.txt` writes `~/.bashrc`, reading
//!   `notes.txt -> ~/.ssh/id_rsa` reads a key);
//! - a recursive read (`grep -r x .`, `rg x`) whose trees the host walked, finding no
//!   secret file the program would open, is read-only like `cat` of those files. A
//!   command that also writes a file gets no tree facts: the write may change what the
//!   walk found (`: > .gitignore && rg x`).

use crate::paths;
use serde::{Deserialize, Serialize};

/// A directory tree a recursive read opens, as the reading program walks it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Tree {
    /// The directory (or file) named on the command line, absolute and lexically
    /// normalized. The program follows it when it is a symbolic link; it follows no
    /// link below it (`grep -R`, `rg -L` and `find -L` get no tree: they ask).
    pub root: String,
    /// The program opens hidden files (names starting with `.`): `grep -r`, `rg --hidden`.
    pub hidden: bool,
    /// The program skips what ignore files exclude, as ripgrep does (`.gitignore` in a
    /// git repository, `.ignore`, `.rgignore`, the global git excludes).
    pub ignore: bool,
}

/// What a verdict depends on: the host looks these up ([`FsFacts`]). From
/// [`crate::Policy::fs_needs`], each list is in order and holds each item once.
/// (Vectors, not B-tree sets: each set type is ~1 KB of the gzipped WebAssembly.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsNeeds {
    /// Absolute paths (lexically normalized) read or written: the host reports every
    /// symbolic link along each one ([`FsFacts::with_link`]).
    pub paths: Vec<String>,
    /// Trees a recursive read opens: the host walks each one ([`FsFacts::with_tree`]).
    pub trees: Vec<Tree>,
    /// Directories a git command starts in (its working directory, `-C DIR`, or the
    /// `--git-dir` it names), absolute: the host finds the repository there as git
    /// does and reports what its own configuration runs ([`FsFacts::add_repo`]).
    #[cfg(feature = "repo-facts")]
    #[serde(default)]
    pub repos: std::collections::BTreeSet<String>,
}

impl FsNeeds {
    /// The paths and trees sorted (trees by root, then `hidden`, then `ignore`), each
    /// once: the walk records them as it meets them.
    pub(crate) fn finish(mut self) -> FsNeeds {
        self.paths =
            crate::store::sort_by_text(std::mem::take(&mut self.paths), String::clone, true);
        self.trees = crate::store::sort_by_text(
            std::mem::take(&mut self.trees),
            |t| {
                // The root, then the two flags: a key that names one tree (the flags are
                // the last three bytes), in the order of `Tree`'s own comparison.
                format!("{}\0{}{}", t.root, u8::from(t.hidden), u8::from(t.ignore))
            },
            true,
        );
        self
    }

    /// Nothing to look up.
    pub fn is_empty(&self) -> bool {
        #[cfg(feature = "repo-facts")]
        if !self.repos.is_empty() {
            return false;
        }
        self.paths.is_empty() && self.trees.is_empty()
    }
}

/// What a repository's own configuration makes git run: the keys (`diff.external`,
/// `filter.lfs.smudge`, …) that name a program, each as `key = value`; empty when it
/// names none (or there is no repository); `Err` when it could not be read.
pub type RepoPrograms = Result<Vec<String>, String>;

/// Symbolic links and walked trees, as a host found them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsFacts {
    /// Each link's target (a JSON string), by the link's normalized path: a JSON map,
    /// whose B-tree code the WebAssembly links for its JSON reader already (a map of
    /// its own type would add ~1 KB gzipped).
    links: serde_json::Map<String, serde_json::Value>,
    /// For each walked tree (once), the secret files found in it (by name or
    /// location). A host walks a few trees for one call: found by a scan.
    trees: Vec<(Tree, Vec<String>)>,
    /// For each directory a git command starts in, what its repository's own
    /// configuration runs.
    #[cfg(feature = "repo-facts")]
    repos: std::collections::BTreeMap<String, RepoPrograms>,
}

/// How many links one path may pass through, as Linux allows (`ELOOP` beyond).
const MAX_HOPS: usize = 40;

impl FsFacts {
    /// No facts: the classifier assumes the worst of each path.
    pub fn new() -> FsFacts {
        FsFacts::default()
    }

    /// These facts and one more link: `link` (absolute, with no link before its last
    /// component: as the kernel reaches it) points to `target` (absolute, or relative
    /// to the link's directory, as `readlink` prints it).
    pub fn with_link(mut self, link: &str, target: &str) -> FsFacts {
        self.add_link(link, target);
        self
    }

    /// [`FsFacts::with_link`] in place.
    pub fn add_link(&mut self, link: &str, target: &str) {
        self.links.insert(
            paths::normalize(link),
            serde_json::Value::String(target.to_string()),
        );
    }

    /// These facts and one walked tree: `files` are every file the program would open
    /// under `tree.root` (absolute paths; a host that cannot apply `hidden` or `ignore`
    /// may list more, never fewer). Every symbolic link under the root must also be
    /// reported, with [`FsFacts::add_link`]. Only the secret files are kept.
    pub fn with_tree<I, S>(mut self, tree: Tree, files: I) -> FsFacts
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.add_tree(tree, files);
        self
    }

    /// [`FsFacts::with_tree`] in place.
    pub fn add_tree<I, S>(&mut self, tree: Tree, files: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let found = files
            .into_iter()
            .map(|f| paths::normalize(f.as_ref()))
            .filter(|f| paths::is_secret(f))
            .collect();
        match self.trees.iter_mut().find(|(t, _)| *t == tree) {
            Some((_, files)) => *files = found,
            None => self.trees.push((tree, found)),
        }
    }

    /// No fact recorded.
    pub fn is_empty(&self) -> bool {
        #[cfg(feature = "repo-facts")]
        if !self.repos.is_empty() {
            return false;
        }
        self.links.is_empty() && self.trees.is_empty()
    }

    /// Records what the repository that a git command starting in `dir` (absolute)
    /// finds has its own configuration run.
    #[cfg(feature = "repo-facts")]
    pub fn add_repo(&mut self, dir: &str, programs: RepoPrograms) {
        self.repos.insert(paths::normalize(dir), programs);
    }

    /// [`FsFacts::add_repo`] by value.
    #[cfg(feature = "repo-facts")]
    pub fn with_repo(mut self, dir: &str, programs: RepoPrograms) -> FsFacts {
        self.add_repo(dir, programs);
        self
    }

    /// What the repository of a git command starting in `dir` runs; `None` when the
    /// host did not look.
    #[cfg(feature = "repo-facts")]
    pub fn repo(&self, dir: &str) -> Option<&RepoPrograms> {
        self.repos.get(&paths::normalize(dir))
    }

    /// Were trees walked? (Only then is a command's second look needed.)
    pub fn has_trees(&self) -> bool {
        !self.trees.is_empty()
    }

    /// The secret files found in the walked `tree`; `None` when it was not walked.
    fn tree(&self, tree: &Tree) -> Option<&Vec<String>> {
        self.trees
            .iter()
            .find(|(t, _)| t == tree)
            .map(|(_, files)| files)
    }

    /// Does the walked `tree` hold no secret file, and no link under its root to one?
    /// (Links are counted whether or not the program would open them.) `None` when the
    /// host did not walk it.
    pub fn tree_is_clean(&self, tree: &Tree) -> Option<bool> {
        let found = self.tree(tree)?;
        if !found.is_empty() {
            return Some(false);
        }
        self.links_are_clean(tree, usize::MAX)
    }

    /// Was `tree` walked, and does no symbolic link under its root, at most `depth`
    /// components below it, resolve to a secret file (or loop)? `None` when it was not
    /// walked. (What a glob under the root can reach beyond the names it matches: `*`
    /// reaches depth 1, `*/*` depth 2.)
    pub fn links_are_clean(&self, tree: &Tree, depth: usize) -> Option<bool> {
        self.tree(tree)?;
        let Some(root) = self.resolve(&tree.root) else {
            return Some(false);
        };
        let prefix = if root == "/" { String::new() } else { root };
        let under = format!("{prefix}/");
        Some(
            self.links
                .keys()
                .filter(|link| link.starts_with(&under))
                .filter(|link| {
                    link.get(prefix.len() + 1..)
                        .unwrap_or_default()
                        .split('/')
                        .count()
                        <= depth
                })
                .all(|link| {
                    self.resolve(link)
                        .is_some_and(|real| !paths::is_secret(&real))
                }),
        )
    }

    /// The path `abs` (absolute) really names: every link along it followed, and `..`
    /// taken after the link before it, as the kernel does. `None` when the links loop
    /// (more than 40 hops): such a path names nothing a verdict can rely on.
    pub fn resolve(&self, abs: &str) -> Option<String> {
        if self.links.is_empty() {
            return Some(paths::normalize(abs));
        }
        follow_links(abs, |here| {
            Step::from(
                self.links
                    .get(here)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string),
            )
        })
    }
}

/// What a path walked so far is, for [`follow_links`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Not a symbolic link (or nothing there).
    Plain,
    /// A symbolic link to this target (absolute, or relative to the link's directory).
    Link(String),
    /// Cannot be known (a link that cannot be read): the walk names nothing.
    Unknown,
}

impl From<Option<String>> for Step {
    fn from(target: Option<String>) -> Step {
        target.map_or(Step::Plain, Step::Link)
    }
}

/// Walks absolute path `abs` component by component as the kernel does: `look(here)`
/// says what the path so far is, and each link is followed (`..` after it leaves its
/// target). The path it really names; `None` past 40 links (`ELOOP`) or at a
/// [`Step::Unknown`]. The one walk for the facts a host found ([`FsFacts::resolve`])
/// and for a host finding them on its file system (`look` doing `lstat`/`readlink`).
pub fn follow_links(abs: &str, mut look: impl FnMut(&str) -> Step) -> Option<String> {
    // Components still to walk, the next one last.
    let mut todo: Vec<String> = components(abs);
    let mut real: Vec<String> = Vec::new();
    let mut hops = 0;
    while let Some(seg) = todo.pop() {
        match seg.as_str() {
            "." => continue,
            ".." => {
                real.pop();
                continue;
            }
            _ => real.push(seg),
        }
        let here = format!("/{}", real.join("/"));
        match look(&here) {
            Step::Plain => {}
            Step::Unknown => return None,
            Step::Link(target) => {
                hops += 1;
                if hops > MAX_HOPS {
                    return None;
                }
                real.pop();
                if target.starts_with('/') {
                    real.clear();
                }
                todo.extend(components(&target));
            }
        }
    }
    Some(format!("/{}", real.join("/")))
}

/// The components of `path`, the first one last (a stack).
fn components(path: &str) -> Vec<String> {
    path.split('/')
        .rev()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_links_along_a_path() {
        let f = FsFacts::new()
            .with_link("/w/out.txt", "/h/.bashrc")
            .with_link("/w/docs", "../elsewhere")
            .with_link("/w/self", "/w/self")
            .with_link("/w/a", "b")
            .with_link("/w/b", "/w/c/d");
        assert_eq!(f.resolve("/w/out.txt").as_deref(), Some("/h/.bashrc"));
        assert_eq!(
            f.resolve("/w/docs/x.md").as_deref(),
            Some("/elsewhere/x.md")
        );
        assert_eq!(f.resolve("/w/a/y").as_deref(), Some("/w/c/d/y"));
        assert_eq!(f.resolve("/w/src/lib.rs").as_deref(), Some("/w/src/lib.rs"));
        assert_eq!(f.resolve("/w/self/x"), None, "a loop names nothing");
        assert_eq!(FsFacts::new().resolve("/w/x").as_deref(), Some("/w/x"));
    }

    #[test]
    fn dot_dot_after_a_link_leaves_its_target() {
        // `keys -> /h/.ssh/sub`: `keys/../config` is `/h/.ssh/config`, not `/w/config`.
        let f = FsFacts::new().with_link("/w/keys", "/h/.ssh/sub");
        assert_eq!(
            f.resolve("/w/keys/../config").as_deref(),
            Some("/h/.ssh/config")
        );
        assert_eq!(f.resolve("/w/src/../x").as_deref(), Some("/w/x"));
        assert_eq!(f.resolve("/..").as_deref(), Some("/"));
    }

    #[test]
    fn a_tree_is_clean_without_secrets_or_links_to_them() {
        let t = Tree {
            root: "/w".into(),
            hidden: true,
            ignore: false,
        };
        let clean = FsFacts::new().with_tree(t.clone(), ["/w/a.py", "/w/src/b.rs"]);
        assert_eq!(clean.tree_is_clean(&t), Some(true));
        let other = Tree {
            hidden: false,
            ..t.clone()
        };
        assert_eq!(clean.tree_is_clean(&other), None, "not walked");
        let secret = FsFacts::new().with_tree(t.clone(), ["/w/a.py", "/w/conf/.env.local"]);
        assert_eq!(secret.tree_is_clean(&t), Some(false));
        let linked = FsFacts::new()
            .with_link("/w/sub/notes.txt", "/h/.ssh/id_rsa")
            .with_tree(t.clone(), ["/w/sub/notes.txt"]);
        assert_eq!(linked.tree_is_clean(&t), Some(false));
        // The same tree walked again: the last walk is what counts (as a map's
        // insert), both ways.
        let rewalked = FsFacts::new()
            .with_tree(t.clone(), ["/w/conf/.env.local"])
            .with_tree(t.clone(), ["/w/a.py"]);
        assert_eq!(rewalked.tree_is_clean(&t), Some(true));
        let rewalked = FsFacts::new()
            .with_tree(t.clone(), ["/w/a.py"])
            .with_tree(other.clone(), ["/w/a.py"])
            .with_tree(t.clone(), ["/w/conf/.env.local"]);
        assert_eq!(rewalked.tree_is_clean(&t), Some(false));
        assert_eq!(rewalked.tree_is_clean(&other), Some(true));
        // A link given twice: the last target counts.
        let relinked = FsFacts::new()
            .with_link("/w/sub/notes.txt", "/h/.ssh/id_rsa")
            .with_link("/w/sub/notes.txt", "/w/notes.md")
            .with_tree(t.clone(), ["/w/sub/notes.txt"]);
        assert_eq!(relinked.tree_is_clean(&t), Some(true));
        let harmless = FsFacts::new()
            .with_link("/w/readme", "README.md")
            .with_link("/wx/key", "/h/.ssh/id_rsa")
            .with_tree(t.clone(), ["/w/readme"]);
        assert_eq!(
            harmless.tree_is_clean(&t),
            Some(true),
            "/wx is not under /w"
        );
        // The root through a link: what is under its target counts.
        let moved = Tree {
            root: "/w/docs".into(),
            ..t.clone()
        };
        let via = FsFacts::new()
            .with_link("/w/docs", "/d")
            .with_link("/d/k", "/h/.ssh/id_rsa")
            .with_tree(moved.clone(), ["/d/a.md"]);
        assert_eq!(via.tree_is_clean(&moved), Some(false));
    }
}
