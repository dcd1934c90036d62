//! The command line, parsed by hand: a handful of subcommands and options does not
//! need a framework, and every mistake gets a usage error that says what was wrong.

use crate::error::CliError;
use std::path::PathBuf;

/// The full usage text (`toolgate --help`).
pub const USAGE: &str = "\
toolgate — a human-in-the-loop gate for AI agents' tool calls

USAGE:
  toolgate classify [OPTIONS]
      Reads JSON lines of tool calls ({\"tool\":…,\"args\":…}) on stdin and writes exactly
      one verdict JSON line per input line, in order. A line that is not a JSON object
      (blank lines included) gets {\"tier\":\"ask\",\"rule\":\"input.malformed\",…}.
  toolgate explain [OPTIONS] COMMAND
  toolgate explain [OPTIONS] --call JSON
      Explains the verdict for a shell command (or any tool call): the tier, the
      deciding rule, every part, and the deciding span marked under the command.
  toolgate bench FILE [OPTIONS] [--seconds S]
      Classifies the calls in FILE (JSON lines) round-robin on one thread for S
      seconds (default 3); the last line is classifications_per_sec=N.
  toolgate report FILE [OPTIONS] [--top N]
      Classifies the calls in FILE (JSON lines; an optional \"run\" field groups the
      calls of one agent run) and reports what the policy would have asked: tier
      shares, asks per run, and the N (default 15) rules, programs and commands that
      asked most. FILE may also be an agent CLI's own session log: a Claude Code
      transcript, a Codex rollout or a Gemini CLI chat (each session a run; the
      log's working directory is the workspace unless --workspace is given), or a
      directory of them (~/.claude/projects/PROJECT: every *.jsonl / *.json under it).
  toolgate hook claude-code|codex|gemini [OPTIONS] [--no-fs] [--timeout-ms N]
                [--codex-ask deny|prompt] [--defer [--database URL] [--owner NAME]]
      A pre-tool-use hook: reads the host's hook JSON on stdin, classifies the call
      (the workspace is the call's cwd unless --workspace or the policy names one;
      file-system facts are on, --no-fs turns them off) and answers in the host's
      protocol: Claude Code allow / ask / deny; Codex and Gemini CLI allow / deny (an
      ask is a deny there: their hooks cannot ask). Bad input, a policy that does not
      load, a panic or no verdict within N ms (default 10000) answers as an ask, with
      the reason; in a permission mode where nobody answers (bypassPermissions,
      dontAsk) every ask is a deny. Always exits 0 with an answer. --codex-ask prompt
      (Codex's config.toml says approval_policy = untrusted): an ask on a patch gets
      no decision, so Codex asks the person; any other ask is still a deny.
      --defer (Claude Code in `claude -p`): an ask is parked in the runs database and
      answered `defer`; when the session resumes, the hook answers what a person
      decided (toolgate decide), once.
  toolgate install claude-code|codex|gemini [--scope user|project] [--file F]
                [--command CMD] [--dry-run] [--uninstall]
      Adds `toolgate hook HOST` to the host's settings file (Claude Code
      ~/.claude/settings.json, Codex ~/.codex/hooks.json, Gemini CLI
      ~/.gemini/settings.json; --scope project: the current directory's), keeping
      the rest of the file and a backup beside it (FILE.toolgate-backup-MS).
      Idempotent; --dry-run prints the change; --uninstall takes the hook out.
  toolgate doctor [claude-code|codex|gemini]…
      Says for each host (default: all three) whether toolgate's hook is installed in
      the user's and the current project's settings, whether its command resolves to
      a program, whether a failure of it blocks the call (`|| exit 2`; Claude Code's
      onFailure) and whether the host's version has what the entry uses. Exits 0 when
      a hook is installed and every installed one is sound, else 1.
  toolgate import claude-settings FILE…
      Prints a policy file (TOML) with the permission rules of Claude Code settings
      files (permissions.allow / ask / deny), read as Claude Code reads them; what
      could not be kept exactly is said in comments (a deny or ask it cannot
      express covers the whole tool; such an allow is dropped).
  toolgate runs [--all] [--json] [--database URL] [--owner NAME]
      Lists the parked runs (every run with --all). The database is --database, else
      $TOOLGATE_DATABASE, else sqlite:$XDG_STATE_HOME/toolgate/runs.db
      (~/.local/state/…); the owner --owner, else $TOOLGATE_OWNER, else `local`.
  toolgate decide RUN allow|deny [--message M] [--database URL] [--owner NAME]
      Decides a parked run once; M is what the model is told of a denial.
  toolgate bench-adversarial [OPTIONS] [--seconds S]
      Times hostile shell inputs (64 KiB of `$(`, of quotes, …) at 16 KiB and 64 KiB,
      S seconds per input (default 0.2); the last line is the worst time per input.
  toolgate --help | --version

OPTIONS:
  --policy FILE     a policy file (TOML); default: the built-in policy
  --workspace DIR   the workspace directory (default: the policy's, else the current directory)
  --home DIR        the home directory (default: the policy's, else $HOME)
  --settings FILE   Claude Code settings (repeatable): their permission rules are
                    added to the policy's, with Claude Code's meaning
  --fs, --no-fs     classify, explain, report: look paths up on this machine (or
                    not) — a path through a symbolic link is judged as the file it
                    names, and a recursive read (grep -r, rg) whose trees hold no
                    secret file is read-only. Without facts paths are judged as
                    written and recursive reads ask. Default: on for classify and
                    explain when the workspace is a directory here, on for hook,
                    off for report.
  Options come before COMMAND; use `--` before a COMMAND that starts with `-`.

EXIT STATUS:
  0 done, 1 an I/O error, 2 a usage error or a bad policy file
";

/// What the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Help,
    Version,
    Classify(PolicyOpts),
    Explain {
        policy: PolicyOpts,
        input: ExplainInput,
    },
    Bench {
        policy: PolicyOpts,
        file: PathBuf,
        seconds: f64,
    },
    BenchAdversarial {
        policy: PolicyOpts,
        seconds_per_input: f64,
    },
    Report {
        policy: PolicyOpts,
        file: PathBuf,
        top: usize,
    },
    Hook {
        host: crate::hook::Host,
        policy: PolicyOpts,
        timeout_ms: u64,
        /// `--codex-ask prompt`: leave an `ask` to Codex's own approval prompt where
        /// Codex will show one (see `hook::codex_prompts`), else deny.
        codex_prompt: bool,
        /// `--defer` (Claude Code): park an `ask` here and answer `defer`.
        defer: Option<crate::defer::StoreAt>,
    },
    /// `toolgate import claude-settings FILE…`: Claude Code's rules as a policy file.
    ImportClaudeSettings(Vec<PathBuf>),
    /// `toolgate install HOST`: the hook into the host's settings file.
    Install(crate::install::Install),
    /// `toolgate doctor [HOST…]`: is each host's hook installed, resolvable and
    /// failure-blocking.
    Doctor(Vec<crate::hook::Host>),
    /// `toolgate runs`: the parked runs.
    Runs {
        at: crate::defer::StoreAt,
        all: bool,
        json: bool,
    },
    /// `toolgate decide RUN allow|deny [--message M]`.
    Decide {
        at: crate::defer::StoreAt,
        run_id: String,
        allow: bool,
        message: Option<String>,
    },
}

/// Where the policy comes from and what overrides it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyOpts {
    pub policy: Option<PathBuf>,
    /// `--settings FILE` (repeatable): Claude Code settings whose permission rules are
    /// added to the policy.
    pub settings: Vec<PathBuf>,
    pub workspace: Option<String>,
    pub home: Option<String>,
    /// File-system facts (symbolic links, the trees recursive reads walk) from this
    /// machine: `Some(true)` with `--fs`, `Some(false)` with `--no-fs`, `None` for the
    /// default ([`PolicyOpts::fs_for`]).
    pub fs: Option<bool>,
}

impl PolicyOpts {
    /// Whether to look the file system up for `policy`: as `--fs` / `--no-fs` say, else
    /// when `default_on` (the hook) or when the policy's workspace is a directory on this
    /// machine (the calls are then this machine's: a planted link is followed).
    pub fn fs_for(&self, policy: &toolgate_core::Policy, default_on: bool) -> bool {
        self.fs
            .unwrap_or_else(|| default_on || std::path::Path::new(policy.workspace()).is_dir())
    }
}

/// What `explain` explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExplainInput {
    /// A shell command, classified as `{"tool":"bash","args":{"command":…}}`.
    Command(String),
    /// A whole tool call as JSON.
    Call(String),
}

/// Default run time of `toolgate bench`.
pub const BENCH_SECONDS: f64 = 3.0;
/// Default time per input of `toolgate bench-adversarial`.
pub const ADVERSARIAL_SECONDS: f64 = 0.2;

const POLICY_OPTS: [&str; 4] = ["--policy", "--workspace", "--home", "--settings"];
/// Options that may be given more than once.
const REPEATABLE: [&str; 1] = ["--settings"];
/// Options without a value.
const FLAGS: [&str; 7] = [
    "--fs",
    "--no-fs",
    "--defer",
    "--all",
    "--json",
    "--dry-run",
    "--uninstall",
];

/// Parses the arguments after the program name.
pub fn parse(args: Vec<String>) -> Result<Command, CliError> {
    let mut args = args.into_iter();
    let Some(sub) = args.next() else {
        return Err(usage("no command given"));
    };
    let rest: Vec<String> = args.collect();
    match sub.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "classify" => {
            let Some(mut p) = Parsed::new(&rest, &[])? else {
                return Ok(Command::Help);
            };
            p.no_positionals("classify")?;
            p.only_flags("classify", &["--fs", "--no-fs"])?;
            Ok(Command::Classify(p.policy_opts()))
        }
        "explain" => {
            let Some(mut p) = Parsed::new(&rest, &["--call"])? else {
                return Ok(Command::Help);
            };
            p.only_flags("explain", &["--fs", "--no-fs"])?;
            let call = p.take("--call");
            let input = match (call, p.positionals.len()) {
                (Some(json), 0) => ExplainInput::Call(json),
                (Some(_), _) => {
                    return Err(usage("explain: give COMMAND or --call JSON, not both"))
                }
                (None, 1) => ExplainInput::Command(p.positionals.remove(0)),
                (None, 0) => return Err(usage("explain: missing COMMAND (or --call JSON)")),
                (None, n) => {
                    return Err(usage(&format!(
                        "explain: expected one COMMAND, got {n} words: quote the command, \
                         e.g. toolgate explain 'rm -rf build'"
                    )))
                }
            };
            Ok(Command::Explain {
                policy: p.policy_opts(),
                input,
            })
        }
        "bench" => {
            let Some(mut p) = Parsed::new(&rest, &["--seconds"])? else {
                return Ok(Command::Help);
            };
            p.only_flags("bench", &["--fs", "--no-fs"])?;
            p.no_fs("bench")?;
            let seconds = match p.take("--seconds") {
                Some(s) => parse_seconds(&s)?,
                None => BENCH_SECONDS,
            };
            let file = match p.positionals.len() {
                1 => PathBuf::from(p.positionals.remove(0)),
                0 => return Err(usage("bench: missing FILE (JSON lines of tool calls)")),
                n => return Err(usage(&format!("bench: expected one FILE, got {n}"))),
            };
            Ok(Command::Bench {
                policy: p.policy_opts(),
                file,
                seconds,
            })
        }
        "report" => {
            let Some(mut p) = Parsed::new(&rest, &["--top"])? else {
                return Ok(Command::Help);
            };
            p.only_flags("report", &["--fs", "--no-fs"])?;
            let top = match p.take("--top") {
                Some(s) => match s.parse::<usize>() {
                    Ok(n) if (1..=10_000).contains(&n) => n,
                    _ => {
                        return Err(usage(&format!(
                            "--top: expected a number of rows in 1..=10000, got `{s}`"
                        )))
                    }
                },
                None => crate::report::TOP,
            };
            let file = match p.positionals.len() {
                1 => PathBuf::from(p.positionals.remove(0)),
                0 => return Err(usage("report: missing FILE (JSON lines of tool calls)")),
                n => return Err(usage(&format!("report: expected one FILE, got {n}"))),
            };
            Ok(Command::Report {
                policy: p.policy_opts(),
                file,
                top,
            })
        }
        "bench-adversarial" => {
            let Some(mut p) = Parsed::new(&rest, &["--seconds"])? else {
                return Ok(Command::Help);
            };
            p.only_flags("bench-adversarial", &["--fs", "--no-fs"])?;
            p.no_fs("bench-adversarial")?;
            let seconds_per_input = match p.take("--seconds") {
                Some(s) => parse_seconds(&s)?,
                None => ADVERSARIAL_SECONDS,
            };
            p.no_positionals("bench-adversarial")?;
            Ok(Command::BenchAdversarial {
                policy: p.policy_opts(),
                seconds_per_input,
            })
        }
        "hook" => parse_hook(&rest),
        "runs" => parse_runs(&rest),
        "install" => parse_install(&rest),
        "import" => {
            let Some(p) = Parsed::new(&rest, &[])? else {
                return Ok(Command::Help);
            };
            p.only_flags("import", &[])?;
            p.no_policy_opts("import")?;
            match p.positionals.split_first() {
                Some((what, files)) if what == "claude-settings" && !files.is_empty() => Ok(
                    Command::ImportClaudeSettings(files.iter().map(PathBuf::from).collect()),
                ),
                Some((what, _)) if what == "claude-settings" => Err(usage(
                    "import claude-settings: name at least one settings.json",
                )),
                _ => Err(usage("import: expected `claude-settings FILE…`")),
            }
        }
        "decide" => parse_decide(&rest),
        "doctor" => parse_doctor(&rest),
        other if other.starts_with('-') => Err(usage(&format!(
            "unknown option `{other}` (options come after the command)"
        ))),
        other => Err(usage(&format!("unknown command `{other}`"))),
    }
}

fn parse_hook(rest: &[String]) -> Result<Command, CliError> {
    let Some(mut p) = Parsed::new(
        rest,
        &["--timeout-ms", "--codex-ask", "--database", "--owner"],
    )?
    else {
        return Ok(Command::Help);
    };
    if p.flags.contains(&"--fs") {
        return Err(usage(
            "hook: file-system facts are on by default (--no-fs turns them off)",
        ));
    }
    let timeout_ms = match p.take("--timeout-ms") {
        Some(s) => match s.parse::<u64>() {
            Ok(n) if (1..=600_000).contains(&n) => n,
            _ => {
                return Err(usage(&format!(
                    "--timeout-ms: expected milliseconds in 1..=600000, got `{s}`"
                )))
            }
        },
        None => crate::hook::DEFAULT_TIMEOUT_MS,
    };
    let host = match p.positionals.len() {
        1 => {
            let name = p.positionals.remove(0);
            crate::hook::Host::parse(&name).ok_or_else(|| {
                usage(&format!(
                    "hook: unknown host `{name}` (claude-code, codex or gemini)"
                ))
            })?
        }
        0 => return Err(usage("hook: missing HOST (claude-code, codex or gemini)")),
        n => return Err(usage(&format!("hook: expected one HOST, got {n}"))),
    };
    let codex_prompt = match p.take("--codex-ask").as_deref() {
        None | Some("deny") => false,
        Some("prompt") if host == crate::hook::Host::Codex => true,
        Some("prompt") => {
            return Err(usage(
                "--codex-ask is for `hook codex` (Claude Code asks itself; a Gemini \
                     CLI hook's ask is a deny)",
            ))
        }
        Some(other) => {
            return Err(usage(&format!(
                "--codex-ask: expected `deny` or `prompt`, got `{other}`"
            )))
        }
    };
    let store_opts = p.value("--database").is_some() || p.value("--owner").is_some();
    let defer = if p.flags.contains(&"--defer") {
        if host != crate::hook::Host::ClaudeCode {
            return Err(usage(
                "--defer is for `hook claude-code` (claude -p); Codex and Gemini CLI \
                     have no defer",
            ));
        }
        let (database, owner) = (p.take("--database"), p.take("--owner"));
        Some(crate::defer::StoreAt::resolve(database, owner)?)
    } else if store_opts {
        return Err(usage("--database and --owner go with --defer"));
    } else {
        None
    };
    p.only_flags("hook", &["--fs", "--no-fs", "--defer"])?;
    let mut policy = p.policy_opts();
    policy.fs = Some(policy.fs != Some(false));
    Ok(Command::Hook {
        host,
        policy,
        timeout_ms,
        codex_prompt,
        defer,
    })
}

fn parse_doctor(rest: &[String]) -> Result<Command, CliError> {
    let Some(p) = Parsed::new(rest, &[])? else {
        return Ok(Command::Help);
    };
    p.only_flags("doctor", &[])?;
    p.no_policy_opts("doctor")?;
    let mut hosts = Vec::new();
    for name in &p.positionals {
        let host = crate::hook::Host::parse(name).ok_or_else(|| {
            usage(&format!(
                "doctor: unknown host `{name}` (claude-code, codex or gemini)"
            ))
        })?;
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    if hosts.is_empty() {
        hosts = vec![
            crate::hook::Host::ClaudeCode,
            crate::hook::Host::Codex,
            crate::hook::Host::Gemini,
        ];
    }
    Ok(Command::Doctor(hosts))
}

fn parse_runs(rest: &[String]) -> Result<Command, CliError> {
    let Some(mut p) = Parsed::new(rest, &["--database", "--owner"])? else {
        return Ok(Command::Help);
    };
    p.no_positionals("runs")?;
    p.only_flags("runs", &["--all", "--json"])?;
    p.no_policy_opts("runs")?;
    let at = crate::defer::StoreAt::resolve(p.take("--database"), p.take("--owner"))?;
    Ok(Command::Runs {
        at,
        all: p.flags.contains(&"--all"),
        json: p.flags.contains(&"--json"),
    })
}

fn parse_decide(rest: &[String]) -> Result<Command, CliError> {
    let Some(mut p) = Parsed::new(rest, &["--database", "--owner", "--message"])? else {
        return Ok(Command::Help);
    };
    p.only_flags("decide", &[])?;
    p.no_policy_opts("decide")?;
    let (run_id, allow) = match p.positionals.as_slice() {
        [run, d] if d == "allow" || d == "deny" => (run.clone(), d == "allow"),
        [_, d] => {
            return Err(usage(&format!(
                "decide: expected `allow` or `deny`, got `{d}`"
            )))
        }
        _ => return Err(usage("decide: expected RUN allow|deny")),
    };
    let message = p.take("--message");
    if allow && message.is_some() {
        return Err(usage(
            "decide: --message goes with deny (it is what the model is told)",
        ));
    }
    let at = crate::defer::StoreAt::resolve(p.take("--database"), p.take("--owner"))?;
    Ok(Command::Decide {
        at,
        run_id,
        allow,
        message,
    })
}

fn parse_install(rest: &[String]) -> Result<Command, CliError> {
    let Some(mut p) = Parsed::new(rest, &["--scope", "--file", "--command"])? else {
        return Ok(Command::Help);
    };
    p.only_flags("install", &["--dry-run", "--uninstall"])?;
    p.no_policy_opts("install")?;
    let host = match p.positionals.as_slice() {
        [name] => crate::hook::Host::parse(name).ok_or_else(|| {
            usage(&format!(
                "install: unknown host `{name}` (claude-code, codex or gemini)"
            ))
        })?,
        [] => {
            return Err(usage(
                "install: missing HOST (claude-code, codex or gemini)",
            ))
        }
        more => {
            return Err(usage(&format!(
                "install: expected one HOST, got {}",
                more.len()
            )))
        }
    };
    let scope = match p.take("--scope").as_deref() {
        None | Some("user") => crate::install::Scope::User,
        Some("project") => crate::install::Scope::Project,
        Some(other) => {
            return Err(usage(&format!(
                "--scope: expected `user` or `project`, got `{other}`"
            )))
        }
    };
    Ok(Command::Install(crate::install::Install {
        host,
        scope,
        file: p.take("--file").map(PathBuf::from),
        command: p.take("--command"),
        dry_run: p.flags.contains(&"--dry-run"),
        uninstall: p.flags.contains(&"--uninstall"),
    }))
}

fn usage(message: &str) -> CliError {
    CliError::Usage(message.to_string())
}

fn parse_seconds(s: &str) -> Result<f64, CliError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(usage(&format!(
            "--seconds: expected a number of seconds in (0, 3600], got `{s}`"
        ))),
    }
}

/// A subcommand's arguments split into option values and positionals.
struct Parsed {
    values: Vec<(&'static str, String)>,
    flags: Vec<&'static str>,
    positionals: Vec<String>,
}

impl Parsed {
    /// Splits `args`; `extra` are the options (besides the policy ones) that take a
    /// value. `None` means help was asked for.
    fn new(args: &[String], extra: &[&'static str]) -> Result<Option<Parsed>, CliError> {
        let mut values: Vec<(&'static str, String)> = Vec::new();
        let mut flags: Vec<&'static str> = Vec::new();
        let mut positionals = Vec::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            if arg == "--" {
                positionals.extend(it.by_ref().cloned());
                break;
            }
            if arg == "-h" || arg == "--help" {
                return Ok(None);
            }
            if !arg.starts_with('-') || arg == "-" {
                positionals.push(arg.clone());
                continue;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (arg.as_str(), None),
            };
            if let Some(flag) = FLAGS.iter().copied().find(|f| *f == name) {
                if inline.is_some() {
                    return Err(usage(&format!("{flag} takes no value")));
                }
                if !flags.contains(&flag) {
                    flags.push(flag);
                }
                continue;
            }
            let Some(known) = POLICY_OPTS
                .iter()
                .chain(extra.iter())
                .copied()
                .find(|k| *k == name)
            else {
                return Err(usage(&format!("unknown option `{name}`")));
            };
            let value = match inline {
                Some(v) => v,
                None => match it.next() {
                    Some(v) => v.clone(),
                    None => return Err(usage(&format!("{known} needs a value"))),
                },
            };
            if !REPEATABLE.contains(&known) && values.iter().any(|(k, _)| *k == known) {
                return Err(usage(&format!("{known} given twice")));
            }
            if value.is_empty() {
                return Err(usage(&format!("{known}: empty value")));
            }
            values.push((known, value));
        }
        Ok(Some(Parsed {
            values,
            flags,
            positionals,
        }))
    }

    fn take(&mut self, name: &str) -> Option<String> {
        let i = self.values.iter().position(|(k, _)| *k == name)?;
        Some(self.values.remove(i).1)
    }

    fn no_positionals(&self, sub: &str) -> Result<(), CliError> {
        match self.positionals.first() {
            Some(extra) => Err(usage(&format!("{sub}: unexpected argument `{extra}`"))),
            None => Ok(()),
        }
    }

    fn policy_opts(&mut self) -> PolicyOpts {
        let fs = match (
            self.flags.contains(&"--fs"),
            self.flags.contains(&"--no-fs"),
        ) {
            (true, _) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        };
        let mut settings = Vec::new();
        while let Some(f) = self.take("--settings") {
            settings.push(PathBuf::from(f));
        }
        PolicyOpts {
            policy: self.take("--policy").map(PathBuf::from),
            settings,
            workspace: self.take("--workspace"),
            home: self.take("--home"),
            fs,
        }
    }

    /// The value of option `name`, leaving it in place.
    fn value(&self, name: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    }

    /// Refuses any flag of `sub` but `allowed`.
    fn only_flags(&self, sub: &str, allowed: &[&str]) -> Result<(), CliError> {
        match self.flags.iter().find(|f| !allowed.contains(f)) {
            Some(f) => Err(usage(&format!("{sub}: {f} is not an option of {sub}"))),
            None => Ok(()),
        }
    }

    /// Refuses the policy options (`runs` and `decide` judge nothing).
    fn no_policy_opts(&self, sub: &str) -> Result<(), CliError> {
        match self.values.iter().find(|(k, _)| POLICY_OPTS.contains(k)) {
            Some((k, _)) => Err(usage(&format!("{sub}: {k} is not an option of {sub}"))),
            None => Ok(()),
        }
    }

    /// `--fs` where the file system is not looked up (the benchmarks time the
    /// classifier alone).
    fn no_fs(&self, sub: &str) -> Result<(), CliError> {
        if self.flags.contains(&"--fs") || self.flags.contains(&"--no-fs") {
            return Err(usage(&format!(
                "{sub}: --fs and --no-fs are for classify, explain, report and hook"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, CliError> {
        parse(args.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn good_command_lines() {
        let ws = |w: &str| PolicyOpts {
            workspace: Some(w.into()),
            ..PolicyOpts::default()
        };
        let cases: Vec<(Vec<&str>, Command)> = vec![
            (vec!["--help"], Command::Help),
            (vec!["classify", "-h"], Command::Help),
            (vec!["--version"], Command::Version),
            (vec!["classify"], Command::Classify(PolicyOpts::default())),
            (
                vec![
                    "classify",
                    "--policy",
                    "p.toml",
                    "--home=/h",
                    "--workspace",
                    "/w",
                ],
                Command::Classify(PolicyOpts {
                    policy: Some("p.toml".into()),
                    workspace: Some("/w".into()),
                    home: Some("/h".into()),
                    ..PolicyOpts::default()
                }),
            ),
            (
                vec!["explain", "--workspace", "/w", "rm -rf /"],
                Command::Explain {
                    policy: ws("/w"),
                    input: ExplainInput::Command("rm -rf /".into()),
                },
            ),
            (
                vec!["explain", "--", "-rf"],
                Command::Explain {
                    policy: PolicyOpts::default(),
                    input: ExplainInput::Command("-rf".into()),
                },
            ),
            (
                vec!["explain", "--call", "{}"],
                Command::Explain {
                    policy: PolicyOpts::default(),
                    input: ExplainInput::Call("{}".into()),
                },
            ),
            (
                vec!["bench", "c.jsonl", "--seconds", "0.5"],
                Command::Bench {
                    policy: PolicyOpts::default(),
                    file: "c.jsonl".into(),
                    seconds: 0.5,
                },
            ),
            (
                vec!["bench", "c.jsonl"],
                Command::Bench {
                    policy: PolicyOpts::default(),
                    file: "c.jsonl".into(),
                    seconds: BENCH_SECONDS,
                },
            ),
            (
                vec!["bench-adversarial"],
                Command::BenchAdversarial {
                    policy: PolicyOpts::default(),
                    seconds_per_input: ADVERSARIAL_SECONDS,
                },
            ),
        ];
        for (args, want) in cases {
            assert_eq!(p(&args).unwrap(), want, "args: {args:?}");
        }
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (vec![], "no command"),
            (vec!["frobnicate"], "unknown command `frobnicate`"),
            (vec!["classify", "--nope"], "unknown option `--nope`"),
            (vec!["classify", "--policy"], "--policy needs a value"),
            (
                vec!["classify", "--policy", "a", "--policy", "b"],
                "given twice",
            ),
            (vec!["classify", "extra"], "unexpected argument `extra`"),
            (vec!["explain"], "missing COMMAND"),
            (vec!["explain", "rm", "-rf"], "unknown option `-rf`"),
            (vec!["explain", "rm", "x"], "quote the command"),
            (vec!["explain", "--call", "{}", "ls"], "not both"),
            (vec!["bench"], "missing FILE"),
            (vec!["bench", "f", "--seconds", "0"], "--seconds"),
            (vec!["bench", "f", "--seconds", "NaN"], "--seconds"),
            (vec!["bench", "f", "--workspace="], "empty value"),
        ];
        for (args, want) in cases {
            match p(&args) {
                Err(CliError::Usage(msg)) => assert!(msg.contains(want), "args {args:?}: {msg}"),
                other => panic!("args {args:?}: expected a usage error, got {other:?}"),
            }
        }
    }
}
