//! The tool shapes of agent hosts: one table mapping a host's tool name to what its
//! call does in toolgate's families, so that Claude Code's `Grep`, Codex's argv
//! `command` and `apply_patch`, Gemini CLI's `run_shell_command`, OpenHands' editor or
//! the MCP filesystem server's `move_file` are judged as the shell command, read or edit
//! they are, not by the default rule.
//!
//! [`canonical`] rewrites such a call into canonical calls (`bash {command}`, `read
//! {path}`, `edit {path}`); the policy classifies each and the strictest wins. A call
//! that lacks the argument its shape needs is `Err(why)`: `ask`, naming the argument.
//! Every entry has example calls in `tests/shapes.rs`, which fails for an entry
//! without them.

use crate::call::{json_kind, Family, ToolCall};
use serde_json::{Map, Value};

/// What a host tool is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape<'k> {
    /// Runs a shell command: the first key present, a string or an argv array.
    Shell(&'k [&'k str]),
    /// Reads the file (or lists the directory) at each key present.
    Read(&'k [&'k str]),
    /// Lists names under the directory at each key present (default the working
    /// directory) matching `pattern`, which is also judged as a path.
    List(&'k [&'k str]),
    /// Writes, edits or deletes the file at each key present.
    Edit(&'k [&'k str]),
    /// Searches file contents under the directory at the first key present (default
    /// the working directory), as `rg` would: a recursive read.
    Search(&'k [&'k str]),
    /// Fetches the URL at the first key present (only a policy's `[tools]` maps it).
    Fetch(&'k [&'k str]),
    /// Codex's (and OpenCode's) `apply_patch`: every file the patch adds, updates,
    /// deletes or moves is an edit.
    Patch,
    /// OpenAI's `local_shell`: `{action: {command: [argv]}}`.
    LocalShell,
    /// OpenHands' `str_replace_editor`: `view` reads, anything else edits `path`.
    Editor,
}

