//! `toolgate hook HOST`: the gate as an agent CLI's pre-tool-use hook. Reads the host's
//! JSON on stdin, classifies the call (the workspace is the call's `cwd` unless the
//! policy names one; file-system facts on, `--no-fs` turns them off) and answers in the
//! host's own protocol on stdout.
//!
//! It never fails open. Whatever goes wrong — input that is not the host's JSON, an
//! event it does not know, a policy that does not load, a panic, a classification
//! slower than `--timeout-ms` — is answered like an `ask` with the reason, exit 0: a
//! host reads a crashed or silent hook as "no objection" (Claude Code and Codex run the
//! tool after any exit status but 2), so the hook always answers.
//!
//! | tier | Claude Code (`PreToolUse`) | Codex (`PreToolUse`) | Gemini CLI (`BeforeTool`) |
//! | --- | --- | --- | --- |
//! | auto | `allow` | `allow` (with `updatedInput`, the call unchanged) | `allow` |
//! | ask | `ask` | `deny` (a Codex hook cannot ask) | `ask` where Gemini CLI runs interactively, 0.36.0 and later ([`crate::gemini_mode`]); else `deny` |
//! | sandbox | `allow`, `updatedInput`: the command in `toolgate sandbox` | the same | `allow`, `hookSpecificOutput.tool_input`: the same |
//! | deny | `deny` | `deny` | `deny` |
//!
//! Copilot CLI (`preToolUse`): `allow` / `ask` / `deny`, a `sandbox` verdict `allow` with
//! `modifiedArgs` (the command in `toolgate sandbox`).
//! Antigravity (`run_command`): `allow` / `force_ask` / `deny`. Cursor
//! (`beforeShellExecution`, `beforeReadFile`, `beforeMCPExecution`, and `preToolUse` for
//! its file edits and searches): `allow` / `deny`, an `ask` a `deny` saying a person must
//! approve it; no decision (`{}`) for a `preToolUse` of a tool it leaves to Cursor. OpenCode (its plugin's `tool.execute.before`, which sends
//! `{tool, sessionID, callID, args, directory}`): `{decision: allow|ask|deny, reason}`,
//! a `sandbox` verdict `allow` with `args` (the command in `toolgate sandbox`); the
//! plugin throws for anything but `allow`, so an ask is refused saying a person must
//! approve it.
//!
//! (`sandbox` only where the host does not sandbox the command itself and a sandbox can
//! be built here; otherwise the call is judged as `ask`: see [`crate::contained`].)
//!
//! With `--codex-ask prompt` an `ask` on a patch reaches a person in Codex: the hook
//! prints no decision, which sends the call through Codex's own approval flow, where
//! Codex's configuration says `approval_policy = "untrusted"` (see [`codex_prompts`]
//! and [`codex_untrusted`]); any other ask is still a deny.
//!
//! Where the host's permission mode means nobody answers an ask ([`unattended`]), an
//! ask and every failure answer are a deny.

use std::io::{Read, Write};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::Duration;

use serde_json::{json, Value};
use toolgate_core::{Policy, Tier, ToolCall, Verdict};

use crate::error::CliError;
use crate::host::{mode_of, parse_input, Input};
pub use crate::host::{Event, Host};
use crate::load::{Env, PolicyOpts};

/// `--codex-ask`: what an `ask` is in Codex.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CodexAsk {
    /// A deny that says a person must approve it
    #[default]
    Deny,
    /// No decision for a patch, so Codex's own prompt asks (Codex's config.toml must
    /// say approval_policy = "untrusted")
    Prompt,
}

/// Remote answers (`--event permission-request`): where and how long.
#[derive(Debug, Clone)]
pub struct RemoteAt {
    /// The server's URL.
    pub url: String,
    /// Its agent token.
    pub token: String,
    /// How long a person has to answer in the panel.
    pub wait_ms: u64,
}

