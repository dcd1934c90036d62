-- Runs are kept per owner: the key is (owner, run_key), so one owner's run ids are not
-- another's. The store derives status, parked_by and updated_at from each document on
-- every write (and fills them for the rows below right after this migration), so that
-- SQL can page, filter, count and prune without reading documents.
ALTER TABLE toolgate_runs
    ADD COLUMN owner      TEXT   NOT NULL DEFAULT '',
    ADD COLUMN status     TEXT   NOT NULL DEFAULT '',
    ADD COLUMN parked_by  TEXT,
    ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
-- Run ids sort by byte, as in SQLite, whatever the database's locale: pages follow it.
ALTER TABLE toolgate_runs ALTER COLUMN run_key TYPE TEXT COLLATE "C";
ALTER TABLE toolgate_runs DROP CONSTRAINT toolgate_runs_pkey;
ALTER TABLE toolgate_runs ADD PRIMARY KEY (owner, run_key);
CREATE INDEX toolgate_runs_status ON toolgate_runs (owner, status, run_key);
CREATE INDEX toolgate_runs_finished ON toolgate_runs (status, updated_at);

-- The audit trail keeps every row: no uniqueness to drop one on (a run id used again
-- after its run was pruned starts its revisions again), and each row says which agent
-- asked.
ALTER TABLE toolgate_audit DROP CONSTRAINT IF EXISTS toolgate_audit_run_id_revision_tool_call_id_key;
ALTER TABLE toolgate_audit ADD COLUMN asked_by TEXT;
CREATE INDEX toolgate_audit_call ON toolgate_audit (owner, run_id, tool_call_id);
