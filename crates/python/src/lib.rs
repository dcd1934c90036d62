//! `toolgate._native`: the gate's core for Python. A thin layer: a policy built from
//! the defaults or a TOML file, and a tool call classified by exactly the code the
//! `toolgate` command runs (`toolgate_fs::classify_value`, file-system facts off unless
//! asked). Calls and verdicts cross as JSON text, which the `toolgate` package
//! (crates/python/python/toolgate) turns into Python values; errors are
//! `toolgate.ToolgateError` with a stable `code`.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::Value;

pyo3::create_exception!(
    _native,
    ToolgateError,
    PyException,
    "An error from toolgate; `code` says which (`bad_policy`, `bad_path`, `bad_input`)."
);

/// A `ToolgateError` with `code` set.
fn error(py: Python<'_>, code: &str, message: impl Into<String>) -> PyErr {
    let err = ToolgateError::new_err(message.into());
    // Setting an attribute on a fresh exception cannot fail but for memory: then the
    // error is raised without its code, which the Python side reads as `internal`.
    let _ = err.value(py).setattr("code", code);
    err
}

/// An absolute path, as the core expects a workspace or home to be.
fn absolute(py: Python<'_>, what: &str, path: &str) -> PyResult<String> {
    if path.starts_with('/') && !path.contains('\0') {
        Ok(path.to_string())
    } else {
        Err(error(
            py,
            "bad_path",
            format!("{what} must be an absolute path, not {path:?}"),
        ))
    }
}

/// A policy: the built-in rules, or a policy file's, for one workspace and home.
#[pyclass(frozen, module = "toolgate._native")]
struct Policy {
    inner: toolgate_core::Policy,
}

#[pymethods]
impl Policy {
    /// The built-in policy for `workspace` and `home` (absolute paths).
    #[staticmethod]
    fn defaults(py: Python<'_>, workspace: &str, home: &str) -> PyResult<Policy> {
        let workspace = absolute(py, "workspace", workspace)?;
        let home = absolute(py, "home", home)?;
        Ok(Policy {
            inner: toolgate_core::Policy::defaults(&workspace, &home),
        })
    }

    /// A policy file's text (TOML); `workspace` and `home` override the file's.
    #[staticmethod]
    #[pyo3(signature = (text, workspace=None, home=None))]
    fn from_toml(
        py: Python<'_>,
        text: &str,
        workspace: Option<&str>,
        home: Option<&str>,
    ) -> PyResult<Policy> {
        let mut inner = toolgate_core::Policy::from_toml(text)
            .map_err(|e| error(py, "bad_policy", e.to_string()))?;
        if let Some(w) = workspace {
            inner = inner.with_workspace(&absolute(py, "workspace", w)?);
        }
        if let Some(h) = home {
            inner = inner.with_home(&absolute(py, "home", h)?);
        }
        Ok(Policy { inner })
    }

    /// The workspace the policy judges paths against.
    #[getter]
    fn workspace(&self) -> &str {
        self.inner.workspace()
    }

    /// The home directory the policy judges paths against.
    #[getter]
    fn home(&self) -> &str {
        self.inner.home()
    }

    /// The verdict for a call (`{"tool": …, "args": …}` as JSON text), as JSON text.
    /// With `fs`, paths are looked up on this machine (symbolic links, what exists),
    /// as `toolgate classify --fs` does.
    #[pyo3(signature = (call_json, fs=false))]
    fn classify_json(&self, py: Python<'_>, call_json: &str, fs: bool) -> PyResult<String> {
        let value: Value = serde_json::from_str(call_json)
            .map_err(|e| error(py, "bad_input", format!("the call is not JSON: {e}")))?;
        if !value.is_object() {
            return Err(error(py, "bad_input", "the call is not a JSON object"));
        }
        // The classifier does not touch Python objects: other threads may run meanwhile.
        let verdict = py.detach(|| toolgate_fs::classify_value(&self.inner, &value, fs));
        serde_json::to_string(&verdict).map_err(|e| error(py, "internal", e.to_string()))
    }
}

/// A core error as `ToolgateError` with the core's code.
fn core_error(py: Python<'_>, e: &toolgate_core::Error) -> PyErr {
    error(py, e.code(), e.to_string())
}

/// JSON text of a wire view.
fn to_json(py: Python<'_>, v: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| error(py, "internal", e.to_string()))
}

