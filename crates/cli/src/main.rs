//! The `toolgate` command: classify tool calls (JSON lines), explain a verdict, report
//! what a log of tool calls would have been asked, and benchmark the classifier. See `toolgate --help`.

mod args;
mod bench;
mod classify;
mod claude_settings;
mod defer;
mod doctor;
mod error;
mod explain;
mod hook;
mod install;
mod load;
mod report;
mod text;
mod transcripts;

use args::Command;
use error::CliError;
use std::io::{BufReader, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|a| {
            a.into_string()
                .map_err(|a| CliError::Usage(format!("argument {a:?} is not valid UTF-8")))
        })
        .collect();
    match argv.and_then(args::parse).and_then(run) {
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
        Command::Help => print(args::USAGE),
        Command::Version => print(&format!("toolgate {}\n", env!("CARGO_PKG_VERSION"))),
        Command::Classify(opts) => {
            let policy = load::policy(&opts, &env)?;
            let fs = opts.fs_for(&policy, false);
            let stdin = std::io::stdin();
            let mut input = BufReader::with_capacity(64 * 1024, stdin.lock());
            let stdout = std::io::stdout();
            let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());
            classify::run(&policy, fs, &mut input, &mut out).map(|_| ())
        }
        Command::Explain { policy, input } => {
            let opts = policy;
            let policy = load::policy(&opts, &env)?;
            let fs = opts.fs_for(&policy, false);
            print(&explain::explain(&policy, &input, fs)?)
        }
        Command::Bench {
            policy,
            file,
            seconds,
        } => {
            let policy = load::policy(&policy, &env)?;
            print(&bench::bench(&policy, &file, seconds)?)
        }
        Command::Report { policy, file, top } => {
            // A report's calls were often made on another machine: facts only with --fs.
            let fs = policy.fs == Some(true);
            // A session log's own working directory is each call's workspace, unless
            // --workspace names one.
            let own_cwd = policy.workspace.is_none();
            let policy = load::policy(&policy, &env)?;
            print(&report::report(&policy, &file, top, fs, own_cwd)?)
        }
        Command::Hook {
            host,
            policy,
            timeout_ms,
            codex_prompt,
            defer,
        } => {
            let how = hook::How {
                defer,
                fs: policy.fs != Some(false),
                timeout_ms: timeout_ms.min(hook::max_timeout_ms(host)),
                codex_prompt,
            };
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let answered = hook::run(host, policy, env, how, std::io::stdin(), &mut out);
            if let Err(e) = answered {
                // No answer reached the host (its end of stdout is gone): exit 2, which
                // every host reads as "block". Any other status, or 0 with no answer,
                // would let the tool run.
                eprintln!("toolgate: {e}");
                std::process::exit(2);
            }
            Ok(())
        }
        Command::ImportClaudeSettings(files) => {
            let imported = claude_settings::read(&files)?;
            print(&claude_settings::to_toml(&files, &imported))
        }
        Command::Install(req) => print(&install::run(&req, &env)?),
        Command::Doctor(hosts) => {
            let (report, ok) = doctor::run(&hosts, &env);
            print(&report)?;
            if !ok {
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Runs { at, all, json } => print(&defer::list(&at, all, json, defer::now_ms())?),
        Command::Decide {
            at,
            run_id,
            allow,
            message,
        } => print(&defer::decide(
            &at,
            &run_id,
            allow,
            message,
            defer::now_ms(),
        )?),
        Command::BenchAdversarial {
            policy,
            seconds_per_input,
        } => {
            let policy = load::policy(&policy, &env)?;
            print(&bench::bench_adversarial(&policy, seconds_per_input))
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
