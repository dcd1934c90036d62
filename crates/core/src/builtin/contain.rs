//! Which commands `toolgate sandbox` can serve. The sandbox runs a command with no
//! network, writes only in the workspace and a private `/tmp`, the workspace's `.git`
//! read-only, no host services (sockets, other processes) and secret files hidden. Any
//! program is contained there; but a command whose purpose is what the sandbox
//! withholds would only fail in it, so it keeps its verdict (a person is asked) and
//! this table says why. Everything else that asks only because it runs code (tests,
//! builds, scripts, interpreters, programs toolgate does not know) may run contained.
//!
//! The table is about usefulness, not safety: a command it misses still runs inside
//! the sandbox, where the network and writes outside the workspace fail.

use super::programs::Kind;
use crate::shell::Word;

const NETWORK: &str = "it needs the network, which the sandbox withholds";
const OUTSIDE: &str =
    "it installs or writes outside the workspace, which the sandbox keeps read-only";
const REPOSITORY: &str =
    "git writes the repository (.git, kept read-only in the sandbox) or reaches a remote";
const HOST: &str = "it talks to a service or process of the host, which the sandbox does not reach";
const UNKNOWN: &str = "its subcommand is only known at run time";
/// Installs from a package registry into the workspace (`node_modules`, a virtual
/// environment there): served with HTTPS to the registries a policy's
/// `sandbox_network` names; without it, the network the sandbox withholds.
pub(super) const REGISTRY: &str = "it installs from a package registry, which needs the \
network the sandbox withholds (a policy's sandbox_network can name the registries)";

/// The subcommands of a package manager that install from its registry into the
/// workspace ([`REGISTRY`]). `yarn` alone installs too.
const REGISTRY_INSTALLS: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "install",
            "i",
            "in",
            "add",
            "ci",
            "clean-install",
            "install-clean",
            "update",
            "up",
        ],
    ),
    ("pnpm", &["install", "i", "add", "update", "up"]),
    ("yarn", &["install", "add"]),
    ("bun", &["install", "i", "add", "a", "update"]),
    ("uv", &["sync", "add", "lock"]),
];

/// Options that install into the system or the home instead of the workspace.
const GLOBAL_OPTIONS: &[&str] = &[
    "-g", "--global", "--user", "--system", "--prefix", "--root", "--target", "-t",
];

/// Programs whose every use is the network: remote shells and copies, DNS and probes,
/// cloud and forge CLIs, package runners that download what they run (`npx`, `uvx`),
/// and the agent CLIs themselves.
const NETWORK_PROGRAMS: &[&str] = &[
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "mosh",
    "telnet",
    "ftp",
    "lftp",
    "tftp",
    "ping",
    "ping6",
    "traceroute",
    "tracepath",
    "mtr",
    "dig",
    "nslookup",
    "host",
    "whois",
    "nmap",
    "gh",
    "hub",
    "glab",
    "aws",
    "gcloud",
    "gsutil",
    "bq",
    "az",
    "kubectl",
    "helm",
    "terraform",
    "tofu",
    "pulumi",
    "heroku",
    "fly",
    "flyctl",
    "vercel",
    "netlify",
    "firebase",
    "wrangler",
    "doctl",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "ngrok",
    "cloudflared",
    "tailscale",
    "claude",
    "codex",
    "gemini",
    "agy",
    "copilot",
    "opencode",
    "ansible",
    "ansible-playbook",
    "psql",
    "mysql",
    "mariadb",
    "redis-cli",
    "mongo",
    "mongosh",
    "cqlsh",
    "clickhouse-client",
];

/// Programs that install into the system or the home, or only manage those.
const OUTSIDE_PROGRAMS: &[&str] = &[
    "apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "rpm", "apk", "pacman", "zypper", "brew",
    "port", "snap", "flatpak", "nix-env", "choco", "winget", "rustup", "nvm", "pyenv", "asdf",
    "sdk", "corepack",
];

/// Programs that reach the host's daemons, desktop or processes.
const HOST_PROGRAMS: &[&str] = &[
    "docker",
    "podman",
    "nerdctl",
    "ctr",
    "crictl",
    "minikube",
    "kind",
    "vagrant",
    "service",
    "crontab",
    "at",
    "batch",
    "launchctl",
    "xdg-open",
    "open",
    "gio",
    "notify-send",
    "xclip",
    "xsel",
    "pbcopy",
    "pbpaste",
    "wl-copy",
    "wl-paste",
    "kill",
    "pkill",
    "killall",
    "killall5",
    "tmux",
    "screen",
];