/// `toolgate hook`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct HookArgs {
    /// The agent CLI whose hook protocol to speak
    #[arg(value_enum)]
    pub host: Host,
    /// Judge paths as written (file-system facts are on by default)
    #[arg(long)]
    pub no_fs: bool,
    /// Bound on reading, loading and classifying, 1..=600000 (clamped under the host's
    /// own kill timeout: 25000 for Claude Code, Codex and Copilot CLI, 12000 for Gemini
    /// CLI)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub timeout_ms: u64,
    /// Codex only: what an ask is there
    #[arg(long, value_enum, default_value_t = CodexAsk::Deny)]
    pub codex_ask: CodexAsk,
    /// Claude Code in `claude -p`: park an ask in the runs database and answer
    /// `defer`; the resumed session's hook answers what a person decided, once
    #[arg(long)]
    pub defer: bool,
    /// The runs database (with --defer)
    #[arg(long, value_name = "URL", requires = "defer")]
    pub database: Option<String>,
    /// The owner of the parked runs (with --defer)
    #[arg(long, value_name = "NAME", requires = "defer")]
    pub owner: Option<String>,
    /// The host's event this hook answers
    #[arg(long, value_enum, default_value_t = Event::PreToolUse)]
    pub event: Event,
    /// With --event permission-request: the toolgate-server whose panel answers the
    /// host's prompt (else $TOOLGATE_SERVER)
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// A file holding the server's agent token (else $TOOLGATE_TOKEN)
    #[arg(long, value_name = "F")]
    pub token_file: Option<std::path::PathBuf>,
    /// With --event permission-request: how long a person has to answer in the panel
    /// before the host's own prompt asks, 1000..=590000 ms
    #[arg(long, value_name = "MS", default_value_t = 90_000,
          value_parser = clap::value_parser!(u64).range(1_000..=590_000))]
    pub wait_ms: u64,
    #[command(flatten)]
    pub policy: PolicyOpts,
}

impl HookArgs {
    /// How the hook runs, or a usage error for an option its host does not have.
    pub fn how(&self) -> Result<How, CliError> {
        let usage = |m: &str| Err(CliError::Usage(m.to_string()));
        if self.codex_ask == CodexAsk::Prompt && self.host != Host::Codex {
            return usage(
                "--codex-ask is for `hook codex` (Claude Code asks itself; a Gemini CLI \
                 hook's ask is a deny)",
            );
        }
        if self.defer && self.host != Host::ClaudeCode {
            return usage(
                "--defer is for `hook claude-code` (claude -p); Codex and Gemini CLI have no \
                 defer",
            );
        }
        let remote = match (self.event, self.host) {
            (Event::PreToolUse, _) => {
                if self.server.is_some() || self.token_file.is_some() {
                    return usage("--server and --token-file are for --event permission-request");
                }
                None
            }
            (Event::PermissionRequest, Host::ClaudeCode | Host::Codex | Host::Copilot) => {
                if self.defer {
                    return usage("--defer is for --event pre-tool-use");
                }
                let from_env = std::env::var("TOOLGATE_SERVER")
                    .ok()
                    .filter(|v| !v.is_empty());
                let url = self.server.clone().or(from_env).ok_or_else(|| {
                    CliError::Usage(
                        "--event permission-request needs --server URL (or $TOOLGATE_SERVER)"
                            .into(),
                    )
                })?;
                let token = match &self.token_file {
                    Some(f) => std::fs::read_to_string(f)
                        .map_err(CliError::io(format!("reading {}", f.display())))?
                        .trim()
                        .to_string(),
                    None => std::env::var("TOOLGATE_TOKEN").unwrap_or_default(),
                };
                if token.is_empty() {
                    return usage(
                        "--event permission-request needs the server's agent token: \
                         --token-file F or $TOOLGATE_TOKEN",
                    );
                }
                crate::remote::Server::new(&url, &token).map_err(CliError::Usage)?;
                Some(RemoteAt {
                    url,
                    token,
                    wait_ms: self.wait_ms,
                })
            }
            (Event::PermissionRequest, _) => {
                return usage(
                    "--event permission-request is for `hook claude-code`, `hook codex` and \
                     `hook copilot`",
                )
            }
        };
        let defer = if self.defer {
            Some(crate::defer::StoreAt::resolve(
                self.database.clone(),
                self.owner.clone(),
            )?)
        } else {
            None
        };
        // A remote answer is waited for: the bound is the wait's, plus the time to park,
        // poll and take it (the host's entry allows it: `toolgate install`).
        let timeout_ms = match &remote {
            Some(r) => r.wait_ms + 8_000,
            None => self.timeout_ms.min(max_timeout_ms(self.host)),
        };
        Ok(How {
            defer,
            fs: !self.no_fs,
            timeout_ms,
            codex_prompt: self.codex_ask == CodexAsk::Prompt,
            remote,
        })
    }
}

/// The largest hook input read (a tool call with a whole file's content fits).
pub const MAX_INPUT: u64 = 16 * 1024 * 1024;
/// Default bound on reading, loading and classifying.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// The longest `--timeout-ms` a host's own kill timeout leaves room for: `toolgate
/// install` gives Claude Code, Codex and Copilot CLI 30 seconds and Gemini CLI 15,000
/// ms; 5 and 3 seconds less leave the answer time to reach the host. A larger value is
/// clamped, so that a slow verdict is a failure answer, never a kill (which Claude Code
/// before 2.1.295, Codex and Copilot CLI read as "go ahead": Copilot CLI runs the call
/// when its hook times out, its changelog for 1.0.67, checked with 1.0.102).
pub fn max_timeout_ms(host: Host) -> u64 {
    match host {
        Host::ClaudeCode
        | Host::Codex
        | Host::Copilot
        | Host::Agy
        | Host::Cursor
        | Host::OpenCode => 25_000,
        Host::Gemini => 12_000,
    }
}

