-- A change counter: every write to toolgate_runs bumps it in the same transaction, so a
-- poll can tell "nothing changed since" with one read instead of listing the runs.
CREATE TABLE toolgate_changes (
    id  INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    seq BIGINT  NOT NULL
);
INSERT INTO toolgate_changes (id, seq) VALUES (1, 0);
CREATE FUNCTION toolgate_runs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE toolgate_changes SET seq = seq + 1 WHERE id = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER toolgate_runs_changed AFTER INSERT OR UPDATE OR DELETE ON toolgate_runs
FOR EACH ROW EXECUTE FUNCTION toolgate_runs_changed();
