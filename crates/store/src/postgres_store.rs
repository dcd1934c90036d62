//! PostgreSQL: a small pool of connections ([`POOL`]), each behind a mutex and
//! reconnected when it drops, with a connect timeout and a statement timeout, over TLS
//! as the URL's `sslmode` says ([`pg_tls`](crate::pg_tls)).
//! Each compare-and-swap is one statement: under PostgreSQL's row locks a concurrent
//! `UPDATE … WHERE revision = $n` waits for the first and then re-checks the condition on
//! the new row, so of two replicas resuming the same run exactly one changes it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Duration;

use postgres::{Client, NoTls};
use toolgate_core::marker::MAX_MARKER_TTL_MS;
use toolgate_core::{Error, Stored};

use crate::audit::{self, AuditCheck, AuditRecord};
use crate::migrate::POSTGRES;
use crate::{
    check_size, head, read_revision, sql_limit, sql_revision, unavailable, OpenError, PageFilter,
    StoreOptions, UNREADABLE,
};

/// The advisory lock migrations run under (any constant: "toolgate" in ASCII).
const MIGRATION_LOCK: i64 = 0x746f_6f6c_6761_7465;

/// The advisory lock audit writers take, so replicas extend one chain ("tgaudit").
const AUDIT_LOCK: i64 = 0x0074_6761_7564_6974;

/// Connections per store: a request waits for one only when all are busy.
pub const POOL: usize = 4;
/// How long connecting may take (unless the URL says `connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one statement may run (PostgreSQL's `statement_timeout`, unless the URL's
/// `options` set one).
pub const STATEMENT_TIMEOUT_MS: u64 = 15_000;

/// Runs in a PostgreSQL database.
pub struct PostgresStore {
    config: postgres::Config,
    tls: Option<crate::pg_tls::Rustls>,
    verify: crate::pg_tls::Verify,
    pool: Vec<Mutex<Option<Client>>>,
    next: AtomicUsize,
    options: StoreOptions,
}

