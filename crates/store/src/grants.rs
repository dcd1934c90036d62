//! Grants in SQL (`toolgate_grants`, migration 7): core's [`Grant`] records, one row per
//! grant, keyed by owner. The grant as given is a JSON document; what changes (uses,
//! revocation) and what lookups filter on (session, expiry) are columns beside it, and
//! each change is one conditional statement: a use counts only while the grant is live
//! (not revoked, not expired, not a used single-use grant) at that moment, against
//! every other connection, process and replica.

use rusqlite::{params, OptionalExtension};
use toolgate_core::grant::MAX_GRANTS_PER_SESSION;
use toolgate_core::{Error, Grant, GrantState};

use crate::postgres_store;
use crate::sqlite_store;
use crate::{sql_revision, SqlStore};

/// Which grants a listing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantFilter<'a> {
    /// Live ones, of every session.
    Live,
    /// Live ones of one session (what covers that session's calls).
    Session(&'a str),
    /// Every grant still kept (ended ones too).
    All,
}

fn to_i64(what: &str, v: u64) -> Result<i64, Error> {
    sql_revision(what, v)
}

/// A grant from its document and the columns that change; a document that does not
/// read is left out (it covers nothing).
fn merge(doc: &str, used: i64, revoked_at: Option<i64>) -> Option<Grant> {
    let mut g = Grant::decode(doc).ok()?;
    g.used = u32::try_from(used).unwrap_or(u32::MAX);
    g.revoked_at = revoked_at.map(|t| u64::try_from(t).unwrap_or(0));
    Some(g)
}

fn keep(g: &Grant, filter: GrantFilter<'_>, now: u64) -> bool {
    match filter {
        GrantFilter::All => true,
        GrantFilter::Live => g.state(now) == GrantState::Live,
        GrantFilter::Session(s) => g.session_id == s && g.state(now) == GrantState::Live,
    }
}

/// A new grant's row (PostgreSQL's placeholders; SQLite's are `?N`).
const INSERT: &str = "INSERT INTO toolgate_grants (owner, id, session_id, created_at, expires_at,
     single_use, used, revoked_at, doc)
     VALUES ($1, $2, $3, $4, $5, $6, 0, NULL, $7) ON CONFLICT DO NOTHING";

/// Refuses a grant to a session that already holds `live` live grants, at the bound.
fn room(live: i64) -> Result<(), Error> {
    if usize::try_from(live).unwrap_or(usize::MAX) >= MAX_GRANTS_PER_SESSION {
        return Err(Error::GrantRefused {
            reason: format!(
                "this session holds {MAX_GRANTS_PER_SESSION} live grants; revoke some first"
            ),
        });
    }
    Ok(())
}

impl SqlStore {
    /// Stores a new grant; refused when its id is taken or its session already holds
    /// [`MAX_GRANTS_PER_SESSION`] live grants.
    pub fn add_grant(&self, g: &Grant, now: u64) -> Result<(), Error> {
        let doc = g.encode()?;
        let (created, expires, now) = (
            to_i64("grant", g.created_at)?,
            to_i64("grant", g.expires_at)?,
            to_i64("grant", now)?,
        );
        let live_sql = "SELECT COUNT(*) FROM toolgate_grants WHERE owner = $1 AND session_id = $2
             AND revoked_at IS NULL AND expires_at > $3 AND NOT (single_use AND used > 0)";
        let inserted = match self {
            SqlStore::Sqlite(s) => {
                let mut conn = s.conn();
                let tx = conn
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(sqlite_store::err)?;
                let live: i64 = tx
                    .query_row(
                        &live_sql.replace('$', "?"),
                        params![g.owner, g.session_id, now],
                        |r| r.get(0),
                    )
                    .map_err(sqlite_store::err)?;
                room(live)?;
                let n = tx
                    .execute(
                        &INSERT.replace('$', "?"),
                        params![
                            g.owner,
                            g.id,
                            g.session_id,
                            created,
                            expires,
                            g.single_use,
                            doc
                        ],
                    )
                    .map_err(sqlite_store::err)?;
                tx.commit().map_err(sqlite_store::err)?;
                n
            }
            SqlStore::Postgres(p) => p.with(|client| {
                let mut tx = client.transaction().map_err(postgres_store::err)?;
                tx.execute(
                    "SELECT pg_advisory_xact_lock(hashtext($1::text || '/' || $2::text))",
                    &[&g.owner, &g.session_id],
                )
                .map_err(postgres_store::err)?;
                let live: i64 = tx
                    .query_one(live_sql, &[&g.owner, &g.session_id, &now])
                    .and_then(|r| r.try_get(0))
                    .map_err(postgres_store::err)?;
                room(live)?;
                let n = tx
                    .execute(
                        INSERT,
                        &[
                            &g.owner,
                            &g.id,
                            &g.session_id,
                            &created,
                            &expires,
                            &g.single_use,
                            &doc,
                        ],
                    )
                    .map_err(postgres_store::err)?;
                tx.commit().map_err(postgres_store::err)?;
                Ok(usize::try_from(n).unwrap_or(0))
            })?,
        };
        if inserted == 0 {
            return Err(Error::GrantRefused {
                reason: format!("grant id `{}` is taken", g.id),
            });
        }
        Ok(())
    }

