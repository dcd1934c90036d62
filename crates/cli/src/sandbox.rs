//! `toolgate sandbox -- COMMAND…`: runs a command contained, on Linux with bubblewrap
//! (`bwrap`), the way Codex's linux-sandbox builds its file-system view
//! (openai/codex `codex-rs/linux-sandbox/src/bwrap.rs`: a read-only root, writable roots
//! bound over it, protected subpaths bound read-only after them, `/dev/null` over a
//! protected path that does not exist yet).
//!
//! What the command gets:
//! - the file system read-only, except the workspace and a private `/tmp` (2 GiB);
//! - in the workspace, `.git` and the agents' and toolgate's own settings (`.claude`,
//!   `.codex`, `.gemini`, `.toolgate`) read-only; one that does not exist is held by an
//!   empty file for the run (so it cannot be created) and removed after;
//! - files with a hard link outside the workspace read-only (a link planted in the
//!   workspace cannot write a file outside it), and every file or directory the secret
//!   table names ([`toolgate_core::paths::is_secret`]: `.env`, keys, credentials)
//!   hidden; cache directories (`CACHEDIR.TAG`, cargo's `target/`) are not looked
//!   through;
//! - the home directory hidden (an empty read-only directory), except the toolchains'
//!   directories of [`HOME_TOOLCHAINS`], read-only; every other user's too
//!   ([`ALL_HOMES`]);
//! - the system's secrets ([`SYSTEM_SECRET_ROOTS`], scanned with the same table) hidden,
//!   and so are the secret targets of the workspace's symbolic links and the secrets in
//!   the directories outside that they lead to ([`MAX_LINKED_DIRS`]);
//! - no network (a network namespace of its own: no address but its own loopback, no
//!   DNS), `/run` and `/var/run` empty (no host daemon's Unix socket), no other process
//!   (a PID namespace with its own `/proc`), a new session (no `TIOCSTI` into the
//!   terminal), no capabilities, and no new privileges (bubblewrap sets
//!   `PR_SET_NO_NEW_PRIVS`: a setuid binary gains nothing);
//! - the environment without its secret variables ([`toolgate_core::builtin::secret_var`]).
//!
//! Before the command runs, a probe checks that bubblewrap can build such a sandbox here
//! (the binary present, user namespaces allowed); when it cannot, nothing runs and the
//! exit status is [`REFUSED`].
//!
//! On macOS the same plan becomes a Seatbelt profile ([`crate::seatbelt`]). With
//! `--allow-host`, HTTPS to the hosts named goes through toolgate's proxy
//! ([`crate::netproxy`]); nothing else of the network.

// Windows has no sandbox to build: the plan and bubblewrap's pieces go unused there
// (`contain` refuses).
#![cfg_attr(not(any(target_os = "linux", target_os = "macos")), allow(dead_code))]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
#[cfg(not(target_os = "macos"))]
use std::process::Command;

use crate::error::CliError;

/// The exit status when the sandbox cannot be built and nothing ran (as `env` and
/// `timeout` exit 125 for their own failures).
pub const REFUSED: u8 = 125;

/// Workspace entries kept read-only: git's (hooks, config) and the agents' own settings,
/// which a command could otherwise turn into code that runs outside the sandbox.
/// The same files an edit may not change without asking
/// ([`toolgate_core::paths::protected`]): a sandboxed command cannot change them either
/// (found anywhere in the workspace by the scan; these, at its top, are held by an empty
/// file for the run when missing, so they cannot be created).
pub const PROTECTED: &[&str] = &[
    ".git",
    ".claude",
    ".codex",
    ".gemini",
    ".cursor",
    ".agents",
    ".opencode",
    ".toolgate",
    ".vscode",
    ".idea",
    ".husky",
    ".devcontainer",
    ".github",
    ".cargo",
    ".envrc",
    ".mcp.json",
    "opencode.json",
    "opencode.jsonc",
    ".gitlab-ci.yml",
    "toolgate.toml",
    ".toolgate.toml",
];

/// What a build or test needs of the home directory, bound read-only when it exists
/// (the rest of the home directory, its secrets included, is hidden). Not scanned:
/// a secret file someone put inside one of these is readable.
pub const HOME_TOOLCHAINS: &[&str] = &[
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".local/bin",
    ".local/lib",
    ".pyenv",
    ".nvm",
    ".volta",
    ".deno/bin",
    ".bun/bin",
    "go/pkg/mod",
    ".gitconfig",
];

