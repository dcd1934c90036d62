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
use toolgate_core::marker::MAX_MARKER_TTL_MS;
use toolgate_core::{Error, Stored};

use crate::audit::{self, AuditCheck, AuditRecord};
use crate::migrate::SQLITE;
use crate::{
    check_size, head, read_revision, sql_limit, sql_revision, unavailable, OpenError, PageFilter,
    StoreOptions, UNREADABLE,
};

/// How long a statement waits for another connection's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs in a SQLite file.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    options: StoreOptions,
}

pub(crate) fn err(e: rusqlite::Error) -> Error {
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
            .prepare(&format!(
                "SELECT {AUDIT_COLUMNS}
                 FROM toolgate_audit WHERE at >= ?1 AND (?2 IS NULL OR owner = ?2)
                 ORDER BY at, id LIMIT ?3"
            ))
            .map_err(err)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![sql_revision("audit", since)?, owner, limit], |r| {
                audit_record(r, 0)
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(rows)
    }

    /// [`SqlStore::verify_audit`](crate::SqlStore::verify_audit).
    pub fn verify_audit(&self) -> Result<AuditCheck, Error> {
        let conn = self.conn();
        let head: Option<(i64, String)> = conn
            .query_row(
                "SELECT last_id, hash FROM toolgate_audit_head WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(err)?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT id, prev_hash, hash, {AUDIT_COLUMNS} FROM toolgate_audit ORDER BY id"
            ))
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    audit_record(r, 3)?,
                ))
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(audit::check_chain(rows, head))
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

    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        // Every use is one statement: a panic while holding the lock cannot leave a
        // half-done write behind, so a poisoned lock is still a good connection.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn revision_of(conn: &Connection, owner: &str, key: &str) -> Result<Option<u64>, Error> {
        let rev: Option<i64> = conn
            .query_row(
                "SELECT revision FROM toolgate_runs WHERE owner = ?1 AND run_key = ?2",
                params![owner, key],
                |row| row.get(0),
            )
            .optional()
            .map_err(err)?;
        rev.map(|r| read_revision(key, r)).transpose()
    }
}

/// Migration 4 moved the runs into per-owner keys with derived columns, empty: fill
/// them from each document (an unreadable one keeps owner `''` and status `unreadable`).
fn backfill(tx: &rusqlite::Transaction<'_>) -> Result<(), Error> {
    let rows: Vec<(String, String)> = {
        let mut stmt = tx
            .prepare("SELECT run_key, value FROM toolgate_runs WHERE owner = ''")
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, text(r.get_ref(1)?)?)))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        rows
    };
    for (key, value) in rows {
        let h = head(&value);
        let owner = crate::owner_of(&value);
        tx.execute(
            "UPDATE toolgate_runs SET owner = ?1, status = ?2, parked_by = ?3, updated_at = ?4
             WHERE owner = '' AND run_key = ?5",
            params![owner, h.status, h.parked_by, h.updated_at, key],
        )
        .map_err(err)?;
    }
    Ok(())
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
            if m.version == crate::migrate::PER_OWNER {
                backfill(&tx)?;
            }
            if m.version == crate::migrate::AUDIT_CHAIN {
                chain_existing(&tx)?;
            }
            tx.execute(
                "INSERT INTO toolgate_migrations (version, name) VALUES (?1, ?2)",
                params![m.version, m.name],
            )
            .map_err(err)?;
        }
    }
    tx.commit().map_err(err)
}

