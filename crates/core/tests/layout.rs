//! The shape of the core's source, checked (issue 13): its modules form a DAG.
//!
//! A module's dependencies are the `crate::…` and `super::…` paths its code names (doc
//! comments and comments are not code). Each path is resolved to the longest module it
//! names, and the graph of top-level modules, and of the sibling modules of each
//! directory module, must have no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every module file under `src`, as (`a::b` module path, file).
fn modules(src: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![(src.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            panic!("cannot read {}", dir.display());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push((path, join(&prefix, &name)));
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let module = match stem {
                    "lib" | "mod" => prefix.clone(),
                    _ => join(&prefix, stem),
                };
                out.push((module, path));
            }
        }
    }
    out.sort();
    out
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}::{name}")
    }
}

/// The code of a file without its comments and without `#[cfg(test)]` modules.
fn code_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the item that follows: up to the closing brace at its indentation.
            let indent = line.len() - trimmed.len();
            for next in lines.by_ref() {
                let t = next.trim_start();
                if next.len() - t.len() == indent && (t == "}" || t.ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push(line);
    }
    out
}

/// The module paths (`a::b::c…` words) named after `crate::` or `super::` in `line`.
fn named_paths(line: &str, module: &str, is_dir_module: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line
        .match_indices("crate::")
        .chain(line.match_indices("super::"))
    {
        if at > 0 && {
            let before = line.as_bytes()[at - 1];
            before.is_ascii_alphanumeric() || before == b'_'
        } {
            continue;
        }
        let rest = &line[at..];
        let path: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let mut parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        let base: Vec<String> = if parts.first() == Some(&"crate") {
            parts.remove(0);
            Vec::new()
        } else {
            // `super::` from `a::b` (a file) is `a`; from `a::b` (a mod.rs) it is `a`'s parent.
            let mut base: Vec<String> = module.split("::").map(str::to_string).collect();
            if module.is_empty() {
                continue;
            }
            while parts.first() == Some(&"super") {
                parts.remove(0);
                base.pop();
            }
            if is_dir_module {
                base.pop();
            }
            base
        };
        let mut full = base;
        full.extend(parts.iter().map(|p| p.to_string()));
        out.push(full.join("::"));
    }
    out
}

#[test]
fn core_modules_form_a_dag() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = modules(&src);
    let known: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    // Edges between siblings: from each module to the modules its code names, both cut
    // to the first level below their common parent.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in &files {
        let text = fs::read_to_string(path).unwrap_or_default();
        let is_dir_module = path.file_name().is_some_and(|n| n == "mod.rs");
        for line in code_lines(&text) {
            for named in named_paths(line, module, is_dir_module) {
                // The longest known module the path names.
                let mut target = named.as_str();
                while !known.contains(target) {
                    match target.rfind("::") {
                        Some(i) => target = &target[..i],
                        None => {
                            target = "";
                            break;
                        }
                    }
                }
                if target.is_empty() || target == module {
                    continue;
                }
                let (from, to) = sibling_pair(module, target);
                if let (Some(from), Some(to)) = (from, to) {
                    edges.entry(from).or_default().insert(to);
                }
            }
        }
    }
    // Depth-first search for a cycle.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    let mut stack: Vec<&str> = Vec::new();
    fn visit<'a>(
        node: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
    ) {
        match state.get(node) {
            Some(2) => return,
            Some(1) => {
                let at = stack.iter().position(|n| *n == node).unwrap_or(0);
                panic!(
                    "import cycle among core modules: {} -> {node}",
                    stack[at..].join(" -> ")
                );
            }
            _ => {}
        }
        state.insert(node, 1);
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            visit(next, edges, state, stack);
        }
        stack.pop();
        state.insert(node, 2);
    }
    for node in edges.keys() {
        visit(node, &edges, &mut state, &mut stack);
    }
    assert!(
        edges.contains_key("error") || !known.contains("error"),
        "the checker found no edge from error.rs: it no longer reads the code"
    );
}

/// `from` and `to` cut to the children of their longest common parent. A module naming
/// its own ancestor or descendant makes no sibling edge.
fn sibling_pair(from: &str, to: &str) -> (Option<String>, Option<String>) {
    let a: Vec<&str> = from.split("::").collect();
    let b: Vec<&str> = to.split("::").collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common >= a.len() || common >= b.len() {
        return (None, None);
    }
    let cut = |parts: &[&str]| parts[..=common].join("::");
    (Some(cut(&a)), Some(cut(&b)))
}

/// The source files of every crate (`crates/*/src`), without the test modules.
fn crate_sources() -> Vec<(PathBuf, String)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(&crates) else {
        panic!("cannot read {}", crates.display());
    };
    for entry in entries.flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        for (_, path) in modules(&src) {
            // `tests.rs` files are test modules (`#[cfg(test)] mod tests;`).
            if path.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let text = fs::read_to_string(&path).unwrap_or_default();
            let code = match text.find("\n#[cfg(test)]\nmod tests {") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            out.push((path, code));
        }
    }
    assert!(out.len() > 50, "found only {} source files", out.len());
    out
}

/// No source file over 900 lines and no function over 150 (issue 13): a newcomer can
/// read any of them at once.
#[test]
fn files_and_functions_stay_small() {
    let mut bad = Vec::new();
    for (path, code) in crate_sources() {
        let lines: Vec<&str> = code.lines().collect();
        if lines.len() > 900 {
            bad.push(format!("{}: {} lines", path.display(), lines.len()));
        }
        // A function runs from its `fn` line to the first line that closes it at its
        // indentation (rustfmt's layout).
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            let is_fn = [
                "fn ",
                "pub fn ",
                "pub(crate) fn ",
                "pub(super) fn ",
                "async fn ",
            ]
            .iter()
            .chain(&["pub async fn ", "const fn ", "pub const fn "])
            .any(|p| trimmed.starts_with(p));
            if !is_fn || trimmed.ends_with(';') {
                continue;
            }
            let close = " ".repeat(indent) + "}";
            let Some(len) = lines[i..].iter().position(|l| **l == close) else {
                continue;
            };
            if len + 1 > 150 {
                bad.push(format!(
                    "{}:{}: a function of {} lines",
                    path.display(),
                    i + 1,
                    len + 1
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
