//! `toolgate install HOST`: adds `toolgate hook HOST` to the host's own settings file,
//! keeping everything else in it (key order included), and `--uninstall` takes it out.
//!
//! | host | file (`--scope user`, the default) | `--scope project` | event |
//! | --- | --- | --- | --- |
//! | Claude Code | `~/.claude/settings.json` | `.claude/settings.json` | `PreToolUse` |
//! | Codex | `$CODEX_HOME/hooks.json` (`~/.codex`) | `.codex/hooks.json` | `PreToolUse` |
//! | Gemini CLI | `~/.gemini/settings.json` | `.gemini/settings.json` | `BeforeTool` |
//! | Copilot CLI | `$COPILOT_HOME/hooks/toolgate.json` (`~/.copilot`) | `.github/hooks/toolgate.json` | `preToolUse` |
//! | Antigravity CLI | `~/.gemini/config/hooks.json` | `.agents/hooks.json` | `toolgate.PreToolUse` |
//! | Cursor | `~/.cursor/hooks.json` | `.cursor/hooks.json` | `beforeShellExecution`, `beforeReadFile`, `beforeMCPExecution`, `preToolUse` |
//! | OpenCode | `~/.config/opencode/plugins/toolgate.js` (`$XDG_CONFIG_HOME`) | `.opencode/plugins/toolgate.js` | `tool.execute.before` |
//!
//! OpenCode has no hook commands: it loads JavaScript plugins from its plugins
//! directories, so its install writes toolgate's plugin there (a file of toolgate's
//! own, [`crate::opencode::PLUGIN`], with the hook command in it) and `--uninstall` removes it.
//!
//! Idempotent: a hook entry whose command runs `toolgate … hook` is ours, and a second
//! install changes nothing. Before a write the file is copied beside itself
//! (`FILE.toolgate-backup-MS`), and the new file replaces it by rename, so a failure
//! leaves the old one. `--dry-run` prints the change and writes nothing. A file that is
//! not a JSON object, or whose `hooks` is not the shape the host reads, is refused
//! unchanged, saying where.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::CliError;
use crate::hook::{Event, Host};
use crate::hooks_file::{apply, root_key, Change};
pub(crate) use crate::hooks_file::{fail_closed, guarded, is_ours, our_hooks};
pub(crate) use crate::ordered_json::Json;

/// Where the hook goes: a user's settings or a project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// Your own settings (~/.claude, ~/.codex, ~/.gemini, ~/.copilot)
    User,
    /// The current directory's (shared: the hook runs `toolgate` from the PATH)
    Project,
}

/// What `toolgate install` was asked for one host: its options (the host is
/// [`InstallCmd`]'s, or each of `--all`'s).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct Install {
    /// The agent CLI (set from the command line's host or `--all`)
    #[arg(skip = Host::ClaudeCode)]
    pub host: Host,
    /// Whose settings
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// This settings file instead of the host's
    #[arg(long, value_name = "F")]
    pub file: Option<PathBuf>,
    /// The hook command (default: this executable, `hook HOST`; in project scope
    /// `toolgate hook HOST`)
    #[arg(long, value_name = "CMD", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub command: Option<String>,
    /// Print the change, write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Take the hook out
    #[arg(long)]
    pub uninstall: bool,
    /// Claude Code: `permission-request` installs the hook that puts its own prompt to
    /// toolgate-server's panel (with --server and --token-file)
    #[arg(long, value_enum, default_value_t = Event::PreToolUse)]
    pub event: Event,
    /// With --event permission-request: the toolgate-server URL
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// With --event permission-request: the file holding the server's agent token
    #[arg(long, value_name = "F")]
    pub token_file: Option<PathBuf>,
}

pub(crate) fn host_word(host: Host) -> &'static str {
    host.word()
}