/// The size of the private `/tmp` (a tmpfs: memory), so a command cannot fill the
/// machine's memory through it.
#[cfg_attr(target_os = "macos", allow(dead_code))]
pub const TMP_BYTES: &str = "2147483648";

/// The size of the other tmpfs mounts (the hidden home directory, `/run`, a hidden
/// secret directory): nothing is written there.
#[cfg_attr(target_os = "macos", allow(dead_code))]
pub const SMALL_BYTES: &str = "1048576";

/// The most workspace entries scanned for secrets and hard links; a larger workspace
/// is refused (nothing runs) rather than run with what was not looked at.
pub const MAX_SCAN: usize = 300_000;

/// Where the system keeps the secrets of the secret table's system entries (password
/// hashes, SSH host keys, WireGuard, NetworkManager and PPP secrets, Kubernetes' and
/// Docker's): scanned like the workspace and hidden, so a command run as root reads
/// none of them. (`/run`, `/var/run`, `/dev` and `/proc` are the sandbox's own.)
#[cfg(not(target_os = "macos"))]
pub const SYSTEM_SECRET_ROOTS: &[&str] = &["/etc", "/var/lib/docker/containers"];
/// Where macOS keeps the same (`/etc` is a link to `/private/etc`; Seatbelt matches
/// resolved paths).
#[cfg(target_os = "macos")]
pub const SYSTEM_SECRET_ROOTS: &[&str] = &["/private/etc"];

/// The most entries scanned under [`SYSTEM_SECRET_ROOTS`]; past it the run is refused.
pub const MAX_SYSTEM_SCAN: usize = 100_000;

/// Every user's home directory, hidden as the user's own is (an agent that runs as
/// root can read the others').
#[cfg(not(target_os = "macos"))]
pub const ALL_HOMES: &[&str] = &["/home", "/root"];
/// macOS's homes: `/Users`, and root's.
#[cfg(target_os = "macos")]
pub const ALL_HOMES: &[&str] = &["/Users", "/var/root"];

/// `toolgate sandbox`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// The directory the command may write (default: the current directory). Neither
    /// `/` nor the home directory nor one above it.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Only check that a sandbox can be built here: exit 0 if so, else 125 with why.
    #[arg(long)]
    pub check: bool,
    /// Lets the command reach HOST over HTTPS (port 443) through toolgate's proxy
    /// (`HTTPS_PROXY`): a name (`registry.npmjs.org`) or `*.domain`. Repeatable. Only
    /// the hosts named, never this machine or a private network; what the host accepts
    /// (an upload, `npm publish`) is not seen. Without it: no network at all.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// The command and its arguments (after `--`).
    #[arg(last = true, value_name = "COMMAND", required_unless_present = "check")]
    pub command: Vec<OsString>,
}

/// Where the sandbox is built: the workspace, the home directory, and what a scan of
/// them found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The workspace (absolute, symlinks resolved).
    pub workspace: PathBuf,
    /// The home directories to hide: `$HOME`, and this user's home in `/etc/passwd`
    /// when it is another directory.
    pub homes: Vec<PathBuf>,
    /// Workspace entries of [`PROTECTED`] that exist.
    pub protected: Vec<PathBuf>,
    /// Workspace entries of [`PROTECTED`] that do not exist: held by an empty file.
    pub placeholders: Vec<PathBuf>,
    /// Secret files and directories of the workspace to hide (`true`: a directory).
    pub secrets: Vec<(PathBuf, bool)>,
    /// Files with a hard link outside the workspace (every path to them the walk
    /// found), kept read-only.
    pub hard_links: Vec<PathBuf>,
    /// Toolchain directories of the home directory that exist.
    pub toolchains: Vec<PathBuf>,
    /// Secret files and directories outside the workspace to hide (`true`: a
    /// directory): the system's ([`SYSTEM_SECRET_ROOTS`]) and the secret targets of the
    /// workspace's symbolic links.
    pub outside_secrets: Vec<(PathBuf, bool)>,
    /// [`ALL_HOMES`] that exist, hidden before the user's own.
    pub all_homes: Vec<PathBuf>,
}

