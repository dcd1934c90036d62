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

/// The module: `Policy`, `ToolgateError`, and the core's version.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Policy>()?;
    m.add("ToolgateError", m.py().get_type::<ToolgateError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