/// The host's settings file for `scope`.
pub(crate) fn settings_file(
    host: Host,
    scope: Scope,
    env: &crate::load::Env,
) -> Result<PathBuf, CliError> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let base = match scope {
        Scope::Project => env
            .cwd
            .clone()
            .ok_or_else(|| CliError::Environment("no current directory: pass --file".into()))?,
        Scope::User => PathBuf::from(
            env.home
                .clone()
                .ok_or_else(|| CliError::Environment("no $HOME: pass --file".into()))?,
        ),
    };
    Ok(match (host, scope) {
        (Host::ClaudeCode, _) => base.join(".claude/settings.json"),
        (Host::Codex, Scope::User) => var("CODEX_HOME")
            .map_or_else(|| base.join(".codex"), PathBuf::from)
            .join("hooks.json"),
        (Host::Codex, Scope::Project) => base.join(".codex/hooks.json"),
        (Host::Gemini, _) => base.join(".gemini/settings.json"),
        // A hooks file of its own, which Copilot CLI reads beside any others.
        (Host::Copilot, Scope::User) => var("COPILOT_HOME")
            .map_or_else(|| base.join(".copilot"), PathBuf::from)
            .join("hooks/toolgate.json"),
        (Host::Copilot, Scope::Project) => base.join(".github/hooks/toolgate.json"),
        (Host::Agy, Scope::User) => base.join(".gemini/config/hooks.json"),
        (Host::Agy, Scope::Project) => base.join(".agents/hooks.json"),
        (Host::Cursor, _) => base.join(".cursor/hooks.json"),
        (Host::OpenCode, Scope::User) => var("XDG_CONFIG_HOME")
            .map_or_else(|| base.join(".config"), PathBuf::from)
            .join("opencode/plugins/toolgate.js"),
        (Host::OpenCode, Scope::Project) => base.join(".opencode/plugins/toolgate.js"),
    })
}

/// Runs `toolgate install`; returns what to print.
pub fn run(req: &Install, env: &crate::load::Env) -> Result<String, CliError> {
    let path = match &req.file {
        Some(f) => f.clone(),
        None => settings_file(req.host, req.scope, env)?,
    };
    // A settings file that is a symbolic link (dotfiles kept in a repository) is
    // written where it points, the link left as it is.
    let path = through_link(&path)?;
    // One writer at a time: another install of any host waits for this one.
    let _lock = if req.dry_run {
        None
    } else {
        Some(lock_dir(&path)?)
    };
    edit(req, path)
}

/// The file `path` names: its target when it is a symbolic link (a link to nothing is
/// refused), else itself.
fn through_link(path: &Path) -> Result<PathBuf, CliError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            CliError::Runs(format!(
                "{} is a symbolic link to a file that cannot be reached ({e}); nothing changed",
                path.display()
            ))
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// An exclusive lock for writing `path`: `FILE.toolgate-lock` beside it, created
/// exclusively and holding this process's id, removed when the guard drops. A lock
/// whose process is gone is stale and taken over; another live install is waited for
/// (up to 10 s), so concurrent installs take turns.
struct Lock(PathBuf);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn lock_dir(path: &Path) -> Result<Lock, CliError> {
    use std::io::Write as _;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(CliError::io(format!("creating {}", dir.display())))?;
    }
    let lock = PathBuf::from(format!("{}.toolgate-lock", path.display()));
    let start = std::time::Instant::now();
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(mut f) => {
                let _ = write!(f, "{}", std::process::id());
                return Ok(Lock(lock));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let holder = std::fs::read_to_string(&lock).unwrap_or_default();
                let alive = holder
                    .trim()
                    .parse::<u32>()
                    .is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
                if !alive && !holder.trim().is_empty() {
                    let _ = std::fs::remove_file(&lock);
                    continue;
                }
                if start.elapsed() > std::time::Duration::from_secs(10) {
                    return Err(CliError::Runs(format!(
                        "{} is being written by another toolgate install (remove {} if none \
                         is running); nothing changed",
                        path.display(),
                        lock.display()
                    )));
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(CliError::io(format!("creating {}", lock.display()))(e)),
        }
    }
}