/// The bubblewrap arguments for `plan` (everything between `bwrap` and `--`), in the
/// order the mounts must be made: later mounts win.
#[cfg_attr(target_os = "macos", allow(dead_code))]
pub fn bwrap_args(plan: &Plan) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |items: &[&dyn AsRef<std::ffi::OsStr>]| {
        a.extend(items.iter().map(|i| i.as_ref().to_os_string()));
    };
    push(&[&"--new-session", &"--die-with-parent", &"--unshare-all"]);
    push(&[&"--cap-drop", &"ALL"]);
    push(&[&"--ro-bind", &"/", &"/"]);
    push(&[&"--dev", &"/dev", &"--proc", &"/proc"]);
    push(&[&"--size", &TMP_BYTES, &"--tmpfs", &"/tmp"]);
    for run in ["/run", "/var/run"] {
        let p = Path::new(run);
        if p.is_dir() && !p.is_symlink() {
            push(&[&"--size", &SMALL_BYTES, &"--tmpfs", &run]);
        }
    }
    for home in plan.all_homes.iter().chain(&plan.homes) {
        push(&[&"--size", &SMALL_BYTES, &"--tmpfs", home]);
        for t in plan.toolchains.iter().filter(|t| t.starts_with(home)) {
            push(&[&"--ro-bind", t, t]);
        }
    }
    for (p, dir) in &plan.outside_secrets {
        if *dir {
            push(&[&"--size", &SMALL_BYTES, &"--tmpfs", p, &"--remount-ro", p]);
        } else {
            push(&[&"--ro-bind", &"/dev/null", p]);
        }
    }
    let ws = &plan.workspace;
    push(&[&"--bind", ws, ws]);
    for p in plan.protected.iter().chain(&plan.hard_links) {
        push(&[&"--ro-bind", p, p]);
    }
    for p in &plan.placeholders {
        push(&[&"--ro-bind", &"/dev/null", p]);
    }
    for (p, dir) in &plan.secrets {
        if *dir {
            push(&[&"--size", &SMALL_BYTES, &"--tmpfs", p, &"--remount-ro", p]);
        } else {
            push(&[&"--ro-bind", &"/dev/null", p]);
        }
    }
    // Last: a workspace inside a home directory needs its mount point made in the
    // home's tmpfs first.
    for home in plan.all_homes.iter().chain(&plan.homes) {
        push(&[&"--remount-ro", home]);
    }
    a
}

/// The environment the command gets: this one without its secret variables, with the
/// caches pointed into the private temporary directory `tmp` (the home directory is
/// read-only): `/tmp` on Linux, a directory made for the run on macOS.
pub fn environment(
    vars: impl Iterator<Item = (OsString, OsString)>,
    tmp: &Path,
) -> Vec<(OsString, OsString)> {
    let mut kept: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| {
            k.to_str()
                .is_some_and(|k| !toolgate_core::builtin::secret_var(k))
        })
        .filter(|(k, _)| {
            !matches!(
                k.to_str(),
                Some("TMPDIR" | "XDG_CACHE_HOME" | "npm_config_cache" | "NPM_CONFIG_CACHE")
            )
        })
        .collect();
    kept.push(("TMPDIR".into(), tmp.into()));
    kept.push(("XDG_CACHE_HOME".into(), tmp.join(".cache").into()));
    // npm writes its cache and logs under ~/.npm (read-only here) even for `npm test`.
    kept.push(("npm_config_cache".into(), tmp.join(".npm").into()));
    kept
}

