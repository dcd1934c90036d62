//! toolgate in a Tauri app: the app's own agent runs on its Rust side and asks the
//! plugin before each tool call (`app.toolgate().check_with(…)`); the window's
//! `<toolgate-approval>` renders what asks and decides it. The agent's tools are
//! simulated: "running" one appends `ran: COMMAND` to `agent.log` in the app's data
//! directory (and tells the window), so a test can count how often each one ran.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_toolgate::{CheckOptions, ToolgateExt};
use toolgate_core::{Outcome, ToolCall};

/// The script: one call the policy allows, one it asks about, one it denies.
const STEPS: &[&str] = &["git status", "npm publish", "rm -rf /"];

fn append(log: &Path, line: &str) {
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        eprintln!("toolgate-tauri-example: {}: {e}", log.display());
    }
}

async fn agent<R: Runtime>(app: AppHandle<R>, log: PathBuf) {
    let gate = app.toolgate().clone();
    for (i, command) in STEPS.iter().enumerate() {
        let call = ToolCall::new("bash", json!({ "command": command }));
        let options = CheckOptions {
            session_id: Some("agent".to_string()),
            tool_call_id: Some(format!("step-{i}")),
            timeout_ms: None,
        };
        let line = match gate.check_with(call, options).await {
            // The only way a tool runs: approved (by the policy's `auto`, or a person).
            Ok(checked) if checked.approved() => format!("ran: {command}"),
            Ok(checked) => {
                let why = match &checked.outcome {
                    Outcome::Denied { message } => message.clone().unwrap_or_default(),
                    Outcome::Expired => "nobody answered in time".to_string(),
                    _ => "cancelled".to_string(),
                };
                format!("not run: {command} ({why})")
            }
            Err(e) => format!("not run: {command} (error {}: {e})", e.code()),
        };
        append(&log, &line);
        let _ = app.emit("agent://log", &line);
    }
}

fn main() {
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_toolgate::init())
        .setup(|app| {
            let dir = app.path().app_data_dir()?;
            std::fs::create_dir_all(&dir)?;
            tauri::async_runtime::spawn(agent(app.handle().clone(), dir.join("agent.log")));
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = app {
        eprintln!("toolgate-tauri-example: {e}");
        std::process::exit(1);
    }
}
