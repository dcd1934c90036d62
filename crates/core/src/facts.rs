//! What a host with a file system found out about paths: the core never touches one.
//! Without facts every path is judged lexically, as written; with them, a path through
//! a symbolic link is also judged as the file it really names (`out.txt -> ~/.bashrc`:
//! writing `out.txt` writes `~/.bashrc`).

use crate::paths;
use std::collections::BTreeMap;

/// Symbolic links as a host found them: the absolute path of each link and the path it
/// points to (absolute, or relative to the link's directory, as `readlink` prints it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsFacts {
    links: BTreeMap<String, String>,
}

/// How many links one path may pass through, as Linux allows (`ELOOP` beyond).
const MAX_HOPS: usize = 40;

impl FsFacts {
    pub fn new() -> FsFacts {
        FsFacts::default()
    }

    /// These facts and one more link: `link` (absolute) points to `target`.
    pub fn with_link(mut self, link: &str, target: &str) -> FsFacts {
        self.links
            .insert(paths::normalize(link), target.to_string());
        self
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The path `abs` (absolute, normalized) really names: every link along it
    /// followed, as the kernel follows them. `None` when the links loop (more than 40
    /// hops): such a path names nothing a verdict can rely on.
    pub fn resolve(&self, abs: &str) -> Option<String> {
        if self.links.is_empty() {
            return Some(abs.to_string());
        }
        let mut path = paths::normalize(abs);
        let mut hops = 0;
        'again: loop {
            // The longest prefix of `path`, component by component, that is a link.
            let mut prefix = String::new();
            for seg in path.split('/').filter(|s| !s.is_empty()) {
                prefix.push('/');
                prefix.push_str(seg);
                if let Some(target) = self.links.get(&prefix) {
                    hops += 1;
                    if hops > MAX_HOPS {
                        return None;
                    }
                    let rest = &path[prefix.len()..];
                    let parent = prefix.rsplit_once('/').map_or("/", |(p, _)| p);
                    let base = if target.starts_with('/') {
                        target.clone()
                    } else {
                        format!("{}/{target}", if parent.is_empty() { "" } else { parent })
                    };
                    path = paths::normalize(&format!("{base}{rest}"));
                    continue 'again;
                }
            }
            return Some(path);
        }
    }
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
}
