//! `toolgate install HOST` and `toolgate install --all`: the command line's form of an
//! install, and `--all`, which finds the agent CLIs used on this machine (the command
//! on `PATH`, or its directory in the home) and installs toolgate's hook into each.

use std::fmt::Write as _;

use crate::error::CliError;
use crate::hook::Host;
use crate::install::Install;
use crate::load::Env;

/// `toolgate install`'s command line.
#[derive(Debug, Clone, clap::Args)]
pub struct InstallCmd {
    /// The agent CLI
    #[arg(value_enum, required_unless_present = "all")]
    pub host: Option<Host>,
    /// Every agent CLI found on this machine: its command on PATH, or its directory
    /// in your home (~/.claude, ~/.codex, ~/.gemini, ~/.copilot, ~/.cursor,
    /// ~/.config/opencode)
    #[arg(long, conflicts_with_all = ["host", "file", "command", "event", "server", "token_file"])]
    pub all: bool,
    #[command(flatten)]
    pub opts: Install,
}

/// Why `host` counts as used here, or `None`.
fn found(host: Host, env: &Env) -> Option<String> {
    if let Some(p) = crate::which::on_path(host.program()) {
        return Some(format!("{} on PATH", p.display()));
    }
    let home = env.home.as_deref()?;
    let dir = std::path::Path::new(home).join(host.home_dir()?);
    dir.is_dir().then(|| format!("{} exists", dir.display()))
}

/// Runs the install: one host's, or each found host's with `--all`. Returns what to
/// print and whether every install asked for succeeded.
pub fn run(cmd: &InstallCmd, env: &Env) -> Result<(String, bool), CliError> {
    if let Some(host) = cmd.host {
        let req = Install {
            host,
            ..cmd.opts.clone()
        };
        return crate::install::run(&req, env).map(|out| (out, true));
    }
    let (mut out, mut ok, mut any) = (String::new(), true, false);
    for &host in <Host as clap::ValueEnum>::value_variants() {
        let word = crate::install::host_word(host);
        let Some(why) = found(host, env) else {
            let _ = writeln!(out, "{word}: not found here (skipped)");
            continue;
        };
        any = true;
        let req = Install {
            host,
            ..cmd.opts.clone()
        };
        match crate::install::run(&req, env) {
            Ok(text) => {
                let _ = write!(out, "{word} ({why}): {text}");
            }
            Err(e) => {
                ok = false;
                let _ = writeln!(out, "{word} ({why}): FAILED: {e}");
            }
        }
    }
    if !any {
        return Err(CliError::Environment(
            "no agent CLI found here (none on PATH, no ~/.claude, ~/.codex, ~/.gemini, \
             ~/.copilot, ~/.cursor or ~/.config/opencode): name the host, toolgate install \
             HOST"
                .into(),
        ));
    }
    Ok((out, ok))
}
