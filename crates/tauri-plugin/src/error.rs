//! The plugin's errors: core's (with core's codes), bad input, a store that could not
//! be opened. A command's rejection in JavaScript is `{code, message}`.

use serde::ser::SerializeStruct;

/// Why a call into the plugin failed. Nothing is approved by an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Core refused (`already_resumed`, `expired`, `anchor_mismatch`, `not_found`,
    /// `bad_park`, `store_unavailable`, …).
    #[error(transparent)]
    Core(#[from] toolgate_core::Error),
    /// The arguments were malformed (a missing field, a wrong type, an unknown field).
    #[error("{0}")]
    BadInput(String),
    /// The policy or the database named in the configuration could not be loaded.
    #[error("{0}")]
    Setup(String),
    /// A take before anyone decided the run.
    #[error("run `{0}`: nobody has decided yet (wait for toolgate://changed, then take again)")]
    AwaitingPermission(String),
    /// A store task could not finish (it panicked or the runtime is shutting down).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The machine-readable code, as the browser's `Gate` and the server name it.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Core(e) => e.code(),
            Error::BadInput(_) => "bad_input",
            Error::Setup(_) => "setup",
            Error::AwaitingPermission(_) => "awaiting_permission",
            Error::Internal(_) => "internal_error",
        }
    }

    pub(crate) fn bad_input(what: &str, e: impl std::fmt::Display) -> Error {
        Error::BadInput(format!("{what}: {e}"))
    }
}

impl From<toolgate_store::OpenError> for Error {
    fn from(e: toolgate_store::OpenError) -> Error {
        match e {
            toolgate_store::OpenError::Store(e) => Error::Core(e),
            other => Error::Setup(other.to_string()),
        }
    }
}

/// `{code, message}`: what `invoke` rejects with.
impl serde::Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Error", 2)?;
        st.serialize_field("code", self.code())?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

/// The plugin's result: its [`Error`] by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