/// The audit rows a write from `before` to `new` ends, inserted in `tx`. Never dropped:
/// a row that cannot be written fails the write with it.
fn insert_audit(
    tx: &rusqlite::Transaction<'_>,
    key: &str,
    before: &str,
    new: &str,
) -> Result<(), Error> {
    let rows = audit::rows(before, new);
    if rows.is_empty() {
        return Ok(());
    }
    // Writers are serialized (an immediate transaction): the head read here is the
    // chain's last link when these rows are added.
    let mut prev: String = tx
        .query_row(
            "SELECT hash FROM toolgate_audit_head WHERE id = 1",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(err)?
        .unwrap_or_default();
    for r in rows {
        let hash = audit::link(&prev, &r);
        tx.execute(
            "INSERT INTO toolgate_audit (at, run_id, owner, session_id,
                 revision, tool_call_id, tool, outcome, decided_by, anchor,
                 rule, reason, message, asked_by, edited_anchor, grant_id, prev_hash, hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
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
                r.message,
                r.asked_by,
                r.edited_anchor,
                r.grant,
                prev,
                hash
            ],
        )
        .map_err(err)?;
        prev = hash;
    }
    tx.execute(
        "INSERT INTO toolgate_audit_head (id, last_id, hash) VALUES (1, ?1, ?2)
         ON CONFLICT (id) DO UPDATE SET last_id = excluded.last_id, hash = excluded.hash",
        params![tx.last_insert_rowid(), prev],
    )
    .map_err(err)?;
    Ok(())
}

/// Migration 5 added the chain: link the records already there, oldest first.
fn chain_existing(tx: &rusqlite::Transaction<'_>) -> Result<(), Error> {
    let rows: Vec<(i64, AuditRecord)> = {
        let mut stmt = tx
            .prepare(&format!(
                "SELECT id, {AUDIT_COLUMNS_V5} FROM toolgate_audit ORDER BY id"
            ))
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, audit_record(r, 1)?)))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        rows
    };
    let mut prev = String::new();
    let mut last = None;
    for (id, record) in rows {
        let hash = audit::link(&prev, &record);
        tx.execute(
            "UPDATE toolgate_audit SET prev_hash = ?1, hash = ?2 WHERE id = ?3",
            params![prev, hash, id],
        )
        .map_err(err)?;
        prev = hash;
        last = Some(id);
    }
    if let Some(id) = last {
        tx.execute(
            "INSERT INTO toolgate_audit_head (id, last_id, hash) VALUES (1, ?1, ?2)",
            params![id, prev],
        )
        .map_err(err)?;
    }
    Ok(())
}

/// The columns of an [`AuditRecord`], in [`audit_record`]'s order.
const AUDIT_COLUMNS: &str = "at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
     decided_by, anchor, rule, reason, message, asked_by, edited_anchor, grant_id";
/// [`AUDIT_COLUMNS`] as migration 5 found the table (no `edited_anchor` until 6, no
/// `grant_id` until 7).
const AUDIT_COLUMNS_V5: &str =
    "at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
     decided_by, anchor, rule, reason, message, asked_by, NULL, NULL";

/// An [`AuditRecord`] from [`AUDIT_COLUMNS`] starting at column `from`.
fn audit_record(r: &rusqlite::Row<'_>, from: usize) -> rusqlite::Result<AuditRecord> {
    Ok(AuditRecord {
        at: u64::try_from(r.get::<_, i64>(from)?).unwrap_or(0),
        run_id: r.get(from + 1)?,
        owner: r.get(from + 2)?,
        session_id: r.get(from + 3)?,
        revision: u64::try_from(r.get::<_, i64>(from + 4)?).unwrap_or(0),
        tool_call_id: r.get(from + 5)?,
        tool: r.get(from + 6)?,
        outcome: r.get(from + 7)?,
        decided_by: r.get(from + 8)?,
        anchor: r.get(from + 9)?,
        rule: r.get(from + 10)?,
        reason: r.get(from + 11)?,
        message: r.get(from + 12)?,
        asked_by: r.get(from + 13)?,
        edited_anchor: r.get(from + 14)?,
        grant: r.get(from + 15)?,
    })
}

fn stored_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(String, i64, String)> {
    Ok((
        row.get::<_, String>(0)?,
        row.get::<_, i64>(1)?,
        text(row.get_ref(2)?)?,
    ))
}

