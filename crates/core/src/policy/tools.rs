//! A policy's `[tools.NAME]` tables: what a tool toolgate does not know is, in its
//! families' terms, so that it is judged as the shell command, read, edit or fetch it
//! performs rather than by the default rule.
//!
//! ```toml
//! [tools.my_exec]
//! family = "shell"     # shell | read | edit | list | search | fetch
//! command = "cmd"      # the argument holding the command (a string or an argv array)
//!
//! [tools.open_doc]
//! family = "read"
//! path = ["doc", "docs"]   # every argument holding a path (strings or arrays of them)
//! ```
//!
//! The argument key is `command` for `shell`, `url` for `fetch` and `path` for the
//! others; several keys may be listed. A mapping of a name a family already has
//! (`bash`, `read_file`, `webfetch`, …), an unknown family, a missing key or a key of
//! another family is an error naming the table's line. Every build has them: the native
//! hosts and the WebAssembly ones (the npm package, the element) classify alike.

use crate::call::Family;
use crate::error::Error;
use serde_json::Value;

/// The kinds a tool may be mapped to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Shell,
    Read,
    Edit,
    List,
    Search,
    Fetch,
}

/// A compiled mapping: the lower-case tool name, its kind and argument keys.
#[derive(Debug, Clone)]
pub(super) struct ToolMap {
    pub(super) name: String,
    pub(super) kind: Kind,
    pub(super) keys: Vec<String>,
}

impl Kind {
    /// The kind a family word names (`shell`, `read`, …).
    pub(super) fn of(word: &str) -> Option<Kind> {
        KINDS
            .iter()
            .find(|(w, _, _)| *w == word)
            .map(|&(_, k, _)| k)
    }

    /// The family word of the kind.
    pub(super) fn word(self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k, _)| *k == self)
            .map_or("", |&(w, _, _)| w)
    }
}

const KINDS: &[(&str, Kind, &str)] = &[
    ("shell", Kind::Shell, "command"),
    ("read", Kind::Read, "path"),
    ("edit", Kind::Edit, "path"),
    ("list", Kind::List, "path"),
    ("search", Kind::Search, "path"),
    ("fetch", Kind::Fetch, "url"),
];

/// Checks and compiles the `[tools]` tables (read as a JSON value: typed serde for them
/// would cost several KB of WebAssembly); `text` locates errors.
pub(super) fn compile(tools: Option<Value>, text: &str) -> Result<Vec<ToolMap>, Error> {
    let Some(tools) = tools else {
        return Ok(Vec::new());
    };
    let Value::Object(tables) = tools else {
        return Err(Error::Policy {
            line: line_of_table(text, ""),
            message: "`tools` must be tables: [tools.NAME]".into(),
        });
    };
    let mut out: Vec<ToolMap> = Vec::with_capacity(tables.len());
    for (name, table) in tables {
        let err = |message: String| Error::Policy {
            line: line_of_table(text, &name),
            message: format!("[tools.{name}]: {message}"),
        };
        let Value::Object(table) = table else {
            return Err(err("must be a table (family = …, and its argument)".into()));
        };
        if let Some(k) = table
            .keys()
            .find(|k| !matches!(k.as_str(), "family" | "command" | "path" | "url"))
        {
            return Err(err(format!(
                "unknown key `{k}` (family, command, path or url)"
            )));
        }
        let lower = name.to_ascii_lowercase();
        if lower.trim().is_empty() {
            return Err(err("the tool name is empty".into()));
        }
        let own = Family::of(&lower);
        if !matches!(own, Family::Mcp | Family::Other) {
            return Err(err(format!(
                "`{name}` is already a {} tool; [tools] maps the other tools",
                family_word(own)
            )));
        }
        if out.iter().any(|m| m.name == lower) {
            return Err(err(format!(
                "`{name}` is mapped twice (tool names are case-insensitive)"
            )));
        }
        let family = match table.get("family") {
            Some(Value::String(f)) => f.as_str(),
            Some(_) => return Err(err("`family` must be a string".into())),
            None => {
                return Err(err(
                    "missing `family` (shell, read, edit, list, search, fetch)".into(),
                ))
            }
        };
        let Some(&(_, kind, key)) = KINDS.iter().find(|(w, _, _)| *w == family) else {
            return Err(err(format!(
                "`family` must be one of shell, read, edit, list, search, fetch; not {}",
                crate::error::quoted(family)
            )));
        };
        if let Some(other) = ["command", "path", "url"]
            .into_iter()
            .find(|k| *k != key && table.contains_key(*k))
        {
            return Err(err(format!(
                "`{other}` is not a key of a {family} tool (it takes `{key}`)"
            )));
        }
        let keys: Vec<String> = match table.get(key) {
            Some(Value::String(k)) => vec![k.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .map(|k| k.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| err(format!("`{key}` must list argument names (strings)")))?,
            Some(_) => {
                return Err(err(format!(
                    "`{key}` must be an argument name or a list of them"
                )))
            }
            None => {
                return Err(err(format!(
                    "a {family} tool needs `{key}`: the argument that holds its {key}"
                )))
            }
        };
        if keys.is_empty() || keys.iter().any(String::is_empty) {
            return Err(err(format!("`{key}` names no argument")));
        }
        out.push(ToolMap {
            name: lower,
            kind,
            keys,
        });
    }
    Ok(out)
}

fn family_word(f: Family) -> &'static str {
    match f {
        Family::Shell => "shell",
        Family::Read => "read",
        Family::Edit => "edit",
        Family::Fetch => "fetch",
        Family::Mcp => "MCP",
        Family::Other => "other",
    }
}

/// The 1-based line of `[tools.NAME]` (or of the first line naming it).
fn line_of_table(text: &str, name: &str) -> usize {
    let header = |l: &str| {
        l.trim()
            .strip_prefix("[tools.")
            .and_then(|h| h.split(']').next())
            .is_some_and(|h| h.trim().trim_matches(['"', '\'']) == name)
    };
    text.lines()
        .position(header)
        .or_else(|| text.lines().position(|l| crate::needle::contains(l, name)))
        .map_or(1, |i| i + 1)
}

impl super::Policy {
    /// A call the policy's `[tools]` or the host shapes table knows, as canonical
    /// calls (`None` for a call its family judges).
    pub(super) fn canonical(
        &self,
        call: &crate::call::ToolCall,
    ) -> Option<Result<Vec<crate::call::ToolCall>, String>> {
        use crate::shapes::{apply, Shape};
        if !self.tools.is_empty() {
            let lower = call.tool.to_ascii_lowercase();
            if let Some(m) = self.tools.iter().find(|m| m.name == lower) {
                let keys: Vec<&str> = m.keys.iter().map(String::as_str).collect();
                let shape = match m.kind {
                    Kind::Shell => Shape::Shell(&keys),
                    Kind::Read => Shape::Read(&keys),
                    Kind::Edit => Shape::Edit(&keys),
                    Kind::List => Shape::List(&keys),
                    Kind::Search => Shape::Search(&keys),
                    Kind::Fetch => Shape::Fetch(&keys),
                };
                return Some(apply(shape, call));
            }
        }
        crate::shapes::canonical(call)
    }
}