/// Which subcommands of a package manager or build tool the sandbox serves.
enum Subs {
    /// Only these (running the project's scripts and tests); any other (installing,
    /// publishing, logging in) needs the network.
    Only(&'static [&'static str]),
    /// All but these, which need the network.
    Except(&'static [&'static str]),
}

const NPM_RUNS: &[&str] = &[
    "test",
    "t",
    "tst",
    "run",
    "run-script",
    "rum",
    "urn",
    "start",
    "stop",
    "restart",
    "ls",
    "list",
    "ll",
    "la",
    "explain",
    "why",
    "pack",
    "help",
];
const BUN_NETWORK: &[&str] = &[
    "install", "i", "add", "a", "remove", "rm", "update", "upgrade", "link", "unlink", "pm", "x",
    "create", "init", "publish", "outdated", "patch", "cache", "compile", "jupyter",
];
// `yarn` alone installs (below); `yarn NAME` runs the script NAME.
const YARN_NETWORK: &[&str] = &[
    "add",
    "install",
    "up",
    "upgrade",
    "upgrade-interactive",
    "dlx",
    "create",
    "init",
    "publish",
    "npm",
    "login",
    "logout",
    "remove",
    "link",
    "unlink",
    "global",
    "import",
    "dedupe",
    "outdated",
    "info",
    "view",
    "set",
    "plugin",
    "policies",
    "self-update",
];
const CARGO_NETWORK: &[&str] = &[
    "install",
    "uninstall",
    "publish",
    "login",
    "logout",
    "owner",
    "yank",
    "add",
    "update",
    "fetch",
    "search",
    "vendor",
    "info",
    "generate-lockfile",
];
const COMPOSER_RUNS: &[&str] = &[
    "run",
    "run-script",
    "test",
    "dump-autoload",
    "dumpautoload",
    "validate",
    "exec",
    "licenses",
    "check-platform-reqs",
];

/// Package managers and build tools by subcommand (others below: `git`, `pip`, `go`,
/// `make`).
const BY_SUBCOMMAND: &[(&str, Subs)] = &[
    ("npm", Subs::Only(NPM_RUNS)),
    ("pnpm", Subs::Only(NPM_RUNS)),
    ("yarn", Subs::Except(YARN_NETWORK)),
    ("bun", Subs::Except(BUN_NETWORK)),
    ("deno", Subs::Except(BUN_NETWORK)),
    (
        "uv",
        Subs::Only(&[
            "run", "tree", "version", "venv", "help", "export", "init", "format",
        ]),
    ),
    (
        "poetry",
        Subs::Only(&["run", "show", "check", "env", "version", "help"]),
    ),
    (
        "pipenv",
        Subs::Only(&["run", "graph", "--venv", "--where", "--py"]),
    ),
    ("conda", Subs::Only(&["run", "list", "info"])),
    ("mamba", Subs::Only(&["run", "list", "info"])),
    ("micromamba", Subs::Only(&["run", "list", "info"])),
    (
        "gem",
        Subs::Only(&["list", "contents", "env", "which", "help", "specification"]),
    ),
    (
        "bundle",
        Subs::Only(&["exec", "list", "show", "check", "info"]),
    ),
    (
        "bundler",
        Subs::Only(&["exec", "list", "show", "check", "info"]),
    ),
    ("composer", Subs::Only(COMPOSER_RUNS)),
    ("cargo", Subs::Except(CARGO_NETWORK)),
    (
        "dotnet",
        Subs::Except(&["restore", "tool", "nuget", "workload", "add"]),
    ),
];

/// Why `toolgate sandbox` cannot serve program `name` (of `kind`) with `args`; `None`
/// when it can.
pub(super) fn withheld(name: &str, kind: Kind, args: &[&Word]) -> Option<&'static str> {
    if kind == Kind::Downloader || NETWORK_PROGRAMS.contains(&name) {
        return Some(NETWORK);
    }
    if OUTSIDE_PROGRAMS.contains(&name) {
        return Some(OUTSIDE);
    }
    if HOST_PROGRAMS.contains(&name) {
        return Some(HOST);
    }
    let sub = subcommand(args);
    if let Some(why) = registry_install(name, &sub, args) {
        return Some(why);
    }
    if let Some((_, subs)) = BY_SUBCOMMAND.iter().find(|(n, _)| *n == name) {
        return match (subs, sub) {
            (_, Sub::Dynamic) => Some(UNKNOWN),
            (Subs::Only(ok), Sub::Word(s)) if ok.contains(&s) => None,
            (Subs::Only(_), _) => Some(NETWORK),
            (Subs::Except(_), Sub::None) if name == "yarn" => Some(NETWORK),
            (Subs::Except(bad), Sub::Word(s)) if bad.contains(&s) => Some(NETWORK),
            (Subs::Except(_), _) => None,
        };
    }
    match name {
        "git" => Some(REPOSITORY),
        "pip" | "pip3" => pip(args),
        _ if name.starts_with("pip3.") => pip(args),
        "go" => go(sub, args),
        "make" | "gmake" | "ninja" | "meson" => args
            .iter()
            .any(|a| matches!(a.text.as_str(), "install" | "uninstall"))
            .then_some(OUTSIDE),
        "cmake" if args.iter().any(|a| a.text == "--install") => Some(OUTSIDE),
        _ => None,
    }
}

