-- Grants: a person's "always allow" kept as a record that only narrows (one scope the
-- call offered, one session, an expiry, maybe a single use, revocable). `doc` is the
-- grant as given (JSON: rule, what it matches, the reason it answers, who gave it,
-- for which call); the columns beside it are what changes and what lookups filter on.
CREATE TABLE toolgate_grants (
    owner      TEXT    NOT NULL,
    id         TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,
    expires_at BIGINT  NOT NULL,
    single_use BOOLEAN NOT NULL,
    used       BIGINT  NOT NULL DEFAULT 0,
    revoked_at BIGINT,
    doc        TEXT    NOT NULL,
    PRIMARY KEY (owner, id)
);
CREATE INDEX toolgate_grants_session ON toolgate_grants (owner, session_id, expires_at);
-- The audit names the grant that approved a call (or that an approval gave).
ALTER TABLE toolgate_audit ADD COLUMN grant_id TEXT;
