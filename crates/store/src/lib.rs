//! toolgate-store: the core's [`MarkerStore`] on SQL, so that parked runs live in the
//! agent server's database: **SQLite** (embedded, the default: a file in WAL mode,
//! created on first open) and **PostgreSQL** (for several replicas). [`open`] picks the
//! backend from the database URL.
//!
//! One table, `toolgate_runs (owner, run_key, revision, value, …)`: runs are kept per
//! owner (the key is `(owner, run_key)`: one owner's run ids are not another's, and no
//! answer about one owner's id says anything of another's), with the compare-and-swap
//! token and the run's JSON document exactly as core writes it, and columns the store
//! derives from it on each write for SQL to page, count and prune by (`status`,
//! `parked_by`, `updated_at`). Core reaches the rows of one owner through
//! [`SqlStore::owner`], a [`MarkerStore`]. Every write is one conditional statement (`INSERT … ON CONFLICT DO NOTHING`,
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

#![deny(missing_docs)]
pub mod audit;
mod grants;
mod migrate;
pub mod pg_tls;
mod postgres_store;
mod sqlite_store;

pub use audit::{AuditCheck, AuditRecord};
pub use grants::GrantFilter;
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
    /// A SQLite file (or memory).
    Sqlite(SqliteStore),
    /// A PostgreSQL database.
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

    /// Walks the whole audit trail's chain (see [`audit::link`]): the first record that
    /// was edited, deleted (in the middle: the next record's link breaks; at the end: the
    /// chain's head, kept in its own table, names a record past the last), or none.
    pub fn verify_audit(&self) -> Result<AuditCheck, Error> {
        match self {
            SqlStore::Sqlite(s) => s.verify_audit(),
            SqlStore::Postgres(s) => s.verify_audit(),
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

    /// The runs of `owner`: what core's [`Runs`](toolgate_core::Runs) works on. Every
    /// statement through it names the owner, so nothing it does reaches another's run.
    pub fn owner<'a>(&'a self, owner: &'a str) -> Owned<'a> {
        Owned { store: self, owner }
    }

    /// The owners that have a finished run (`completed`, `failed`, `cancelled`) whose
    /// status last changed before `cutoff` ms, a run parked so long before it that its
    /// marker must have expired (unread since), or a row whose document could not be
    /// read: where pruning has work.
    pub fn owners_to_prune(&self, cutoff: u64) -> Result<Vec<String>, Error> {
        match self {
            SqlStore::Sqlite(s) => s.owners_to_prune(cutoff),
            SqlStore::Postgres(s) => s.owners_to_prune(cutoff),
        }
    }
}

/// One owner's runs in a [`SqlStore`] ([`SqlStore::owner`]).
#[derive(Clone, Copy)]
pub struct Owned<'a> {
    store: &'a SqlStore,
    owner: &'a str,
}

/// What a page of runs is filtered by.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageFilter<'a> {
    /// Only runs with this status (`awaiting_permission`, `running`, …).
    pub status: Option<&'a str>,
    /// Only runs this agent parked (and runs no agent is named on: parked before the
    /// store recorded agents).
    pub parked_by: Option<&'a str>,
}

impl Owned<'_> {
    /// The owner.
    pub fn name(&self) -> &str {
        self.owner
    }

    /// At most `limit` runs with a run id after `after` (none: from the first), by run
    /// id, filtered by `filter`: a page of a listing.
    pub fn page(
        &self,
        after: Option<&str>,
        limit: usize,
        filter: PageFilter<'_>,
    ) -> Result<Vec<(String, Stored)>, Error> {
        match self.store {
            SqlStore::Sqlite(s) => s.page(self.owner, after, limit, filter),
            SqlStore::Postgres(s) => s.page(self.owner, after, limit, filter),
        }
    }

    /// How many of the owner's runs await permission.
    pub fn waiting(&self) -> Result<u64, Error> {
        match self.store {
            SqlStore::Sqlite(s) => s.waiting(self.owner),
            SqlStore::Postgres(s) => s.waiting(self.owner),
        }
    }
}

impl MarkerStore for Owned<'_> {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        match self.store {
            SqlStore::Sqlite(s) => s.get_in(self.owner, key),
            SqlStore::Postgres(s) => s.get_in(self.owner, key),
        }
    }
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        match self.store {
            SqlStore::Sqlite(s) => s.put_in(self.owner, key, expected, new),
            SqlStore::Postgres(s) => s.put_in(self.owner, key, expected, new),
        }
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        match self.store {
            SqlStore::Sqlite(s) => s.delete_in(self.owner, key, expected),
            SqlStore::Postgres(s) => s.delete_in(self.owner, key, expected),
        }
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        Ok(self.entries()?.into_iter().map(|(k, _)| k).collect())
    }
    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        self.page(None, usize::MAX, PageFilter::default())
    }
}

/// What the store reads from a run's document on each write, for SQL to filter by:
/// status (`unreadable` when the document does not parse: core fails such a run when it
/// reads it), the agent that parked it, when its status last changed.
pub(crate) struct Head {
    pub status: String,
    pub parked_by: Option<String>,
    pub updated_at: i64,
}

/// The status a row gets when its document cannot be read.
pub(crate) const UNREADABLE: &str = "unreadable";

pub(crate) fn head(value: &str) -> Head {
    #[derive(serde::Deserialize)]
    struct HeadIn {
        status: String,
        #[serde(default)]
        parked_by: Option<String>,
        #[serde(default)]
        updated_at: Option<u64>,
        #[serde(default)]
        created_at: Option<u64>,
    }
    match serde_json::from_str::<HeadIn>(value) {
        Ok(h) => Head {
            status: h.status,
            parked_by: h.parked_by,
            updated_at: h
                .updated_at
                .or(h.created_at)
                .and_then(|t| i64::try_from(t).ok())
                .unwrap_or(0),
        },
        Err(_) => Head {
            status: UNREADABLE.to_string(),
            parked_by: None,
            updated_at: 0,
        },
    }
}

/// The owner a document names (`''` when it cannot be read), for migrating old rows.
pub(crate) fn owner_of(value: &str) -> String {
    #[derive(serde::Deserialize)]
    struct OwnerIn {
        owner: String,
    }
    serde_json::from_str::<OwnerIn>(value)
        .map(|o| o.owner)
        .unwrap_or_default()
}

/// A page size as SQL takes it.
pub(crate) fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
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
