//! `tauri-plugin-toolgate`: toolgate in a Tauri 2 app. The app's Rust side gets the
//! core natively, with this machine's file-system facts (symbolic links, the trees a
//! recursive read opens) and the runs in SQLite in the app's data directory; its
//! windows get the same runs through `invoke` (`toolgate/tauri` in JavaScript), so the
//! approval panel (`<toolgate-approval>`) renders and decides them.
//!
//! In the app (which enables Tauri's `wry` runtime; `examples/tauri-app` builds this):
//!
//! ```ignore
//! use tauri_plugin_toolgate::ToolgateExt;
//! tauri::Builder::default()
//!     .plugin(tauri_plugin_toolgate::init())
//!     .setup(|app| {
//!         let gate = app.toolgate().clone();
//!         tauri::async_runtime::spawn(async move {
//!             let call = toolgate_core::ToolCall::new("bash", serde_json::json!({"command": "npm publish"}));
//!             // `ask`: waits until a person decides in a window (or the timeout).
//!             if let Ok(checked) = gate.check(call).await {
//!                 if checked.approved() { /* run it, once */ }
//!             }
//!         });
//!         Ok(())
//!     })
//!     .run(tauri::generate_context!())?;
//! ```
//!
//! Commands (`plugin:toolgate|…`) and the permission sets that allow them:
//! - `toolgate:default` (read-only): `classify`, `runs`, `run`, `pending`;
//! - `toolgate:decide`: `respond`, `resume`;
//! - `toolgate:agent`: `check`, `park`, `take`, `cleanup`.
//!
//! Every write emits [`CHANGED_EVENT`] to the app's windows with `{runId}`.

#![deny(missing_docs)]
mod commands;
mod error;
mod gate;

use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use tauri::plugin::{Builder as PluginBuilder, TauriPlugin};
use tauri::webview::PageLoadEvent;
use tauri::{AppHandle, Emitter, Manager, RunEvent, Runtime, WindowEvent};
use toolgate_core::{
    CleanupCounts, Parked, Policy, ResumeDecision, Resumed, Run, ToolCall, Verdict,
};
use toolgate_store::StoreOptions;

pub use error::{Error, Result};
pub use gate::{
    is_check, now_ms, CheckOptions, Checked, PendingRequest, Response, CHECK_HISTORY, CHECK_PREFIX,
    DEFAULT_SESSION, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS,
};

use gate::{Begun, Inner};

/// The event every write sends to the app's windows: `{runId}`.
pub const CHANGED_EVENT: &str = "toolgate://changed";

/// The owner of the app's runs unless configured: one person at one desktop.
pub const DEFAULT_OWNER: &str = "local";

/// `plugins.toolgate` in `tauri.conf.json` (every field optional):
/// `{database?, policy?, workspace?, owner?, fs?, timeoutMs?}`. What the Rust
/// [`Builder`] sets wins.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// `sqlite:PATH` or `postgres://…` (default: `toolgate.db` in the app's data
    /// directory).
    pub database: Option<String>,
    /// A policy file (TOML; a relative path is taken from the current directory).
    /// Default: the built-in policy.
    pub policy: Option<PathBuf>,
    /// The workspace the policy trusts (default: the policy file's, else the current
    /// directory).
    pub workspace: Option<String>,
    /// The owner of the app's runs (default `"local"`).
    pub owner: Option<String>,
    /// Look paths up on this machine (default true).
    pub fs: Option<bool>,
    /// A check's default timeout, ms (default 120000, at most 1800000).
    pub timeout_ms: Option<u64>,
}

/// The plugin, configured from Rust (what is not set here comes from
/// `plugins.toolgate` in `tauri.conf.json`, then the defaults).
#[derive(Default)]
pub struct Builder {
    policy: Option<Policy>,
    config: Config,
}

impl Builder {
    /// A builder that sets nothing: `tauri.conf.json` and the defaults decide.
    pub fn new() -> Builder {
        Builder::default()
    }
    /// The policy (default: the configuration's file, else the built-in policy with
    /// the current directory as the workspace and `$HOME` as home).
    pub fn policy(mut self, policy: Policy) -> Builder {
        self.policy = Some(policy);
        self
    }
    /// The database URL: `sqlite:PATH` or `postgres://…`.
    pub fn database(mut self, url: impl Into<String>) -> Builder {
        self.config.database = Some(url.into());
        self
    }
    /// The owner of the app's runs.
    pub fn owner(mut self, owner: impl Into<String>) -> Builder {
        self.config.owner = Some(owner.into());
        self
    }
    /// Look paths up on this machine's file system (default true).
    pub fn fs(mut self, on: bool) -> Builder {
        self.config.fs = Some(on);
        self
    }
    /// A check's default timeout in ms (clamped to 30 minutes).
    pub fn timeout_ms(mut self, ms: u64) -> Builder {
        self.config.timeout_ms = Some(ms);
        self
    }

