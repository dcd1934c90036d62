//! What a host that contains calls runs for a `sandbox` verdict instead of the command
//! itself: the command given to bash inside `toolgate sandbox`, with the workspace
//! writable.
//!
//! ```text
//! /path/to/toolgate sandbox --workspace /the/workspace -- /bin/bash -c -- 'COMMAND'
//! ```
//!
//! `--` before the command keeps a command that starts with `-` (`-x`, `--rcfile=…`) a
//! command: `bash -c '-x'` takes it as options instead.
//!
//! An install from a package registry (`builtin.sandbox.registry`, given only where the
//! policy's `sandbox_network` names registries) runs with `--allow-host HOST` for each
//! host named, before `--`: HTTPS to those hosts, nothing else of the network.

use crate::needle::HasChar;
use serde::Serialize;
use serde_json::Value;

use crate::shapes::quote;
use crate::{Family, Tier, ToolCall, Verdict};

/// The shell the command is given to inside the sandbox.
pub const SHELL: &str = "/bin/bash";

/// The registries `sandbox_network` may name by a word: each word's hosts.
pub const REGISTRIES: &[(&str, &[&str])] = &[
    ("npm", &["registry.npmjs.org", "registry.yarnpkg.com"]),
    ("pypi", &["pypi.org", "files.pythonhosted.org"]),
];

/// `host` as `toolgate sandbox --allow-host` takes it: a DNS name (lower case) or
/// `*.domain`, without a scheme, port or address; `None` for anything else.
pub fn host_name(host: &str) -> Option<String> {
    let h = host.trim().to_ascii_lowercase();
    let name = h.strip_prefix("*.").unwrap_or(&h);
    let labels: Vec<&str> = name.split('.').collect();
    let valid = !name.is_empty()
        && name.len() <= 253
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        // Not an address, nor a name whose last label is all digits (read as one).
        && name.parse::<std::net::IpAddr>().is_err()
        && !labels
            .last()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()));
    valid.then_some(h)
}

/// The hosts of a policy's `sandbox_network` entries (a word of [`REGISTRIES`], or a
/// host name as [`host_name`] takes it), in order, each once; the first entry that is
/// neither is the error.
pub fn registry_hosts(entries: &[String]) -> Result<Vec<String>, String> {
    let mut hosts: Vec<String> = Vec::new();
    for e in entries {
        let more = match REGISTRIES.iter().find(|(word, _)| *word == e.trim()) {
            Some((_, named)) => named.iter().map(|h| h.to_string()).collect(),
            None if e.has_char('.') => vec![host_name(e).ok_or_else(|| e.clone())?],
            None => return Err(e.clone()),
        };
        for h in more {
            if !hosts.contains(&h) {
                hosts.push(h);
            }
        }
    }
    Ok(hosts)
}

/// The words that run `command` contained: `toolgate` is the path of the `toolgate`
/// binary the host runs (or `toolgate`, found on its `PATH`); `hosts` are given to it as
/// `--allow-host` (none: no network).
pub fn argv(toolgate: &str, workspace: &str, hosts: &[String], command: &str) -> Vec<String> {
    let mut words: Vec<String> = [toolgate, "sandbox", "--workspace", workspace]
        .map(str::to_string)
        .to_vec();
    for h in hosts {
        words.push("--allow-host".into());
        words.push(h.clone());
    }
    words.extend(["--", SHELL, "-c", "--", command].map(str::to_string));
    words
}

/// [`argv`] as one line for a POSIX shell (each word quoted as needed): what a host
/// whose tool takes a command line runs.
pub fn command_line(toolgate: &str, workspace: &str, hosts: &[String], command: &str) -> String {
    argv(toolgate, workspace, hosts, command)
        .iter()
        .map(|w| quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The hosts a `sandbox` verdict's command may reach: the policy's registries for an
/// install from one (`builtin.sandbox.registry`), none for any other.
pub fn hosts_for<'p>(verdict: &Verdict, policy: &'p crate::Policy) -> &'p [String] {
    if verdict.rule == crate::rule_id::RuleId::SandboxRegistry.as_str() {
        policy.sandbox_network()
    } else {
        &[]
    }
}

/// What a host that contains calls runs for a `sandbox` verdict, instead of the call's
/// own command: [`argv`] and [`command_line`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sandboxed {
    /// The words to run (`toolgate`, `sandbox`, …, `/bin/bash`, `-c`, `--`, the command).
    pub argv: Vec<String>,
    /// The same as one line for a POSIX shell.
    pub command: String,
}

/// The shell command `call` runs, as the classifier read it: a shell tool's `command`
/// string, or the one shell command a host's shape makes of the call (Codex's argv
/// `command`, Gemini CLI's `run_shell_command`). `None` for anything else.
pub fn shell_command(call: &ToolCall) -> Option<String> {
    if call.family() == Family::Shell {
        if let Some(Value::String(c)) = call.args.get("command") {
            return Some(c.clone());
        }
    }
    match crate::shapes::canonical(call)?.ok()?.as_slice() {
        [one] if one.family() == Family::Shell => {
            one.args.get("command")?.as_str().map(str::to_string)
        }
        _ => None,
    }
}

