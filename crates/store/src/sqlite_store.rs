//! SQLite: one connection behind a mutex (SQLite serializes writers anyway), WAL
//! journal, `synchronous = FULL` (a decision that was answered is on disk), and a busy
//! timeout so that a second process on the same file waits for the lock instead of
//! failing. Each compare-and-swap is a single statement, atomic against every other
//! connection to the file.

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use toolgate_core::{Error, MarkerStore, Stored};

use crate::audit::{self, AuditRecord};
use crate::migrate::SQLITE;
use crate::{check_size, read_revision, sql_revision, unavailable, OpenError, StoreOptions};

/// How long a statement waits for another connection's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs in a SQLite file.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    options: StoreOptions,
}

fn err(e: rusqlite::Error) -> Error {
    unavailable("sqlite", e)
}

/// A text column as a string; bytes that are not UTF-8 come back replaced (core then
/// finds the document corrupt and fails the run: never a crash, never a grant).
fn text(v: ValueRef<'_>) -> rusqlite::Result<String> {
    Ok(match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
        ValueRef::Null | ValueRef::Integer(_) | ValueRef::Real(_) => String::new(),
    })
}

impl SqliteStore {
    /// The change counter: it grows with every write to the runs (any connection).
    pub fn changes(&self) -> Result<u64, Error> {
        let conn = self.conn();
        let seq: i64 = conn
            .query_row("SELECT seq FROM toolgate_changes WHERE id = 1", [], |r| {
                r.get(0)
            })
            .map_err(err)?;
        Ok(u64::try_from(seq).unwrap_or(0))
    }

    /// [`SqlStore::decided_by`](crate::SqlStore::decided_by).
    pub fn decided_by(
        &self,
        owner: &str,
        run_id: &str,
        tool_call_id: &str,
        anchor: &str,
    ) -> Result<Option<String>, Error> {
        let conn = self.conn();
        conn.query_row(
            "SELECT decided_by FROM toolgate_audit
             WHERE run_id = ?1 AND owner = ?2 AND tool_call_id = ?3 AND anchor = ?4
               AND decided_by IS NOT NULL
             ORDER BY id DESC LIMIT 1",
            params![run_id, owner, tool_call_id, anchor],
            |r| r.get(0),
        )
        .optional()
        .map_err(err)
    }

    /// The audit trail: `owner`'s records (every owner's for `None`) at or after
    /// `since` ms, oldest first, at most `limit`.
    pub fn audit(
        &self,
        owner: Option<&str>,
        since: u64,
        limit: usize,
    ) -> Result<Vec<AuditRecord>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
                        decided_by, anchor, rule, reason, message
                 FROM toolgate_audit WHERE at >= ?1 AND (?2 IS NULL OR owner = ?2)
                 ORDER BY at, id LIMIT ?3",
            )
            .map_err(err)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![sql_revision("audit", since)?, owner, limit], |r| {
                Ok(AuditRecord {
                    at: u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0),
                    run_id: r.get(1)?,
                    owner: r.get(2)?,
                    session_id: r.get(3)?,
                    revision: u64::try_from(r.get::<_, i64>(4)?).unwrap_or(0),
                    tool_call_id: r.get(5)?,
                    tool: r.get(6)?,
                    outcome: r.get(7)?,
                    decided_by: r.get(8)?,
                    anchor: r.get(9)?,
                    rule: r.get(10)?,
                    reason: r.get(11)?,
                    message: r.get(12)?,
                })
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(rows)
    }

    /// Opens `path` (`:memory:` for a private in-memory database), creating the file and
    /// its directory when absent (on Unix, the directory 0700 and the file 0600: the runs
    /// hold what agents were about to do; SQLite gives its `-wal` and `-shm` files the
    /// database file's mode), and migrates it.
    pub fn open(path: &str, options: StoreOptions) -> Result<SqliteStore, OpenError> {
        let mut conn = if path == ":memory:" {
            Connection::open_in_memory().map_err(err)?
        } else {
            create_private(Path::new(path))?;
            let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            Connection::open_with_flags(path, flags).map_err(err)?
        };
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        if path != ":memory:" {
            let mode: String = conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
                .map_err(err)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(
                    unavailable("sqlite", format!("journal_mode is {mode}, not wal")).into(),
                );
            }
        }
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        migrate(&mut conn)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            options,
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // Every use is one statement: a panic while holding the lock cannot leave a
        // half-done write behind, so a poisoned lock is still a good connection.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn revision_of(conn: &Connection, key: &str) -> Result<Option<u64>, Error> {
        let rev: Option<i64> = conn
            .query_row(
                "SELECT revision FROM toolgate_runs WHERE run_key = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()
            .map_err(err)?;
        rev.map(|r| read_revision(key, r)).transpose()
    }
}

/// Creates `path`'s missing directories (0700) and the file itself (0600) when absent; an
/// existing file keeps its mode (see [`exposed`]).
fn create_private(path: &Path) -> Result<(), Error> {
    let fail = |what: &Path, e: std::io::Error| {
        unavailable("sqlite", format!("cannot create {}: {e}", what.display()))
    };
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true);
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        dirs.mode(0o700);
        file.mode(0o600);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            dirs.create(dir).map_err(|e| fail(dir, e))?;
        }
    }
    match file.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(fail(path, e)),
    }
}

