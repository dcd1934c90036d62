//! PostgreSQL: one connection per store behind a mutex, reconnected when it drops.
//! Each compare-and-swap is one statement: under PostgreSQL's row locks a concurrent
//! `UPDATE … WHERE revision = $n` waits for the first and then re-checks the condition on
//! the new row, so of two replicas resuming the same run exactly one changes it.

use std::sync::{Mutex, MutexGuard, PoisonError};

use postgres::{Client, NoTls};
use toolgate_core::{Error, MarkerStore, Stored};

use crate::audit::{self, AuditRecord};
use crate::migrate::POSTGRES;
use crate::{check_size, read_revision, sql_revision, unavailable, OpenError, StoreOptions};

/// The advisory lock migrations run under (any constant: "toolgate" in ASCII).
const MIGRATION_LOCK: i64 = 0x746f_6f6c_6761_7465;

/// Runs in a PostgreSQL database.
pub struct PostgresStore {
    url: String,
    client: Mutex<Option<Client>>,
    options: StoreOptions,
}

fn err(e: postgres::Error) -> Error {
    unavailable("postgres", e)
}

fn connect(url: &str) -> Result<Client, Error> {
    Client::connect(url, NoTls).map_err(err)
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/db`) and migrates.
    pub fn connect(url: &str, options: StoreOptions) -> Result<PostgresStore, OpenError> {
        let mut client = connect(url)?;
        migrate(&mut client)?;
        Ok(PostgresStore {
            url: url.to_string(),
            client: Mutex::new(Some(client)),
            options,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Option<Client>> {
        // One statement per use: a poisoned lock still guards a usable client (or one
        // that is closed, and replaced below).
        self.client.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the connection, connecting again first when the last one closed.
    fn with<T>(&self, f: impl FnOnce(&mut Client) -> Result<T, Error>) -> Result<T, Error> {
        let mut guard = self.lock();
        if guard.as_ref().is_none_or(Client::is_closed) {
            *guard = Some(connect(&self.url)?);
        }
        match guard.as_mut() {
            Some(client) => f(client),
            None => Err(unavailable("postgres", "no connection")),
        }
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
            tx.execute(
                "INSERT INTO toolgate_migrations (version, name) VALUES ($1, $2)",
                &[&m.version, &m.name],
            )
            .map_err(err)?;
        }
    }
    tx.commit().map_err(err)
}

fn revision_of(client: &mut Client, key: &str) -> Result<Option<u64>, Error> {
    let row = client
        .query_opt(
            "SELECT revision FROM toolgate_runs WHERE run_key = $1",
            &[&key],
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
                    "SELECT at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
                            decided_by, anchor, rule, reason, message
                     FROM toolgate_audit WHERE at >= $1 AND ($2::TEXT IS NULL OR owner = $2)
                     ORDER BY at, id LIMIT $3",
                    &[&since, &owner, &limit],
                )
                .map_err(err)?;
            rows.iter()
                .map(|r| -> Result<AuditRecord, postgres::Error> {
                    Ok(AuditRecord {
                        at: u64::try_from(r.try_get::<_, i64>(0)?).unwrap_or(0),
                        run_id: r.try_get(1)?,
                        owner: r.try_get(2)?,
                        session_id: r.try_get(3)?,
                        revision: u64::try_from(r.try_get::<_, i64>(4)?).unwrap_or(0),
                        tool_call_id: r.try_get(5)?,
                        tool: r.try_get(6)?,
                        outcome: r.try_get(7)?,
                        decided_by: r.try_get(8)?,
                        anchor: r.try_get(9)?,
                        rule: r.try_get(10)?,
                        reason: r.try_get(11)?,
                        message: r.try_get(12)?,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)
        })
    }
}

impl MarkerStore for PostgresStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.with(|client| {
            let row = client
                .query_opt(
                    "SELECT revision, value FROM toolgate_runs WHERE run_key = $1",
                    &[&key],
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

    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        check_size(key, &new, &self.options)?;
        let revision = sql_revision(key, new.revision)?;
        let old = expected.map(|o| sql_revision(key, o)).transpose()?;
        self.with(|client| {
            let changed = match old {
                None => client
                    .execute(
                        "INSERT INTO toolgate_runs (run_key, revision, value) VALUES ($1, $2, $3)
                         ON CONFLICT (run_key) DO NOTHING",
                        &[&key, &revision, &new.value],
                    )
                    .map_err(err)?,
                // The update and the audit rows it ends commit together or not at all.
                Some(old) => {
                    let mut tx = client.transaction().map_err(err)?;
                    let before = tx
                        .query_opt(
                            "SELECT value FROM toolgate_runs WHERE run_key = $1 AND revision = $2",
                            &[&key, &old],
                        )
                        .map_err(err)?
                        .map(|r| r.try_get::<_, String>(0))
                        .transpose()
                        .map_err(err)?;
                    let changed = tx
                        .execute(
                            "UPDATE toolgate_runs SET revision = $2, value = $3
                             WHERE run_key = $1 AND revision = $4",
                            &[&key, &revision, &new.value, &old],
                        )
                        .map_err(err)?;
                    if changed == 1 {
                        if let Some(before) = before {
                            for r in audit::rows(&before, &new.value) {
                                tx.execute(
                                    "INSERT INTO toolgate_audit (at, run_id, owner, session_id,
                                         revision, tool_call_id, tool, outcome, decided_by,
                                         anchor, rule, reason, message)
                                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                                     ON CONFLICT DO NOTHING",
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
                                    ],
                                )
                                .map_err(err)?;
                            }
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
                found: revision_of(client, key)?,
            })
        })
    }

    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        let old = sql_revision(key, expected)?;
        self.with(|client| {
            let changed = client
                .execute(
                    "DELETE FROM toolgate_runs WHERE run_key = $1 AND revision = $2",
                    &[&key, &old],
                )
                .map_err(err)?;
            if changed == 1 {
                return Ok(());
            }
            Err(Error::StoreConflict {
                key: key.to_string(),
                expected: Some(expected),
                found: revision_of(client, key)?,
            })
        })
    }

    fn keys(&self) -> Result<Vec<String>, Error> {
        self.with(|client| {
            let rows = client
                .query("SELECT run_key FROM toolgate_runs", &[])
                .map_err(err)?;
            rows.iter().map(|r| r.try_get(0).map_err(err)).collect()
        })
    }

    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        self.with(|client| {
            let rows = client
                .query("SELECT run_key, revision, value FROM toolgate_runs", &[])
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
}
