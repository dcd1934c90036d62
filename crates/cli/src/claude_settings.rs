//! Claude Code's permission rules (`permissions.allow / ask / deny` in its
//! `settings.json` files) read as toolgate rules: `--settings FILE` (for `hook`,
//! `classify`, `explain`) adds them to the policy, and `toolgate import
//! claude-settings FILE…` prints the equivalent policy file.
//!
//! The rules mean what they mean in Claude Code:
//! - `Bash(npm run test:*)` (a word prefix), `Bash(npm run *)` (a glob), `Bash(git
//!   status)` (exact) and `Bash` are toolgate's own `Bash` rules.
//! - `Read(…)` and `Edit(…)` (and `Write`, `MultiEdit`, `NotebookEdit`, which Claude
//!   Code's `Edit` rules cover) take gitignore-style paths: `//abs` is the absolute
//!   `/abs`; `~/p` is under the home directory; `/p` is relative to the settings file's
//!   project (the directory holding its `.claude/`, else the file's directory); `p` and
//!   `./p` are relative to the working directory, and a pattern with no `/` but a
//!   trailing one matches at any depth below it (`*.env` → `./**/*.env`).
//! - `WebFetch(domain:HOST)`, `WebFetch`, and MCP rules: `mcp__server` (the whole
//!   server) is `mcp__server__*`; `mcp__server__tool` and its globs are as written.
//! - Any other tool: a bare name is a tool rule. A rule toolgate cannot express
//!   (`Agent(explorer)`, `WebSearch(q)`) fails closed: as a `deny` or `ask` it covers the
//!   whole tool; as an `allow` it is dropped. Each such change is reported.
//!
//! Several files are merged as Claude Code merges them: every file's lists are joined,
//! and since a deny anywhere is tried before any ask and any allow, the precedence of
//! the files (managed > command line > local > project > user) cannot let one file's
//! allow undo another's deny.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_core::Rule;

use crate::error::CliError;

/// `toolgate import …`: another tool's rules as a policy file.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Import {
    /// Prints a policy file (TOML) with the permission rules of Claude Code settings
    /// files (permissions.allow / ask / deny), read as Claude Code reads them; what
    /// could not be kept exactly is said in comments.
    ClaudeSettings {
        /// Claude Code settings.json files
        #[arg(value_name = "FILE", required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

/// The rules of some settings files, in toolgate's words, with what changed on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imported {
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    /// One line per rule or setting that was widened, dropped or not read.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Allow,
    Ask,
    Deny,
}

/// Reads the files in order (`home` for `~/`, the working directory is the policy's).
pub fn read(files: &[PathBuf]) -> Result<Imported, CliError> {
    let mut out = Imported::default();
    for file in files {
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(CliError::io(format!(
            "reading Claude Code settings {shown}"
        )))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            CliError::Environment(format!("{shown}: not JSON ({e}); nothing was read"))
        })?;
        let Some(perms) = v.get("permissions") else {
            continue;
        };
        let Some(perms) = perms.as_object() else {
            return Err(CliError::Environment(format!(
                "{shown}: `permissions` is not an object"
            )));
        };
        let base = project_of(file);
        for (key, list) in [
            ("allow", List::Allow),
            ("ask", List::Ask),
            ("deny", List::Deny),
        ] {
            let Some(items) = perms.get(key) else {
                continue;
            };
            let Some(items) = items.as_array() else {
                return Err(CliError::Environment(format!(
                    "{shown}: `permissions.{key}` is not a list"
                )));
            };
            for item in items {
                let Some(rule) = item.as_str() else {
                    return Err(CliError::Environment(format!(
                        "{shown}: `permissions.{key}` holds {item}, not a rule string"
                    )));
                };
                convert(rule, list, &base, &shown, &mut out);
            }
        }
        for (k, _) in perms
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "allow" | "ask" | "deny"))
        {
            out.notes.push(format!(
                "{shown}: `permissions.{k}` is Claude Code's own setting; toolgate does not read it"
            ));
        }
    }
    Ok(out)
}