/// How the hook runs (beside its host and policy).
#[derive(Debug, Clone)]
pub struct How {
    /// `--defer` (Claude Code): park an `ask` in this store and answer `defer`.
    pub defer: Option<crate::defer::StoreAt>,
    /// File-system facts from this machine.
    pub fs: bool,
    /// The bound on reading, loading and classifying.
    pub timeout_ms: u64,
    /// `--codex-ask prompt`: leave to Codex the asks it will prompt for.
    pub codex_prompt: bool,
    /// `--event permission-request`: the host's prompt, answered through this server.
    pub remote: Option<RemoteAt>,
}

/// The gate's answer before it is put in the host's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub tier: Tier,
    pub reason: String,
    /// An `ask` the host's own approval flow is sure to put to a person: with
    /// `--codex-ask prompt` the hook then gives no decision; for a Cursor tool the hook
    /// does not judge, no decision either (Cursor's own permissions).
    pub host_prompts: bool,
    /// Parked with `--defer`: Claude Code's `defer`.
    pub defer: bool,
    /// A person's edit of the call, approved: the tool's input to run instead (Claude
    /// Code's `PermissionRequest` `updatedInput`).
    pub updated: Option<Value>,
}

impl Answer {
    fn of(v: &Verdict) -> Answer {
        Answer {
            tier: v.tier,
            reason: format!("toolgate: {} ({})", v.reason, v.rule),
            host_prompts: false,
            defer: false,
            updated: None,
        }
    }
    /// Something went wrong before the input was read: no.
    fn refused(why: impl std::fmt::Display) -> Answer {
        Answer {
            tier: Tier::Deny,
            reason: format!("toolgate could not judge this call ({why}); denied"),
            host_prompts: false,
            defer: false,
            updated: None,
        }
    }
    /// Something went wrong: a person decides (where the host can ask), else no.
    fn failed(why: impl std::fmt::Display) -> Answer {
        Answer {
            tier: Tier::Ask,
            reason: format!("toolgate could not judge this call ({why}); asking instead"),
            host_prompts: false,
            defer: false,
            updated: None,
        }
    }
}

/// Will Codex put this `ask` to a person itself? Only a patch (`apply_patch`), and only
/// where Codex is known to run under `approval_policy = "untrusted"`
/// ([`codex_untrusted`]): there `assess_patch_safety` asks for every patch (openai/codex
/// `codex-rs/core/src/safety.rs`). A shell command never: whether Codex prompts for it
/// depends on its build's known-safe list and on the user's exec-policy rules
/// (`prefix_rule(…, decision = "allow")`), which a hook cannot see, so an `ask` for a
/// command stays a deny.
pub fn codex_prompts(tool: &str) -> bool {
    tool.eq_ignore_ascii_case("apply_patch")
}

/// Does Codex run this session under `approval_policy = "untrusted"`? Its hook input
/// says only `bypassPermissions` (`never`) or `default` (every other policy: openai/codex
/// `codex-rs/core/src/hook_runtime.rs`, `hook_permission_mode`), so the configuration is
/// read: `$CODEX_HOME/config.toml` (`~/.codex/config.toml`), its active `profile`, and
/// the project's `.codex/config.toml`; each that sets `approval_policy` must say
/// `untrusted`, and one must. `Err` says why not (a missing or unreadable file that
/// would have to say it counts as not).
pub fn codex_untrusted(cwd: Option<&str>, home: Option<&str>) -> Result<(), String> {
    let codex_home = std::env::var("CODEX_HOME").ok();
    let policies = crate::contained::codex_settings(
        codex_home.as_deref(),
        cwd,
        home,
        "approval_policy",
        true,
    )?;
    if let Some((file, policy)) = policies
        .iter()
        .find(|(_, p)| p.as_str() != Some("untrusted"))
    {
        return Err(format!("{file} sets approval_policy = {policy}"));
    }
    if policies.is_empty() {
        let user = codex_home
            .filter(|v| !v.is_empty())
            .or_else(|| home.map(|h| format!("{h}/.codex")))
            .unwrap_or_default();
        return Err(format!(
            "{user}/config.toml does not set approval_policy = \"untrusted\""
        ));
    }
    Ok(())
}

