-- Runs are kept per owner: the key is (owner, run_key), so one owner's run ids are not
-- another's. The store derives status, parked_by and updated_at from each document on
-- every write (and fills them for the rows below right after this migration), so that
-- SQL can page, filter, count and prune without reading documents. The change-counter
-- triggers go with the old table and are made again.
CREATE TABLE toolgate_runs_per_owner (
    owner      TEXT    NOT NULL,
    run_key    TEXT    NOT NULL,
    revision   INTEGER NOT NULL CHECK (revision > 0),
    value      TEXT    NOT NULL,
    status     TEXT    NOT NULL DEFAULT '',
    parked_by  TEXT,
    updated_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, run_key)
) STRICT;
INSERT INTO toolgate_runs_per_owner (owner, run_key, revision, value)
    SELECT '', run_key, revision, value FROM toolgate_runs;
DROP TABLE toolgate_runs;
ALTER TABLE toolgate_runs_per_owner RENAME TO toolgate_runs;
CREATE INDEX toolgate_runs_status ON toolgate_runs (owner, status, run_key);
CREATE INDEX toolgate_runs_finished ON toolgate_runs (status, updated_at);
CREATE TRIGGER toolgate_runs_inserted AFTER INSERT ON toolgate_runs
BEGIN UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1; END;
CREATE TRIGGER toolgate_runs_updated AFTER UPDATE ON toolgate_runs
BEGIN UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1; END;
CREATE TRIGGER toolgate_runs_deleted AFTER DELETE ON toolgate_runs
BEGIN UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1; END;

-- The audit trail keeps every row: no uniqueness to drop one on (a run id used again
-- after its run was pruned starts its revisions again), and each row says which agent
-- asked.
CREATE TABLE toolgate_audit_v4 (
    id           INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    at           INTEGER NOT NULL,
    run_id       TEXT    NOT NULL,
    owner        TEXT    NOT NULL,
    session_id   TEXT    NOT NULL,
    revision     INTEGER NOT NULL,
    tool_call_id TEXT    NOT NULL,
    tool         TEXT    NOT NULL,
    outcome      TEXT    NOT NULL,
    decided_by   TEXT,
    anchor       TEXT    NOT NULL,
    rule         TEXT    NOT NULL,
    reason       TEXT    NOT NULL,
    message      TEXT,
    asked_by     TEXT
) STRICT;
INSERT INTO toolgate_audit_v4 (id, at, run_id, owner, session_id, revision, tool_call_id,
        tool, outcome, decided_by, anchor, rule, reason, message)
    SELECT id, at, run_id, owner, session_id, revision, tool_call_id, tool, outcome,
        decided_by, anchor, rule, reason, message FROM toolgate_audit;
DROP TABLE toolgate_audit;
ALTER TABLE toolgate_audit_v4 RENAME TO toolgate_audit;
CREATE INDEX toolgate_audit_owner_at ON toolgate_audit (owner, at);
CREATE INDEX toolgate_audit_call ON toolgate_audit (owner, run_id, tool_call_id);
