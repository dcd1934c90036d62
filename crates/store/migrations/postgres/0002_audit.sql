-- The audit trail: one row per pending call each time a run leaves awaiting_permission
-- (approved, denied, expired, cancelled, failed), written in the same transaction as
-- the compare-and-swap that ended it, so each request's end is recorded exactly once.
CREATE TABLE toolgate_audit (
    id           BIGSERIAL PRIMARY KEY,
    at           BIGINT NOT NULL,
    run_id       TEXT   NOT NULL,
    owner        TEXT   NOT NULL,
    session_id   TEXT   NOT NULL,
    revision     BIGINT NOT NULL,
    tool_call_id TEXT   NOT NULL,
    tool         TEXT   NOT NULL,
    outcome      TEXT   NOT NULL,
    decided_by   TEXT,
    anchor       TEXT   NOT NULL,
    rule         TEXT   NOT NULL,
    reason       TEXT   NOT NULL,
    message      TEXT,
    UNIQUE (run_id, revision, tool_call_id)
);
CREATE INDEX toolgate_audit_owner_at ON toolgate_audit (owner, at);