/// Works out the plan for `workspace` and the home directories to hide (`homes`, the
/// first one's toolchains kept): refuses no home directory, `/` or a directory holding
/// a home directory as the workspace, and a workspace too large to scan.
pub fn plan(workspace: &Path, homes: &[PathBuf]) -> Result<Plan, String> {
    let ws = workspace
        .canonicalize()
        .map_err(|e| format!("workspace {}: {e}", workspace.display()))?;
    if !ws.is_dir() {
        return Err(format!("workspace {} is not a directory", ws.display()));
    }
    let mut homes: Vec<PathBuf> = homes.iter().filter_map(|h| h.canonicalize().ok()).collect();
    homes.dedup();
    if homes.is_empty() {
        return Err(
            "no home directory ($HOME unset and none in /etc/passwd): the sandbox hides it, \
             so it must know where it is"
                .into(),
        );
    }
    if ws == Path::new("/") || homes.iter().any(|h| h.starts_with(&ws)) {
        return Err(format!(
            "workspace {} holds the home directory (or is /): the sandbox would hide or \
             expose all of it; run it in a project directory",
            ws.display()
        ));
    }
    let mut plan = Plan {
        workspace: ws.clone(),
        homes: homes.clone(),
        ..Plan::default()
    };
    // A workspace inside a repository uses the repository's `.git`, read-only already
    // (outside the workspace): an empty `.git` here would break git.
    let in_repo = ws.ancestors().skip(1).any(|a| a.join(".git").exists());
    for name in PROTECTED {
        let p = ws.join(name);
        if p.symlink_metadata().is_ok() {
            plan.protected.push(p);
        } else if !(*name == ".git" && in_repo) {
            plan.placeholders.push(p);
        }
    }
    scan(&ws, &mut plan)?;
    for root in SYSTEM_SECRET_ROOTS {
        scan_system(Path::new(root), &mut plan.outside_secrets)?;
    }
    plan.outside_secrets.sort();
    plan.outside_secrets.dedup();
    // Another user's home: hidden, unless it is (or holds) one of these, hidden on
    // its own, or holds the workspace (its mount point is made in the tmpfs).
    plan.all_homes = ALL_HOMES
        .iter()
        .map(PathBuf::from)
        .filter(|h| h.is_dir() && !h.is_symlink() && !homes.contains(h))
        .collect();
    if let Some(home) = homes.first() {
        for t in HOME_TOOLCHAINS {
            let p = home.join(t);
            if p.exists() && !p.is_symlink() {
                plan.toolchains.push(p);
            }
        }
    }
    Ok(plan)
}

/// Walks the workspace `root`, adding its secret files and directories (named as the
/// secret table names them, relative to the workspace) and its files with a hard link
/// outside it (more links than the walk found). Not into `.git` (read-only already) nor
/// a cache directory (`CACHEDIR.TAG`: cargo's `target/`, rebuilt from the sources).
fn scan(root: &Path, plan: &mut Plan) -> Result<(), String> {
    let mut seen = 0usize;
    // (device, inode) -> (its link count, the paths the walk found to it)
    let mut linked: std::collections::HashMap<(u64, u64), (u64, Vec<PathBuf>)> =
        std::collections::HashMap::new();
    let mut out_dirs: Vec<PathBuf> = Vec::new();
    let homes = plan.homes.clone();
    walk(root, &mut seen, MAX_SCAN, |path, meta| {
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy();
        if meta.file_type().is_symlink() {
            // A link out of the workspace: to a secret (`notes.txt` ->
            // `/srv/app/.env`), hidden; to a directory, scanned below.
            link_target(
                &path,
                root,
                &homes,
                &mut plan.outside_secrets,
                &mut out_dirs,
            );
            return false;
        }
        if toolgate_core::paths::is_secret(&rel) {
            plan.secrets.push((path, meta.is_dir()));
            return false;
        }
        // What an edit may not change without asking (`.vscode/tasks.json` runs on
        // opening the folder, a nested `.git`, `.envrc`): read-only, not looked into.
        if toolgate_core::paths::protected(&format!("/{rel}")).is_some() {
            if !plan.protected.contains(&path) {
                plan.protected.push(path);
            }
            return false;
        }
        if meta.is_dir() {
            return path.file_name().is_some_and(|n| n != ".git")
                && !path.join("CACHEDIR.TAG").is_file();
        }
        if meta.is_file() && links(meta).0 > 1 {
            let (n, id) = links(meta);
            linked.entry(id).or_insert((n, Vec::new())).1.push(path);
        }
        false
    })?;
    let mut outside: Vec<PathBuf> = linked
        .into_values()
        .filter(|(n, paths)| u64::try_from(paths.len()).unwrap_or(u64::MAX) < *n)
        .flat_map(|(_, paths)| paths)
        .collect();
    outside.sort();
    plan.hard_links = outside;
    let homes = plan.homes.clone();
    scan_linked(root, &homes, out_dirs, &mut plan.outside_secrets)
}

/// The most directories outside the workspace that its links lead to, scanned.
pub const MAX_LINKED_DIRS: usize = 64;

