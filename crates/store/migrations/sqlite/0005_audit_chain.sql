-- The audit trail is a hash chain: each record carries the previous record's hash and
-- its own (SHA-256 of that and the record), and the head (the last record's id and
-- hash) is kept apart, so `toolgate-server audit verify` finds an edited record, a
-- deleted one, and deleted last ones. The store links the records already here right
-- after this migration.
ALTER TABLE toolgate_audit ADD COLUMN prev_hash TEXT;
ALTER TABLE toolgate_audit ADD COLUMN hash TEXT;
CREATE TABLE toolgate_audit_head (
    id      INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    last_id INTEGER NOT NULL,
    hash    TEXT    NOT NULL
) STRICT;
