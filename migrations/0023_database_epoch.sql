-- 0023: the database's sync epoch, so sync cursors survive nothing but the database they came from.
--
-- A sync cursor is a PostgreSQL snapshot: transaction ids of *this* cluster. A logical restore
-- (pg_dump/pg_restore) into a new cluster restarts the transaction counter, and even a restore
-- into the same cluster loses what was written after the backup. An old cursor can then look
-- valid and skip rows for good (once the new counter passes it), or name rows the server no
-- longer has. So every cursor carries the epoch it was issued in (`ep`), and a cursor from
-- another epoch answers 410 resync_required (docs/operators/backups.md).
--
-- The epoch changes with `dispatch_new_epoch()`, which `dispatchd restore` runs after loading a
-- backup, and which the server runs at start when the database now lives in another cluster
-- than the one recorded here (a restore done by hand, pg_upgrade): `cluster_id` is the
-- cluster's system identifier.

CREATE TABLE dispatch_identity (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    -- Random, in every cursor the feed hands out (hex, no dashes: cursors are query parameters).
    epoch      text        NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', ''),
    -- How many times the epoch changed. Cursors written before cursors carried an epoch are
    -- accepted only while this is 0 (nothing can have moved under them).
    generation integer     NOT NULL DEFAULT 0,
    cluster_id text,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- The cluster's system identifier, or NULL where the provider hides pg_control_system().
CREATE FUNCTION dispatch_cluster_id() RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT system_identifier::text FROM pg_control_system());
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END;
$$;

INSERT INTO dispatch_identity (cluster_id) VALUES (dispatch_cluster_id());

-- Starts a new epoch in the calling transaction and makes the data look freshly written in this
-- cluster:
-- * every synced row's txid becomes this transaction's id. Restored rows keep the ids of the
--   old cluster, which may lie in this cluster's future, where no snapshot sees them: a full
--   sync would miss them until the counter caught up. Triggers are off for the rewrite: the
--   rows do not change (updated_at, version and the stored JSON stay as they were);
-- * the access history goes (it exists for cursors, and every cursor is now from another
--   epoch) and the pruning horizon moves to this transaction.
CREATE FUNCTION dispatch_new_epoch() RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    target record;
    fresh  text;
BEGIN
    FOR target IN
        SELECT c.table_name, c.column_name FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = current_schema() AND c.data_type = 'xid8' AND t.table_type = 'BASE TABLE'
          AND c.table_name NOT IN ('sync_access_changes', 'sync_horizon')
        ORDER BY c.table_name
    LOOP
        EXECUTE format('ALTER TABLE %I DISABLE TRIGGER USER', target.table_name);
        EXECUTE format('UPDATE %I SET %I = pg_current_xact_id()', target.table_name, target.column_name);
        EXECUTE format('ALTER TABLE %I ENABLE TRIGGER USER', target.table_name);
    END LOOP;
    DELETE FROM sync_access_changes;
    UPDATE sync_horizon SET horizon = pg_current_xact_id();
    UPDATE dispatch_identity
    SET epoch = replace(gen_random_uuid()::text, '-', ''), generation = generation + 1,
        cluster_id = dispatch_cluster_id(), changed_at = now()
    RETURNING epoch INTO fresh;
    RETURN fresh;
END;
$$;