/// The hook command `install` writes (before its failure guard), and a note for the
/// user when the command will be slow or may stop working.
fn hook_command(req: &Install) -> Result<(String, String), CliError> {
    let mut note = String::new();
    let command = match &req.command {
        Some(c) => c.clone(),
        // A project's settings are shared (teams commit them): they name `toolgate` on
        // the PATH, never this machine's path to it.
        None if req.scope == Scope::Project && req.file.is_none() => {
            let found = crate::which::on_path("toolgate");
            if found.as_deref().is_some_and(is_script) && !req.uninstall {
                note = "note: the toolgate on PATH is a script (npm's launcher starts Node, \
                        then the binary, on every call): the hook works, tens of \
                        milliseconds slower. Put the native binary first on PATH (pip \
                        install toolgate-cli, cargo install toolgate-cli) for the fast path\n"
                    .to_string();
            }
            if found.is_none() && !req.uninstall {
                return Err(CliError::Environment(
                    "toolgate is not on PATH: a project's settings are shared, so the hook \
                     runs `toolgate` from the PATH, not this binary's path; put toolgate on \
                     PATH first (or pass --command)"
                        .into(),
                ));
            }
            format!("toolgate hook {}", host_word(req.host))
        }
        None => {
            let exe = std::env::current_exe()
                .map_err(CliError::io("finding this executable"))?
                .to_string_lossy()
                .into_owned();
            if let Some(why) = transient(&exe) {
                note = format!(
                    "note: this toolgate runs from {why} ({exe}): the hook names that path, \
                     and blocks every call once the cache is cleared. For a path that lasts, \
                     install it (npm install -g toolgate, uv tool install toolgate-cli, \
                     pip install toolgate-cli) and run `toolgate install` again\n"
                );
            }
            format!(
                "{} hook {}",
                toolgate_core::shapes::quote(&exe),
                host_word(req.host)
            )
        }
    };
    Ok((command, note))
}

/// OpenCode's install: the plugin file, written whole (a newer toolgate's plugin
/// replaces an older one's), or removed; a file of the same name that toolgate did not
/// write is refused unchanged.
fn edit_plugin(
    req: &Install,
    path: &Path,
    command: &str,
    old: Option<String>,
    note: &str,
) -> Result<String, CliError> {
    let refuse = |why: &str| CliError::Runs(format!("{}: {why}; nothing changed", path.display()));
    let installed = match old.as_deref() {
        None => None,
        Some(t) => Some(
            crate::opencode::installed_command(t)
                .ok_or_else(|| refuse("a file toolgate did not write is in the way"))?,
        ),
    };
    let fresh = crate::opencode::plugin(command);
    let dry = if req.dry_run {
        " (--dry-run: nothing written)"
    } else {
        ""
    };
    if req.uninstall {
        let Some(was) = installed else {
            return Ok(format!(
                "{}: no toolgate plugin; nothing changed\n",
                path.display()
            ));
        };
        if !req.dry_run {
            std::fs::remove_file(path)
                .map_err(CliError::io(format!("removing {}", path.display())))?;
        }
        return Ok(format!(
            "{}: removed toolgate's OpenCode plugin (`{}`){dry}\n",
            path.display(),
            crate::text::shown(&was)
        ));
    }
    if old.as_deref() == Some(fresh.as_str()) {
        return Ok(format!(
            "{}: toolgate's plugin is already there (`{}`); nothing changed\n",
            path.display(),
            crate::text::shown(command)
        ));
    }
    let what = if installed.is_some() {
        "replaced toolgate's OpenCode plugin with this toolgate's"
    } else {
        "wrote toolgate's OpenCode plugin"
    };
    if req.dry_run {
        let mut out = format!("{}: would have {what}{dry}\n", path.display());
        out.push_str(&diff(old.as_deref().unwrap_or(""), &fresh));
        out.push_str(note);
        return Ok(out);
    }
    // No backup: the file is toolgate's own, written whole.
    write(path, false, &fresh)?;
    Ok(format!(
        "{}: {what}, running `{command}` for each tool call (OpenCode loads it when it \
         starts)\n{note}",
        path.display()
    ))
}

/// The file at `path` as it is, `None` when there is none.
fn read_old(path: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::io(format!("reading {}", path.display()))(e)),
    }
}