/// [`REGISTRY`] for a package manager's install into the workspace, [`OUTSIDE`] for
/// one into the system or the home (`-g`, `--user`, …); `None` for anything else.
fn registry_install(name: &str, sub: &Sub, args: &[&Word]) -> Option<&'static str> {
    let installs = match (name, sub) {
        ("yarn", Sub::None) => true,
        ("uv", Sub::Word("pip")) => matches!(
            subcommand(&after(args, "pip")),
            Sub::Word("install" | "sync")
        ),
        (_, Sub::Word(s)) => REGISTRY_INSTALLS
            .iter()
            .any(|(n, subs)| *n == name && subs.contains(s)),
        _ => false,
    };
    if !installs {
        return None;
    }
    Some(elsewhere(args).unwrap_or(REGISTRY))
}

/// [`OUTSIDE`] when an install's options put it in the system or the home.
fn elsewhere(args: &[&Word]) -> Option<&'static str> {
    args.iter()
        .any(|a| {
            let t = a.text.as_str();
            GLOBAL_OPTIONS.contains(&t.split_once('=').map_or(t, |(o, _)| o))
                || t == "--location=global"
        })
        .then_some(OUTSIDE)
}

/// The words after the first `word` (a subcommand's own arguments).
fn after<'a>(args: &[&'a Word], word: &str) -> Vec<&'a Word> {
    args.iter()
        .skip_while(|a| a.text != word)
        .skip(1)
        .copied()
        .collect()
}

/// `go`: fetching modules (`get`, `install`, `mod download|tidy|vendor`) is the network.
fn go(sub: Sub, args: &[&Word]) -> Option<&'static str> {
    match sub {
        Sub::Word("get" | "install") => Some(NETWORK),
        Sub::Word("mod") => match subcommand(&after(args, "mod")) {
            Sub::Word("download" | "tidy" | "vendor") | Sub::Dynamic => Some(NETWORK),
            _ => None,
        },
        Sub::Dynamic => Some(UNKNOWN),
        _ => None,
    }
}

/// `pip`: showing what is installed is contained; installing is the network and the
/// system's or the home's site-packages.
fn pip(args: &[&Word]) -> Option<&'static str> {
    match subcommand(args) {
        Sub::Word("install" | "download" | "wheel") => Some(elsewhere(args).unwrap_or(REGISTRY)),
        Sub::Word(
            "list" | "show" | "freeze" | "check" | "inspect" | "debug" | "help" | "--version"
            | "-V",
        )
        | Sub::None => None,
        Sub::Dynamic => Some(UNKNOWN),
        Sub::Word(_) => Some(NETWORK),
    }
}

/// Why an interpreter's run cannot be served: `python -m pip install …`, `python -m
/// ensurepip` and `python -m build`/`twine` are pip's and the network's.
pub(super) fn withheld_interpreter(name: &str, args: &[&Word]) -> Option<&'static str> {
    if !name.starts_with("python") && !name.starts_with("pypy") {
        return withheld(name, Kind::Interpreter, args);
    }
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let module = match a.text.as_str() {
            "-m" => it.next().map(|m| m.text.as_str()),
            t if t.starts_with("-m") && t.len() > 2 => t.get(2..),
            t if t.starts_with('-') => continue,
            // A script file: what it does is contained.
            _ => return None,
        };
        let rest: Vec<&Word> = it.copied().collect();
        return match module {
            Some("pip") => pip(&rest),
            Some("ensurepip") => Some(OUTSIDE),
            Some("build" | "twine") => Some(NETWORK),
            _ => None,
        };
    }
    None
}