/// The directory `/p` rules are relative to: the project holding `.claude/`, else the
/// file's own directory.
fn project_of(file: &Path) -> String {
    let abs = if file.is_absolute() {
        file.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| file.to_path_buf(), |d| d.join(file))
    };
    let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = if dir.file_name().is_some_and(|n| n == ".claude") {
        dir.parent().map(Path::to_path_buf).unwrap_or(dir)
    } else {
        dir
    };
    base.to_string_lossy().trim_end_matches('/').to_string()
}

fn convert(rule: &str, list: List, base: &str, file: &str, out: &mut Imported) {
    let r = rule.trim();
    let (tool, spec) = match r.find('(') {
        Some(i) if r.ends_with(')') => (
            r.get(..i).unwrap_or_default(),
            Some(r.get(i + 1..r.len() - 1).unwrap_or_default()),
        ),
        _ => (r, None),
    };
    let converted: Option<String> = match (tool, spec) {
        ("Bash", _) | ("WebFetch", _) => Some(r.to_string()),
        ("Read", Some(p)) => Some(format!("Read({})", path(p, base))),
        ("Edit" | "Write" | "MultiEdit" | "NotebookEdit", Some(p)) => {
            Some(format!("Edit({})", path(p, base)))
        }
        ("Read", None) => Some("Read".into()),
        ("Edit" | "Write" | "MultiEdit" | "NotebookEdit", None) => Some("Edit".into()),
        (t, None) if t.starts_with("mcp__") && t.matches("__").count() == 1 => {
            Some(format!("{}__*", t.trim_end_matches('_')))
        }
        (_, None) => Some(r.to_string()),
        (_, Some(_)) => None,
    };
    // What toolgate compiles is what is kept; anything else fails closed.
    let valid = converted
        .as_deref()
        .filter(|c| Rule::parse(c, "/w", "/h").is_ok())
        .map(str::to_string);
    let kept = match (valid, list) {
        (Some(c), _) => Some(c),
        (None, List::Allow) => {
            out.notes.push(format!(
                "{file}: allow `{r}` is dropped: toolgate cannot express it, and a narrower allow is not possible"
            ));
            None
        }
        (None, _) => {
            let whole = tool.trim().to_string();
            let word = if list == List::Deny { "deny" } else { "ask" };
            if Rule::parse(&whole, "/w", "/h").is_ok() {
                out.notes.push(format!(
                    "{file}: {word} `{r}` covers all of `{whole}`: toolgate cannot express the specifier"
                ));
                Some(whole)
            } else {
                out.notes.push(format!(
                    "{file}: {word} `{r}` is not a rule toolgate can read; it is dropped"
                ));
                None
            }
        }
    };
    if let Some(c) = kept {
        let dest = match list {
            List::Allow => &mut out.allow,
            List::Ask => &mut out.ask,
            List::Deny => &mut out.deny,
        };
        if !dest.contains(&c) {
            dest.push(c);
        }
    }
}

/// A Claude Code path pattern as a toolgate one (see the module's list).
fn path(p: &str, base: &str) -> String {
    let p = p.trim();
    if let Some(abs) = p.strip_prefix("//") {
        return format!("/{abs}");
    }
    if p == "~" || p.starts_with("~/") {
        return p.to_string();
    }
    if let Some(rel) = p.strip_prefix('/') {
        return format!("{base}/{rel}");
    }
    let rel = p.strip_prefix("./").unwrap_or(p);
    // gitignore: a pattern without a slash (but a trailing one) matches at any depth.
    let body = rel.strip_suffix('/').unwrap_or(rel);
    if !body.contains('/') && !body.starts_with("**") {
        format!("./**/{rel}")
    } else {
        format!("./{rel}")
    }
}

/// The imported rules as a policy file.
pub fn to_toml(files: &[PathBuf], imported: &Imported) -> String {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut out = format!(
        "# toolgate policy: the permission rules of Claude Code settings\n# {}\n",
        names.join(", ")
    );
    for n in &imported.notes {
        out.push_str(&format!("# note: {n}\n"));
    }
    out.push_str("\n[rules]\n");
    for (key, list) in [
        ("allow", &imported.allow),
        ("ask", &imported.ask),
        ("deny", &imported.deny),
    ] {
        let items: Vec<String> = list
            .iter()
            .map(|r| serde_json::to_string(r).unwrap_or_default())
            .collect();
        out.push_str(&format!("{key} = [{}]\n", items.join(", ")));
    }
    out
}
