-- toolgate's run records: one row per run id, its revision (the compare-and-swap token,
-- from 1) and the run's JSON document as core writes it. STRICT: the column types are
-- enforced, so a revision is always an integer.
CREATE TABLE toolgate_runs (
    run_key  TEXT    NOT NULL PRIMARY KEY,
    revision INTEGER NOT NULL CHECK (revision > 0),
    value    TEXT    NOT NULL
) STRICT;