/// A host's permission mode in which nobody answers an `ask`: Claude Code's
/// `bypassPermissions` and `dontAsk` (and `auto`, where a model answers), Codex's
/// `bypassPermissions` (`approval_policy = "never"`), or any mode this hook does not
/// know. `None` for the modes where a person is asked (`default`, `acceptEdits`,
/// `plan`) and when the input names none. Returns the mode as the host wrote it.
pub fn unattended(mode: Option<&str>) -> Option<&str> {
    let m = mode?;
    let norm: String = m
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase();
    match norm.as_str() {
        "default" | "acceptedits" | "plan" => None,
        _ => Some(m),
    }
}

/// Reads, loads and classifies: the answer for one hook call.
fn judge(host: Host, opts: &PolicyOpts, env: &Env, how: &How, text: &str) -> (Answer, Value) {
    let event = match (&how.remote, host) {
        (Some(_), Host::Copilot) => "permissionRequest",
        (Some(_), _) => "PermissionRequest",
        (None, _) => host.event(),
    };
    let input = match parse_input(host, event, text) {
        Ok(i) => i,
        Err(why) => return (Answer::failed(why), Value::Null),
    };
    if input.host_decides {
        let answer = Answer {
            tier: Tier::Ask,
            reason: format!(
                "toolgate: `{}` is left to the host's own permissions",
                input.tool
            ),
            host_prompts: true,
            defer: false,
            updated: None,
        };
        return (answer, input.args);
    }
    // The workspace is where the agent works, unless the command line or the policy
    // file says otherwise.
    let mut env = env.clone();
    if let Some(cwd) = &input.cwd {
        env.cwd = Some(cwd.into());
    }
    let policy = match crate::load::policy(opts, &env) {
        Ok(p) => p,
        Err(e) => return (Answer::failed(format!("its policy: {e}")), input.args),
    };
    let call = ToolCall::new(input.tool.clone(), input.args.clone());
    if let Some(at) = &how.remote {
        return (
            remotely(host, at, &policy, &call, &input, how.fs),
            input.args,
        );
    }
    let (verdict, args) = contain(host, &policy, &call, &input, &env, how.fs);
    if let (Host::ClaudeCode, Some(at), Tier::Ask) = (host, &how.defer, verdict.tier) {
        return (deferred(at, &input, &call, &verdict), input.args);
    }
    let mut answer = Answer::of(&verdict);
    if host == Host::Gemini && verdict.tier == Tier::Ask {
        match crate::gemini_mode::find().and_then(|g| crate::gemini_mode::asks(&g)) {
            Ok(()) => answer.host_prompts = true,
            Err(why) => answer.reason = format!("{} ({why})", answer.reason),
        }
    }
    if host == Host::Codex
        && how.codex_prompt
        && verdict.tier == Tier::Ask
        && codex_prompts(&call.tool)
        && unattended(input.mode.as_deref()).is_none()
    {
        match codex_untrusted(input.cwd.as_deref(), env.home.as_deref()) {
            Ok(()) => answer.host_prompts = true,
            Err(why) => {
                answer.reason = format!(
                    "{} (--codex-ask prompt hands a patch to Codex's prompt only under \
                     approval_policy = \"untrusted\": {why})",
                    answer.reason
                )
            }
        }
    }
    (answer, args)
}

/// The verdict and the arguments the host is to run. Where the host runs a shell
/// command the hook may rewrite (Claude Code's and Codex's `Bash`, Gemini CLI's
/// `run_shell_command`), a `sandbox`
/// verdict comes with the command wrapped in `toolgate sandbox` ([`crate::contained`]);
/// when that cannot be (the host sandboxes the call itself, bubblewrap cannot build a
/// sandbox here), the verdict is the one for a host without the sandbox, its reason
/// saying why.
fn contain(
    host: Host,
    policy: &Policy,
    call: &ToolCall,
    input: &Input,
    env: &Env,
    fs: bool,
) -> (Verdict, Value) {
    let shell = match host {
        Host::ClaudeCode | Host::Codex | Host::Copilot | Host::OpenCode => "bash",
        Host::Gemini => "run_shell_command",
        // Not rewritten: a `sandbox` verdict asks there.
        Host::Agy | Host::Cursor => {
            return (toolgate_fs::classify(policy, call, fs), input.args.clone())
        }
    };
    let rewritable = call.tool.eq_ignore_ascii_case(shell) && policy.sandbox_setting();
    if !rewritable {
        return (toolgate_fs::classify(policy, call, fs), input.args.clone());
    }
    let contained = policy.clone().with_sandbox_host(true);
    let verdict = toolgate_fs::classify(&contained, call, fs);
    if verdict.tier != Tier::Sandbox {
        return (verdict, input.args.clone());
    }
    let hosts = toolgate_core::contained::hosts_for(&verdict, &contained);
    match sandboxed_args(host, input, env, contained.workspace(), hosts) {
        Ok(args) => (verdict, args),
        Err(why) => {
            let mut plain = toolgate_fs::classify(policy, call, fs);
            plain.reason =
                format!("{} (not run in toolgate's sandbox: {why})", plain.reason).into();
            (plain, input.args.clone())
        }
    }
}

