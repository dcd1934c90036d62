//! `toolgate-server`: the HTTP API of parked runs (see the crate docs and the README).
//!
//!   toolgate-server [serve] [--config FILE] [--listen ADDR] [--database URL]
//!   toolgate-server hash-token      (reads a token on stdin, prints its SHA-256 for the config)

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use toolgate_server::config::{self, digest, hex, Overrides};
use toolgate_server::{router, AppState};
use toolgate_store::StoreOptions;

const USAGE: &str = "usage: toolgate-server [serve] [--config FILE] [--listen ADDR] [--database URL]
       toolgate-server hash-token   (a token on stdin → its SHA-256, for the config file)

Environment: TOOLGATE_LISTEN, TOOLGATE_DATABASE_URL (sqlite:PATH | postgres://…),
TOOLGATE_CORS_ORIGINS (comma-separated), TOOLGATE_TOKENS ([{\"name\",\"owner\",\"roles\",\"token\"}]).";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.first().map(String::as_str) {
        Some("hash-token") => return hash_token(),
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
    if token.len() < 16 {
        eprintln!("toolgate-server hash-token: a token needs at least 16 characters");
        return ExitCode::from(2);
    }
    println!("{}", hex(&digest(token)));
    ExitCode::SUCCESS
}

fn serve(args: Vec<String>) -> Result<(), String> {
    let mut file: Option<PathBuf> = None;
    let mut overrides = Overrides::default();
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
    let kind = store.kind();
    let state = AppState {
        store: Arc::new(store),
        policy: Arc::new(config.policy),
        tokens: config.tokens.into(),
    };
    let app = router(state, &config.cors_origins)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
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
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown())
            .await
            .map_err(|e| format!("server: {e}"))
    })
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
