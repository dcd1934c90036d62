//! `toolgate-server`: the HTTP API of parked runs (see the crate docs and the README).
//!
//!   toolgate-server [serve] [--config FILE] [--listen ADDR] [--database URL]
//!   toolgate-server hash-token      (reads a token on stdin, prints its SHA-256 for the config)

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use toolgate_server::config::{self, digest, hex, Overrides};
use toolgate_server::limits::Guard;
use toolgate_server::serve;
use toolgate_server::{router, AppState};
use toolgate_store::StoreOptions;

const USAGE: &str = "usage: toolgate-server [serve] [--config FILE] [--listen ADDR] [--database URL] [--panel DIR] [--demo-agent]
                       [--sandbox-agents]   (the agents run `sandbox` verdicts in toolgate sandbox)
       toolgate-server hash-token   (a token on stdin → its SHA-256, for the config file)
       toolgate-server audit export [--format jsonl|csv] [--config FILE] [--database URL]
                                    [--owner OWNER] [--since MS]
       toolgate-server audit verify [--config FILE] [--database URL]
                                    (the audit trail's hash chain: exit 1 if a record was
                                    edited or deleted)

Environment: TOOLGATE_LISTEN, TOOLGATE_DATABASE_URL (sqlite:PATH | postgres://…),
TOOLGATE_CORS_ORIGINS (comma-separated), TOOLGATE_TOKENS ([{\"name\",\"owner\",\"roles\",\"token\"}]),
TOOLGATE_WEBHOOK_URL (Slack-compatible, \"a run waits\"), TOOLGATE_WEBHOOK_ARGS (none | redacted),
TOOLGATE_PUBLIC_URL (the panel, for its link),
TOOLGATE_PANEL_DIR (the approval panel served at /: ./scripts/build-panel assembles it).";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.first().map(String::as_str) {
        Some("hash-token") => return hash_token(),
        Some("audit") if args.get(1).map(String::as_str) == Some("verify") => {
            return match verify(args.split_off(2)) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::from(1),
                Err(e) => {
                    eprintln!("toolgate-server audit verify: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Some("audit") => {
            return match audit(args.split_off(1)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("toolgate-server audit: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some("serve") => {
            args.remove(0);
            "serve"
        }
        _ => "serve",
    };
    debug_assert_eq!(command, "serve");
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolgate-server: {e}");
            ExitCode::from(2)
        }
    }
}

fn hash_token() -> ExitCode {
    let mut token = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut token) {
        eprintln!("toolgate-server hash-token: cannot read stdin: {e}");
        return ExitCode::from(2);
    }
    let token = token.trim_end_matches(['\n', '\r']);
    if let Err(why) = config::strong(token) {
        eprintln!("toolgate-server hash-token: {why}");
        return ExitCode::from(2);
    }
    println!("{}", hex(&digest(token)));
    ExitCode::SUCCESS
}

fn serve(args: Vec<String>) -> Result<(), String> {
    let mut file: Option<PathBuf> = None;
    let mut overrides = Overrides::default();
    let mut demo_agent = false;
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--config" => file = Some(value("--config")?.into()),
            "--listen" => overrides.listen = Some(value("--listen")?),
            "--database" => overrides.database = Some(value("--database")?),
            "--panel" => overrides.panel = Some(value("--panel")?),
            "--demo-agent" => demo_agent = true,
            "--sandbox-agents" => overrides.sandbox_agents = true,
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let config = config::load(file.as_deref(), &|k| std::env::var(k).ok(), overrides)?;
    if config.tokens.is_empty() {
        eprintln!(
            "toolgate-server: warning: no tokens are configured; every request is refused (401)"
        );
    }
    let store = toolgate_store::open(&config.database, StoreOptions::default())
        .map_err(|e| e.to_string())?;
    let kind = match &store {
        toolgate_store::SqlStore::Postgres(pg) => match pg.tls() {
            Ok((mode, true)) => format!("postgres, TLS {mode}"),
            Ok((mode, false)) => format!("postgres, no TLS ({mode})"),
            Err(e) => format!("postgres, TLS unknown: {e}"),
        },
        toolgate_store::SqlStore::Sqlite(_) => "sqlite".to_string(),
    };
    if kind.starts_with("postgres") && !kind.contains("verify-full") {
        eprintln!(
            "toolgate-server: warning: the database connection is {kind}: anyone on the network path could read or change runs and decisions; use sslmode=verify-full (and sslrootcert=CA) unless the database is on this machine"
        );
    }
    if let Ok(toolgate_store::Backend::Sqlite(path)) = toolgate_store::backend(&config.database) {
        if let Some(why) = toolgate_store::exposed(std::path::Path::new(&path)) {
            eprintln!("toolgate-server: warning: {why}");
        }
    }
    let state = AppState {
        store: Arc::new(store),
        policy: Arc::new(config.policy),
        tokens: config.tokens.into(),
        webhook: config.webhook_url.map(|url| {
            toolgate_server::webhook::Webhook::new(url, config.public_url, config.webhook_args)
        }),
        polls: Arc::default(),
        demo_agent,
        panel: config.panel,
        guard: Arc::new(Guard::new(config.limits.clone())),
        sandbox: config.sandbox,
    };
    let store_for_pruning = state.store.clone();
    let app = router(state, &config.cors_origins)?;
    let limits = config.limits;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let shutdown_bound = limits.shutdown_timeout();
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        // The first line on stdout: tests and scripts read the port from it.
        {
            use std::io::Write;
            let mut out = std::io::stdout();
            let _ = writeln!(out, "toolgate-server: listening on http://{addr} ({kind})");
            let _ = out.flush();
        }
        let pruning = tokio::spawn(prune_loop(store_for_pruning, limits.clone()));
        let stopped = serve::serve(listener, app, limits, shutdown()).await;
        pruning.abort();
        Ok::<_, String>(stopped)
    })?;
    if served.cut > 0 {
        eprintln!(
            "toolgate-server: stopped; {} connection(s) still open after {} ms were cut",
            served.cut,
            shutdown_bound.as_millis()
        );
    }
    // Store calls and webhook sends still running on the blocking pool get a moment,
    // then the process ends without them (each store write is one transaction: a cut
    // one did not happen).
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    Ok(())
}

/// Prunes finished runs every [`Limits::prune_every`](toolgate_server::limits::Limits::prune_every).
async fn prune_loop(store: Arc<toolgate_store::SqlStore>, limits: toolgate_server::limits::Limits) {
    let mut tick = tokio::time::interval(limits.prune_every());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let store = store.clone();
        let ttl = limits.finished_run_ttl_ms;
        let done = tokio::task::spawn_blocking(move || {
            toolgate_server::api::prune(&store, ttl, toolgate_server::api::now_ms())
        })
        .await;
        match done {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => eprintln!("toolgate-server: pruned {n} finished run(s)"),
            Ok(Err(e)) => eprintln!("toolgate-server: pruning failed: {}", e.message),
            Err(e) => eprintln!("toolgate-server: pruning failed: {e}"),
        }
    }
}

/// Ctrl-C or SIGTERM: stop accepting, finish the requests in flight.
async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// `audit export`: every audit record (of one owner with `--owner`) at or after
/// `--since`, oldest first, as JSON lines (the API's records) or CSV (a header, then a
/// row per record; cells that a spreadsheet would run as a formula, those starting with
/// `=`, `+`, `-`, `@`, a tab or a carriage return, get a leading `'`).
fn audit(args: Vec<String>) -> Result<(), String> {
    use std::io::Write;
    let mut it = args.into_iter();
    if it.next().as_deref() != Some("export") {
        return Err(format!("expected `audit export`\n{USAGE}"));
    }
    let (mut format, mut file, mut overrides, mut owner, mut since) = (
        "jsonl".to_string(),
        None::<PathBuf>,
        Overrides::default(),
        None::<String>,
        0u64,
    );
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--format" => format = value("--format")?,
            "--config" => file = Some(value("--config")?.into()),
            "--database" => overrides.database = Some(value("--database")?),
            "--panel" => overrides.panel = Some(value("--panel")?),
            "--owner" => owner = Some(value("--owner")?),
            "--since" => {
                let v = value("--since")?;
                since = v
                    .parse()
                    .map_err(|_| format!("--since `{v}`: milliseconds since the epoch"))?;
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if format != "jsonl" && format != "csv" {
        return Err(format!("--format `{format}`: jsonl or csv"));
    }
    let config = config::load(file.as_deref(), &|k| std::env::var(k).ok(), overrides)?;
    let store = toolgate_store::open(&config.database, StoreOptions::default())
        .map_err(|e| e.to_string())?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let fail = |e: std::io::Error| format!("writing: {e}");
    if format == "csv" {
        writeln!(out, "at,run_id,owner,session_id,revision,tool_call_id,tool,outcome,decided_by,anchor,rule,reason,message,asked_by,edited_anchor").map_err(fail)?;
    }
    let mut seen_at_since = 0usize;
    loop {
        // Pages of 1000, oldest first; records sharing the last page's `at` are skipped
        // by count on the next page.
        let limit = 1000 + seen_at_since;
        let page = store
            .audit(owner.as_deref(), since, limit)
            .map_err(|e| e.to_string())?;
        let last_page = page.len() < limit;
        let fresh: Vec<_> = page.into_iter().skip(seen_at_since).collect();
        if fresh.is_empty() {
            break;
        }
        for r in &fresh {
            if format == "csv" {
                let cells = [
                    r.at.to_string(),
                    r.run_id.clone(),
                    r.owner.clone(),
                    r.session_id.clone(),
                    r.revision.to_string(),
                    r.tool_call_id.clone(),
                    r.tool.clone(),
                    r.outcome.clone(),
                    r.decided_by.clone().unwrap_or_default(),
                    r.anchor.clone(),
                    r.rule.clone(),
                    r.reason.clone(),
                    r.message.clone().unwrap_or_default(),
                    r.asked_by.clone().unwrap_or_default(),
                    r.edited_anchor.clone().unwrap_or_default(),
                ];
                let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
                writeln!(out, "{}", line.join(",")).map_err(fail)?;
            } else {
                let line = serde_json::to_string(r).map_err(|e| e.to_string())?;
                writeln!(out, "{line}").map_err(fail)?;
            }
        }
        let last_at = fresh.last().map_or(since, |r| r.at);
        let at_last = fresh.iter().rev().take_while(|r| r.at == last_at).count();
        seen_at_since = if last_at == since {
            seen_at_since + fresh.len()
        } else {
            at_last
        };
        since = last_at;
        if last_page {
            break;
        }
    }
    out.flush().map_err(fail)
}

/// `audit verify`: walks the audit trail's hash chain; prints what it found. `Ok(false)`
/// when a record was edited or deleted.
fn verify(args: Vec<String>) -> Result<bool, String> {
    let mut it = args.into_iter();
    let (mut file, mut overrides) = (None::<PathBuf>, Overrides::default());
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--config" => file = Some(value("--config")?.into()),
            "--database" => overrides.database = Some(value("--database")?),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let config = config::load(file.as_deref(), &|k| std::env::var(k).ok(), overrides)?;
    let store = toolgate_store::open(&config.database, StoreOptions::default())
        .map_err(|e| e.to_string())?;
    let check = store.verify_audit().map_err(|e| e.to_string())?;
    match &check.problem {
        None => {
            println!(
                "audit trail intact: {} record(s), chain head {}",
                check.records,
                check.head.as_deref().unwrap_or("(none)")
            );
            Ok(true)
        }
        Some(problem) => {
            println!(
                "audit trail BROKEN: {problem} ({} record(s) read)",
                check.records
            );
            Ok(false)
        }
    }
}

fn csv_cell(c: &str) -> String {
    let c = if c.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{c}")
    } else {
        c.to_string()
    };
    if c.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c
    }
}
