//! Lexical path handling: resolution against the workspace, secret files, system dirs.
//! No file system access: `..` is folded textually, `~` is the policy's home.

use crate::needle::HasChar;

/// Top-level system directories (DESIGN §1, `rm-root`).
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin",
    "/srv", "/sys", "/usr", "/var",
];

/// Directories an edit may never write into (DESIGN §1, edit `deny`).
pub const EDIT_DENY_DIRS: &[&str] = &[
    "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/dev", "/proc", "/sys",
];

/// Resolves `path` lexically against `cwd` (absolute) and `home`: `~` and `~/x` expand,
/// relative paths join `cwd`, `.` and `..` fold, repeated `/` collapse. The result is
/// absolute and has no trailing `/` (except `/` itself).
pub fn resolve(path: &str, cwd: &str, home: &str) -> String {
    normalize_owned(join(path, cwd, home))
}

/// `path` made absolute as [`resolve`] does, but with `.` and `..` kept: what the
/// kernel walks, where `..` after a symbolic link leaves the link's target.
pub fn join(path: &str, cwd: &str, home: &str) -> String {
    if path == "~" {
        home.to_string()
    } else if let Some(rest) = path.strip_prefix("~/") {
        format!("{home}/{rest}")
    } else if let Some(user_path) = tilde_user(path) {
        // `~root/.bashrc`, `~bob/x`: another user's home (never the workspace).
        user_path
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    }
}

/// `~NAME[/rest]` as the conventional home of user NAME (`/root` for root,
/// `/home/NAME` otherwise); `None` when `path` is not of that form.
fn tilde_user(path: &str) -> Option<String> {
    let body = path.strip_prefix('~')?;
    let (user, rest) = body.split_once('/').unwrap_or((body, ""));
    let valid = !user.is_empty()
        && user
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !valid {
        return None;
    }
    let home = if user == "root" {
        "/root".to_string()
    } else {
        format!("/home/{user}")
    };
    Some(if rest.is_empty() {
        home
    } else {
        format!("{home}/{rest}")
    })
}

/// Is absolute `path` already normal: `/`, or `/`-separated components none of which
/// is empty, `.` or `..`? One pass over the bytes (every path judged goes through it).
fn is_normal(path: &str) -> bool {
    let b = path.as_bytes();
    if b.first() != Some(&b'/') {
        return false;
    }
    if b.len() == 1 {
        return true;
    }
    // Each component: the bytes after a `/` up to the next one.
    b.get(1..)
        .unwrap_or_default()
        .split(|&c| c == b'/')
        .all(|comp| !matches!(comp, b"" | b"." | b".."))
}

/// Folds `.`, `..` and repeated separators of an absolute path.
pub fn normalize(path: &str) -> String {
    normalize_owned(path.to_string())
}

fn normalize_owned(path: String) -> String {
    if is_normal(&path) {
        return path;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return "/".to_string();
    }
    let mut out = String::with_capacity(path.len());
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    out
}