    /// The plugin. Setup fails (the app does not start) when the policy file or the
    /// database cannot be loaded, saying which.
    pub fn build<R: Runtime>(self) -> TauriPlugin<R, Option<Config>> {
        let Builder { policy, config } = self;
        PluginBuilder::<R, Option<Config>>::new("toolgate")
            .invoke_handler(tauri::generate_handler![
                commands::classify,
                commands::check,
                commands::pending,
                commands::respond,
                commands::park,
                commands::runs,
                commands::run,
                commands::resume,
                commands::take,
                commands::cleanup,
            ])
            .setup(move |app, api| {
                let file = api.config().clone().unwrap_or_default();
                let gate = Toolgate::open(app, policy, merge(config, file))?;
                app.manage(gate);
                Ok(())
            })
            .on_page_load(|webview, payload| {
                // A (re)loading page no longer awaits the checks its window started:
                // they end `cancelled`, as the browser's Gate ends them at pagehide.
                if payload.event() == PageLoadEvent::Started {
                    end_session(webview.app_handle(), webview.label());
                }
            })
            .on_event(|app, event| match event {
                // A closed window's checks: nobody awaits them any more.
                RunEvent::WindowEvent {
                    label,
                    event: WindowEvent::Destroyed,
                    ..
                } => end_session(app, label),
                // Nobody will wait for a pending check after this: end them all
                // (cancelled, never approved).
                RunEvent::Exit => {
                    if let Some(gate) = app.try_state::<Toolgate<R>>() {
                        let _ = gate.cleanup(None);
                    }
                }
                _ => {}
            })
            .build()
    }
}

/// Initializes the plugin with the configuration of `tauri.conf.json`.
pub fn init<R: Runtime>() -> TauriPlugin<R, Option<Config>> {
    Builder::new().build()
}

/// Cancels the pending checks of window `label`'s session, off the UI thread.
fn end_session<R: Runtime>(app: &AppHandle<R>, label: &str) {
    if let Some(gate) = app.try_state::<Toolgate<R>>() {
        let gate = gate.inner().clone();
        let label = label.to_string();
        tauri::async_runtime::spawn_blocking(move || {
            // Nothing pending in that session is the usual case; a store error leaves
            // the checks to their deadline (never approved).
            let _ = gate.cleanup(Some(&label));
        });
    }
}

fn merge(rust: Config, file: Config) -> Config {
    Config {
        database: rust.database.or(file.database),
        policy: rust.policy.or(file.policy),
        workspace: rust.workspace.or(file.workspace),
        owner: rust.owner.or(file.owner),
        fs: rust.fs.or(file.fs),
        timeout_ms: rust.timeout_ms.or(file.timeout_ms),
    }
}

/// The app's gate: `app.toolgate()` ([`ToolgateExt`]). Cheap to clone (an `Arc`);
/// methods that touch the database block for one SQL statement or a few.
pub struct Toolgate<R: Runtime> {
    app: AppHandle<R>,
    inner: Arc<Inner>,
}

impl<R: Runtime> Clone for Toolgate<R> {
    fn clone(&self) -> Self {
        Toolgate {
            app: self.app.clone(),
            inner: self.inner.clone(),
        }
    }
}

fn load_policy(config: &Config) -> Result<Policy> {
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".to_string());
    let home = std::env::var("HOME").unwrap_or_else(|_| "/".to_string());
    let policy = match &config.policy {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::Setup(format!("toolgate: policy {}: {e}", path.display())))?;
            Policy::from_toml(&text)
                .map_err(|e| Error::Setup(format!("toolgate: policy {}: {e}", path.display())))?
        }
        None => Policy::defaults(&cwd, &home),
    };
    Ok(match &config.workspace {
        Some(w) => policy.with_workspace(w),
        None => policy,
    })
}

impl<R: Runtime> Toolgate<R> {
    fn open(app: &AppHandle<R>, policy: Option<Policy>, config: Config) -> Result<Toolgate<R>> {
        let policy = match policy {
            Some(p) => p,
            None => load_policy(&config)?,
        };
        let url = match config.database {
            Some(url) => url,
            None => {
                let dir = app
                    .path()
                    .app_data_dir()
                    .map_err(|e| Error::Setup(format!("toolgate: no app data directory: {e}")))?;
                format!("sqlite:{}", dir.join("toolgate.db").display())
            }
        };
        let store = toolgate_store::open(&url, StoreOptions::default())?;
        let inner = Inner::new(
            policy,
            store,
            config.owner.unwrap_or_else(|| DEFAULT_OWNER.to_string()),
            config.fs.unwrap_or(true),
            config.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
        );
        let gate = Toolgate {
            app: app.clone(),
            inner: Arc::new(inner),
        };
        // Checks of an earlier process cannot be answered any more: cancel them.
        gate.cleanup(None)?;
        Ok(gate)
    }

    fn changed(&self, run_id: &str) {
        // A window that misses it still sees the change at its next poll.
        let _ = self
            .app
            .emit(CHANGED_EVENT, serde_json::json!({ "runId": run_id }));
    }

    /// The policy checks classify with.
    pub fn policy(&self) -> &Policy {
        self.inner.policy()
    }
    /// The owner of the app's runs.
    pub fn owner(&self) -> &str {
        self.inner.owner()
    }