/// The install or uninstall itself, on the file at `path`.
fn edit(req: &Install, path: PathBuf) -> Result<String, CliError> {
    let (command, note) = hook_command(req)?;
    let remote = crate::remote::install_options(
        req.event,
        req.host,
        req.uninstall,
        req.server.as_deref(),
        req.token_file.as_deref(),
    )?;
    let command = fail_closed(&format!("{command}{remote}"));
    let old = read_old(&path)?;
    if req.host == Host::OpenCode {
        return edit_plugin(req, &path, &command, old, &note);
    }
    let refuse =
        |why: String| CliError::Runs(format!("{}: {why}; nothing changed", path.display()));
    let mut doc: Json = match old.as_deref().map(str::trim) {
        None | Some("") => Json::Object(Vec::new()),
        Some(text) => serde_json::from_str(text).map_err(|e| refuse(format!("not JSON: {e}")))?,
    };
    let changes = apply(&mut doc, req.host, req.event, &command, req.uninstall).map_err(refuse)?;
    let root = root_key(req.host);
    let at = |keep: &dyn Fn(&Change) -> bool| -> String {
        let names: Vec<String> = changes
            .iter()
            .filter(|(_, c)| keep(c))
            .map(|(e, _)| format!("{root}.{e}"))
            .collect();
        names.join(", ")
    };
    let what = if req.uninstall {
        let removed: Vec<String> = changes
            .iter()
            .flat_map(|(_, c)| match c {
                Change::Removed(cs) => cs.clone(),
                _ => Vec::new(),
            })
            .collect();
        if removed.is_empty() {
            return Ok(format!(
                "{}: no toolgate hook; nothing changed\n",
                path.display()
            ));
        }
        let mut removed_once = removed.clone();
        removed_once.dedup();
        format!(
            "removed the toolgate hook ({}) from {}",
            crate::text::shown(&removed_once.join("; ")),
            at(&|c| matches!(c, Change::Removed(_)))
        )
    } else {
        if let Some(Change::Present(existing)) = changes
            .iter()
            .map(|(_, c)| c)
            .find(|c| matches!(c, Change::Present(_)))
            .filter(|_| changes.iter().all(|(_, c)| matches!(c, Change::Present(_))))
        {
            return Ok(format!(
                "{}: toolgate's hook is already there (`{}`); nothing changed\n",
                path.display(),
                crate::text::shown(existing)
            ));
        }
        let mut said = Vec::new();
        let added = at(&|c| *c == Change::Added);
        if !added.is_empty() {
            said.push(format!("added `{command}` to {added}"));
        }
        let replaced = at(&|c| *c == Change::Replaced);
        if !replaced.is_empty() {
            said.push(format!(
                "replaced the toolgate hook (it had no failure guard) with `{command}` in {replaced}"
            ));
        }
        said.join("; ")
    };
    let mut text = serde_json::to_string_pretty(&doc)
        .map_err(|e| CliError::Runs(format!("writing JSON: {e}")))?;
    text.push('\n');
    if req.dry_run {
        let mut out = format!(
            "{}: would have {what} (--dry-run: nothing written)\n",
            path.display()
        );
        out.push_str(&diff(old.as_deref().unwrap_or(""), &text));
        out.push_str(&note);
        return Ok(out);
    }
    write(&path, old.is_some(), &text)?;
    let mut out = format!("{}: {what}\n", path.display());
    if old.is_some() {
        let _ = writeln!(
            out,
            "the previous file is kept beside it (*.toolgate-backup-*)"
        );
    }
    if req.host == Host::Codex && !req.uninstall {
        out.push_str("Codex runs a new hook only after you trust it: accept it when Codex asks\n");
    }
    out.push_str(&note);
    Ok(out)
}

/// Writes `text` to the new file `tmp` (created exclusively) with the permissions and
/// owner of the file it replaces (`old`), or private to this user (0600).
#[cfg(unix)]
fn write_new(tmp: &Path, old: Option<&std::fs::Metadata>, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let mode = old.map_or(0o600, |m| m.permissions().mode() & 0o7777);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(tmp)?;
    f.set_permissions(std::fs::Permissions::from_mode(mode))?;
    if let Some(m) = old {
        if f.metadata()?.uid() != m.uid() || f.metadata()?.gid() != m.gid() {
            std::os::unix::fs::fchown(&f, Some(m.uid()), Some(m.gid()))?;
        }
    }
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

/// Writes `text` to the new file `tmp`, created exclusively: Windows gives it the
/// directory's inherited access list (the user's profile, for user settings).
#[cfg(not(unix))]
fn write_new(tmp: &Path, _old: Option<&std::fs::Metadata>, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

/// Is the file at `path` a script (`#!`), not a native binary.
fn is_script(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"#!")
}

/// Where a binary lives that its package manager may delete at any time: npx's and
/// uvx's caches (`<npm cache>/_npx/<hash>/…`, `<uv cache>/archive-v0/<hash>/bin/…`,
/// wherever `npm_config_cache` or `UV_CACHE_DIR` put them).
pub(crate) fn transient(exe: &str) -> Option<&'static str> {
    let exe = exe.replace('\\', "/");
    let uv_archive = exe.split('/').collect::<Vec<_>>().windows(3).any(|w| {
        matches!(w, [a, _, "bin"] if a.strip_prefix("archive-v").is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())))
    });
    if exe.contains("/_npx/") {
        Some("npx's cache")
    } else if uv_archive {
        Some("uv's cache (uvx)")
    } else {
        None
    }
}

