//! The command line, with clap's derive API: this module holds the top level (the
//! subcommands and the help around them); each subcommand's options are an `Args` type
//! in the module that runs it, beside the code that uses them. Every usage error exits
//! 2 (which every agent host reads as "block"); help and the version exit 0.

use clap::{CommandFactory, Parser, Subcommand};

use crate::error::CliError;

/// What follows the options in `toolgate --help`.
const AFTER_HELP: &str = "\
Options come after COMMAND; use `--` before an argument that starts with `-`.

EXIT STATUS:
  0 done, 1 an I/O error (doctor: a problem found), 2 a usage error or a bad policy file";

/// `toolgate --version`: the version and the commit it was built from (build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("TOOLGATE_COMMIT"),
    ")"
);

/// toolgate — a human-in-the-loop gate for AI agents' tool calls.
#[derive(Debug, Parser)]
#[command(
    name = "toolgate",
    version = VERSION,
    about = "toolgate — a human-in-the-loop gate for AI agents' tool calls",
    after_help = AFTER_HELP,
    subcommand_required = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Reads JSON lines of tool calls ({"tool":…,"args":…}) on stdin and writes exactly
    /// one verdict JSON line per input line, in order.
    ///
    /// A line that is not a JSON object (blank lines included) gets
    /// {"tier":"ask","rule":"input.malformed",…}.
    Classify(crate::classify::ClassifyArgs),
    /// Explains the verdict for a shell command (or any tool call with --call): the
    /// tier, the deciding rule, every part, and the deciding span marked under the
    /// command.
    Explain(crate::explain::ExplainArgs),
    /// Classifies the calls in FILE and reports what the policy would have asked.
    ///
    /// Tier shares, asks per run, and the N rules, programs and commands that asked
    /// most. FILE is JSON lines (an optional "run" field groups one agent run's calls)
    /// or an agent CLI's own session log: a Claude Code transcript, a Codex rollout or
    /// a Gemini CLI chat (each session a run; the log's working directory is the
    /// workspace unless --workspace is given), or a directory of them.
    Report(crate::report::ReportArgs),
    /// Classifies the calls in FILE (JSON lines) round-robin on one thread for S
    /// seconds; the last line is classifications_per_sec=N.
    Bench(crate::bench::BenchArgs),
    /// Times hostile shell inputs (64 KiB of `$(`, of quotes, …) at 16 KiB and 64 KiB;
    /// the last line is the worst time per input.
    BenchAdversarial(crate::bench::AdversarialArgs),
    /// A pre-tool-use hook: reads the host's hook JSON on stdin and answers in its
    /// protocol.
    ///
    /// The workspace is the call's cwd unless --workspace or the policy names one;
    /// file-system facts are on (--no-fs turns them off). Claude Code and Copilot CLI:
    /// allow / ask / deny; Antigravity: allow / force_ask / deny; Codex, Gemini CLI and
    /// Cursor: allow / deny (their hooks cannot ask, or not in every mode). Bad input, a
    /// policy that does not load, a panic or no verdict within --timeout-ms answers as
    /// an ask, with the reason; in a permission mode where nobody answers
    /// (bypassPermissions, dontAsk) every ask is a deny. Always exits 0 with an answer.
    Hook(crate::hook::HookArgs),
    /// Adds `toolgate hook HOST` to the host's settings file (Claude Code
    /// ~/.claude/settings.json, Codex ~/.codex/hooks.json, Gemini CLI
    /// ~/.gemini/settings.json, Copilot CLI ~/.copilot/hooks/toolgate.json, Antigravity
    /// ~/.gemini/config/hooks.json, Cursor ~/.cursor/hooks.json; --scope project: the
    /// current directory's).
    ///
    /// Keeps the rest of the file and a backup beside it (FILE.toolgate-backup-MS);
    /// the command is guarded (`|| exit 2`, and Claude Code's onFailure: block) so a
    /// hook that cannot run blocks. Idempotent.
    Install(crate::install_all::InstallCmd),
    /// Says for each host whether toolgate's hook is installed, resolvable,
    /// failure-blocking and of a host version that has what it uses.
    ///
    /// Exits 0 when a hook is installed and every installed one is sound, else 1.
    Doctor(crate::doctor::DoctorArgs),
    /// Prints a policy file (TOML) with the permission rules of other tools' settings.
    #[command(subcommand)]
    Import(crate::claude_settings::Import),
    /// Lists the parked runs (every run with --all).
    ///
    /// The database is --database, else $TOOLGATE_DATABASE, else
    /// sqlite:$XDG_STATE_HOME/toolgate/runs.db (~/.local/state/…); the owner --owner,
    /// else $TOOLGATE_OWNER, else `local`.
    Runs(crate::defer::RunsArgs),
    /// Decides a parked run once.
    Decide(crate::defer::DecideArgs),
    /// Lists the "always allow" grants people gave (live ones; every one kept with
    /// --all): what each matches, its session, how long it lasts; --revoke ID revokes
    /// one.
    ///
    /// The database and owner are found as `toolgate runs` finds them.
    Grants(crate::grants::GrantsArgs),
    /// Runs COMMAND contained (Linux: bubblewrap; macOS: Seatbelt): the file system read-only but the
    /// workspace and a private /tmp; the workspace's .git and agents' settings
    /// read-only; secret files, the home directory and secret variables hidden; no
    /// network, no other process, no new privileges.
    ///
    /// Exits with COMMAND's status; 125 when no sandbox can be built here (then nothing
    /// ran). --check only checks.
    Sandbox(crate::sandbox::SandboxArgs),
    /// Inside `toolgate sandbox --allow-host`: forwards the sandbox's loopback to the
    /// proxy and runs COMMAND with HTTPS_PROXY set (not for direct use).
    #[command(hide = true)]
    SandboxBridge(crate::netproxy::BridgeArgs),
    /// Prints a completion script for SHELL (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The arguments after the program name, parsed: a usage error as the CLI's own
/// (`toolgate: …`, exit 2); help and the version printed here (`Ok(None)`).
pub fn parse<I, T>(args: I) -> Result<Option<Cli>, CliError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match Cli::try_parse_from(args) {
        Ok(cli) => Ok(Some(cli)),
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    Ok(None)
                }
                ErrorKind::MissingSubcommand
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => Err(CliError::Usage(
                    "no command given (toolgate --help lists them)".into(),
                )),
                _ => {
                    let text = e.render().to_string();
                    let text = text.trim_end().trim_start_matches("error: ");
                    Err(CliError::Usage(text.to_string()))
                }
            }
        }
    }
}

/// `toolgate completions SHELL`: the script.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "toolgate", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