/// The call's arguments with its command wrapped in `toolgate sandbox`, when this host
/// and this machine allow it; `hosts` (a registry install's) reachable over HTTPS.
fn sandboxed_args(
    host: Host,
    input: &Input,
    env: &Env,
    workspace: &str,
    hosts: &[String],
) -> Result<Value, String> {
    let (cwd, home) = (input.cwd.as_deref(), env.home.as_deref());
    match host {
        Host::ClaudeCode => crate::contained::claude_code_sandboxes(cwd, home)?,
        Host::Codex => {
            let codex_home = std::env::var("CODEX_HOME").ok();
            crate::contained::codex_unsandboxed(codex_home.as_deref(), cwd, home)?
        }
        Host::Gemini => crate::contained::gemini_sandboxes(cwd, home, &|k| std::env::var(k).ok())?,
        Host::Copilot => {
            let copilot_home = std::env::var("COPILOT_HOME").ok();
            crate::contained::copilot_sandboxes(copilot_home.as_deref(), cwd, home)?
        }
        // OpenCode has no sandbox of its own.
        Host::OpenCode => {}
        Host::Agy | Host::Cursor => return Err("this host's calls are not rewritten".into()),
    }
    crate::sandbox::probe()?;
    let exe = std::env::current_exe().map_err(|e| format!("toolgate's own path: {e}"))?;
    crate::contained::rewritten(&input.args, &exe, workspace, hosts)
}

/// `--event permission-request`: a call the policy denies is denied; any other is put to
/// the server's panel, and what a person answers there is the answer (no answer: the
/// host's prompt, an `ask`).
fn remotely(
    host: Host,
    at: &RemoteAt,
    policy: &Policy,
    call: &ToolCall,
    input: &Input,
    fs: bool,
) -> Answer {
    let verdict = toolgate_fs::classify(policy, call, fs);
    if verdict.tier == Tier::Deny {
        return Answer::of(&verdict);
    }
    let server = match crate::remote::Server::new(&at.url, &at.token) {
        Ok(s) => s,
        Err(why) => return Answer::failed(why),
    };
    let session = input.session_id.as_deref().unwrap_or(host.word());
    let wait = Duration::from_millis(at.wait_ms);
    // Claude Code's own prompt, answered in its terminal meanwhile, shows in its
    // transcript; no other host says.
    let mut watch = match (host, &input.transcript_path) {
        (Host::ClaudeCode, Some(t)) => Some(crate::remote::TerminalWatch::new(
            std::path::Path::new(t),
            call,
        )),
        _ => None,
    };
    let mut elsewhere = || {
        let answered = watch.as_mut().is_some_and(|w| w.answered());
        answered.then(|| "answered in Claude Code's own prompt".to_string())
    };
    let (tier, reason, updated) =
        match crate::remote::ask(&server, session, call, wait, &mut elsewhere) {
            crate::remote::Remote::Allow { by, edited } => {
                let who = by.map(|b| format!(" by {b}")).unwrap_or_default();
                match edited {
                    None => (
                        Tier::Auto,
                        format!("toolgate: approved in toolgate's panel{who}"),
                        None,
                    ),
                    Some(args) => edited_answer(host, policy, call, args, &who, fs),
                }
            }
            crate::remote::Remote::Deny { reason } => {
                (Tier::Deny, format!("toolgate: {reason}"), None)
            }
            crate::remote::Remote::NoAnswer(why) => {
                (Tier::Ask, format!("toolgate: {why}; asking here"), None)
            }
        };
    Answer {
        tier,
        reason,
        host_prompts: false,
        defer: false,
        updated,
    }
}

