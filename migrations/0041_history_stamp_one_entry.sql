-- 0041: a history row's stamp reads one index entry of its entity, not every one.
--
-- dispatch_stamp_history_row (0010, 0013) stamps a new claim_events or status_changes row one
-- microsecond past its entity's latest row, so an entity's history stays strictly ordered
-- through equal microseconds (two rows of one entity in one transaction: a reassignment's
-- release and claim) and a wall clock stepped back. It read that latest stamp with
-- `SELECT max(created_at) … WHERE entity_type = … AND entity_id = …`. PostgreSQL turns max()
-- into "the first entry of a backward index scan" only when it expects that to be cheaper than
-- aggregating, and for one entity it expects one row, so the plan was an Aggregate over an
-- index-only scan of every entry the entity has: each claim or release of a task read all of
-- its claim events (and each status change all of its status changes), a cost that grew with
-- the item's history (bench/create-cost-instructions: 3.50 M PostgreSQL instructions per
-- claim + release on a task claimed 120 times, 3.02 M written as below).
--
-- `ORDER BY created_at DESC LIMIT 1` says what is wanted: the last entry of the entity's range
-- in claim_events_entity_idx / status_changes_entity_idx (entity_type, entity_id, created_at),
-- one entry read whatever the history's length. Same value (created_at is NOT NULL, so the
-- first row in descending order is the maximum; no row gives NULL as max() did), same stamps,
-- same order (PlanCachedFunctionsTests, ClaimHistoryOrderTests; HistoryStampTests checks that
-- one entry is read).
CREATE OR REPLACE FUNCTION dispatch_stamp_history_row() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    latest timestamptz;
BEGIN
    NEW.txid := pg_current_xact_id();
    IF TG_OP = 'INSERT' THEN
        IF TG_TABLE_NAME = 'claim_events' THEN
            SELECT h.created_at INTO latest FROM claim_events h
            WHERE h.entity_type = NEW.entity_type AND h.entity_id = NEW.entity_id
            ORDER BY h.created_at DESC LIMIT 1;
        ELSIF TG_TABLE_NAME = 'status_changes' THEN
            SELECT h.created_at INTO latest FROM status_changes h
            WHERE h.entity_type = NEW.entity_type AND h.entity_id = NEW.entity_id
            ORDER BY h.created_at DESC LIMIT 1;
        ELSE
            EXECUTE format('SELECT created_at FROM %I WHERE entity_type = $1 AND entity_id = $2 ORDER BY created_at DESC LIMIT 1',
                           TG_TABLE_NAME)
                INTO latest USING NEW.entity_type, NEW.entity_id;
        END IF;
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
