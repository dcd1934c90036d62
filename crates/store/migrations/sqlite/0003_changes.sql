-- A change counter: every write to toolgate_runs bumps it in the same transaction, so a
-- poll can tell "nothing changed since" with one read instead of listing the runs.
CREATE TABLE toolgate_changes (
    id  INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL
) STRICT;
INSERT INTO toolgate_changes (id, seq) VALUES (1, 0);
CREATE TRIGGER toolgate_runs_inserted AFTER INSERT ON toolgate_runs
BEGIN UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1; END;
CREATE TRIGGER toolgate_runs_updated AFTER UPDATE ON toolgate_runs
BEGIN UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1; END;
CREATE TRIGGER toolgate_runs_deleted AFTER DELETE ON toolgate_runs
BEGIN UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1; END;
