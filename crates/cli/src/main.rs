//! The `toolgate` command: classify tool calls (JSON lines), explain a verdict, report
//! what a log of tool calls would have been asked, benchmark the classifier, and be an
//! agent CLI's hook. See `toolgate --help`.

mod bench;
mod classify;
mod claude_settings;
mod cli;
mod contained;
mod defer;
mod doctor;
mod error;
mod explain;
mod gemini_mode;
mod grants;
mod hook;
mod hooks_file;
mod host;
mod install;
mod install_all;
mod load;
mod netproxy;
mod opencode;
mod ordered_json;
mod random;
mod remote;
mod report;
mod sandbox;
mod seatbelt;
mod text;
mod transcripts;
mod which;

use cli::Command;
use error::CliError;
use std::io::{BufReader, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::parse(std::env::args_os()).and_then(|c| c.map_or(Ok(()), |c| run(c.command))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolgate: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(command: Command) -> Result<(), CliError> {
    let env = load::Env::from_process();
    match command {
        Command::Classify(args) => {
            let opts = load::PolicyOpts {
                fs: args.fs.value(),
                ..args.policy
            };
            let policy = load::policy(&opts, &env)?.with_sandbox_host(args.sandbox.sandbox);
            let fs = opts.fs_for(&policy, false);
            let stdin = std::io::stdin();
            let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
            let stdout = std::io::stdout();
            let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());
            classify::run(&policy, fs, &mut input, &mut out).map(|_| ())
        }
        Command::Explain(args) => {
            let input = args.input()?;
            let opts = load::PolicyOpts {
                fs: args.fs.value(),
                ..args.policy
            };
            let policy = load::policy(&opts, &env)?.with_sandbox_host(args.sandbox.sandbox);
            let fs = opts.fs_for(&policy, false);
            print(&explain::explain(&policy, &input, fs)?)
        }
        Command::Bench(args) => {
            let policy = load::policy(&args.policy, &env)?;
            print(&bench::bench(&policy, &args.file, args.seconds)?)
        }
        Command::BenchAdversarial(args) => {
            let policy = load::policy(&args.policy, &env)?;
            print(&bench::bench_adversarial(&policy, args.seconds))
        }
        Command::Report(args) => {
            // A report's calls were often made on another machine: facts only with --fs.
            let fs = args.fs.value() == Some(true);
            // A session log's own working directory is each call's workspace, unless
            // --workspace names one.
            let own_cwd = args.policy.workspace.is_none();
            let policy = load::policy(&args.policy, &env)?;
            print(&report::report(&policy, &args.file, args.top, fs, own_cwd)?)
        }
        Command::Hook(args) => {
            let how = args.how()?;
            let mut policy = args.policy;
            policy.fs = Some(how.fs);
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let answered = hook::run(args.host, policy, env, how, std::io::stdin(), &mut out);
            if let Err(e) = answered {
                // No answer reached the host (its end of stdout is gone): exit 2, which
                // every host reads as "block". Any other status, or 0 with no answer,
                // would let the tool run.
                eprintln!("toolgate: {e}");
                std::process::exit(2);
            }
            Ok(())
        }
        Command::Import(claude_settings::Import::ClaudeSettings { files }) => {
            let imported = claude_settings::read(&files)?;
            print(&claude_settings::to_toml(&files, &imported))
        }
        Command::Install(cmd) => {
            let (out, ok) = install_all::run(&cmd, &env)?;
            print(&out)?;
            if !ok {
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Doctor(args) => {
            let (report, ok) = doctor::run(&args.hosts(), &env);
            print(&report)?;
            if !ok {
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Runs(args) => print(&defer::list(
            &args.store.at()?,
            args.all,
            args.json,
            defer::now_ms(),
        )?),
        Command::Grants(args) => print(&grants::run(&args, defer::now_ms())?),
        Command::Decide(args) => {
            let allow = args.decision == defer::Decision::Allow;
            if allow && args.message.is_some() {
                return Err(CliError::Usage(
                    "decide: --message goes with deny (it is what the model is told)".into(),
                ));
            }
            print(&defer::decide(
                &args.store.at()?,
                &args.run,
                allow,
                args.message,
                defer::now_ms(),
            )?)
        }
        Command::Completions { shell } => print(&cli::completions(shell)),
        #[cfg(unix)]
        Command::SandboxBridge(args) => {
            let status = netproxy::bridge(&args.socket, &args.command)
                .map_err(|why| CliError::Usage(format!("sandbox-bridge: {why}")))?;
            std::process::exit(i32::from(sandbox::exit_of(status)));
        }
        #[cfg(not(unix))]
        Command::SandboxBridge(_) => Err(CliError::Usage(
            "sandbox-bridge runs only inside toolgate sandbox on Linux".into(),
        )),
        Command::Sandbox(args) => {
            let code = sandbox::run(&args, &env)?;
            if code != 0 {
                std::process::exit(i32::from(code));
            }
            Ok(())
        }
    }
}

/// Writes `text` to stdout; a closed pipe is reported as an error the caller ignores.
fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::io("writing stdout"))
}
