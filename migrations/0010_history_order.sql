-- History in true (causal) order.
--
-- claim_events and status_changes were stamped by dispatch_stamp_synced_row with now(), the
-- start time of the writing transaction. Under contention a transaction that started earlier
-- can commit later: a release that began before the claim it ends, then waited for that
-- claim's row lock, got the earlier stamp and was listed before the claim.
--
-- Every history row is inserted while its transaction holds the row lock of its entity
-- (a claim's conditional UPDATE, a release's SELECT … FOR UPDATE, every status-changing
-- write), and that lock is held until commit. So a clock read at insert time — after the lock
-- was acquired — orders an entity's history by commit order: the next writer of the entity
-- cannot insert before the previous one committed. clock_timestamp() is that clock; taking
-- the greatest of it and one microsecond past the entity's latest row also keeps the order
-- strict through equal microseconds or a wall clock stepped back. Lists keep ordering by
-- (updated_at, id), so cursors are unchanged. Rows already written keep their stamps.
CREATE FUNCTION dispatch_stamp_history_row() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    latest timestamptz;
BEGIN
    NEW.txid := pg_current_xact_id();
    IF TG_OP = 'INSERT' THEN
        EXECUTE format('SELECT max(created_at) FROM %I WHERE entity_type = $1 AND entity_id = $2', TG_TABLE_NAME)
            INTO latest USING NEW.entity_type, NEW.entity_id;
        NEW.created_at := greatest(clock_timestamp(), latest + interval '1 microsecond');
        NEW.updated_at := NEW.created_at;
        NEW.version := 1;
    ELSE
        NEW.id := OLD.id;
        NEW.created_at := OLD.created_at;
        NEW.updated_at := greatest(clock_timestamp(), OLD.updated_at + interval '1 microsecond');
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER claim_events_stamp ON claim_events;
DROP TRIGGER status_changes_stamp ON status_changes;
CREATE TRIGGER claim_events_stamp   BEFORE INSERT OR UPDATE ON claim_events   FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_history_row();
CREATE TRIGGER status_changes_stamp BEFORE INSERT OR UPDATE ON status_changes FOR EACH ROW EXECUTE FUNCTION dispatch_stamp_history_row();