/// A person's edit approved in the panel: classified again by this machine's policy (a
/// deny here is a deny), and run only by a host whose answer can replace the tool's
/// input (Claude Code's `updatedInput`); elsewhere the host asks.
fn edited_answer(
    host: Host,
    policy: &Policy,
    call: &ToolCall,
    args: Value,
    who: &str,
    fs: bool,
) -> (Tier, String, Option<Value>) {
    let v = toolgate_fs::classify(policy, &ToolCall::new(call.tool.clone(), args.clone()), fs);
    if v.tier == Tier::Deny {
        return (
            Tier::Deny,
            format!(
                "toolgate: the edit approved in toolgate's panel{who} is denied here ({}): {}",
                v.rule, v.reason
            ),
            None,
        );
    }
    if host != Host::ClaudeCode {
        return (
            Tier::Ask,
            format!(
                "toolgate: approved in toolgate's panel{who} with edited arguments, which \
                 this host cannot run in place of the call; asking here"
            ),
            None,
        );
    }
    (
        Tier::Auto,
        format!("toolgate: approved in toolgate's panel{who}, edited by the person"),
        Some(args),
    )
}

/// The permission request's answer: Claude Code's `PermissionRequest` `allow` or `deny`
/// (with the message), or no decision (its prompt asks), each with a line for the person
/// (`systemMessage`); Copilot CLI's `permissionRequest` `{behavior, message}`, or `{}`
/// (its own flow: its prompt, or in `-p` its "no interactive user" denial).
pub fn render_permission(host: Host, answer: &Answer) -> Value {
    if host == Host::Copilot {
        return match answer.tier {
            Tier::Auto => json!({ "behavior": "allow", "message": answer.reason }),
            Tier::Deny => json!({ "behavior": "deny", "message": answer.reason }),
            Tier::Ask | Tier::Sandbox => json!({}),
        };
    }
    let decision = match answer.tier {
        // A person's edit: the tool runs with it instead.
        Tier::Auto if answer.updated.is_some() => {
            json!({ "behavior": "allow", "updatedInput": answer.updated })
        }
        Tier::Auto => json!({ "behavior": "allow" }),
        Tier::Deny => json!({ "behavior": "deny", "message": answer.reason }),
        Tier::Ask | Tier::Sandbox => return json!({ "systemMessage": answer.reason }),
    };
    json!({
        "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision },
        "systemMessage": answer.reason,
    })
}

/// `--defer`: park the ask, or answer what a person decided for this tool use, once.
/// Anything that goes wrong asks (never allows).
fn deferred(
    at: &crate::defer::StoreAt,
    input: &Input,
    call: &ToolCall,
    verdict: &Verdict,
) -> Answer {
    use crate::defer::{on_ask, Deferred, Parking, DEFAULT_TTL_MS};
    let (Some(session_id), Some(tool_use_id)) = (&input.session_id, &input.tool_use_id) else {
        return Answer::failed("--defer needs the input's session_id and tool_use_id");
    };
    let parking = Parking {
        session_id,
        tool_use_id,
        call,
        verdict,
        context: json!({ "cwd": input.cwd, "transcript_path": input.transcript_path }),
        ttl_ms: DEFAULT_TTL_MS,
    };
    match on_ask(at, &parking, crate::defer::now_ms()) {
        Ok(Deferred::Defer(reason)) => Answer {
            tier: Tier::Ask,
            reason,
            host_prompts: false,
            defer: true,
            updated: None,
        },
        Ok(Deferred::Allow(reason)) => Answer {
            tier: Tier::Auto,
            reason,
            host_prompts: false,
            defer: false,
            updated: None,
        },
        Ok(Deferred::Deny(reason)) => Answer {
            tier: Tier::Deny,
            reason,
            host_prompts: false,
            defer: false,
            updated: None,
        },
        Err(why) => Answer::failed(format!("parking it: {why}")),
    }
}

/// `answer` where nobody will answer an `ask` (`mode`, see [`unattended`]): an `ask`,
/// and so every failure, becomes a `deny` saying why and how to be asked again. A
/// deferred call (`--defer`) waits for a person through `toolgate decide`: unchanged.
pub fn unattend(mut answer: Answer, mode: Option<&str>) -> Answer {
    if let (Tier::Ask, false, Some(m)) = (answer.tier, answer.defer, unattended(mode)) {
        answer.tier = Tier::Deny;
        answer.host_prompts = false;
        answer.reason = format!(
            "{} — denied: the session runs in permission mode `{m}`, where nobody answers \
             an ask (run it in the default mode to be asked, or allow the call in \
             toolgate's policy)",
            answer.reason
        );
    }
    answer
}