/// The table: lower-case tool name → shape, by host. Names a family already has
/// (`bash`, `read_file`, `write_file`, `edit`, …) are not repeated.
pub const SHAPES: &[(&str, Shape<'static>)] = &[
    // Claude Code.
    ("multiedit", Shape::Edit(&["file_path"])),
    ("notebookedit", Shape::Edit(&["notebook_path"])),
    ("notebookread", Shape::Read(&["notebook_path"])),
    (
        "glob",
        Shape::List(&["path", "dir_path", "paths", "target_directory"]),
    ),
    ("grep", Shape::Search(&["path", "dir_path"])),
    // Codex.
    ("view_image", Shape::Read(&["path"])),
    ("exec_command", Shape::Shell(&["cmd", "command"])),
    ("apply_patch", Shape::Patch),
    // Gemini CLI.
    ("run_shell_command", Shape::Shell(&["command"])),
    ("replace", Shape::Edit(&["file_path"])),
    ("grep_search", Shape::Search(&["dir_path", "path"])),
    ("search_file_content", Shape::Search(&["dir_path", "path"])),
    ("list_directory", Shape::List(&["dir_path", "path"])),
    ("read_many_files", Shape::Read(&["paths", "include"])),
    // GitHub Copilot CLI (`bash`, `view`, `create`, `apply_patch` and `glob` above).
    ("rg", Shape::Search(&["paths", "path"])),
    // OpenCode (`bash`, `read`, `write`, `edit` with `filePath`, `glob`, `grep` and
    // `apply_patch` with `patchText` above): its language-server tool reads the file.
    ("lsp", Shape::Read(&["filePath"])),
    // OpenAI Responses' local shell.
    ("local_shell", Shape::LocalShell),
    // OpenHands.
    ("execute_bash", Shape::Shell(&["command"])),
    ("str_replace_editor", Shape::Editor),
    // Cline.
    ("execute_command", Shape::Shell(&["command"])),
    ("write_to_file", Shape::Edit(&["path"])),
    ("replace_in_file", Shape::Edit(&["path"])),
    ("list_files", Shape::List(&["path"])),
    ("search_files", Shape::Search(&["path"])),
    // Cursor (its agent's `Write` is the family's; `Grep` and `Glob` above, its
    // `Glob` and `LS` naming the directory `target_directory`).
    ("strreplace", Shape::Edit(&["path", "file_path"])),
    ("delete", Shape::Edit(&["path", "file_path"])),
    ("editnotebook", Shape::Edit(&["target_notebook", "path"])),
    ("run_terminal_cmd", Shape::Shell(&["command"])),
    ("edit_file", Shape::Edit(&["target_file", "path"])),
    ("delete_file", Shape::Edit(&["target_file", "path"])),
    (
        "list_dir",
        Shape::List(&["relative_workspace_path", "path"]),
    ),
    // The MCP reference filesystem server (`mcp__filesystem__TOOL`, `mcp_filesystem_TOOL`).
    ("read_text_file", Shape::Read(&["path"])),
    ("read_media_file", Shape::Read(&["path"])),
    ("read_multiple_files", Shape::Read(&["paths"])),
    ("create_directory", Shape::Edit(&["path"])),
    ("list_directory_with_sizes", Shape::List(&["path"])),
    ("directory_tree", Shape::List(&["path"])),
    ("move_file", Shape::Edit(&["source", "destination"])),
    ("get_file_info", Shape::Read(&["path"])),
];

/// The MCP filesystem server's tool names that a family already covers.
const MCP_FS_FAMILY: &[&str] = &[
    "read_file",
    "write_file",
    "edit_file",
    "list_directory",
    "search_files",
];

/// The shape of `tool`, if the table has it (an MCP filesystem server's tool by its
/// name after the server's).
pub fn shape_of(tool: &str) -> Option<Shape<'static>> {
    // Compared ignoring ASCII case, with no lowercase copy (the table's names are
    // lowercase): this runs for every call.
    let fs = mcp_filesystem_tool(tool);
    let name = fs.unwrap_or(tool);
    if let Some((_, s)) = SHAPES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Some(*s);
    }
    // The filesystem server's own read_file / write_file / …, behind its MCP name.
    let family = MCP_FS_FAMILY.iter().find(|f| f.eq_ignore_ascii_case(name));
    match (fs, family) {
        (Some(_), Some(&f)) => Some(match f {
            "read_file" | "list_directory" => Shape::Read(&["path"]),
            "search_files" => Shape::Search(&["path"]),
            _ => Shape::Edit(&["path"]),
        }),
        _ => None,
    }
}

/// The tool's name after an MCP filesystem server's prefix (any ASCII case).
fn mcp_filesystem_tool(tool: &str) -> Option<&str> {
    ["mcp__filesystem__", "mcp_filesystem_"]
        .iter()
        .find_map(|p| {
            tool.get(..p.len())
                .filter(|head| head.eq_ignore_ascii_case(p))
                .and_then(|_| tool.get(p.len()..))
        })
}

/// A host's call as canonical calls, when its shape is known: `None` for a call the
/// families already judge. A shell call whose `command` is an argv array is a shape
/// too (Codex's `shell`).
pub fn canonical(call: &ToolCall) -> Option<Result<Vec<ToolCall>, String>> {
    let family = call.family();
    if family == Family::Shell {
        return match (call.args.as_object(), call.args.get("command")) {
            (Some(obj), Some(Value::Array(argv))) => {
                Some(argv_command(argv).map(|c| vec![shell_in(c, obj, &["command"])]))
            }
            _ => None,
        };
    }
    if !matches!(
        family,
        Family::Other | Family::Mcp | Family::Read | Family::Edit
    ) {
        return None;
    }
    Some(apply(shape_of(&call.tool)?, call))
}