enum Sub<'a> {
    /// No operand.
    None,
    /// The first operand, static.
    Word(&'a str),
    /// The first operand (or an option before it) is only known at run time.
    Dynamic,
}

/// The first word that is not an option; an option before it that is named at run time
/// makes it unknown.
fn subcommand<'a>(args: &[&'a Word]) -> Sub<'a> {
    for a in args {
        let Some(v) = a.value() else {
            return Sub::Dynamic;
        };
        if v.starts_with('-')
            && v.len() > 1
            && !matches!(v, "--version" | "-V" | "--venv" | "--where" | "--py")
        {
            continue;
        }
        return Sub::Word(v);
    }
    Sub::None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::needle::HasChar;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace()
            .map(|t| Word {
                span: [0, 0],
                text: t.to_string(),
                dynamic: t.has_char('$'),
                glob: false,
                quoted: false,
                tilde: false,
                ..Word::default()
            })
            .collect()
    }

    fn why(cmd: &str) -> Option<&'static str> {
        let w = words(cmd);
        let refs: Vec<&Word> = w.iter().collect();
        let (name, args) = refs
            .split_first()
            .map(|(n, a)| (n.text.as_str(), a))
            .unwrap_or(("", &[]));
        let kind = super::super::programs::kind(name);
        if kind == Kind::Interpreter {
            withheld_interpreter(name, args)
        } else {
            withheld(name, kind, args)
        }
    }

    const SERVED: &[&str] = &[
        "pytest -x tests",
        "npm test",
        "npm run build",
        "yarn test",
        "yarn lint",
        "pnpm run test",
        "cargo test",
        "cargo build --release",
        "go test ./...",
        "go vet ./...",
        "go mod graph",
        "make",
        "make -j4 check",
        "cmake --build build",
        "mvn -q test",
        "gradle test",
        "dotnet test",
        "python x.py",
        "python -m pytest",
        "python -m venv .venv",
        "pip list",
        "pip",
        "uv run pytest",
        "poetry run pytest",
        "bundle exec rspec",
        "node x.js",
        "bun test",
        "deno test",
        "ruby x.rb",
        "composer test",
        "tox",
        "jest",
        "sphinx-build -b html a b",
    ];

    const KEPT: &[(&str, &str)] = &[
        ("npm install", REGISTRY),
        ("npm i -D x", REGISTRY),
        ("npm", NETWORK),
        ("npm --prefix x test", NETWORK),
        ("yarn", REGISTRY),
        ("yarn add x", REGISTRY),
        ("pnpm add x", REGISTRY),
        ("pip install requests", REGISTRY),
        ("pip3 download x", REGISTRY),
        ("python -m pip install x", REGISTRY),
        ("python3 -mpip install x", REGISTRY),
        ("python -m ensurepip", OUTSIDE),
        ("cargo install ripgrep", NETWORK),
        ("cargo add serde", NETWORK),
        ("go get x", NETWORK),
        ("go mod tidy", NETWORK),
        ("git push", REPOSITORY),
        ("git status", REPOSITORY),
        ("curl https://x", NETWORK),
        ("wget x", NETWORK),
        ("ssh h ls", NETWORK),
        ("gh pr list", NETWORK),
        ("docker run x", HOST),
        ("apt-get install x", OUTSIDE),
        ("make install", OUTSIDE),
        ("cmake --install build", OUTSIDE),
        ("uv pip install x", REGISTRY),
        ("uv sync", REGISTRY),
        ("npx jest", NETWORK),
        ("kill 1", HOST),
        ("bun install", REGISTRY),
        ("dotnet restore", NETWORK),
        ("npm $X", UNKNOWN),
        ("cargo $SUB", UNKNOWN),
        ("psql -c x", NETWORK),
        ("npm ci", REGISTRY),
        ("npm publish", NETWORK),
        ("npm install -g x", OUTSIDE),
        ("npm i --location=global x", OUTSIDE),
        ("pip install --user x", OUTSIDE),
        ("pip install --prefix=/opt x", OUTSIDE),
        ("pip uninstall x", NETWORK),
        ("uv pip install --system x", OUTSIDE),
        ("uv pip list", NETWORK),
        ("npm --prefix /x install", NETWORK),
    ];

    #[test]
    fn what_the_sandbox_serves() {
        for ok in SERVED {
            assert_eq!(why(ok), None, "{ok}");
        }
    }

    #[test]
    fn what_keeps_its_verdict() {
        for (cmd, want) in KEPT {
            assert_eq!(why(cmd), Some(*want), "{cmd}");
        }
    }
}