    /// Classifies `call` with the policy and this machine's file-system facts.
    pub fn classify(&self, call: &ToolCall) -> Verdict {
        self.inner.classify_in(call, None)
    }

    /// A gated call with the default options; see [`Toolgate::check_with`].
    pub async fn check(&self, call: ToolCall) -> Result<Checked> {
        self.check_with(call, CheckOptions::default()).await
    }

    /// Classifies `call` (with the session's "always" rules): `auto` is approved and
    /// `deny` denied at once; `ask` parks a one-call run that every window's panel
    /// shows, and resolves when a person decides it ([`Toolgate::respond`],
    /// [`Toolgate::resume`], from Rust or a window), at the timeout (`expired`) or at
    /// cleanup (`cancelled`). Dropping the future before then leaves the run to expire
    /// at its deadline.
    pub async fn check_with(&self, call: ToolCall, options: CheckOptions) -> Result<Checked> {
        let inner = self.inner.clone();
        let begun = blocking(move || inner.begin_check(call, options, now_ms())).await?;
        let (run_id, rx, timeout_ms) = match begun {
            Begun::Done(checked) => return Ok(checked),
            Begun::Waiting {
                run_id,
                rx,
                timeout_ms,
            } => (run_id, rx, timeout_ms),
        };
        self.changed(&run_id);
        let timer = {
            let gate = self.clone();
            let run_id = run_id.clone();
            tauri::async_runtime::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(timeout_ms)).await;
                let inner = gate.inner.clone();
                let id = run_id.clone();
                if let Ok(true) = blocking(move || Ok(inner.time_out(&id, now_ms()))).await {
                    gate.changed(&run_id);
                }
            })
        };
        let checked = rx.await;
        timer.abort();
        checked.map_err(|_| Error::Internal(format!("check {run_id}: the waiter was dropped")))
    }

    /// The pending checks of `session` (every session for `None`), oldest first.
    pub fn pending(&self, session: Option<&str>) -> Result<Vec<PendingRequest>> {
        self.inner.pending(session, now_ms())
    }

    /// Answers pending check `id` (`allow_once`, `allow_always` with an offered scope,
    /// `deny`, `deny_always`); its waiter hears the outcome.
    pub fn respond(&self, id: &str, response: Response) -> Result<Resumed> {
        let resumed = self.inner.respond(id, response, now_ms());
        self.changed(id);
        resumed
    }

    /// Parks run `run_id` of the app's owner: the calls (tool call id, call) are
    /// classified here; `history` is what the agent needs to go on.
    pub fn park(
        &self,
        run_id: &str,
        calls: Vec<(String, ToolCall)>,
        history: String,
        ttl_ms: Option<u64>,
    ) -> Result<Parked> {
        let calls = calls
            .into_iter()
            .map(|(id, call)| toolgate_core::wire::ParkCallRequest::call(id, call))
            .collect();
        let parked = self
            .inner
            .park(run_id.to_string(), None, calls, history, ttl_ms, now_ms());
        self.changed(run_id);
        parked
    }

    /// The run, or `None` (another owner's is `None` too).
    pub fn run(&self, run_id: &str) -> Result<Option<Run>> {
        self.inner.run(run_id, now_ms())
    }

    /// Every run of the app's owner, by run id.
    pub fn runs(&self) -> Result<Vec<Run>> {
        self.inner.runs_list(now_ms())
    }

    /// Resumes a parked run with one decision per pending call, exactly once; with no
    /// decisions, takes what a person decided in a window (or what expiry left), once.
    pub fn resume(&self, run_id: &str, decisions: &[ResumeDecision]) -> Result<Resumed> {
        let resumed = self.inner.resume(run_id, decisions, None, now_ms());
        self.changed(run_id);
        resumed
    }

    /// Takes what a person decided for parked run `run_id` (each call's outcome, the
    /// decided arguments, the history), or what expiry left, once: a second take is
    /// `already_resumed`; before a decision, `awaiting_permission`.
    pub fn take(&self, run_id: &str) -> Result<Resumed> {
        match self.inner.resume(run_id, &[], None, now_ms()) {
            Err(Error::Core(toolgate_core::Error::MissingDecision { .. })) => {
                Err(Error::AwaitingPermission(run_id.to_string()))
            }
            other => {
                self.changed(run_id);
                other
            }
        }
    }

    /// Ends the pending checks of `session` (all for `None`): cancelled, never approved.
    pub fn cleanup(&self, session: Option<&str>) -> Result<CleanupCounts> {
        let counts = self.inner.cleanup(session, now_ms());
        self.changed("");
        counts
    }

    pub(crate) fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }
}

/// Runs `f` on Tauri's blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| Error::Internal(format!("the store task failed: {e}")))?
}

/// `app.toolgate()` on the `App`, an `AppHandle`, a window or a webview.
pub trait ToolgateExt<R: Runtime> {
    /// The plugin's state.
    fn toolgate(&self) -> &Toolgate<R>;
}

impl<R: Runtime, T: Manager<R>> ToolgateExt<R> for T {
    fn toolgate(&self) -> &Toolgate<R> {
        self.state::<Toolgate<R>>().inner()
    }
}