/// `call` read as a tool of `shape`: its canonical calls, or why it cannot be.
pub fn apply(shape: Shape<'_>, call: &ToolCall) -> Result<Vec<ToolCall>, String> {
    let Some(obj) = call.args.as_object() else {
        return Err("`args` must be an object".into());
    };
    match shape {
        Shape::Shell(keys) => command_of(obj, keys).map(|c| vec![shell_in(c, obj, keys)]),
        Shape::Read(keys) => paths_of(obj, keys).map(|ps| ps.into_iter().map(read).collect()),
        Shape::Edit(keys) => paths_of(obj, keys).map(|ps| ps.into_iter().map(edit).collect()),
        Shape::List(keys) => dir_or_cwd(obj, keys).map(|mut ps| {
            if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
                ps.push(p.to_string());
            }
            ps.into_iter().map(read).collect()
        }),
        // The pattern never decides what is read: where is what matters.
        Shape::Search(keys) => dir_or_cwd(obj, keys).map(|dirs| {
            let dirs: Vec<String> = dirs.iter().map(|d| quote(d)).collect();
            vec![shell(format!("rg -e x -- {}", dirs.join(" ")))]
        }),
        Shape::Patch => ["input", "patch", "command", "patchText"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(Value::as_str))
            .ok_or_else(|| missing(&["input"]))
            .and_then(patch_paths)
            .map(|ps| ps.into_iter().map(edit).collect()),
        Shape::LocalShell => {
            let action = obj.get("action").and_then(Value::as_object).unwrap_or(obj);
            match action.get("command") {
                Some(Value::Array(argv)) => {
                    argv_command(argv).map(|c| vec![shell_in(c, action, &["command"])])
                }
                _ => Err(missing(&["action.command"])),
            }
        }
        Shape::Editor => {
            let view = obj.get("command").and_then(Value::as_str) == Some("view");
            paths_of(obj, &["path"])
                .map(|ps| ps.into_iter().map(if view { read } else { edit }).collect())
        }
        Shape::Fetch(keys) => keys
            .iter()
            .find_map(|k| obj.get(*k).map(|v| (k, v)))
            .ok_or_else(|| missing(keys))
            .and_then(|(k, v)| match v {
                Value::String(url) => Ok(vec![one("fetch", "url", url.clone())]),
                other => Err(format!("`{k}` must be a string, not {}", json_kind(other))),
            }),
    }
}

/// `tool {key: value}`.
fn one(tool: &str, key: &str, value: String) -> ToolCall {
    let mut args = Map::new();
    args.insert(key.to_string(), Value::String(value));
    ToolCall::new(tool, Value::Object(args))
}
fn shell(command: String) -> ToolCall {
    one("bash", "command", command)
}
/// `bash {command}` with the host call's other arguments beside it (all but `keys`,
/// where the command was): a working directory, an environment, a timeout. The shell
/// family judges them (`cd DIR` before the command; an argument that could change how
/// it runs asks).
fn shell_in(command: String, obj: &Map<String, Value>, keys: &[&str]) -> ToolCall {
    // Inserted one by one: collecting into a map sorts (a second sort in the .wasm).
    let mut args = Map::new();
    for (k, v) in obj.iter().filter(|(k, _)| !keys.contains(&k.as_str())) {
        args.insert(k.clone(), v.clone());
    }
    args.insert("command".to_string(), Value::String(command));
    ToolCall::new("bash", Value::Object(args))
}
fn read(path: String) -> ToolCall {
    one("read", "path", path)
}
fn edit(path: String) -> ToolCall {
    one("edit", "path", path)
}

/// The first of `keys` present: a command string, or an argv array.
fn command_of(obj: &Map<String, Value>, keys: &[&str]) -> Result<String, String> {
    for k in keys {
        match obj.get(*k) {
            Some(Value::String(s)) => return Ok(s.clone()),
            Some(Value::Array(argv)) => return argv_command(argv),
            Some(other) => {
                return Err(format!(
                    "`{k}` must be a string or an argv array, not {}",
                    json_kind(other)
                ))
            }
            None => {}
        }
    }
    Err(format!(
        "missing `{}` (the command)",
        keys.first().copied().unwrap_or("command")
    ))
}

/// Every path at `keys` (strings, or arrays of strings); at least one.
fn paths_of(obj: &Map<String, Value>, keys: &[&str]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for k in keys {
        match obj.get(*k) {
            None => {}
            Some(Value::String(s)) => out.push(s.clone()),
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => {
                            return Err(format!(
                                "`{k}` must hold strings, not {}",
                                json_kind(other)
                            ))
                        }
                    }
                }
            }
            Some(other) => return Err(bad(k, other)),
        }
    }
    if out.is_empty() {
        return Err(format!(
            "missing `{}` (the path)",
            keys.first().copied().unwrap_or("path")
        ));
    }
    Ok(out)
}