/// The answer in `host`'s words: the JSON to print.
pub fn render(host: Host, answer: &Answer, args: &Value) -> Value {
    match host {
        Host::ClaudeCode => {
            let decision = match answer.tier {
                // `sandbox`: allowed as rewritten, inside `toolgate sandbox`.
                Tier::Auto | Tier::Sandbox => "allow",
                Tier::Ask if answer.defer => "defer",
                Tier::Ask => "ask",
                Tier::Deny => "deny",
            };
            let mut out = json!({ "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": answer.reason,
            }});
            if answer.tier == Tier::Sandbox {
                out["hookSpecificOutput"]["updatedInput"] = args.clone();
            }
            out
        }
        Host::Codex => match answer.tier {
            // `sandbox`: `args` is the command wrapped in `toolgate sandbox`.
            Tier::Auto | Tier::Sandbox => json!({ "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": answer.reason,
                "updatedInput": args,
            }}),
            // No decision: Codex's own approval flow prompts for it.
            Tier::Ask if answer.host_prompts => Value::Null,
            Tier::Ask | Tier::Deny => json!({ "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": codex_reason(answer),
            }}),
        },
        Host::Gemini => match answer.tier {
            Tier::Auto => json!({ "decision": "allow", "reason": answer.reason }),
            // `sandbox`: allowed with the command wrapped in `toolgate sandbox`, which
            // Gemini CLI merges over the model's arguments.
            Tier::Sandbox => json!({
                "decision": "allow",
                "reason": answer.reason,
                "hookSpecificOutput": { "hookEventName": "BeforeTool", "tool_input": args },
            }),
            // Gemini CLI (0.36.0 and later, interactive) puts it to a person.
            Tier::Ask if answer.host_prompts => {
                json!({ "decision": "ask", "reason": answer.reason, "systemMessage": answer.reason })
            }
            Tier::Ask => {
                json!({ "decision": "deny", "reason": format!("{} — it needs a person's approval, which this Gemini CLI cannot ask for", answer.reason) })
            }
            Tier::Deny => json!({ "decision": "deny", "reason": answer.reason }),
        },
        // Copilot CLI: `ask` is its own prompt (a deny in `-p` and autopilot, where
        // nobody watches); `sandbox` is an allow with `modifiedArgs`, the command
        // wrapped in `toolgate sandbox` (Copilot CLI runs the modified arguments).
        Host::Copilot => {
            let decision = match answer.tier {
                Tier::Auto | Tier::Sandbox => "allow",
                Tier::Ask => "ask",
                Tier::Deny => "deny",
            };
            let mut out = json!({ "permissionDecision": decision, "permissionDecisionReason": answer.reason });
            if answer.tier == Tier::Sandbox {
                out["modifiedArgs"] = args.clone();
            }
            out
        }
        // Antigravity: `force_ask` puts it to a person even where its Always-Allow list
        // would run it (`ask` respects that list); `allow` does not suppress its own
        // confirmation (agy 1.1.2), so an allowed command may still be put to you.
        Host::Agy => {
            let decision = match answer.tier {
                Tier::Auto => "allow",
                Tier::Sandbox | Tier::Ask => "force_ask",
                Tier::Deny => "deny",
            };
            json!({ "decision": decision, "reason": answer.reason })
        }
        // Cursor: an `ask` is a deny that says a person must approve it (Cursor runs a
        // hook's `ask` unasked in its auto-review mode: its forum, topic 173694, 3.21.16);
        // its agent was seen to ignore `allow` (its own allowlist still applies).
        Host::Cursor => {
            let (permission, reason) = match answer.tier {
                // A tool toolgate's hook does not judge (`preToolUse`): no decision.
                Tier::Ask if answer.host_prompts => return json!({}),
                Tier::Auto => ("allow", answer.reason.clone()),
                Tier::Sandbox | Tier::Ask => (
                    "deny",
                    format!(
                        "{} — it needs a person's approval, which a Cursor hook cannot ask for \
                         in every mode",
                        answer.reason
                    ),
                ),
                Tier::Deny => ("deny", answer.reason.clone()),
            };
            json!({ "permission": permission, "user_message": reason, "agent_message": reason })
        }
        // OpenCode (toolgate's plugin): anything but `allow` is thrown, which OpenCode
        // hands the model as the tool's result; `args` replaces a sandboxed call's.
        Host::OpenCode => match answer.tier {
            Tier::Auto => json!({ "decision": "allow", "reason": answer.reason }),
            Tier::Sandbox => json!({ "decision": "allow", "reason": answer.reason, "args": args }),
            Tier::Ask => {
                json!({ "decision": "ask", "reason": format!("{} — it needs a person's approval, which an OpenCode plugin cannot ask for", answer.reason) })
            }
            Tier::Deny => json!({ "decision": "deny", "reason": answer.reason }),
        },
    }
}