/// Why an existing database file is open to others (group or world can read or write
/// it), for a warning; `None` when it is private or not a file.
pub fn exposed(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode();
        (mode & 0o077 != 0).then(|| {
            format!(
                "{} is readable or writable by other users (mode {:o}); chmod 600 it",
                path.display(),
                mode & 0o777
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Applies the migrations not yet applied, in one immediate transaction (a second
/// process opening the same file waits, then finds them applied).
fn migrate(conn: &mut Connection) -> Result<(), Error> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(err)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS toolgate_migrations (
             version INTEGER NOT NULL PRIMARY KEY,
             name    TEXT    NOT NULL
         ) STRICT;",
    )
    .map_err(err)?;
    for m in SQLITE {
        let done: Option<i64> = tx
            .query_row(
                "SELECT version FROM toolgate_migrations WHERE version = ?1",
                params![m.version],
                |row| row.get(0),
            )
            .optional()
            .map_err(err)?;
        if done.is_none() {
            tx.execute_batch(m.sql).map_err(err)?;
            tx.execute(
                "INSERT INTO toolgate_migrations (version, name) VALUES (?1, ?2)",
                params![m.version, m.name],
            )
            .map_err(err)?;
        }
    }
    tx.commit().map_err(err)
}

impl MarkerStore for SqliteStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        let conn = self.conn();
        let row = conn
            .query_row(
                "SELECT revision, value FROM toolgate_runs WHERE run_key = ?1",
                params![key],
                |row| {
                    let revision: i64 = row.get(0)?;
                    // Bytes that are not UTF-8 come back replaced: core then finds the
                    // document corrupt and fails the run (never a crash, never a grant).
                    let value = match row.get_ref(1)? {
                        ValueRef::Text(b) | ValueRef::Blob(b) => {
                            String::from_utf8_lossy(b).into_owned()
                        }
                        ValueRef::Null | ValueRef::Integer(_) | ValueRef::Real(_) => String::new(),
                    };
                    Ok((revision, value))
                },
            )
            .optional()
            .map_err(err)?;
        row.map(|(revision, value)| {
            Ok(Stored {
                revision: read_revision(key, revision)?,
                value,
            })
        })
        .transpose()
    }

    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        check_size(key, &new, &self.options)?;
        let revision = sql_revision(key, new.revision)?;
        let mut conn = self.conn();
        let changed = match expected {
            None => conn
                .execute(
                    "INSERT INTO toolgate_runs (run_key, revision, value) VALUES (?1, ?2, ?3)
                     ON CONFLICT (run_key) DO NOTHING",
                    params![key, revision, new.value],
                )
                .map_err(err)?,
            // The update and the audit rows it ends (if it takes the run out of
            // awaiting_permission) commit together or not at all.
            Some(old) => {
                let old = sql_revision(key, old)?;
                let tx = conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(err)?;
                let before: Option<String> = tx
                    .query_row(
                        "SELECT value FROM toolgate_runs WHERE run_key = ?1 AND revision = ?2",
                        params![key, old],
                        |row| text(row.get_ref(0)?),
                    )
                    .optional()
                    .map_err(err)?;
                let changed = tx
                    .execute(
                        "UPDATE toolgate_runs SET revision = ?2, value = ?3
                         WHERE run_key = ?1 AND revision = ?4",
                        params![key, revision, new.value, old],
                    )
                    .map_err(err)?;
                if changed == 1 {
                    if let Some(before) = before {
                        for r in audit::rows(&before, &new.value) {
                            tx.execute(
                                "INSERT INTO toolgate_audit (at, run_id, owner, session_id,
                                     revision, tool_call_id, tool, outcome, decided_by, anchor,
                                     rule, reason, message)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                                 ON CONFLICT DO NOTHING",
                                params![
                                    sql_revision(key, r.at)?,
                                    r.run_id,
                                    r.owner,
                                    r.session_id,
                                    sql_revision(key, r.revision)?,
                                    r.tool_call_id,
                                    r.tool,
                                    r.outcome,
                                    r.decided_by,
                                    r.anchor,
                                    r.rule,
                                    r.reason,
                                    r.message
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
            found: SqliteStore::revision_of(&conn, key)?,
        })
    }

    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        let conn = self.conn();
        let changed = conn
            .execute(
                "DELETE FROM toolgate_runs WHERE run_key = ?1 AND revision = ?2",
                params![key, sql_revision(key, expected)?],
            )
            .map_err(err)?;
        if changed == 1 {
            return Ok(());
        }
        Err(Error::StoreConflict {
            key: key.to_string(),
            expected: Some(expected),
            found: SqliteStore::revision_of(&conn, key)?,
        })
    }

    fn keys(&self) -> Result<Vec<String>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT run_key FROM toolgate_runs")
            .map_err(err)?;
        let keys = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(keys)
    }

    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT run_key, revision, value FROM toolgate_runs")
            .map_err(err)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    text(row.get_ref(2)?)?,
                ))
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        rows.into_iter()
            .map(|(key, revision, value)| {
                let revision = read_revision(&key, revision)?;
                Ok((key, Stored { revision, value }))
            })
            .collect()
    }
}