/// `KEY must be a string (or an array of strings), not …`.
fn bad(key: &str, v: &Value) -> String {
    format!(
        "`{key}` must be a string (or an array of them), not {}",
        json_kind(v)
    )
}

/// `missing KEY`: the argument the shape expected.
fn missing(keys: &[&str]) -> String {
    format!("missing `{}`", keys.first().copied().unwrap_or_default())
}

/// The paths at `keys`, or the working directory when none is given (a key present
/// with another type is malformed, never the working directory).
fn dir_or_cwd(obj: &Map<String, Value>, keys: &[&str]) -> Result<Vec<String>, String> {
    if keys.iter().any(|k| obj.contains_key(*k)) {
        paths_of(obj, keys)
    } else {
        Ok(vec![".".to_string()])
    }
}

/// An argv array as the shell command that runs exactly it: each word quoted where
/// bash would read it otherwise.
pub fn argv_command(argv: &[Value]) -> Result<String, String> {
    if argv.is_empty() {
        return Err("the argv array is empty".into());
    }
    let mut words = Vec::with_capacity(argv.len());
    for w in argv {
        match w {
            Value::String(s) => words.push(quote(s)),
            other => {
                return Err(format!(
                    "an argv word must be a string, not {}",
                    json_kind(other)
                ))
            }
        }
    }
    Ok(words.join(" "))
}

/// `s` as one shell word: bare when every byte is plainly literal, else in single
/// quotes (a `'` inside as `'\''`).
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,@%+".contains(&b))
        && !s.starts_with('=');
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The files a Codex patch touches: `*** Add File:`, `*** Update File:`, `*** Delete
/// File:` and `*** Move to:` lines. A patch that names none is malformed.
pub fn patch_paths(patch: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        for head in [
            "*** Add File:",
            "*** Update File:",
            "*** Delete File:",
            "*** Move to:",
        ] {
            if let Some(path) = line.strip_prefix(head) {
                let path = path.trim();
                if path.is_empty() {
                    return Err(format!("`{head}` names no file"));
                }
                out.push(path.to_string());
            }
        }
    }
    if out.is_empty() {
        return Err("the patch names no file (`*** Add File:`, `*** Update File:`, …)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The first implementation (a lowercase copy, then equality).
    fn reference(tool: &str) -> Option<Shape<'static>> {
        let lower = tool.to_ascii_lowercase();
        let fs = lower
            .strip_prefix("mcp__filesystem__")
            .or_else(|| lower.strip_prefix("mcp_filesystem_"));
        let name = fs.unwrap_or(&lower);
        if let Some((_, s)) = SHAPES.iter().find(|(n, _)| *n == name) {
            return Some(*s);
        }
        if fs.is_some() && MCP_FS_FAMILY.contains(&name) {
            return Some(match name {
                "read_file" | "list_directory" => Shape::Read(&["path"]),
                "search_files" => Shape::Search(&["path"]),
                _ => Shape::Edit(&["path"]),
            });
        }
        None
    }

    fn tool() -> impl Strategy<Value = String> {
        let names: Vec<&str> = SHAPES
            .iter()
            .map(|(n, _)| *n)
            .chain(MCP_FS_FAMILY.iter().copied())
            .collect();
        let prefix = prop_oneof![
            Just(""),
            Just("mcp__filesystem__"),
            Just("mcp_filesystem_"),
            Just("mcp__fs__"),
            Just("é")
        ];
        (
            prefix,
            proptest::sample::select(names),
            any::<u64>(),
            "[a-zé_]{0,2}",
        )
            .prop_map(|(p, n, flips, tail)| {
                format!("{p}{n}{tail}")
                    .chars()
                    .enumerate()
                    .map(|(i, c)| {
                        if flips >> (i % 64) & 1 == 1 {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    })
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        #[test]
        fn shape_of_is_the_lowercase_lookup(t in tool()) {
            prop_assert_eq!(shape_of(&t), reference(&t), "{}", t);
        }
    }
}