/// Writes `text` to `path` by rename, after copying the old file beside it. The new
/// file keeps the old one's permissions and owner (a new file is private to you, 0600);
/// it is first written to a temporary file of an unpredictable name, created
/// exclusively beside it (no file an attacker planted is opened).
fn write(path: &Path, existed: bool, text: &str) -> Result<(), CliError> {
    let shown = path.display().to_string();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(CliError::io(format!("creating {}", dir.display())))?;
    }
    let old = if existed {
        let backup = PathBuf::from(format!(
            "{shown}.toolgate-backup-{}",
            crate::defer::now_ms()
        ));
        std::fs::copy(path, &backup).map_err(CliError::io(format!(
            "backing up {shown} to {}",
            backup.display()
        )))?;
        std::fs::metadata(path).ok()
    } else {
        None
    };
    let name = path
        .file_name()
        .map_or_else(|| "settings".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(
        ".{name}.toolgate-{}",
        crate::random::unpredictable()
    ));
    let written = write_new(&tmp, old.as_ref(), text);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(CliError::io(format!(
            "writing {} (its owner and permissions kept)",
            tmp.display()
        ))(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        CliError::io(format!("replacing {shown}"))(e)
    })
}

/// A line diff of `a` → `b` (`-` removed, `+` added, two lines of context).
fn diff(a: &str, b: &str) -> String {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    // Longest common subsequence table (settings files are small).
    let mut t = vec![vec![0u32; y.len() + 1]; x.len() + 1];
    for i in (0..x.len()).rev() {
        for j in (0..y.len()).rev() {
            let v = if x.get(i) == y.get(j) {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
            t[i][j] = v;
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        if i < x.len() && j < y.len() && x.get(i) == y.get(j) {
            lines.push((' ', x[i]));
            i += 1;
            j += 1;
        } else if j < y.len() && (i == x.len() || t[i][j + 1] >= t[i + 1][j]) {
            lines.push(('+', y[j]));
            j += 1;
        } else {
            lines.push(('-', x[i]));
            i += 1;
        }
    }
    let near = |k: usize| {
        lines
            .iter()
            .skip(k.saturating_sub(2))
            .take(5)
            .any(|(c, _)| *c != ' ')
    };
    let mut out = String::new();
    for (k, (c, l)) in lines.iter().enumerate() {
        if *c != ' ' || near(k) {
            let _ = writeln!(out, "{c} {l}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::transient;

    #[test]
    fn package_manager_caches_are_transient() {
        for npx in [
            "/home/me/.npm/_npx/0a1b2c3d4e5f6a7b/node_modules/@toolgate/cli-linux-x64/toolgate",
            "/tmp/cache/_npx/abc/node_modules/@toolgate/cli-darwin-arm64/toolgate",
        ] {
            assert_eq!(transient(npx), Some("npx's cache"), "{npx}");
        }
        for uvx in [
            "/home/me/.cache/uv/archive-v0/Xy1_abc/bin/toolgate",
            "/tmp/uv-cache/archive-v12/h/bin/toolgate",
        ] {
            assert_eq!(transient(uvx), Some("uv's cache (uvx)"), "{uvx}");
        }
        for lasting in [
            "/home/me/.cargo/bin/toolgate",
            "/usr/local/lib/node_modules/toolgate/node_modules/@toolgate/cli-linux-x64/toolgate",
            "/home/me/project/.venv/bin/toolgate",
            "/home/me/.local/share/uv/tools/toolgate/bin/toolgate",
            "/srv/archive-v0/bin/toolgate",
            "/srv/archive-vx/h/bin/toolgate",
        ] {
            assert_eq!(transient(lasting), None, "{lasting}");
        }
    }
}
