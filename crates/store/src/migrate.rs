//! The schema migrations (`migrations/<backend>/NNNN_name.sql`), compiled in, applied in
//! order, each once. Each backend records what it applied in `toolgate_migrations`.

/// One migration: its number (the order) and its SQL.
pub(crate) struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// The migration that keyed runs by owner; the store fills its new columns from each
/// document right after it, in the same transaction.
pub(crate) const PER_OWNER: i64 = 4;

/// The migration that chained the audit records; the store links the records already
/// there right after it, in the same transaction.
pub(crate) const AUDIT_CHAIN: i64 = 5;

pub(crate) const SQLITE: &[Migration] = &[
    Migration {
        version: 1,
        name: "0001_runs",
        sql: include_str!("../migrations/sqlite/0001_runs.sql"),
    },
    Migration {
        version: 2,
        name: "0002_audit",
        sql: include_str!("../migrations/sqlite/0002_audit.sql"),
    },
    Migration {
        version: 3,
        name: "0003_changes",
        sql: include_str!("../migrations/sqlite/0003_changes.sql"),
    },
    Migration {
        version: PER_OWNER,
        name: "0004_per_owner",
        sql: include_str!("../migrations/sqlite/0004_per_owner.sql"),
    },
    Migration {
        version: AUDIT_CHAIN,
        name: "0005_audit_chain",
        sql: include_str!("../migrations/sqlite/0005_audit_chain.sql"),
    },
    Migration {
        version: 6,
        name: "0006_audit_edits",
        sql: include_str!("../migrations/sqlite/0006_audit_edits.sql"),
    },
    Migration {
        version: 7,
        name: "0007_grants",
        sql: include_str!("../migrations/sqlite/0007_grants.sql"),
    },
];

pub(crate) const POSTGRES: &[Migration] = &[
    Migration {
        version: 1,
        name: "0001_runs",
        sql: include_str!("../migrations/postgres/0001_runs.sql"),
    },
    Migration {
        version: 2,
        name: "0002_audit",
        sql: include_str!("../migrations/postgres/0002_audit.sql"),
    },
    Migration {
        version: 3,
        name: "0003_changes",
        sql: include_str!("../migrations/postgres/0003_changes.sql"),
    },
    Migration {
        version: PER_OWNER,
        name: "0004_per_owner",
        sql: include_str!("../migrations/postgres/0004_per_owner.sql"),
    },
    Migration {
        version: AUDIT_CHAIN,
        name: "0005_audit_chain",
        sql: include_str!("../migrations/postgres/0005_audit_chain.sql"),
    },
    Migration {
        version: 6,
        name: "0006_audit_edits",
        sql: include_str!("../migrations/postgres/0006_audit_edits.sql"),
    },
    Migration {
        version: 7,
        name: "0007_grants",
        sql: include_str!("../migrations/postgres/0007_grants.sql"),
    },
];