/// Where the symbolic link `path` leads, when out of the workspace `ws` and out of the
/// hidden `homes`: a secret file or directory is added to `secrets`, another directory
/// to `dirs` (to be scanned: a program may walk or open through the link).
fn link_target(
    path: &Path,
    ws: &Path,
    homes: &[PathBuf],
    secrets: &mut Vec<(PathBuf, bool)>,
    dirs: &mut Vec<PathBuf>,
) {
    let Ok(target) = path.canonicalize() else {
        return;
    };
    if target.starts_with(ws)
        || homes
            .iter()
            .map(PathBuf::as_path)
            .chain(ALL_HOMES.iter().map(Path::new))
            .any(|h| target.starts_with(h))
    {
        return;
    }
    if toolgate_core::paths::is_secret(&target.to_string_lossy()) {
        let dir = target.is_dir();
        secrets.push((target, dir));
    } else if target.is_dir() {
        dirs.push(target);
    }
}

/// Scans the directories outside the workspace that its links lead to (and the ones
/// their links lead to), for what the secret table names by absolute path: a link
/// `vendor -> /srv/app` must not open `/srv/app/.env` in the sandbox. Bounded: past
/// [`MAX_LINKED_DIRS`] directories or [`MAX_SCAN`] entries the run is refused.
fn scan_linked(
    ws: &Path,
    homes: &[PathBuf],
    mut queue: Vec<PathBuf>,
    secrets: &mut Vec<(PathBuf, bool)>,
) -> Result<(), String> {
    let mut done: Vec<PathBuf> = Vec::new();
    let mut seen = 0usize;
    while let Some(root) = queue.pop() {
        if done.iter().any(|d| root.starts_with(d)) {
            continue;
        }
        if done.len() >= MAX_LINKED_DIRS {
            return Err(format!(
                "the workspace links to over {MAX_LINKED_DIRS} directories outside it: too \
                 many to look through for secrets"
            ));
        }
        done.push(root.clone());
        walk(&root, &mut seen, MAX_SCAN, |path, meta| {
            if meta.file_type().is_symlink() {
                link_target(&path, ws, homes, secrets, &mut queue);
                return false;
            }
            secret_or_deeper(path, meta, secrets)
        })?;
    }
    Ok(())
}

/// Walks a system directory (`/etc`, …) for what the secret table names by its absolute
/// path, into `out`; not through symbolic links. An unreadable directory is skipped
/// (this user cannot read its secrets either).
fn scan_system(root: &Path, out: &mut Vec<(PathBuf, bool)>) -> Result<(), String> {
    let mut seen = 0usize;
    walk(root, &mut seen, MAX_SYSTEM_SCAN, |path, meta| {
        !meta.file_type().is_symlink() && secret_or_deeper(path, meta, out)
    })
}

/// An entry outside the workspace (not a link): what the secret table names by its
/// absolute path is added to `secrets`; is it a directory to look into?
fn secret_or_deeper(
    path: PathBuf,
    meta: &std::fs::Metadata,
    secrets: &mut Vec<(PathBuf, bool)>,
) -> bool {
    if toolgate_core::paths::is_secret(&path.to_string_lossy()) {
        secrets.push((path, meta.is_dir()));
        false
    } else {
        meta.is_dir()
    }
}

/// Walks the tree under `root` without following links: `visit` gets each entry (its
/// path and metadata) and says whether to go into it. Past `limit` entries, counted in
/// `seen` (which several walks may share), the walk is refused: nothing runs on what
/// was not looked at. An unreadable directory is skipped.
fn walk(
    root: &Path,
    seen: &mut usize,
    limit: usize,
    mut visit: impl FnMut(PathBuf, &std::fs::Metadata) -> bool,
) -> Result<(), String> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            *seen += 1;
            if *seen > limit {
                return Err(format!(
                    "{} has over {limit} entries: too many to look through for secrets",
                    root.display()
                ));
            }
            let path = entry.path();
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            if visit(path.clone(), &meta) {
                stack.push(path);
            }
        }
    }
    Ok(())
}

/// This user's home directory as `/etc/passwd` has it (the owner of `/proc/self` is
/// this process's user): hidden too when `$HOME` names another directory.
#[cfg(unix)]
fn passwd_home() -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    home_in_passwd(&std::fs::read_to_string("/etc/passwd").ok()?, uid)
}

#[cfg(not(unix))]
fn passwd_home() -> Option<PathBuf> {
    None
}