fn codex_reason(answer: &Answer) -> String {
    match answer.tier {
        Tier::Sandbox | Tier::Ask => format!(
            "{} — it needs a person's approval, which a Codex hook cannot ask for",
            answer.reason
        ),
        _ => answer.reason.clone(),
    }
}

/// `toolgate hook HOST`: answers one call. Returns the exit status (always 0: the
/// answer is in the JSON). Reading, loading and classifying are bounded by
/// `timeout_ms`; past it, and on a panic, the answer is the failure's.
pub fn run(
    host: Host,
    opts: PolicyOpts,
    env: Env,
    how: How,
    stdin: impl Read + Send + 'static,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let timeout_ms = how.timeout_ms;
    let permission_request = how.remote.is_some();
    let (tx, rx) = mpsc::channel();
    // The input's permission mode, once read: a timeout or a panic after it is judged
    // in that mode too.
    let mode = Arc::new(OnceLock::<Option<String>>::new());
    let mode_seen = Arc::clone(&mode);
    let work = move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut text = String::new();
            match stdin.take(MAX_INPUT + 1).read_to_string(&mut text) {
                Ok(n) if n as u64 > MAX_INPUT => (
                    Answer::failed(format!("the input is over {MAX_INPUT} bytes")),
                    Value::Null,
                ),
                Ok(_) => {
                    let _ = mode_seen.set(mode_of(&text));
                    judge(host, &opts, &env, &how, &text)
                }
                Err(e) => (Answer::failed(format!("reading stdin: {e}")), Value::Null),
            }
        }));
        let _ = tx.send(result.unwrap_or_else(|_| (Answer::failed("it panicked"), Value::Null)));
    };
    // A thread that cannot start is a failure answered like any other, never a crash
    // (a crashed hook lets the call run in Claude Code and Codex).
    let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        std::thread::Builder::new().spawn(work).map(drop)
    }));
    let (answer, args) = match spawned {
        Ok(Ok(())) => rx
            .recv_timeout(Duration::from_millis(timeout_ms))
            .unwrap_or_else(|_| {
                (
                    Answer::failed(format!("no verdict within {timeout_ms} ms")),
                    Value::Null,
                )
            }),
        // The input was never read, so neither is its permission mode: a deny, since
        // an ask might be answered by nobody.
        Ok(Err(e)) => (
            Answer::refused(format!("starting its thread: {e}")),
            Value::Null,
        ),
        Err(_) => (Answer::refused("starting its thread panicked"), Value::Null),
    };
    let rendered = if permission_request {
        // The host is about to ask a person: no decision is its prompt.
        render_permission(host, &answer)
    } else {
        let answer = unattend(answer, mode.get().and_then(Option::as_deref));
        render(host, &answer, &args)
    };
    if rendered.is_null() {
        // Codex reads a quiet hook as no decision: its approval flow goes on.
        return out.flush().map_err(CliError::io("writing stdout"));
    }
    let text = rendered.to_string();
    out.write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(CliError::io("writing stdout"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(tier: Tier) -> Answer {
        Answer {
            tier,
            reason: "r".into(),
            host_prompts: false,
            defer: false,
            updated: None,
        }
    }

    #[test]
    fn no_host_is_told_allow_for_anything_but_auto() {
        let args = json!({"command": "x"});
        for &host in <Host as clap::ValueEnum>::value_variants() {
            for tier in [Tier::Ask, Tier::Deny] {
                let text = render(host, &answer(tier), &args).to_string();
                assert!(!text.contains("\"allow\""), "{host:?} {tier:?}: {text}");
            }
            let text = render(host, &answer(Tier::Auto), &args).to_string();
            assert!(text.contains("\"allow\""), "{host:?}: {text}");
        }
        // `sandbox` is an allow of the rewritten arguments, in each host's words.
        let wrapped = json!({"command": "/t sandbox --workspace /w -- /bin/bash -c -- x"});
        for host in [Host::ClaudeCode, Host::Codex] {
            let out = render(host, &answer(Tier::Sandbox), &wrapped);
            assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
            assert_eq!(out["hookSpecificOutput"]["updatedInput"], wrapped);
        }
        let out = render(Host::Gemini, &answer(Tier::Sandbox), &wrapped);
        assert_eq!(out["decision"], "allow");
        assert_eq!(out["hookSpecificOutput"]["tool_input"], wrapped);
        let out = render(Host::Copilot, &answer(Tier::Sandbox), &wrapped);
        assert_eq!(out["permissionDecision"], "allow");
        assert_eq!(out["modifiedArgs"], wrapped);
        let out = render(Host::OpenCode, &answer(Tier::Sandbox), &wrapped);
        assert_eq!(out["decision"], "allow");
        assert_eq!(out["args"], wrapped);
    }
}