impl SqliteStore {
    /// [`MarkerStore::get`] of `owner`'s run `key`.
    pub(crate) fn get_in(&self, owner: &str, key: &str) -> Result<Option<Stored>, Error> {
        let conn = self.conn();
        let row = conn
            .query_row(
                "SELECT revision, value FROM toolgate_runs WHERE owner = ?1 AND run_key = ?2",
                params![owner, key],
                |row| Ok((row.get::<_, i64>(0)?, text(row.get_ref(1)?)?)),
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
        let h = head(&new.value);
        let mut conn = self.conn();
        let changed = match expected {
            None => conn
                .execute(
                    "INSERT INTO toolgate_runs (owner, run_key, revision, value, status, parked_by, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT (owner, run_key) DO NOTHING",
                    params![owner, key, revision, new.value, h.status, h.parked_by, h.updated_at],
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
                        "SELECT value FROM toolgate_runs
                         WHERE owner = ?1 AND run_key = ?2 AND revision = ?3",
                        params![owner, key, old],
                        |row| text(row.get_ref(0)?),
                    )
                    .optional()
                    .map_err(err)?;
                let changed = tx
                    .execute(
                        "UPDATE toolgate_runs SET revision = ?3, value = ?4, status = ?5,
                             parked_by = ?6, updated_at = ?7
                         WHERE owner = ?1 AND run_key = ?2 AND revision = ?8",
                        params![owner, key, revision, new.value, h.status, h.parked_by, h.updated_at, old],
                    )
                    .map_err(err)?;
                if changed == 1 {
                    if let Some(before) = before {
                        insert_audit(&tx, key, &before, &new.value)?;
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
            found: SqliteStore::revision_of(&conn, owner, key)?,
        })
    }

    /// [`MarkerStore::delete_if_revision`] of `owner`'s run `key`.
    pub(crate) fn delete_in(&self, owner: &str, key: &str, expected: u64) -> Result<(), Error> {
        let conn = self.conn();
        let changed = conn
            .execute(
                "DELETE FROM toolgate_runs WHERE owner = ?1 AND run_key = ?2 AND revision = ?3",
                params![owner, key, sql_revision(key, expected)?],
            )
            .map_err(err)?;
        if changed == 1 {
            return Ok(());
        }
        Err(Error::StoreConflict {
            key: key.to_string(),
            expected: Some(expected),
            found: SqliteStore::revision_of(&conn, owner, key)?,
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
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT run_key, revision, value FROM toolgate_runs
                 WHERE owner = ?1 AND (?2 IS NULL OR run_key > ?2)
                   AND (?3 IS NULL OR status = ?3)
                   AND (?4 IS NULL OR parked_by = ?4 OR parked_by IS NULL)
                 ORDER BY run_key LIMIT ?5",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map(
                params![
                    owner,
                    after,
                    filter.status,
                    filter.parked_by,
                    sql_limit(limit)
                ],
                stored_row,
            )
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

    /// [`Owned::waiting`](crate::Owned::waiting).
    pub(crate) fn waiting(&self, owner: &str) -> Result<u64, Error> {
        let conn = self.conn();
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM toolgate_runs WHERE owner = ?1 AND status = 'awaiting_permission'",
                params![owner],
                |r| r.get(0),
            )
            .map_err(err)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// [`SqlStore::owners_to_prune`](crate::SqlStore::owners_to_prune).
    pub(crate) fn owners_to_prune(&self, cutoff: u64) -> Result<Vec<String>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT DISTINCT owner FROM toolgate_runs
                 WHERE (status IN ('completed', 'failed', 'cancelled') AND updated_at < ?1)
                    OR (status = 'awaiting_permission' AND updated_at < ?3)
                    OR status = ?2",
            )
            .map_err(err)?;
        let owners = stmt
            .query_map(
                params![
                    sql_revision("prune", cutoff)?,
                    UNREADABLE,
                    sql_revision("prune", cutoff.saturating_sub(MAX_MARKER_TTL_MS))?
                ],
                |r| r.get::<_, String>(0),
            )
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(owners)
    }
}