/// What runs `call` contained, when `verdict` (`policy`'s for it, for a host that
/// contains calls) is `sandbox`; `None` otherwise, or when the call's command cannot be
/// found: the host then treats the verdict as `ask`.
pub fn sandboxed(
    verdict: &Verdict,
    call: &ToolCall,
    policy: &crate::Policy,
    toolgate: &str,
) -> Option<Sandboxed> {
    if verdict.tier != Tier::Sandbox {
        return None;
    }
    let command = shell_command(call)?;
    let (ws, hosts) = (policy.workspace(), hosts_for(verdict, policy));
    Some(Sandboxed {
        argv: argv(toolgate, ws, hosts, &command),
        command: command_line(toolgate, ws, hosts, &command),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_last_word() {
        let line = command_line("/opt/tg/toolgate", "/w s", &[], "-x 'a'");
        assert_eq!(
            line,
            "/opt/tg/toolgate sandbox --workspace '/w s' -- /bin/bash -c -- '-x '\\''a'\\'''"
        );
        assert_eq!(
            argv("t", "/w", &[], "make").last().map(String::as_str),
            Some("make")
        );
    }

    #[test]
    fn only_a_sandbox_verdict_of_a_shell_command_is_sandboxed() {
        let host = crate::Policy::defaults("/w", "/h").with_sandbox_host(true);
        let run = |tool: &str, args: Value| {
            let call = ToolCall::new(tool, args);
            sandboxed(&host.classify(&call), &call, &host, "toolgate")
        };
        let bash = run("bash", serde_json::json!({"command": "python3 t.py"}));
        assert_eq!(
            bash.map(|s| s.command).as_deref(),
            Some("toolgate sandbox --workspace /w -- /bin/bash -c -- 'python3 t.py'")
        );
        // Codex's argv command and Gemini CLI's shell tool: the command they make.
        let argv = run("shell", serde_json::json!({"command": ["python3", "t.py"]}));
        assert_eq!(
            argv.and_then(|s| s.argv.last().cloned()).as_deref(),
            Some("python3 t.py")
        );
        let gemini = run("run_shell_command", serde_json::json!({"command": "make"}));
        assert!(gemini.is_some());
        for (tool, args) in [
            ("bash", serde_json::json!({"command": "ls"})),
            ("bash", serde_json::json!({"command": "pip install x"})),
            (
                "bash",
                serde_json::json!({"command": "curl https://pypi.org"}),
            ),
            ("bash", serde_json::json!({"command": "sudo make"})),
            ("read", serde_json::json!({"path": "/w/a"})),
        ] {
            assert_eq!(run(tool, args.clone()), None, "{tool} {args}");
        }
    }

    #[test]
    fn a_registry_install_reaches_the_registries_named_and_nothing_else_does() {
        let policy = crate::Policy::from_toml(
            "workspace = \"/w\"\nhome = \"/h\"\nsandbox_network = [\"pypi\", \"npm\", \"pypi.org\", \"*.example.com\"]",
        )
        .map(|p| p.with_sandbox_host(true));
        let Ok(policy) = policy else {
            panic!("the policy: {policy:?}");
        };
        assert_eq!(
            policy.sandbox_network(),
            [
                "pypi.org",
                "files.pythonhosted.org",
                "registry.npmjs.org",
                "registry.yarnpkg.com",
                "*.example.com"
            ]
        );
        let run = |cmd: &str| {
            let call = ToolCall::new("bash", serde_json::json!({ "command": cmd }));
            sandboxed(&policy.classify(&call), &call, &policy, "toolgate").map(|s| s.command)
        };
        assert_eq!(
            run("pip install -r requirements.txt").as_deref(),
            Some(
                "toolgate sandbox --workspace /w --allow-host pypi.org --allow-host \
                 files.pythonhosted.org --allow-host registry.npmjs.org --allow-host \
                 registry.yarnpkg.com --allow-host '*.example.com' -- /bin/bash -c -- \
                 'pip install -r requirements.txt'"
            )
        );
        // A test run beside the install gets the registries too (it is one command).
        assert!(run("npm ci && npm test").is_some_and(|c| c.contains("--allow-host")));
        // Anything else runs without the network.
        assert!(run("pytest -x").is_some_and(|c| !c.contains("--allow-host")));
        for ask in ["curl https://pypi.org/", "npm install -g x", "git push"] {
            assert_eq!(run(ask), None, "{ask}");
        }
    }

    #[test]
    fn sandbox_network_takes_registries_and_host_names_only() {
        for bad in [
            "npmjs",
            "127.0.0.1",
            "https://pypi.org",
            "pypi.org:443",
            "*",
            "a..b",
        ] {
            let toml = format!("sandbox_network = [\"npm\", \"{bad}\"]");
            let err = crate::Policy::from_toml(&toml)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert!(
                err.as_ref()
                    .is_err_and(|e| e.contains(bad) && e.contains("line 1")),
                "{bad}: {err:?}"
            );
        }
    }
}
