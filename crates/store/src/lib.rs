//! toolgate-store: the core's [`MarkerStore`] on SQL, so that parked runs live in the
//! agent server's database: **SQLite** (embedded, the default: a file in WAL mode,
//! created on first open) and **PostgreSQL** (for several replicas). [`open`] picks the
//! backend from the database URL.
//!
//! One table, `toolgate_runs (run_key, revision, value)`: the run id, the
//! compare-and-swap token and the run's JSON document exactly as core writes it. Every
//! write is one conditional statement (`INSERT … ON CONFLICT DO NOTHING`,
//! `UPDATE … WHERE revision = ?`, `DELETE … WHERE revision = ?`) whose row count says
//! whether it won, so a compare-and-swap is atomic against every other connection,
//! process and replica on the same database: that is what makes resume exactly once.
//! What the rows mean (markers, expiry, a corrupt document → `failed`) is core's
//! [`Runs`](toolgate_core::Runs); this crate only keeps them.
//!
//! The schema is created and upgraded by the migrations in `migrations/` (applied in
//! order at open, each once, recorded in `toolgate_migrations`; concurrent opens take a
//! lock first). Values are bounded ([`StoreOptions::max_value_bytes`]): a larger one is
//! `quota_exceeded` and nothing is written.
//!
//! The audit trail (`toolgate_audit`): each time a write takes a run out of
//! `awaiting_permission`, one row per pending call (approved, denied, expired,
//! cancelled, failed; who decided; the anchor, rule and reason) is inserted in the same
//! transaction as the write ([`audit`]), so each request's end is recorded exactly once.

pub mod audit;
mod migrate;
mod postgres_store;
mod sqlite_store;

pub use audit::AuditRecord;
pub use postgres_store::PostgresStore;
pub use sqlite_store::{exposed, SqliteStore};

use toolgate_core::{Error, MarkerStore, Stored};

/// Milliseconds since the epoch, as every host (the server, the Tauri plugin, the CLI)
/// gives it to core, which reads no clock. 0 if the clock is before the epoch: nothing
/// is granted by a wrong clock; markers would only look expired sooner.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Limits of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// The largest value (a run's JSON document) a write may store, in bytes. Core bounds
    /// a marker's history at 512 KiB; the default, 2 MiB, leaves room for its calls.
    pub max_value_bytes: usize,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            max_value_bytes: 2 * 1024 * 1024,
        }
    }
}

/// A store chosen by URL: `sqlite:PATH` / `sqlite://PATH` (a file, created with its
/// directory when absent), `sqlite::memory:` (tests), or `postgres://…` /
/// `postgresql://…` (libpq's URL form: `postgres://user:password@host:port/db`).
pub enum SqlStore {
    Sqlite(SqliteStore),
    Postgres(Box<PostgresStore>),
}

/// Which backend a database URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// A file path, or `:memory:`.
    Sqlite(String),
    /// The URL as given.
    Postgres(String),
}

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The URL names no backend this crate has.
    #[error("bad database URL: {0}")]
    BadUrl(String),
    /// The database could not be reached, created or migrated.
    #[error(transparent)]
    Store(#[from] Error),
}

/// Parses a database URL.
pub fn backend(url: &str) -> Result<Backend, OpenError> {
    let url = url.trim();
    if let Some(rest) = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    {
        if rest.is_empty() {
            return Err(bad_url("sqlite: needs a file path (sqlite:./toolgate.db)"));
        }
        return Ok(Backend::Sqlite(rest.to_string()));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Backend::Postgres(url.to_string()));
    }
    Err(bad_url(
        "the database URL must start with sqlite: or postgres:// (e.g. sqlite:./toolgate.db)",
    ))
}

fn bad_url(why: &str) -> OpenError {
    OpenError::BadUrl(why.to_string())
}

/// Opens (and migrates) the store a database URL names.
pub fn open(url: &str, options: StoreOptions) -> Result<SqlStore, OpenError> {
    Ok(match backend(url)? {
        Backend::Sqlite(path) => SqlStore::Sqlite(SqliteStore::open(&path, options)?),
        Backend::Postgres(url) => {
            SqlStore::Postgres(Box::new(PostgresStore::connect(&url, options)?))
        }
    })
}

impl SqlStore {
    /// `sqlite` or `postgres`.
    pub fn kind(&self) -> &'static str {
        match self {
            SqlStore::Sqlite(_) => "sqlite",
            SqlStore::Postgres(_) => "postgres",
        }
    }

    /// The audit trail: `owner`'s records (every owner's for `None`) at or after
    /// `since` ms, oldest first, at most `limit`.
    pub fn audit(
        &self,
        owner: Option<&str>,
        since: u64,
        limit: usize,
    ) -> Result<Vec<AuditRecord>, Error> {
        match self {
            SqlStore::Sqlite(s) => s.audit(owner, since, limit),
            SqlStore::Postgres(s) => s.audit(owner, since, limit),
        }
    }

    /// Who decided `owner`'s call `tool_call_id` of run `run_id` with arguments `anchor`
    /// (the audit trail's last approved or denied record of it): tells a device whose
    /// decision lost, after the run moved on, who won.
    pub fn decided_by(
        &self,
        owner: &str,
        run_id: &str,
        tool_call_id: &str,
        anchor: &str,
    ) -> Result<Option<String>, Error> {
        match self {
            SqlStore::Sqlite(s) => s.decided_by(owner, run_id, tool_call_id, anchor),
            SqlStore::Postgres(s) => s.decided_by(owner, run_id, tool_call_id, anchor),
        }
    }

    /// A counter that grows with every write to the runs, from any connection, process
    /// or replica: unchanged means every run reads as before (expiry aside, which
    /// depends on the clock).
    pub fn changes(&self) -> Result<u64, Error> {
        match self {
            SqlStore::Sqlite(s) => s.changes(),
            SqlStore::Postgres(s) => s.changes(),
        }
    }

    fn inner(&self) -> &dyn MarkerStore {
        match self {
            SqlStore::Sqlite(s) => s,
            SqlStore::Postgres(s) => &**s,
        }
    }
}

impl MarkerStore for SqlStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.inner().get(key)
    }
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        self.inner().put_if_revision(key, expected, new)
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        self.inner().delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        self.inner().keys()
    }
    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        self.inner().entries()
    }
}

/// A revision as SQL stores it (a signed 64-bit integer).
fn sql_revision(key: &str, revision: u64) -> Result<i64, Error> {
    i64::try_from(revision).map_err(|_| Error::StoreUnavailable {
        message: format!("revision {revision} of `{key}` does not fit the database"),
    })
}

/// A revision as read back (the schema keeps it positive).
fn read_revision(key: &str, revision: i64) -> Result<u64, Error> {
    u64::try_from(revision)
        .ok()
        .filter(|r| *r > 0)
        .ok_or_else(|| Error::StoreUnavailable {
            message: format!("row `{key}` has revision {revision}, not a positive integer"),
        })
}

/// The refusal of a value over the limit; nothing is written.
fn check_size(key: &str, new: &Stored, options: &StoreOptions) -> Result<(), Error> {
    if new.value.len() > options.max_value_bytes {
        return Err(Error::QuotaExceeded {
            key: key.to_string(),
            bytes: new.value.len(),
        });
    }
    Ok(())
}

fn unavailable(backend: &str, e: impl std::fmt::Display) -> Error {
    Error::StoreUnavailable {
        message: format!("{backend}: {e}"),
    }
}
