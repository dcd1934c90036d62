//! The server's configuration: a TOML file (`--config`), then the environment, then the
//! command line. Tokens are kept as SHA-256 digests only: the file holds digests
//! (`toolgate-server hash-token` prints one), `TOOLGATE_TOKENS` may hold the tokens
//! themselves (hashed at start, the plain text dropped).

use std::net::SocketAddr;
use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};
use toolgate_core::Policy;

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// An agent: parks its owner's runs and reads them.
    Agent,
    /// A person: reads its owner's runs and decides them.
    Approver,
}

/// A token as the server keeps it: its name (logged and recorded as who decided, never
/// the token), its owner and roles, and the digest of the secret.
#[derive(Clone)]
pub struct Token {
    /// The token's name (logged, recorded as who decided).
    pub name: String,
    /// The owner whose runs it reaches.
    pub owner: String,
    /// What it may do (`agent`, `approver`).
    pub roles: Vec<Role>,
    /// The SHA-256 digest of the secret.
    pub sha256: [u8; 32],
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("name", &self.name)
            .field("owner", &self.owner)
            .field("roles", &self.roles)
            .finish_non_exhaustive()
    }
}

/// The SHA-256 digest of a token.
pub fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The resolved configuration.
#[derive(Debug)]
pub struct Config {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// `sqlite:PATH` or `postgres://…`.
    pub database: String,
    /// The policy calls are classified with.
    pub policy: Policy,
    /// Origins allowed to call the API from a browser (CORS); none: same origin only.
    pub cors_origins: Vec<String>,
    /// The tokens, by digest.
    pub tokens: Vec<Token>,
    /// A Slack-compatible incoming webhook for "a run waits" messages.
    pub webhook_url: Option<String>,
    /// What a webhook message carries of a call's arguments (`none`, `redacted`).
    pub webhook_args: crate::webhook::Args,
    /// The address people open the panel at (the webhook message links to it).
    pub public_url: Option<String>,
    /// The directory the approval panel is served from (it holds an `index.html`).
    pub panel: Option<std::path::PathBuf>,
    /// Timeouts, caps and rates (the `[limits]` table).
    pub limits: crate::limits::Limits,
    /// The agents run `sandbox` verdicts contained (the `[sandbox]` table); none: such
    /// a call asks.
    pub sandbox: Option<Sandbox>,
}

/// The agents of this server run a call that asks only because it runs code inside
/// `toolgate sandbox` on their machines: `POST /v1/classify` answers such a call
/// `sandbox` with the command that runs it so, and the reference agent runs it.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The policy for such agents (the server's, for a host that contains calls).
    pub policy: std::sync::Arc<Policy>,
    /// The `toolgate` binary on the agents' machines (`toolgate`: found on `PATH`).
    pub toolgate: String,
}

/// `[sandbox]`: `agents = true` turns it on; `toolgate` names the binary.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SandboxFile {
    #[serde(default)]
    agents: bool,
    toolgate: Option<String>,
}

/// What the file may say.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    listen: Option<String>,
    database: Option<String>,
    /// A policy TOML file (relative to the config file); default: `default = "ask"`
    /// over `workspace`.
    policy: Option<String>,
    workspace: Option<String>,
    home: Option<String>,
    #[serde(default)]
    cors_origins: Vec<String>,
    webhook_url: Option<String>,
    #[serde(default)]
    webhook_args: crate::webhook::Args,
    public_url: Option<String>,
    /// The panel's directory (relative to the config file).
    panel: Option<String>,
    #[serde(default)]
    tokens: Vec<FileToken>,
    #[serde(default)]
    limits: crate::limits::Limits,
    #[serde(default)]
    sandbox: SandboxFile,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToken {
    name: String,
    owner: String,
    roles: Vec<Role>,
    /// The token's SHA-256, 64 hex digits.
    sha256: String,
    /// Both roles on one token (an agent that approves its own calls) only with this.
    #[serde(default)]
    self_approve: bool,
}

/// `TOOLGATE_TOKENS`: `[{"name", "owner", "roles", "token"}]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvToken {
    name: String,
    owner: String,
    roles: Vec<Role>,
    token: String,
    #[serde(default)]
    self_approve: bool,
}

/// Overrides from the command line.
#[derive(Debug, Default)]
pub struct Overrides {
    /// `--listen`.
    pub listen: Option<String>,
    /// `--database`.
    pub database: Option<String>,
    /// `--panel`.
    pub panel: Option<String>,
    /// `--sandbox-agents`: as `[sandbox] agents = true`.
    pub sandbox_agents: bool,
}