/// True when `path` (absolute, normalized) is `dir` or inside it.
pub fn is_within(path: &str, dir: &str) -> bool {
    if dir == "/" {
        return true;
    }
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A path written for Windows (a drive letter, `C:` or `C:\`/`C:/`, or a `\`
/// separator): toolgate reads paths as POSIX paths, so where this one leads on the host
/// that runs the tool is not known. Joined to the workspace it would look inside it
/// (`/home/dev/app/C:\Users\me\.ssh\id_rsa`); [`is_foreign`] paths are outside
/// every directory for a read or an edit, and [`case_aliases`] reads `\` as `/` for
/// the name checks.
pub fn is_foreign(path: &str) -> bool {
    path.has_char('\\')
        || path
            .split('/')
            .any(|seg| matches!(seg.as_bytes(), [letter, b':', ..] if letter.is_ascii_alphabetic()))
}

/// True when `path` lies under one of `dirs` (or is one of them). `/lib*` counts for
/// any directory named `lib…` at the top (`/lib32`, `/libx32`).
pub fn under_any(path: &str, dirs: &[&str]) -> bool {
    dirs.iter().any(|d| is_within(path, d))
}

/// `path` with the letters a case-insensitive file system takes for ASCII ones spelled
/// as those: `ſ` (U+017F) and `ı` (U+0131) upper-case to `S` and `I` (NTFS compares
/// upper-cased names), the Kelvin sign `K` (U+212A) folds to `k` (APFS folds case). On
/// such a file system `id_rſa` opens `id_rsa` and `.gıt/hooks` is `.git/hooks`, so the
/// name checks below ([`is_secret`], [`protected`], [`self_approval`]) see the ASCII
/// spelling. A `\` counts as `/`: a Windows host separates with it
/// (`C:\Users\me\.ssh\id_rsa`, [`is_foreign`]). Borrowed when `path` has none of them.
pub fn case_aliases(path: &str) -> std::borrow::Cow<'_, str> {
    const ALIASES: [(char, char); 4] = [
        ('\u{17f}', 's'),
        ('\u{131}', 'i'),
        ('\u{212a}', 'k'),
        ('\\', '/'),
    ];
    let plain = if path.is_ascii() {
        !path.has_char('\\')
    } else {
        !path.contains(|c| ALIASES.iter().any(|(a, _)| *a == c))
    };
    if plain {
        return std::borrow::Cow::Borrowed(path);
    }
    let folded = path
        .chars()
        .map(|c| {
            ALIASES
                .iter()
                .find(|(a, _)| *a == c)
                .map_or(c, |(_, ascii)| *ascii)
        })
        .collect();
    std::borrow::Cow::Owned(folded)
}

/// What makes an edit of `path` (absolute, resolved) protected: a file that makes code
/// run without anyone running it, or that changes what an agent may do. `None` when it
/// is none of them. Names compare without case (`.GIT/hooks` on a case-insensitive
/// file system is the hooks directory).
pub fn protected(path: &str) -> Option<&'static str> {
    let path = &*case_aliases(path);
    if !has_dot_segment(path) {
        let last = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or_default();
        return PROTECTED_FILES
            .iter()
            .find(|(f, _)| last.eq_ignore_ascii_case(f))
            .map(|(_, why)| *why);
    }
    protected_scan(path)
}

/// [`protected`] segment by segment (`path` with its case aliases read).
fn protected_scan(path: &str) -> Option<&'static str> {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let is = |s: &str, p: &str| s.eq_ignore_ascii_case(p);
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let next = segs.get(i + 1).copied().unwrap_or("");
        let dir = [
            (".git", "git internals (hooks and config run programs)"),
            (".vscode", "editor settings and tasks, which run programs"),
            (".idea", "IDE settings and run configurations"),
            (".husky", "git hooks"),
            (
                ".devcontainer",
                "a dev container definition, whose commands run on open",
            ),
            (".claude", "an agent's own settings and permissions"),
            (".codex", "an agent's own settings and permissions"),
            (".gemini", "an agent's own settings and permissions"),
            (".cursor", "an agent's own settings and permissions"),
            (".agents", "an agent's own settings and permissions"),
            (".opencode", "an agent's own settings and permissions"),
            (".toolgate", "toolgate's own policy"),
        ]
        .into_iter()
        .find(|(d, _)| is(seg, d));
        if let Some((_, why)) = dir {
            // A directory's own name as the last segment (`mkdir .vscode`) is protected
            // too: what goes in it next is.
            return Some(why);
        }
        if is(seg, ".github") && (is(next, "workflows") || is(next, "actions")) {
            return Some("a CI workflow, which runs on push");
        }
        // Copilot CLI's project hooks and settings (`.github/hooks/*.json` run
        // commands once the folder is trusted).
        if is(seg, ".github") && (is(next, "hooks") || is(next, "copilot")) {
            return Some("an agent's own settings and permissions");
        }
        if is(seg, ".config") && is(next, "fish") {
            return Some("a shell startup file");
        }
        // Persistence and execution: git's own configuration (its pager, editor,
        // diff and filter drivers run programs: git-config(1) FILES), programs on the
        // PATH (the XDG user bin directory), user services and login autostart
        // (systemd.unit(5) user unit paths; the XDG autostart specification), Cargo's
        // configuration (`target.<triple>.runner`, `build.rustc-wrapper`: the Cargo
        // book, Configuration).
        if is(seg, ".config") && is(next, "git") {
            return Some("git's configuration, which runs programs");
        }
        if is(seg, ".local") && is(next, "bin") {
            return Some("a directory of programs on the PATH");
        }
        if is(seg, ".config") && (is(next, "systemd") || is(next, "autostart")) {
            return Some("a program started on its own (a user service or autostart entry)");
        }
        if is(seg, ".cargo") && (is(next, "config.toml") || is(next, "config")) {
            return Some("Cargo's configuration, whose runners and wrappers run programs");
        }
        if !last {
            continue;
        }
        let file = PROTECTED_FILES.iter().find(|(f, _)| is(seg, f));
        if let Some((_, why)) = file {
            return Some(why);
        }
    }
    None
}

/// The files [`protected`] names wherever they are (the last segment).
const PROTECTED_FILES: [(&str, &str); 20] = [
    (".envrc", "direnv runs it on entering the directory"),
    (".gitconfig", "git's configuration, which runs programs"),
    (".gitlab-ci.yml", "a CI pipeline, which runs on push"),
    (".mcp.json", "an agent's MCP servers, which it runs"),
    ("opencode.json", "an agent's MCP servers, which it runs"),
    ("opencode.jsonc", "an agent's MCP servers, which it runs"),
    ("toolgate.toml", "toolgate's own policy"),
    (".toolgate.toml", "toolgate's own policy"),
    (".bashrc", "a shell startup file"),
    (".bash_profile", "a shell startup file"),
    (".bash_login", "a shell startup file"),
    (".bash_logout", "a shell startup file"),
    (".profile", "a shell startup file"),
    (".zshrc", "a shell startup file"),
    (".zshenv", "a shell startup file"),
    (".zprofile", "a shell startup file"),
    (".zlogin", "a shell startup file"),
    (".zlogout", "a shell startup file"),
    (".kshrc", "a shell startup file"),
    (".inputrc", "a shell startup file"),
];

/// Does a segment of `path` begin with `.`? Every directory [`protected`] and
/// [`self_approval`] name does, and every file but three: a path without one (nearly
/// every path an agent writes) needs no scan of its segments.
fn has_dot_segment(path: &str) -> bool {
    path.starts_with('.') || crate::needle::contains(path, "/.")
}

/// Why `workspace` is no project to work in: the root, or the home directory or one of
/// its parents (a session started there would make every dotfile a workspace file).
pub fn no_workspace(workspace: &str, home: &str) -> Option<&'static str> {
    if workspace == "/" {
        Some("the root directory")
    } else if is_within(home, workspace) {
        Some(if home == workspace {
            "the home directory"
        } else {
            "a parent of the home directory"
        })
    } else {
        None
    }
}

/// What makes writing `path` (absolute, resolved) an agent approving itself: toolgate's
/// own runs database and policy, or an agent host's user settings, which hold its hooks
/// and permissions. `None` for any other path. Names compare without case.
///
/// - `~/.local/state/toolgate/` (the runs database of `toolgate hook --defer`,
///   `toolgate runs` and `decide`) and `~/.config/toolgate/`, in any home;
/// - in a home directory (`home`, `/root`, `/home/NAME`): Claude Code's
///   `.claude/settings.json` and `settings.local.json`, Codex's `.codex/hooks.json` and
///   `config.toml` (inline `[hooks]`, the approval policy), Gemini CLI's
///   `.gemini/settings.json`, Antigravity's `.gemini/config/hooks.json`, Cursor's
///   `.cursor/hooks.json`, Copilot CLI's `.copilot/hooks/*.json` — where `toolgate
///   install` puts the hook — and its `settings.json`, `settings.local.json` and
///   `config.json` (inline hooks, `disableAllHooks`). A project's own copies (`.claude/settings.json` in a
///   repository) are protected files instead ([`protected`]): a person is asked.
pub fn self_approval(path: &str, home: &str) -> Option<&'static str> {
    let (path, home) = (&*case_aliases(path), &*case_aliases(home));
    if !has_dot_segment(path) {
        return None;
    }
    self_approval_scan(path, home)
}

/// [`self_approval`] segment by segment (`path` and `home` with their case aliases read).
fn self_approval_scan(path: &str, home: &str) -> Option<&'static str> {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let is = |s: &str, p: &str| s.eq_ignore_ascii_case(p);
    let at = |i: usize| segs.get(i).copied().unwrap_or("");
    for i in 0..segs.len() {
        let (a, b, c) = (at(i), at(i + 1), at(i + 2));
        if (is(a, ".local") && is(b, "state") && is(c, "toolgate"))
            || (is(a, ".config") && is(b, "toolgate"))
        {
            return Some("toolgate's own runs database and policy");
        }
    }
    // The settings directory's place: right under a home directory.
    let dir = segs.iter().position(|s| {
        [".claude", ".codex", ".gemini", ".cursor", ".copilot"]
            .iter()
            .any(|d| is(s, d))
    })?;
    let owner = format!("/{}", segs.get(..dir).unwrap_or_default().join("/"));
    let a_home = owner == home || owner == "/root" || (dir == 2 && is(at(0), "home"));
    if !a_home {
        return None;
    }
    let rest: Vec<String> = segs
        .get(dir..)
        .unwrap_or_default()
        .iter()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    let host = matches!(
        rest.as_slice(),
        [".claude", "settings.json" | "settings.local.json"]
            | [".codex", "hooks.json" | "config.toml"]
            | [".gemini", "settings.json"]
            | [".gemini", "config", "hooks.json"]
            | [".cursor", "hooks.json"]
            | [
                ".copilot",
                "settings.json" | "settings.local.json" | "config.json"
            ]
    ) || matches!(rest.as_slice(), [".copilot", "hooks", f] if f.ends_with(".json"));
    host.then_some("an agent host's hook and permission settings")
}

/// How a secret file name matches a path segment (case-insensitively).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretName {
    /// The file is this name (`.netrc`).
    Exact(&'static str),
    /// The file name starts with it (`.env`, `.env.local`, `id_rsa.pub`).
    Prefix(&'static str),
    /// The file name ends with it (`server.pem`).
    Suffix(&'static str),
    /// A directory: it, anywhere in the path, and everything under it (`.ssh/config`).
    Dir(&'static str),
    /// The file `name` right under a directory `parent` (`.aws/credentials`).
    Under {
        /// The directory's name.
        parent: &'static str,
        /// The file's name.
        name: &'static str,
    },
    /// The directory `name` right under a directory `parent`, and everything under it
    /// (`.config/gcloud/…`).
    DirUnder {
        /// The outer directory's name.
        parent: &'static str,
        /// The inner directory's name.
        name: &'static str,
    },
    /// A file whose name starts with `prefix` right under a directory `parent`
    /// (`/dev/sda`, `/dev/nvme0n1`).
    PrefixUnder {
        /// The directory (`/dev`).
        parent: &'static str,
        /// The start of the file's name (`sd`).
        prefix: &'static str,
    },
}

/// Every secret file name (DESIGN §1), the one list: [`is_secret`] reads paths with it,
/// and the walker tries globs against it (`cat .e?v`, `~/.a*/cred*`). Adding a name
/// here is all it takes for every read, edit and glob check.
pub const SECRET_NAMES: &[SecretName] = &[
    SecretName::Dir(".ssh"),
    SecretName::Dir(".gnupg"),
    SecretName::Prefix(".env"),
    SecretName::Prefix("id_rsa"),
    SecretName::Prefix("id_ed25519"),
    SecretName::Prefix("id_ecdsa"),
    SecretName::Prefix("id_dsa"),
    SecretName::Suffix(".pem"),
    SecretName::Suffix(".key"),
    SecretName::Exact(".netrc"),
    SecretName::Exact("_netrc"),
    SecretName::Exact(".git-credentials"),
    SecretName::Exact(".pgpass"),
    SecretName::Exact(".npmrc"),
    SecretName::Exact(".pypirc"),
    // `/proc/PID/environ`, `/proc/self/task/TID/environ`: a process's environment, where
    // an agent host keeps its keys.
    SecretName::Exact("environ"),
    // Credential stores of common tools, each where the tool's documentation puts it.
    // Docker (`docker login`: "$HOME/.docker/config.json"; legacy `~/.dockercfg`) and
    // Podman / containers-auth.json(5) (`~/.config/containers/auth.json`).
    SecretName::Under {
        parent: ".docker",
        name: "config.json",
    },
    SecretName::Exact(".dockercfg"),
    SecretName::Under {
        parent: "containers",
        name: "auth.json",
    },
    // kubectl: the kubeconfig, "$HOME/.kube/config" (tokens, client keys).
    SecretName::Under {
        parent: ".kube",
        name: "config",
    },
    // GitHub CLI (`gh auth login`): the token in `~/.config/gh/hosts.yml`; hub's
    // `~/.config/hub`; git-credential-store(1)'s `$XDG_CONFIG_HOME/git/credentials`.
    SecretName::Under {
        parent: "gh",
        name: "hosts.yml",
    },
    SecretName::Under {
        parent: ".config",
        name: "hub",
    },
    SecretName::Under {
        parent: "git",
        name: "credentials",
    },
    // Google Cloud SDK: everything in `~/.config/gcloud` (credentials.db,
    // access_tokens.db, legacy_credentials/), and Application Default Credentials'
    // `application_default_credentials.json` wherever it is copied.
    SecretName::DirUnder {
        parent: ".config",
        name: "gcloud",
    },
    SecretName::Exact("application_default_credentials.json"),
    // Azure CLI: `~/.azure` (msal_token_cache.json, accessTokens.json,
    // service_principal_entries.json).
    SecretName::Dir(".azure"),
    // Cargo (`cargo login`): `$CARGO_HOME/credentials.toml`, before 1.39 `credentials`.
    SecretName::Under {
        parent: ".cargo",
        name: "credentials.toml",
    },
    SecretName::Under {
        parent: ".cargo",
        name: "credentials",
    },
    // Terraform (`terraform login`): `~/.terraform.d/credentials.tfrc.json`; the CLI
    // configuration's `credentials` blocks in `~/.terraformrc` / `terraform.rc`.
    SecretName::Exact("credentials.tfrc.json"),
    SecretName::Exact(".terraformrc"),
    SecretName::Exact("terraform.rc"),
    // HashiCorp Vault's token helper: `~/.vault-token`.
    SecretName::Exact(".vault-token"),
    // RubyGems (`gem signin`): `~/.gem/credentials`.
    SecretName::Under {
        parent: ".gem",
        name: "credentials",
    },
    // Hugging Face (`hf auth login`): `$HF_HOME/token`, `~/.cache/huggingface/token`.
    SecretName::Under {
        parent: "huggingface",
        name: "token",
    },
    // Composer: `$COMPOSER_HOME/auth.json` (`~/.composer`, `~/.config/composer`).
    SecretName::Under {
        parent: ".composer",
        name: "auth.json",
    },
    SecretName::Under {
        parent: "composer",
        name: "auth.json",
    },
    // Maven's master password (`~/.m2/settings-security.xml`); s3cmd's `~/.s3cfg`;
    // boto's `~/.boto`.
    SecretName::Exact("settings-security.xml"),
    SecretName::Exact(".s3cfg"),
    SecretName::Exact(".boto"),
    // Shell and REPL histories, which hold what was typed, pasted tokens among it: bash
    // (`HISTFILE`, bash(1)), zsh (`.zsh_history`, `.zhistory`), ksh and sh
    // (`.sh_history`), tcsh (`.history`), fish (`~/.local/share/fish/fish_history`),
    // Python's interactive prompt (`.python_history`, the site module), psql(1)
    // (`.psql_history`), mysql(1) (`.mysql_history`), the Node.js REPL
    // (`.node_repl_history`), sqlite3 (`.sqlite_history`), redis-cli
    // (`.rediscli_history`), irb (`.irb_history`), R (`.Rhistory`), the MongoDB shells
    // (`.dbshell`, `.mongosh/`), less (`.lesshst`).
    SecretName::Exact(".bash_history"),
    SecretName::Exact(".zsh_history"),
    SecretName::Exact(".zhistory"),
    SecretName::Exact(".sh_history"),
    SecretName::Exact(".history"),
    SecretName::Exact("fish_history"),
    SecretName::Exact(".python_history"),
    SecretName::Exact(".psql_history"),
    SecretName::Exact(".mysql_history"),
    SecretName::Exact(".node_repl_history"),
    SecretName::Exact(".sqlite_history"),
    SecretName::Exact(".rediscli_history"),
    SecretName::Exact(".irb_history"),
    SecretName::Exact(".Rhistory"),
    SecretName::Exact(".dbshell"),
    SecretName::Dir(".mongosh"),
    SecretName::Exact(".lesshst"),
    // AWS: everything under `~/.aws` — `config` (role ARNs, `credential_process`, and
    // keys too where people put them), `sso/cache` and `cli/cache` (session tokens).
    SecretName::Dir(".aws"),
    // MySQL option files with a `password` (mysql(1): `~/.my.cnf`; Debian's
    // maintenance account in `/etc/mysql/debian.cnf`).
    SecretName::Exact(".my.cnf"),
    SecretName::Under {
        parent: "mysql",
        name: "debian.cnf",
    },
    // System secrets, for agents that run as root (containers, CI): password hashes
    // (shadow(5), gshadow(5) and their `-` backups), SSH host keys (sshd(8)
    // HostKey defaults), PPP's CHAP secrets, WireGuard's configuration (wg-quick(8):
    // the `PrivateKey`), NetworkManager's connection files (Wi-Fi and VPN secrets).
    SecretName::Under {
        parent: "etc",
        name: "shadow",
    },
    SecretName::Under {
        parent: "etc",
        name: "shadow-",
    },
    SecretName::Under {
        parent: "etc",
        name: "gshadow",
    },
    SecretName::Under {
        parent: "etc",
        name: "gshadow-",
    },
    SecretName::PrefixUnder {
        parent: "ssh",
        prefix: "ssh_host_",
    },
    SecretName::Under {
        parent: "ppp",
        name: "chap-secrets",
    },
    SecretName::Under {
        parent: "ppp",
        name: "pap-secrets",
    },
    SecretName::DirUnder {
        parent: "etc",
        name: "wireguard",
    },
    SecretName::DirUnder {
        parent: "NetworkManager",
        name: "system-connections",
    },
    // Kubernetes and Docker secrets: a pod's service-account token
    // (`/var/run/secrets/kubernetes.io/serviceaccount/token`) and Docker/Compose
    // secrets (`/run/secrets/NAME`); the cluster admin's kubeconfig
    // (`/etc/kubernetes/admin.conf`, kubeadm); a container's `config.v2.json` (its
    // environment, with whatever keys it was given).
    SecretName::DirUnder {
        parent: "run",
        name: "secrets",
    },
    SecretName::DirUnder {
        parent: "kubernetes.io",
        name: "serviceaccount",
    },
    SecretName::Under {
        parent: "kubernetes",
        name: "admin.conf",
    },
    SecretName::Exact("config.v2.json"),
    // Raw disks and memory: a block device holds every file of its file system, and
    // `/dev/mem`, `/dev/kmem`, `/dev/port`, `/proc/kcore` the machine's memory (other
    // processes' memory, `/proc/PID/mem`, is in [`is_secret`]).
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "sd",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "nvme",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "vd",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "xvd",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "hd",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "mmcblk",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "dm-",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "md",
    },
    SecretName::PrefixUnder {
        parent: "dev",
        prefix: "loop",
    },
    SecretName::DirUnder {
        parent: "dev",
        name: "mapper",
    },
    SecretName::DirUnder {
        parent: "dev",
        name: "disk",
    },
    SecretName::Under {
        parent: "dev",
        name: "mem",
    },
    SecretName::Under {
        parent: "dev",
        name: "kmem",
    },
    SecretName::Under {
        parent: "dev",
        name: "port",
    },
    SecretName::Under {
        parent: "proc",
        name: "kcore",
    },
];

impl SecretName {
    /// Whether a path's last segment `seg`, under directory segment `parent`, is this
    /// name (a [`SecretName::Dir`] matches any segment: see [`is_secret`]).
    fn names(self, seg: &str, parent: &str) -> bool {
        let starts = |s: &str, p: &str| {
            s.as_bytes()
                .get(..p.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
        };
        let ends = |s: &str, p: &str| {
            s.len()
                .checked_sub(p.len())
                .and_then(|at| s.as_bytes().get(at..))
                .is_some_and(|tail| tail.eq_ignore_ascii_case(p.as_bytes()))
        };
        match self {
            SecretName::Exact(n) | SecretName::Dir(n) => seg.eq_ignore_ascii_case(n),
            SecretName::Prefix(n) => starts(seg, n),
            SecretName::Suffix(n) => ends(seg, n),
            SecretName::Under { parent: p, name } | SecretName::DirUnder { parent: p, name } => {
                seg.eq_ignore_ascii_case(name) && parent.eq_ignore_ascii_case(p)
            }
            SecretName::PrefixUnder { parent: p, prefix } => {
                starts(seg, prefix) && parent.eq_ignore_ascii_case(p)
            }
        }
    }
}

/// Where [`candidates`] and [`dir_candidates`] look: [`SECRET_NAMES`] indexed once by
/// the first byte of the name (ASCII case folded; directories apart) and the suffixes
/// by their last byte.
struct Index {
    by_first: Vec<Vec<u16>>,
    dirs_by_first: Vec<Vec<u16>>,
    suffixes_by_last: Vec<Vec<u16>>,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index {
            by_first: vec![Vec::new(); 256],
            dirs_by_first: vec![Vec::new(); 256],
            suffixes_by_last: vec![Vec::new(); 256],
        };
        for (i, n) in (0u16..).zip(SECRET_NAMES.iter()) {
            let (lists, byte) = match n {
                SecretName::Exact(s) | SecretName::Prefix(s) => {
                    (&mut index.by_first, s.bytes().next())
                }
                SecretName::Under { name, .. } => (&mut index.by_first, name.bytes().next()),
                SecretName::PrefixUnder { prefix, .. } => {
                    (&mut index.by_first, prefix.bytes().next())
                }
                SecretName::Dir(s) => (&mut index.dirs_by_first, s.bytes().next()),
                SecretName::DirUnder { name, .. } => {
                    (&mut index.dirs_by_first, name.bytes().next())
                }
                SecretName::Suffix(s) => (&mut index.suffixes_by_last, s.bytes().last()),
            };
            if let Some(list) =
                byte.and_then(|b| lists.get_mut(usize::from(b.to_ascii_lowercase())))
            {
                list.push(i);
            }
        }
        index
    })
}

fn bucket(lists: &[Vec<u16>], byte: Option<u8>) -> &[u16] {
    byte.and_then(|b| lists.get(usize::from(b.to_ascii_lowercase())))
        .map_or(&[][..], Vec::as_slice)
}

fn names_at(ids: &[u16]) -> impl Iterator<Item = SecretName> + '_ {
    ids.iter()
        .filter_map(|&i| SECRET_NAMES.get(usize::from(i)).copied())
}

/// The names of [`SECRET_NAMES`] a path segment can be: those whose name starts with the
/// segment's first byte (ASCII case folded), directories included, and the suffixes it
/// can end with. The same answers as trying every name, a few instead of a hundred.
fn candidates(seg: &str) -> impl Iterator<Item = SecretName> + '_ {
    let index = index();
    let bytes = seg.as_bytes();
    names_at(bucket(&index.by_first, bytes.first().copied()))
        .chain(names_at(bucket(
            &index.dirs_by_first,
            bytes.first().copied(),
        )))
        .chain(names_at(bucket(
            &index.suffixes_by_last,
            bytes.last().copied(),
        )))
}

/// The directories of secrets ([`SecretName::Dir`], [`SecretName::DirUnder`]) a
/// segment can be: what a segment that is not the last is tried against.
fn dir_candidates(seg: &str) -> impl Iterator<Item = SecretName> + '_ {
    names_at(bucket(
        &index().dirs_by_first,
        seg.as_bytes().first().copied(),
    ))
}

/// A secret file by name or location: a name of [`SECRET_NAMES`] as the last segment,
/// or anything under one of its directories.
pub fn is_secret(path: &str) -> bool {
    let path = &*case_aliases(path);
    // Another process's memory: `/proc/PID/mem`, `/proc/self/task/TID/mem`.
    if path.starts_with("/proc/") && path.rsplit('/').next() == Some("mem") {
        return true;
    }
    let mut segs = path.split('/').filter(|s| !s.is_empty()).peekable();
    let mut prev = "";
    let mut depth = 0;
    while let Some(seg) = segs.next() {
        let last = segs.peek().is_none();
        depth += 1;
        // A directory of secrets may be any segment; the other names only the last (this
        // loop runs for every argument of every command: the hot path of classifying).
        let secret = if last {
            candidates(seg).any(|n| match n {
                // Devices and the kernel's files only where the system has them
                // (`/dev/sda`, not a project's `dev/sdk.md`).
                SecretName::PrefixUnder { parent, .. } | SecretName::Under { parent, .. }
                    if matches!(parent, "dev" | "proc") =>
                {
                    depth == 2 && path.starts_with('/') && n.names(seg, prev)
                }
                _ => n.names(seg, prev),
            })
        } else {
            dir_candidates(seg).any(|n| n.names(seg, prev))
        };
        if secret {
            return true;
        }
        prev = seg;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The shortcut for paths without a segment beginning with `.` answers as the
        /// scan of every segment does.
        #[test]
        fn the_dot_segment_shortcut_changes_no_answer(
            picks in proptest::collection::vec(0usize..30, 0..6),
            relative in proptest::bool::ANY,
            trailing in proptest::bool::ANY,
        ) {
            const WORDS: [&str; 30] = [
                "home", "dev", "app", "src", ".git", "hooks", "config", ".github",
                "workflows", ".config", "git", "toolgate", ".local", "state", "bin",
                ".claude", "settings.json", "opencode.json", "OPENCODE.JSONC",
                "toolgate.toml", ".TOOLGATE.toml", ".bashrc", "bashrc", ".cargo",
                "config.toml", "root", ".codex", "hooks.json", "a.b", ".",
            ];
            let joined = picks.iter().map(|&i| WORDS.get(i).copied().unwrap_or("x")).collect::<Vec<_>>().join("/");
            let path = format!("{}{joined}{}", if relative { "" } else { "/" }, if trailing { "/" } else { "" });
            proptest::prop_assert_eq!(protected(&path), protected_scan(&path), "{}", path);
            for home in ["/home/dev", "/root"] {
                proptest::prop_assert_eq!(
                    self_approval(&path, home),
                    self_approval_scan(&path, home),
                    "{} in {}", path, home
                );
            }
        }

        /// Spelling an `s`, `i` or `k` of a path as `ſ`, `ı` or `K`, or a `/` as `\`,
        /// changes none of the name checks: a case-insensitive file system opens the
        /// same file, a Windows host takes `\` for `/`.
        #[test]
        fn case_aliases_name_what_the_ascii_spelling_names(
            picks in proptest::collection::vec(0usize..24, 1..6),
            flips in proptest::collection::vec(proptest::bool::ANY, 64),
        ) {
            const WORDS: [&str; 24] = [
                "home", "dev", ".ssh", "id_rsa", ".git", "hooks", "config", ".aws",
                "credentials", ".kube", ".claude", "settings.json", "src", "main.rs",
                ".vscode", "tasks.json", "secrets.yml", ".npmrc", "id_ed25519", ".pypirc",
                "SKIP", ".ENV", ".local", "state",
            ];
            let ascii = format!(
                "/{}",
                picks.iter().map(|&i| WORDS.get(i).copied().unwrap_or("x")).collect::<Vec<_>>().join("/")
            );
            let mut flip = flips.iter().cycle();
            let aliased: String = ascii
                .chars()
                .map(|c| match (c.to_ascii_lowercase(), flip.next()) {
                    ('s', Some(true)) => '\u{17f}',
                    ('i', Some(true)) => '\u{131}',
                    ('k', Some(true)) => '\u{212a}',
                    ('/', Some(true)) => '\\',
                    _ => c,
                })
                .collect();
            proptest::prop_assert_eq!(is_secret(&aliased), is_secret(&ascii), "{}", aliased);
            proptest::prop_assert_eq!(protected(&aliased), protected(&ascii), "{}", aliased);
            proptest::prop_assert_eq!(
                self_approval(&aliased, "/home/dev"),
                self_approval(&ascii, "/home/dev"),
                "{}",
                aliased
            );
        }

        /// The index is only a shortcut: every name of [`SECRET_NAMES`] that names a
        /// segment is among its candidates, whatever the segment's case or tail.
        #[test]
        fn candidates_hold_every_name_that_matches(
            pick in 0..SECRET_NAMES.len(),
            parent_pick in 0..SECRET_NAMES.len(),
            flips in proptest::collection::vec(proptest::bool::ANY, 24),
            head in "[a-zA-Z0-9._-]{0,3}",
            tail in "[a-zA-Z0-9._-]{0,6}",
        ) {
            let word = |n: &SecretName| match *n {
                SecretName::Exact(s) | SecretName::Prefix(s) | SecretName::Suffix(s) | SecretName::Dir(s) => s,
                SecretName::Under { name, .. } | SecretName::DirUnder { name, .. } => name,
                SecretName::PrefixUnder { prefix, .. } => prefix,
            };
            let parent = match SECRET_NAMES[parent_pick] {
                SecretName::Under { parent, .. } | SecretName::DirUnder { parent, .. } | SecretName::PrefixUnder { parent, .. } => parent,
                other => word(&other),
            };
            let flip = |s: &str| -> String {
                s.chars().zip(flips.iter().cycle()).map(|(c, f)| if *f { c.to_ascii_uppercase() } else { c }).collect()
            };
            let n = SECRET_NAMES[pick];
            for seg in [flip(word(&n)), format!("{}{}", flip(word(&n)), tail), format!("{head}{}", flip(word(&n)))] {
                if seg.is_empty() {
                    continue;
                }
                for p in [parent, "x"] {
                    let all: Vec<SecretName> = SECRET_NAMES.iter().copied().filter(|m| m.names(&seg, p)).collect();
                    let some: Vec<SecretName> = candidates(&seg).filter(|m| m.names(&seg, p)).collect();
                    let dirs: Vec<SecretName> = dir_candidates(&seg).filter(|m| m.names(&seg, p)).collect();
                    let all_dirs: Vec<SecretName> = all.iter().copied().filter(|m| matches!(m, SecretName::Dir(_) | SecretName::DirUnder { .. })).collect();
                    proptest::prop_assert_eq!(all_dirs, dirs, "directories: segment {} under {}", seg, p);
                    // The same names, in any order (the index lists a segment's
                    // suffix names and prefix names in its own order).
                    proptest::prop_assert!(
                        all.len() == some.len() && all.iter().all(|m| some.contains(m)),
                        "segment {} under {}: {:?} vs {:?}", seg, p, all, some
                    );
                }
            }
        }
    }

    #[test]
    fn normal_paths_are_kept_as_they_are() {
        for p in ["/", "/a", "/a/b.c", "/a/.b", "/a/..b", "/a/b..", "/..a/..."] {
            assert!(is_normal(p), "{p}");
            assert_eq!(normalize(p), p);
        }
        for (p, n) in [
            ("/a/", "/a"),
            ("//a", "/a"),
            ("/a/./b", "/a/b"),
            ("/a/../b", "/b"),
            ("/a/.", "/a"),
            ("/a/..", "/"),
            ("/.", "/"),
            ("a/b", "/a/b"),
            ("", "/"),
        ] {
            assert!(!is_normal(p), "{p}");
            assert_eq!(normalize(p), n, "{p}");
        }
    }

    #[test]
    fn resolves() {
        let cases = [
            ("src/main.rs", "/home/dev/app/src/main.rs"),
            ("../other/x", "/home/dev/other/x"),
            ("../../../../..", "/"),
            ("~", "/home/dev"),
            ("~/.ssh/id_rsa", "/home/dev/.ssh/id_rsa"),
            ("/usr/../etc//passwd", "/etc/passwd"),
            (".", "/home/dev/app"),
            ("/", "/"),
        ];
        for (p, want) in cases {
            assert_eq!(resolve(p, "/home/dev/app", "/home/dev"), want, "{p}");
        }
    }

    #[test]
    fn secrets() {
        for p in [
            ".env",
            "config/.env.local",
            "a/server.pem",
            "x.key",
            "keys/id_rsa.pub",
            "/home/u/.ssh/config",
            "/h/.aws/credentials",
            ".netrc",
            ".git-credentials",
        ] {
            assert!(is_secret(p), "{p}");
        }
        for p in [
            "src/env.rs",
            "README.md",
            "keyboard.rs",
            "credentials",
            "docs/.environment-notes",
        ] {
            assert_eq!(is_secret(p), p.contains(".env"), "{p}");
        }
    }

    #[test]
    fn within() {
        assert!(is_within("/home/dev/app/x", "/home/dev/app"));
        assert!(is_within("/home/dev/app", "/home/dev/app"));
        assert!(!is_within("/home/dev/apple", "/home/dev/app"));
    }
}