pub(crate) fn err(e: postgres::Error) -> Error {
    // The server's own words (`db error` alone says nothing).
    if let Some(db) = e.as_db_error() {
        return unavailable(
            "postgres",
            format!("{} ({})", db.message(), db.code().code()),
        );
    }
    // And what lies under a connection error (a refused certificate, a timeout).
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    unavailable("postgres", text)
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/db[?sslmode=…]`) and
    /// migrates.
    pub fn connect(url: &str, options: StoreOptions) -> Result<PostgresStore, OpenError> {
        let parsed = crate::pg_tls::parse(url).map_err(OpenError::BadUrl)?;
        let mut config: postgres::Config = parsed
            .url
            .parse()
            .map_err(|e: postgres::Error| OpenError::BadUrl(format!("postgres URL: {e}")))?;
        config.ssl_mode(parsed.ssl_mode);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let given = config.get_options().unwrap_or("").to_string();
        if !given.contains("statement_timeout") {
            let with = format!("{given} -c statement_timeout={STATEMENT_TIMEOUT_MS}");
            config.options(with.trim());
        }
        let tls = crate::pg_tls::client_config(parsed.verify, parsed.root.as_deref())
            .map_err(|e| unavailable("postgres", e))?
            .map(|c| crate::pg_tls::Rustls(std::sync::Arc::new(c)));
        let store = PostgresStore {
            config,
            tls,
            verify: parsed.verify,
            pool: (0..POOL).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            options,
        };
        store.with(migrate)?;
        Ok(store)
    }

    fn connect_one(&self) -> Result<Client, Error> {
        match &self.tls {
            Some(tls) => self.config.connect(tls.clone()),
            None => self.config.connect(NoTls),
        }
        .map_err(err)
    }

    /// A connection slot: a free one if any, else the next in turn (waiting for it).
    fn slot(&self) -> MutexGuard<'_, Option<Client>> {
        let n = self.pool.len().max(1);
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for i in 0..n {
            if let Some(m) = self.pool.get((start + i) % n) {
                match m.try_lock() {
                    Ok(g) => return g,
                    // One statement per use: a poisoned slot still holds a usable
                    // client (or a closed one, replaced on use).
                    Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                    Err(TryLockError::WouldBlock) => {}
                }
            }
        }
        match self.pool.get(start) {
            Some(m) => m.lock().unwrap_or_else(PoisonError::into_inner),
            // The pool is never empty; this is the first slot's lock all the same.
            None => self.pool[0].lock().unwrap_or_else(PoisonError::into_inner),
        }
    }

    /// Runs `f` on a connection of the pool, connecting first when it is new or closed.
    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut guard = self.slot();
        if guard.as_ref().is_none_or(Client::is_closed) {
            *guard = Some(self.connect_one()?);
        }
        match guard.as_mut() {
            Some(client) => f(client),
            None => Err(unavailable("postgres", "no connection")),
        }
    }

    /// What the URL asked of TLS, in libpq's words, and whether this connection is
    /// encrypted (PostgreSQL's `pg_stat_ssl`): for the server's start line and tests.
    pub fn tls(&self) -> Result<(String, bool), Error> {
        let mode = match self.verify {
            crate::pg_tls::Verify::Off => "disable",
            crate::pg_tls::Verify::Encrypt => "encrypt, unverified",
            crate::pg_tls::Verify::Ca => "verify-ca",
            crate::pg_tls::Verify::Full => "verify-full",
        };
        let on = self.with(|client| {
            let row = client
                .query_opt(
                    "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                    &[],
                )
                .map_err(err)?;
            row.map(|r| r.try_get::<_, bool>(0).map_err(err))
                .transpose()
                .map(|b| b.unwrap_or(false))
        })?;
        Ok((mode.to_string(), on))
    }
}

fn migrate(client: &mut Client) -> Result<(), Error> {
    let mut tx = client.transaction().map_err(err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(err)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS toolgate_migrations (
             version BIGINT NOT NULL PRIMARY KEY,
             name    TEXT   NOT NULL
         );",
    )
    .map_err(err)?;
    for m in POSTGRES {
        let done = tx
            .query_opt(
                "SELECT version FROM toolgate_migrations WHERE version = $1",
                &[&m.version],
            )
            .map_err(err)?;
        if done.is_none() {
            tx.batch_execute(m.sql).map_err(err)?;
            if m.version == crate::migrate::PER_OWNER {
                backfill(&mut tx)?;
            }
            if m.version == crate::migrate::AUDIT_CHAIN {
                chain_existing(&mut tx)?;
            }
            tx.execute(
                "INSERT INTO toolgate_migrations (version, name) VALUES ($1, $2)",
                &[&m.version, &m.name],
            )
            .map_err(err)?;
        }
    }
    tx.commit().map_err(err)
}

/// Migration 4 added per-owner keys and derived columns, empty: fill them from each
/// document (an unreadable one keeps owner `''` and status `unreadable`).
fn backfill(tx: &mut postgres::Transaction<'_>) -> Result<(), Error> {
    let rows = tx
        .query(
            "SELECT run_key, value FROM toolgate_runs WHERE owner = ''",
            &[],
        )
        .map_err(err)?;
    for r in rows {
        let key: String = r.try_get(0).map_err(err)?;
        let value: String = r.try_get(1).map_err(err)?;
        let h = head(&value);
        let owner = crate::owner_of(&value);
        tx.execute(
            "UPDATE toolgate_runs SET owner = $1, status = $2, parked_by = $3, updated_at = $4
             WHERE owner = '' AND run_key = $5",
            &[&owner, &h.status, &h.parked_by, &h.updated_at, &key],
        )
        .map_err(err)?;
    }
    Ok(())
}

fn revision_of(client: &mut Client, owner: &str, key: &str) -> Result<Option<u64>, Error> {
    let row = client
        .query_opt(
            "SELECT revision FROM toolgate_runs WHERE owner = $1 AND run_key = $2",
            &[&owner, &key],
        )
        .map_err(err)?;
    row.map(|r| read_revision(key, r.try_get(0).map_err(err)?))
        .transpose()
}

impl PostgresStore {
    /// The change counter: it grows with every write to the runs (any replica).
    pub fn changes(&self) -> Result<u64, Error> {
        self.with(|client| {
            let row = client
                .query_one("SELECT seq FROM toolgate_changes WHERE id = 1", &[])
                .map_err(err)?;
            let seq: i64 = row.try_get(0).map_err(err)?;
            Ok(u64::try_from(seq).unwrap_or(0))
        })
    }

    /// [`SqlStore::decided_by`](crate::SqlStore::decided_by).
    pub fn decided_by(
        &self,
        owner: &str,
        run_id: &str,
        tool_call_id: &str,
        anchor: &str,
    ) -> Result<Option<String>, Error> {
        self.with(|client| {
            let row = client
                .query_opt(
                    "SELECT decided_by FROM toolgate_audit
                     WHERE run_id = $1 AND owner = $2 AND tool_call_id = $3 AND anchor = $4
                       AND decided_by IS NOT NULL
                     ORDER BY id DESC LIMIT 1",
                    &[&run_id, &owner, &tool_call_id, &anchor],
                )
                .map_err(err)?;
            row.map(|r| r.try_get(0).map_err(err)).transpose()
        })
    }

    /// The audit trail: `owner`'s records (every owner's for `None`) at or after
    /// `since` ms, oldest first, at most `limit`.
    pub fn audit(
        &self,
        owner: Option<&str>,
        since: u64,
        limit: usize,
    ) -> Result<Vec<AuditRecord>, Error> {
        let since = sql_revision("audit", since)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|client| {
            let rows = client
                .query(
                    &format!(
                        "SELECT {AUDIT_COLUMNS}
                         FROM toolgate_audit WHERE at >= $1 AND ($2::TEXT IS NULL OR owner = $2)
                         ORDER BY at, id LIMIT $3"
                    ),
                    &[&since, &owner, &limit],
                )
                .map_err(err)?;
            rows.iter()
                .map(|r| audit_record(r, 0))
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)
        })
    }

    /// [`SqlStore::verify_audit`](crate::SqlStore::verify_audit).
    pub fn verify_audit(&self) -> Result<AuditCheck, Error> {
        self.with(|client| {
            let head = client
                .query_opt("SELECT last_id, hash FROM toolgate_audit_head WHERE id = 1", &[])
                .map_err(err)?
                .map(|r| Ok::<_, postgres::Error>((r.try_get::<_, i64>(0)?, r.try_get::<_, String>(1)?)))
                .transpose()
                .map_err(err)?;
            let rows = client
                .query(
                    &format!("SELECT id, prev_hash, hash, {AUDIT_COLUMNS} FROM toolgate_audit ORDER BY id"),
                    &[],
                )
                .map_err(err)?;
            let rows = rows
                .iter()
                .map(|r| -> Result<_, postgres::Error> {
                    Ok((r.try_get::<_, i64>(0)?, r.try_get(1)?, r.try_get(2)?, audit_record(r, 3)?))
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            Ok(audit::check_chain(rows, head))
        })
    }
}

/// The columns of an [`AuditRecord`], in [`audit_record`]'s order.
const AUDIT_COLUMNS: &str = "at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
     decided_by, anchor, rule, reason, message, asked_by, edited_anchor, grant_id";
/// [`AUDIT_COLUMNS`] as migration 5 found the table (no `edited_anchor` until 6, no
/// `grant_id` until 7).
const AUDIT_COLUMNS_V5: &str =
    "at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
     decided_by, anchor, rule, reason, message, asked_by, NULL::text, NULL::text";

/// An [`AuditRecord`] from [`AUDIT_COLUMNS`] starting at column `from`.
fn audit_record(r: &postgres::Row, from: usize) -> Result<AuditRecord, postgres::Error> {
    Ok(AuditRecord {
        at: u64::try_from(r.try_get::<_, i64>(from)?).unwrap_or(0),
        run_id: r.try_get(from + 1)?,
        owner: r.try_get(from + 2)?,
        session_id: r.try_get(from + 3)?,
        revision: u64::try_from(r.try_get::<_, i64>(from + 4)?).unwrap_or(0),
        tool_call_id: r.try_get(from + 5)?,
        tool: r.try_get(from + 6)?,
        outcome: r.try_get(from + 7)?,
        decided_by: r.try_get(from + 8)?,
        anchor: r.try_get(from + 9)?,
        rule: r.try_get(from + 10)?,
        reason: r.try_get(from + 11)?,
        message: r.try_get(from + 12)?,
        asked_by: r.try_get(from + 13)?,
        edited_anchor: r.try_get(from + 14)?,
        grant: r.try_get(from + 15)?,
    })
}

/// The audit rows a write from `before` to `new` ends, inserted in `tx`. Never dropped:
/// a row that cannot be written fails the write with it.
fn insert_audit(
    tx: &mut postgres::Transaction<'_>,
    key: &str,
    before: &str,
    new: &str,
) -> Result<(), Error> {
    let rows = audit::rows(before, new);
    if rows.is_empty() {
        return Ok(());
    }
    // One chain for every replica: the lock holds until this transaction ends.
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&AUDIT_LOCK])
        .map_err(err)?;
    let mut prev: String = tx
        .query_opt("SELECT hash FROM toolgate_audit_head WHERE id = 1", &[])
        .map_err(err)?
        .map(|r| r.try_get(0))
        .transpose()
        .map_err(err)?
        .unwrap_or_default();
    let mut last_id = 0i64;
    for r in rows {
        let hash = audit::link(&prev, &r);
        let row = tx
            .query_one(
                "INSERT INTO toolgate_audit (at, run_id, owner, session_id,
                 revision, tool_call_id, tool, outcome, decided_by,
                 anchor, rule, reason, message, asked_by, edited_anchor, grant_id, prev_hash, hash)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
             RETURNING id",
                &[
                    &sql_revision(key, r.at)?,
                    &r.run_id,
                    &r.owner,
                    &r.session_id,
                    &sql_revision(key, r.revision)?,
                    &r.tool_call_id,
                    &r.tool,
                    &r.outcome,
                    &r.decided_by,
                    &r.anchor,
                    &r.rule,
                    &r.reason,
                    &r.message,
                    &r.asked_by,
                    &r.edited_anchor,
                    &r.grant,
                    &prev,
                    &hash,
                ],
            )
            .map_err(err)?;
        last_id = row.try_get(0).map_err(err)?;
        prev = hash;
    }
    tx.execute(
        "INSERT INTO toolgate_audit_head (id, last_id, hash) VALUES (1, $1, $2)
         ON CONFLICT (id) DO UPDATE SET last_id = excluded.last_id, hash = excluded.hash",
        &[&last_id, &prev],
    )
    .map_err(err)?;
    Ok(())
}

/// Migration 5 added the chain: link the records already there, oldest first.
fn chain_existing(tx: &mut postgres::Transaction<'_>) -> Result<(), Error> {
    let rows = tx
        .query(
            &format!("SELECT id, {AUDIT_COLUMNS_V5} FROM toolgate_audit ORDER BY id"),
            &[],
        )
        .map_err(err)?;
    let mut prev = String::new();
    let mut last = None;
    for r in &rows {
        let id: i64 = r.try_get(0).map_err(err)?;
        let record = audit_record(r, 1).map_err(err)?;
        let hash = audit::link(&prev, &record);
        tx.execute(
            "UPDATE toolgate_audit SET prev_hash = $1, hash = $2 WHERE id = $3",
            &[&prev, &hash, &id],
        )
        .map_err(err)?;
        prev = hash;
        last = Some(id);
    }
    if let Some(id) = last {
        tx.execute(
            "INSERT INTO toolgate_audit_head (id, last_id, hash) VALUES (1, $1, $2)",
            &[&id, &prev],
        )
        .map_err(err)?;
    }
    Ok(())
}

impl PostgresStore {
    /// [`MarkerStore::get`] of `owner`'s run `key`.
    pub(crate) fn get_in(&self, owner: &str, key: &str) -> Result<Option<Stored>, Error> {
        self.with(|client| {
            let row = client
                .query_opt(
                    "SELECT revision, value FROM toolgate_runs WHERE owner = $1 AND run_key = $2",
                    &[&owner, &key],
                )
                .map_err(err)?;
            row.map(|r| {
                Ok(Stored {
                    revision: read_revision(key, r.try_get(0).map_err(err)?)?,
                    value: r.try_get(1).map_err(err)?,
                })
            })
            .transpose()
        })
    }

    /// [`MarkerStore::put_if_revision`] of `owner`'s run `key`.
    pub(crate) fn put_in(
        &self,
        owner: &str,
        key: &str,
        expected: Option<u64>,
        new: Stored,
    ) -> Result<(), Error> {
        check_size(key, &new, &self.options)?;
        let revision = sql_revision(key, new.revision)?;
        let old = expected.map(|o| sql_revision(key, o)).transpose()?;
        let h = head(&new.value);
        self.with(|client| {
            let changed = match old {
                None => client
                    .execute(
                        "INSERT INTO toolgate_runs (owner, run_key, revision, value, status, parked_by, updated_at)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)
                         ON CONFLICT (owner, run_key) DO NOTHING",
                        &[&owner, &key, &revision, &new.value, &h.status, &h.parked_by, &h.updated_at],
                    )
                    .map_err(err)?,
                // The update and the audit rows it ends commit together or not at all.
                Some(old) => {
                    let mut tx = client.transaction().map_err(err)?;
                    let before = tx
                        .query_opt(
                            "SELECT value FROM toolgate_runs
                             WHERE owner = $1 AND run_key = $2 AND revision = $3",
                            &[&owner, &key, &old],
                        )
                        .map_err(err)?
                        .map(|r| r.try_get::<_, String>(0))
                        .transpose()
                        .map_err(err)?;
                    let changed = tx
                        .execute(
                            "UPDATE toolgate_runs SET revision = $3, value = $4, status = $5,
                                 parked_by = $6, updated_at = $7
                             WHERE owner = $1 AND run_key = $2 AND revision = $8",
                            &[&owner, &key, &revision, &new.value, &h.status, &h.parked_by, &h.updated_at, &old],
                        )
                        .map_err(err)?;
                    if changed == 1 {
                        if let Some(before) = before {
                            insert_audit(&mut tx, key, &before, &new.value)?;
                        }
                    }
                    tx.commit().map_err(err)?;
                    changed
                }
            };
            if changed == 1 {
                return Ok(());
            }
            Err(Error::StoreConflict {
                key: key.to_string(),
                expected,
                found: revision_of(client, owner, key)?,
            })
        })
    }

    /// [`MarkerStore::delete_if_revision`] of `owner`'s run `key`.
    pub(crate) fn delete_in(&self, owner: &str, key: &str, expected: u64) -> Result<(), Error> {
        let old = sql_revision(key, expected)?;
        self.with(|client| {
            let changed = client
                .execute(
                    "DELETE FROM toolgate_runs WHERE owner = $1 AND run_key = $2 AND revision = $3",
                    &[&owner, &key, &old],
                )
                .map_err(err)?;
            if changed == 1 {
                return Ok(());
            }
            Err(Error::StoreConflict {
                key: key.to_string(),
                expected: Some(expected),
                found: revision_of(client, owner, key)?,
            })
        })
    }

    /// [`Owned::page`](crate::Owned::page).
    pub(crate) fn page(
        &self,
        owner: &str,
        after: Option<&str>,
        limit: usize,
        filter: PageFilter<'_>,
    ) -> Result<Vec<(String, Stored)>, Error> {
        let limit = sql_limit(limit);
        self.with(|client| {
            let rows = client
                .query(
                    "SELECT run_key, revision, value FROM toolgate_runs
                     WHERE owner = $1 AND ($2::TEXT IS NULL OR run_key > $2)
                       AND ($3::TEXT IS NULL OR status = $3)
                       AND ($4::TEXT IS NULL OR parked_by = $4 OR parked_by IS NULL)
                     ORDER BY run_key LIMIT $5",
                    &[&owner, &after, &filter.status, &filter.parked_by, &limit],
                )
                .map_err(err)?;
            rows.iter()
                .map(|r| {
                    let key: String = r.try_get(0).map_err(err)?;
                    let revision = read_revision(&key, r.try_get(1).map_err(err)?)?;
                    let value: String = r.try_get(2).map_err(err)?;
                    Ok((key, Stored { revision, value }))
                })
                .collect()
        })
    }

    /// [`Owned::waiting`](crate::Owned::waiting).
    pub(crate) fn waiting(&self, owner: &str) -> Result<u64, Error> {
        self.with(|client| {
            let row = client
                .query_one(
                    "SELECT count(*) FROM toolgate_runs WHERE owner = $1 AND status = 'awaiting_permission'",
                    &[&owner],
                )
                .map_err(err)?;
            let n: i64 = row.try_get(0).map_err(err)?;
            Ok(u64::try_from(n).unwrap_or(0))
        })
    }

    /// [`SqlStore::owners_to_prune`](crate::SqlStore::owners_to_prune).
    pub(crate) fn owners_to_prune(&self, cutoff: u64) -> Result<Vec<String>, Error> {
        let waiting = sql_revision("prune", cutoff.saturating_sub(MAX_MARKER_TTL_MS))?;
        let cutoff = sql_revision("prune", cutoff)?;
        self.with(|client| {
            let rows = client
                .query(
                    "SELECT DISTINCT owner FROM toolgate_runs
                     WHERE (status IN ('completed', 'failed', 'cancelled') AND updated_at < $1)
                        OR (status = 'awaiting_permission' AND updated_at < $3)
                        OR status = $2",
                    &[&cutoff, &UNREADABLE, &waiting],
                )
                .map_err(err)?;
            rows.iter().map(|r| r.try_get(0).map_err(err)).collect()
        })
    }
}