/// Reads the configuration: `file` (if any), then `TOOLGATE_LISTEN`,
/// `TOOLGATE_DATABASE_URL`, `TOOLGATE_CORS_ORIGINS` (comma-separated),
/// `TOOLGATE_TOKENS`, `TOOLGATE_WEBHOOK_URL`, `TOOLGATE_PUBLIC_URL` and
/// `TOOLGATE_PANEL_DIR` from `env`, then
/// `overrides`. Errors say what to fix.
pub fn load(
    file: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    overrides: Overrides,
) -> Result<Config, String> {
    let (parsed, base) = match file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let parsed: File =
                basic_toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            (parsed, path.parent().map(Path::to_path_buf))
        }
        None => (File::default(), None),
    };
    let listen = overrides
        .listen
        .or_else(|| env("TOOLGATE_LISTEN"))
        .or(parsed.listen)
        .unwrap_or_else(|| "127.0.0.1:8787".to_string());
    let listen: SocketAddr = listen
        .parse()
        .map_err(|e| format!("listen address `{listen}`: {e}"))?;
    let database = overrides
        .database
        .or_else(|| env("TOOLGATE_DATABASE_URL"))
        .or(parsed.database)
        .unwrap_or_else(|| "sqlite:./toolgate.db".to_string());
    let workspace = parsed.workspace.unwrap_or_else(|| ".".to_string());
    let home = parsed.home.or_else(|| env("HOME")).unwrap_or_default();
    let policy = match parsed.policy {
        Some(p) => {
            let path = match &base {
                Some(dir) => dir.join(&p),
                None => p.into(),
            };
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read the policy {}: {e}", path.display()))?;
            Policy::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => Policy::defaults(&workspace, &home),
    };
    let mut cors_origins = parsed.cors_origins;
    if let Some(list) = env("TOOLGATE_CORS_ORIGINS") {
        cors_origins.extend(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    for o in &cors_origins {
        if !(o.starts_with("http://") || o.starts_with("https://")) || o.ends_with('/') {
            return Err(format!(
                "CORS origin `{o}`: write it as scheme://host[:port], e.g. https://chat.example.com"
            ));
        }
    }
    let mut tokens = Vec::new();
    for t in parsed.tokens {
        let sha256 = parse_hex(&t.sha256).ok_or_else(|| {
            format!(
                "token `{}`: sha256 must be 64 hex digits (toolgate-server hash-token prints it)",
                t.name
            )
        })?;
        tokens.push(token(t.name, t.owner, t.roles, sha256, t.self_approve)?);
    }
    if let Some(json) = env("TOOLGATE_TOKENS") {
        let list: Vec<EnvToken> = serde_json::from_str(&json).map_err(|e| {
            format!("TOOLGATE_TOKENS: expected [{{\"name\",\"owner\",\"roles\",\"token\"}}]: {e}")
        })?;
        for t in list {
            strong(&t.token)
                .map_err(|why| format!("TOOLGATE_TOKENS: token `{}`: {why}", t.name))?;
            tokens.push(token(
                t.name,
                t.owner,
                t.roles,
                digest(&t.token),
                t.self_approve,
            )?);
        }
    }
    let mut digests: Vec<[u8; 32]> = tokens.iter().map(|t| t.sha256).collect();
    digests.sort_unstable();
    if digests.windows(2).any(|w| matches!(w, [a, b] if a == b)) {
        return Err("two tokens have the same secret: give each its own".to_string());
    }
    let mut names: Vec<&str> = tokens.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| matches!(w, [a, b] if a == b)) {
        return Err(format!(
            "two tokens are named `{}`",
            w.first().copied().unwrap_or("")
        ));
    }
    let webhook_url = env("TOOLGATE_WEBHOOK_URL").or(parsed.webhook_url);
    if let Some(u) = &webhook_url {
        if !(u.starts_with("https://") || u.starts_with("http://")) {
            return Err("webhook_url must be an http:// or https:// URL".to_string());
        }
    }
    let webhook_args = match env("TOOLGATE_WEBHOOK_ARGS").as_deref() {
        None => parsed.webhook_args,
        Some("none") => crate::webhook::Args::None,
        Some("redacted") => crate::webhook::Args::Redacted,
        Some(other) => {
            return Err(format!(
                "TOOLGATE_WEBHOOK_ARGS `{other}`: none (the default) or redacted"
            ))
        }
    };
    let public_url = env("TOOLGATE_PUBLIC_URL").or(parsed.public_url);
    let panel = match (
        overrides.panel.or_else(|| env("TOOLGATE_PANEL_DIR")),
        parsed.panel,
    ) {
        (Some(dir), _) => Some(std::path::PathBuf::from(dir)),
        (None, Some(dir)) => Some(match &base {
            Some(b) => b.join(dir),
            None => dir.into(),
        }),
        (None, None) => None,
    };
    if let Some(dir) = &panel {
        if !dir.join("index.html").is_file() {
            return Err(format!(
                "panel {}: no index.html there (./scripts/build-panel assembles the panel)",
                dir.display()
            ));
        }
    }
    parsed.limits.check()?;
    let sandbox = sandbox(&policy, parsed.sandbox, overrides.sandbox_agents)?;
    Ok(Config {
        sandbox,
        limits: parsed.limits,
        listen,
        database,
        policy,
        cors_origins,
        tokens,
        webhook_url,
        webhook_args,
        public_url,
        panel,
    })
}

/// The `[sandbox]` table (or `--sandbox-agents`) checked against the policy: the
/// sandbox needs an absolute workspace below the home, and a policy that allows it.
fn sandbox(policy: &Policy, file: SandboxFile, flag: bool) -> Result<Option<Sandbox>, String> {
    if !(file.agents || flag) {
        if file.toolgate.is_some() {
            return Err("[sandbox] toolgate is set but agents = true is not".to_string());
        }
        return Ok(None);
    }
    let toolgate = file.toolgate.unwrap_or_else(|| "toolgate".to_string());
    if toolgate.is_empty() || toolgate.contains(['\n', '\0']) {
        return Err("[sandbox] toolgate: the path of the toolgate binary".to_string());
    }
    if !policy.sandbox_setting() {
        return Err("[sandbox] agents = true, but the policy says sandbox = \"off\"".to_string());
    }
    let contained = policy.clone().with_sandbox_host(true);
    if !policy.workspace().starts_with('/') || !contained.gives_sandbox() {
        return Err(format!(
            "[sandbox] agents = true needs the policy's workspace to be an absolute directory that is not /, the home or above it (it is `{}`)",
            policy.workspace()
        ));
    }
    Ok(Some(Sandbox {
        policy: std::sync::Arc::new(contained),
        toolgate,
    }))
}

fn token(
    name: String,
    owner: String,
    roles: Vec<Role>,
    sha256: [u8; 32],
    self_approve: bool,
) -> Result<Token, String> {
    if name.is_empty() || owner.is_empty() || roles.is_empty() {
        return Err(format!(
            "token `{name}`: name, owner and at least one role (agent, approver) are required"
        ));
    }
    if roles.contains(&Role::Agent) && roles.contains(&Role::Approver) && !self_approve {
        return Err(format!(
            "token `{name}` has both roles: its agent could approve its own calls. Give the \
             agent and the person separate tokens, or say `self_approve = true` on this token"
        ));
    }
    Ok(Token {
        name,
        owner,
        roles,
        sha256,
    })
}

/// The least a token must be: 20 characters or more, 10 or more distinct, and about 100
/// bits by its alphabet (`openssl rand -hex 16` and `openssl rand -base64 24` pass; a
/// word, a date or `aaaa…` does not). The config file holds digests only, so this is
/// checked for `TOOLGATE_TOKENS` and by `toolgate-server hash-token`.
pub fn strong(token: &str) -> Result<(), String> {
    let len = token.chars().count();
    if len < 20 {
        return Err(format!(
            "{len} characters; a token needs at least 20 (openssl rand -hex 16 makes one)"
        ));
    }
    if token.chars().any(char::is_control) {
        return Err("control characters in a token".to_string());
    }
    let mut distinct: Vec<char> = token.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < 10 {
        return Err(format!(
            "only {} distinct characters; use a random token (openssl rand -hex 16)",
            distinct.len()
        ));
    }
    let mut alphabet = 0u32;
    if token.chars().any(|c| c.is_ascii_lowercase()) {
        alphabet += 26;
    }
    if token.chars().any(|c| c.is_ascii_uppercase()) {
        alphabet += 26;
    }
    if token.chars().any(|c| c.is_ascii_digit()) {
        alphabet += 10;
    }
    if token.chars().any(|c| !c.is_ascii_alphanumeric()) {
        alphabet += 32;
    }
    let bits = f64::from(u32::try_from(len).unwrap_or(u32::MAX)) * f64::from(alphabet).log2();
    if bits < 100.0 {
        return Err(format!(
            "about {bits:.0} bits; a token needs about 100 (openssl rand -hex 16 makes one)"
        ));
    }
    Ok(())
}

fn parse_hex(s: &str) -> Option<[u8; 32]> {
    let s = s.trim();
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(s.as_bytes().chunks(2)) {
        let text = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