/// The home directory of `uid` in the text of an `/etc/passwd`.
#[cfg_attr(not(unix), allow(dead_code))]
pub fn home_in_passwd(passwd: &str, uid: u32) -> Option<PathBuf> {
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.as_slice() {
            [_, _, id, _, _, home, ..] if id.parse() == Ok(uid) && home.starts_with('/') => {
                Some(PathBuf::from(home))
            }
            _ => None,
        }
    })
}

/// A file's hard-link count and identity (device, inode).
#[cfg(unix)]
fn links(meta: &std::fs::Metadata) -> (u64, (u64, u64)) {
    use std::os::unix::fs::MetadataExt;
    (meta.nlink(), (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn links(_meta: &std::fs::Metadata) -> (u64, (u64, u64)) {
    (1, (0, 0))
}

/// Can a sandbox be built here: on macOS, Seatbelt's ([`crate::seatbelt::probe`]);
/// elsewhere, bubblewrap's: `bwrap` on the PATH, and a probe in every namespace
/// succeeds. The reason when it cannot.
pub fn probe() -> Result<PathBuf, String> {
    #[cfg(target_os = "macos")]
    return crate::seatbelt::probe();
    #[cfg(not(target_os = "macos"))]
    probe_bwrap()
}

#[cfg(not(target_os = "macos"))]
fn probe_bwrap() -> Result<PathBuf, String> {
    if !cfg!(target_os = "linux") {
        return Err("toolgate sandbox runs on Linux and macOS only".into());
    }
    let bwrap = crate::which::on_path("bwrap").ok_or_else(|| {
        "bubblewrap (bwrap) is not on PATH: install it (Debian and Ubuntu: apt-get install \
         bubblewrap)"
            .to_string()
    })?;
    let out = Command::new(&bwrap)
        .args(["--new-session", "--die-with-parent", "--unshare-all"])
        .args(["--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev"])
        .args([
            "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/sh", "-c", ":",
        ])
        .env_clear()
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if out.status.success() {
        Ok(bwrap)
    } else {
        Err(format!(
            "bubblewrap cannot build a sandbox here ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs `args.command` in the sandbox and returns its exit status (128 + the signal
/// when a signal ended it); [`REFUSED`] with the reason on stderr when the sandbox
/// cannot be built, and then nothing ran.
pub fn run(args: &SandboxArgs, env: &crate::load::Env) -> Result<u8, CliError> {
    let refuse = |why: String| {
        eprintln!("toolgate sandbox: {why}; nothing was run");
        Ok(REFUSED)
    };
    let hosts = args
        .allow_hosts
        .iter()
        .map(|h| crate::netproxy::check_host(h))
        .collect::<Result<Vec<String>, String>>()
        .map_err(CliError::Usage)?;
    let bwrap = match probe() {
        Ok(b) => b,
        Err(why) => return refuse(why),
    };
    if args.check {
        println!(
            "toolgate sandbox: a sandbox can be built here ({})",
            bwrap.display()
        );
        return Ok(0);
    }
    let Some(cwd) = env
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .and_then(|c| c.canonicalize().ok())
    else {
        return refuse("no current directory".into());
    };
    let workspace = args.workspace.clone().unwrap_or_else(|| cwd.clone());
    let mut homes: Vec<PathBuf> = env.home.iter().map(PathBuf::from).collect();
    homes.extend(passwd_home());
    let plan = match plan(&workspace, &homes) {
        Ok(p) => p,
        Err(why) => return refuse(why),
    };
    // Outside the workspace the command starts in the workspace (the home directory,
    // for one, is hidden).
    let start = if cwd.starts_with(&plan.workspace) {
        cwd
    } else {
        plan.workspace.clone()
    };
    // A runner that cannot be started ran nothing either: the same 125.
    let (status, ran) = match contain(&bwrap, &plan, start, &args.command, hosts) {
        Ok(o) => o,
        Err(e) => return refuse(format!("cannot run {}: {e}", bwrap.display())),
    };
    if !ran {
        return refuse(format!("the sandbox could not be built ({status})"));
    }
    Ok(exit_of(status))
}

/// Runs `program` contained by `plan` with `runner` (Seatbelt's `sandbox-exec` on
/// macOS), starting in `start`: its status and whether it ran.
#[cfg(target_os = "macos")]
fn contain(
    _runner: &Path,
    plan: &Plan,
    start: PathBuf,
    program: &[OsString],
    hosts: Vec<String>,
) -> std::io::Result<(std::process::ExitStatus, bool)> {
    let tmp = crate::seatbelt::private_tmp()?;
    let outcome = (|| {
        let mut env = environment(std::env::vars_os(), &tmp);
        let proxy = if hosts.is_empty() {
            None
        } else {
            let port = crate::netproxy::serve_loopback(hosts)?;
            crate::netproxy::name_proxy(&mut env, port);
            Some(port)
        };
        let rules = crate::seatbelt::Rules {
            hidden: plan
                .all_homes
                .iter()
                .chain(&plan.homes)
                .map(PathBuf::as_path)
                .collect(),
            readable: plan.toolchains.iter().map(PathBuf::as_path).collect(),
            writable: vec![plan.workspace.as_path(), tmp.as_path()],
            read_only: plan
                .protected
                .iter()
                .chain(&plan.placeholders)
                .chain(&plan.hard_links)
                .map(PathBuf::as_path)
                .collect(),
            secrets: plan
                .secrets
                .iter()
                .chain(&plan.outside_secrets)
                .map(|(p, _)| p.as_path())
                .collect(),
            proxy,
        };
        let (text, params) = crate::seatbelt::profile(&rules);
        crate::seatbelt::run(&text, &params, program, &env, &start)
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    outcome
}

/// Elsewhere (Windows) there is no sandbox to run `program` in: an error, never a run.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn contain(
    _bwrap: &Path,
    _plan: &Plan,
    _start: PathBuf,
    _program: &[OsString],
    _hosts: Vec<String>,
) -> std::io::Result<(std::process::ExitStatus, bool)> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "toolgate sandbox runs on Linux and macOS only",
    ))
}

/// Runs `program` contained by `plan` with bubblewrap (`runner`), starting in `start`:
/// its status and whether it ran.
#[cfg(target_os = "linux")]
fn contain(
    bwrap: &Path,
    plan: &Plan,
    start: PathBuf,
    program: &[OsString],
    hosts: Vec<String>,
) -> std::io::Result<(std::process::ExitStatus, bool)> {
    let mut options = bwrap_args(plan);
    options.push("--chdir".into());
    options.push(start.into_os_string());
    let mut command = Command::new(bwrap);
    command
        .env_clear()
        .envs(environment(std::env::vars_os(), Path::new("/tmp")));
    let proxy = if hosts.is_empty() {
        None
    } else {
        Some(crate::netproxy::Proxy::start(hosts)?)
    };
    let bridged: Vec<OsString>;
    let program = match &proxy {
        Some(p) => {
            options.extend(p.bwrap_args());
            bridged = p.bridged(program);
            &bridged
        }
        None => program,
    };
    let outcome = spawn_reporting(command, options, program);
    drop(proxy);
    // The placeholders were made for this run: remove each that is still an empty file.
    for p in &plan.placeholders {
        if p.symlink_metadata()
            .is_ok_and(|m| m.is_file() && m.len() == 0)
        {
            let _ = std::fs::remove_file(p);
        }
    }
    outcome
}

/// Runs bubblewrap with `--json-status-fd` on a pipe of its own: bubblewrap writes the
/// command's exit there once the command ran, so its status and whether the command
/// ran at all (false: bubblewrap failed before it started).
#[cfg(target_os = "linux")]
fn spawn_reporting(
    mut command: Command,
    options: Vec<OsString>,
    program: &[OsString],
) -> std::io::Result<(std::process::ExitStatus, bool)> {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let (mut reader, writer) = std::io::pipe()?;
    // Inherited by bubblewrap (std opens every descriptor close-on-exec); bubblewrap
    // keeps it from the command.
    rustix::io::fcntl_setfd(&writer, rustix::io::FdFlags::empty()).map_err(std::io::Error::from)?;
    command
        .arg("--json-status-fd")
        .arg(writer.as_raw_fd().to_string())
        .args(options)
        .arg("--")
        .args(program);
    let spawned = command.spawn();
    drop(writer);
    let mut child = spawned?;
    let mut report = String::new();
    let _ = reader.read_to_string(&mut report);
    let status = child.wait()?;
    Ok((status, report.contains("\"exit-code\"")))
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn spawn_reporting(
    mut command: Command,
    options: Vec<OsString>,
    program: &[OsString],
) -> std::io::Result<(std::process::ExitStatus, bool)> {
    command.args(options).arg("--").args(program);
    command.status().map(|s| (s, true))
}

/// The exit status a shell gives for `status`: the code, or 128 + the signal.
#[cfg(unix)]
pub fn exit_of(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => u8::try_from(c).unwrap_or(1),
        (None, Some(s)) => u8::try_from(128 + s).unwrap_or(1),
        (None, None) => 1,
    }
}

/// The exit status for `status`.
#[cfg(not(unix))]
pub fn exit_of(status: std::process::ExitStatus) -> u8 {
    status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_loses_its_secrets() {
        let vars = [
            ("PATH", "/usr/bin"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("GITHUB_TOKEN", "x"),
            ("HOME", "/home/me"),
            ("TMPDIR", "/var/tmp"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = environment(vars.into_iter(), Path::new("/tmp"));
        let names: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "PATH",
                "HOME",
                "TMPDIR",
                "XDG_CACHE_HOME",
                "npm_config_cache"
            ]
        );
        assert!(env.contains(&("TMPDIR".into(), "/tmp".into())));
    }

    #[test]
    fn the_home_directory_comes_from_passwd_by_uid() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n# comment\nbad line\n\
                      me:x:1000:1000:Me,,,:/home/me:/bin/sh\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n";
        assert_eq!(home_in_passwd(passwd, 0), Some(PathBuf::from("/root")));
        assert_eq!(
            home_in_passwd(passwd, 1000),
            Some(PathBuf::from("/home/me"))
        );
        assert_eq!(home_in_passwd(passwd, 100), None);
    }

    #[test]
    fn mounts_come_in_the_order_that_makes_them_hold() {
        let ws = PathBuf::from("/w");
        let plan = Plan {
            workspace: ws.clone(),
            homes: vec![PathBuf::from("/h")],
            protected: vec![ws.join(".git")],
            placeholders: vec![ws.join(".claude")],
            secrets: vec![(ws.join(".env"), false), (ws.join("secrets"), true)],
            hard_links: vec![ws.join("hl")],
            toolchains: vec![PathBuf::from("/h/.cargo/bin")],
            outside_secrets: vec![(PathBuf::from("/etc/shadow"), false)],
            all_homes: vec![PathBuf::from("/home")],
        };
        let args: Vec<String> = bwrap_args(&plan)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let at = |needle: &[&str]| {
            args.windows(needle.len())
                .position(|w| w == needle)
                .unwrap_or_else(|| panic!("{needle:?} not in {args:?}"))
        };
        for flag in [
            &["--new-session"][..],
            &["--unshare-all"],
            &["--cap-drop", "ALL"],
        ] {
            at(flag);
        }
        let root = at(&["--ro-bind", "/", "/"]);
        let home = at(&["--size", SMALL_BYTES, "--tmpfs", "/h"]);
        let tool = at(&["--ro-bind", "/h/.cargo/bin", "/h/.cargo/bin"]);
        let home_ro = at(&["--remount-ro", "/h"]);
        let ws_rw = at(&["--bind", "/w", "/w"]);
        let git = at(&["--ro-bind", "/w/.git", "/w/.git"]);
        let hl = at(&["--ro-bind", "/w/hl", "/w/hl"]);
        let claude = at(&["--ro-bind", "/dev/null", "/w/.claude"]);
        let env = at(&["--ro-bind", "/dev/null", "/w/.env"]);
        let dir = at(&["--tmpfs", "/w/secrets", "--remount-ro", "/w/secrets"]);
        at(&["--size", TMP_BYTES, "--tmpfs", "/tmp"]);
        let homes = at(&["--size", SMALL_BYTES, "--tmpfs", "/home"]);
        let shadow = at(&["--ro-bind", "/dev/null", "/etc/shadow"]);
        let homes_ro = at(&["--remount-ro", "/home"]);
        assert!(root < homes && homes < home && root < shadow && ws_rw < homes_ro);
        assert!(root < home && home < tool && tool < ws_rw);
        assert!(ws_rw < git && ws_rw < hl && ws_rw < claude && ws_rw < env && ws_rw < dir);
        assert!([git, hl, claude, env, dir].iter().all(|&m| m < home_ro));
    }
}