/// Parked runs in a database (`sqlite:PATH` or `postgres://…`), the same tables and the
/// same exactly-once guarantees as `toolgate-server`'s, so its panel shows and decides
/// the runs parked here. Requests and results are the server's wire shapes, as JSON text.
#[pyclass(frozen, module = "toolgate._native")]
struct RunStore {
    store: toolgate_store::SqlStore,
    owner: String,
    name: String,
}

#[pymethods]
impl RunStore {
    /// Opens (and migrates) the database at `url`; runs are parked as `owner`, by `name`
    /// (the server's token name for an agent).
    #[new]
    fn new(py: Python<'_>, url: &str, owner: &str, name: &str) -> PyResult<RunStore> {
        if owner.is_empty() || name.is_empty() {
            return Err(error(py, "bad_input", "owner and name must not be empty"));
        }
        let store = py
            .detach(|| toolgate_store::open(url, toolgate_store::StoreOptions::default()))
            .map_err(|e| match e {
                toolgate_store::OpenError::BadUrl(m) => error(py, "bad_url", m),
                toolgate_store::OpenError::Store(e) => core_error(py, &e),
                other => error(py, "store", other.to_string()),
            })?;
        Ok(RunStore {
            store,
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }

    /// Parks a run (`{runId, sessionId?, calls, history, ttlMs?}`), each call classified
    /// by `policy`; the parked run (`{run, …}`).
    fn park_json(&self, py: Python<'_>, policy: &Policy, request: &str) -> PyResult<String> {
        let req: toolgate_core::wire::ParkRequest = serde_json::from_str(request)
            .map_err(|e| error(py, "bad_input", format!("the park request: {e}")))?;
        let run_id = req
            .run_id
            .clone()
            .ok_or_else(|| error(py, "bad_input", "the park request has no runId"))?;
        if req.owner.as_ref().is_some_and(|o| *o != self.owner) {
            return Err(error(
                py,
                "bad_input",
                format!("owner: the store's owner is `{}`", self.owner),
            ));
        }
        let calls = req.park_calls(|call| policy.inner.classify(call));
        let park = toolgate_core::Park {
            session_id: req.session_id.clone().unwrap_or_else(|| run_id.clone()),
            run_id,
            owner: self.owner.clone(),
            calls,
            history: req.history,
            ttl_ms: req.ttl_ms,
            parked_by: Some(self.name.clone()),
        };
        let parked = py
            .detach(|| {
                toolgate_core::Runs::new(self.store.owner(&self.owner))
                    .park(park, toolgate_store::now_ms())
            })
            .map_err(|e| core_error(py, &e))?;
        to_json(py, &toolgate_core::wire::ParkedView::from(&parked))
    }

    /// The run (`GET /v1/runs/{id}`'s shape), `None` when there is none.
    fn run_json(&self, py: Python<'_>, run_id: &str) -> PyResult<Option<String>> {
        let run = py
            .detach(|| {
                toolgate_core::Runs::new(self.store.owner(&self.owner)).run_of(
                    run_id,
                    &self.owner,
                    toolgate_store::now_ms(),
                )
            })
            .map_err(|e| core_error(py, &e))?;
        run.map(|r| to_json(py, &toolgate_core::wire::RunView::from(&r)))
            .transpose()
    }

    /// Decides the run's pending calls (`{decisions, revision?}`, the panel's request)
    /// as `by`, once; the history is kept for the agent to take (`take_json`). A
    /// decision's edited `args` are classified again by `policy` (none: edits are
    /// refused, `edit_refused`).
    #[pyo3(signature = (run_id, request, by, policy=None))]
    fn decide_json(
        &self,
        py: Python<'_>,
        run_id: &str,
        request: &str,
        by: &str,
        policy: Option<PyRef<'_, Policy>>,
    ) -> PyResult<String> {
        let policy = policy.map(|p| p.inner.clone());
        let v: Value = serde_json::from_str(request)
            .map_err(|e| error(py, "bad_input", format!("the decisions: {e}")))?;
        let seen = v.get("revision").and_then(Value::as_u64);
        let decisions: toolgate_core::wire::ResumeRequest = serde_json::from_value(
            serde_json::json!({ "decisions": v.get("decisions").cloned().unwrap_or(Value::Null) }),
        )
        .map_err(|e| error(py, "bad_input", format!("the decisions: {e}")))?;
        let decisions = decisions
            .into_decisions()
            .map_err(|m| error(py, "bad_input", m))?;
        if decisions.is_empty() {
            return Err(error(
                py,
                "bad_input",
                "decisions: at least one is required",
            ));
        }
        let resumed = py
            .detach(|| {
                let edits = policy.map(|p| -> toolgate_core::EditCheck {
                    std::rc::Rc::new(move |c: &toolgate_core::ToolCall| p.classify(c))
                });
                toolgate_core::Runs::new(self.store.owner(&self.owner))
                    .keeping_history()
                    .with_edit_check(edits)
                    .resume_seen(
                        run_id,
                        &self.owner,
                        &decisions,
                        toolgate_store::now_ms(),
                        Some(by),
                        seen,
                    )
            })
            .map_err(|e| core_error(py, &e))?;
        to_json(py, &toolgate_core::wire::ResumedView::from(&resumed))
    }

    /// What a person decided for the run's last marker (or, for an expired one, each
    /// call `expired`) with the parked history: taken once (`POST …/resume`'s shape).
    fn take_json(&self, py: Python<'_>, run_id: &str) -> PyResult<String> {
        let taken = py
            .detach(|| {
                toolgate_core::Runs::new(self.store.owner(&self.owner)).resume(
                    run_id,
                    &self.owner,
                    &[],
                    toolgate_store::now_ms(),
                )
            })
            .map_err(|e| match e {
                toolgate_core::Error::MissingDecision { .. } => error(
                    py,
                    "awaiting_permission",
                    "nobody has decided yet: the run still awaits permission",
                ),
                e => core_error(py, &e),
            })?;
        to_json(py, &toolgate_core::wire::ResumedView::from(&taken))
    }

    /// Cancels a run that is running or awaits permission (its marker cleared); the run.
    fn cancel_json(&self, py: Python<'_>, run_id: &str, reason: &str) -> PyResult<String> {
        let run = py
            .detach(|| {
                toolgate_core::Runs::new(self.store.owner(&self.owner)).cancel(
                    run_id,
                    &self.owner,
                    reason,
                    toolgate_store::now_ms(),
                )
            })
            .map_err(|e| core_error(py, &e))?;
        to_json(py, &toolgate_core::wire::RunView::from(&run))
    }

    /// The owner's runs (`GET /v1/runs`' `runs`), as a JSON list.
    fn runs_json(&self, py: Python<'_>) -> PyResult<String> {
        let runs = py
            .detach(|| {
                toolgate_core::Runs::new(self.store.owner(&self.owner))
                    .runs_of(&self.owner, toolgate_store::now_ms())
            })
            .map_err(|e| core_error(py, &e))?;
        let views: Vec<_> = runs
            .iter()
            .map(toolgate_core::wire::RunView::from)
            .collect();
        to_json(py, &views)
    }

    /// Marks a running run (its decision taken) completed; the run.
    fn complete_json(&self, py: Python<'_>, run_id: &str) -> PyResult<String> {
        let run = py
            .detach(|| {
                toolgate_core::Runs::new(self.store.owner(&self.owner)).complete(
                    run_id,
                    &self.owner,
                    toolgate_store::now_ms(),
                )
            })
            .map_err(|e| core_error(py, &e))?;
        to_json(py, &toolgate_core::wire::RunView::from(&run))
    }

    /// The owner runs are parked as.
    #[getter]
    fn owner(&self) -> &str {
        &self.owner
    }
}

/// A call's anchor (lowercase hex SHA-256 of the tool, a NUL and the canonical JSON of
/// the arguments): what a decision is bound to.
#[pyfunction]
fn anchor(py: Python<'_>, tool: &str, args_json: &str) -> PyResult<String> {
    let args: Value = serde_json::from_str(args_json)
        .map_err(|e| error(py, "bad_input", format!("the arguments are not JSON: {e}")))?;
    Ok(toolgate_core::call::anchor(tool, &args))
}

/// The module: `Policy`, `RunStore`, `anchor`, `ToolgateError`, and the core's version.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Policy>()?;
    m.add_class::<RunStore>()?;
    m.add_function(wrap_pyfunction!(anchor, m)?)?;
    m.add("ToolgateError", m.py().get_type::<ToolgateError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