    /// `owner`'s grants, oldest first, as `filter` says.
    pub fn grants(
        &self,
        owner: &str,
        filter: GrantFilter<'_>,
        now: u64,
    ) -> Result<Vec<Grant>, Error> {
        let sql = "SELECT doc, used, revoked_at FROM toolgate_grants WHERE owner = $1
             ORDER BY created_at, id";
        let rows: Vec<(String, i64, Option<i64>)> = match self {
            SqlStore::Sqlite(s) => {
                let conn = s.conn();
                let mut stmt = conn
                    .prepare(&sql.replace('$', "?"))
                    .map_err(sqlite_store::err)?;
                let rows = stmt
                    .query_map(params![owner], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .map_err(sqlite_store::err)?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(sqlite_store::err)?;
                rows
            }
            SqlStore::Postgres(p) => p.with(|client| {
                client
                    .query(sql, &[&owner])
                    .map_err(postgres_store::err)?
                    .iter()
                    .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                    .collect::<Result<Vec<_>, postgres::Error>>()
                    .map_err(postgres_store::err)
            })?,
        };
        Ok(rows
            .into_iter()
            .filter_map(|(doc, used, revoked)| merge(&doc, used, revoked))
            .filter(|g| g.owner == owner && keep(g, filter, now))
            .collect())
    }

    /// `owner`'s grant `id`, ended or not.
    pub fn grant(&self, owner: &str, id: &str) -> Result<Option<Grant>, Error> {
        let sql = "SELECT doc, used, revoked_at FROM toolgate_grants WHERE owner = $1 AND id = $2";
        let row: Option<(String, i64, Option<i64>)> = match self {
            SqlStore::Sqlite(s) => s
                .conn()
                .query_row(&sql.replace('$', "?"), params![owner, id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .optional()
                .map_err(sqlite_store::err)?,
            SqlStore::Postgres(p) => p.with(|client| {
                client
                    .query_opt(sql, &[&owner, &id])
                    .map_err(postgres_store::err)?
                    .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                    .transpose()
                    .map_err(postgres_store::err)
            })?,
        };
        Ok(row.and_then(|(doc, used, revoked)| merge(&doc, used, revoked)))
    }

    /// Revokes `owner`'s grant `id` at `now`: true when a grant not revoked before was.
    pub fn revoke_grant(&self, owner: &str, id: &str, now: u64) -> Result<bool, Error> {
        let now = to_i64("grant", now)?;
        let sql = "UPDATE toolgate_grants SET revoked_at = $3
             WHERE owner = $1 AND id = $2 AND revoked_at IS NULL";
        self.change(sql, owner, id, now)
    }

    /// Counts one use of `owner`'s grant `id`, only if it is live at `now`: true when
    /// it was (the call may run), false when it was revoked, expired or used up
    /// meanwhile (ask a person).
    pub fn use_grant(&self, owner: &str, id: &str, now: u64) -> Result<bool, Error> {
        let now = to_i64("grant", now)?;
        let sql = "UPDATE toolgate_grants SET used = used + 1
             WHERE owner = $1 AND id = $2 AND revoked_at IS NULL AND expires_at > $3
               AND NOT (single_use AND used > 0)";
        self.change(sql, owner, id, now)
    }

    /// Deletes `owner`'s grants that ended (expired, revoked, used up) before `cutoff`.
    pub fn prune_grants(&self, owner: &str, cutoff: u64) -> Result<u64, Error> {
        let cutoff = to_i64("grant", cutoff)?;
        let sql = "DELETE FROM toolgate_grants WHERE owner = $1 AND
             (expires_at < $2 OR revoked_at < $2 OR (single_use AND used > 0 AND created_at < $2))";
        Ok(match self {
            SqlStore::Sqlite(s) => s
                .conn()
                .execute(&sql.replace('$', "?"), params![owner, cutoff])
                .map_err(sqlite_store::err)? as u64,
            SqlStore::Postgres(p) => p.with(|client| {
                client
                    .execute(sql, &[&owner, &cutoff])
                    .map_err(postgres_store::err)
            })?,
        })
    }

    /// Deletes every owner's grants that ended before `cutoff` (the server's periodic
    /// pruning: ended grants are kept that long for listing, then go).
    pub fn prune_ended_grants(&self, cutoff: u64) -> Result<u64, Error> {
        let cutoff = to_i64("grant", cutoff)?;
        let sql = "DELETE FROM toolgate_grants WHERE
             expires_at < $1 OR revoked_at < $1 OR (single_use AND used > 0 AND created_at < $1)";
        Ok(match self {
            SqlStore::Sqlite(s) => s
                .conn()
                .execute(&sql.replace('$', "?"), params![cutoff])
                .map_err(sqlite_store::err)? as u64,
            SqlStore::Postgres(p) => {
                p.with(|client| client.execute(sql, &[&cutoff]).map_err(postgres_store::err))?
            }
        })
    }

    fn change(&self, sql: &str, owner: &str, id: &str, now: i64) -> Result<bool, Error> {
        Ok(match self {
            SqlStore::Sqlite(s) => {
                s.conn()
                    .execute(&sql.replace('$', "?"), params![owner, id, now])
                    .map_err(sqlite_store::err)?
                    == 1
            }
            SqlStore::Postgres(p) => {
                p.with(|client| {
                    client
                        .execute(sql, &[&owner, &id, &now])
                        .map_err(postgres_store::err)
                })? == 1
            }
        })
    }
}
