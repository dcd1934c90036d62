-- toolgate's run records: one row per run id, its revision (the compare-and-swap token,
-- from 1) and the run's JSON document as core writes it.
CREATE TABLE toolgate_runs (
    run_key  TEXT   NOT NULL PRIMARY KEY,
    revision BIGINT NOT NULL CHECK (revision > 0),
    value    TEXT   NOT NULL
);
