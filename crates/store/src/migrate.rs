//! The schema migrations (`migrations/<backend>/NNNN_name.sql`), compiled in, applied in
//! order, each once. Each backend records what it applied in `toolgate_migrations`.

/// One migration: its number (the order) and its SQL.
pub(crate) struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

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
];
