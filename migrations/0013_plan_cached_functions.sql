-- 0013: the same functions, written so PostgreSQL plans them once instead of on every call
-- (issue 14, cost per request; README "Cost per request"). Behaviour is unchanged.

-- 1. dispatch_ts (0005) was IMMUTABLE, but to_char is only STABLE, so the planner refused to
--    inline it (an inlined IMMUTABLE body must itself be immutable) and ran it as a separate
--    SQL function, planning its body again for every call: 14 calls per task row, most of a
--    list's PostgreSQL time. Declared STABLE — what it truly is — it inlines into
--    dispatch_json. Nothing depends on its immutability: it is used only inside the
--    dispatch_json functions, which are themselves STABLE, and in no index expression,
--    generated column or CHECK. The output cannot depend on the session: `AT TIME ZONE 'UTC'`
--    turns the timestamptz into a plain timestamp before formatting, and the format has no
--    locale-dependent (TM) fields. Same body, byte-identical output.
CREATE OR REPLACE FUNCTION dispatch_ts(t timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

-- 2. dispatch_stamp_history_row (0010) read the entity's latest stamp with EXECUTE format(…),
--    which PL/pgSQL plans on every execution. One static query per table lets it cache each
--    plan for the session. Any other table keeps the dynamic query (the trigger is attached
--    only to claim_events and status_changes, so that branch is only a safety net).
CREATE OR REPLACE FUNCTION dispatch_stamp_history_row() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    latest timestamptz;
BEGIN
    NEW.txid := pg_current_xact_id();
    IF TG_OP = 'INSERT' THEN
        IF TG_TABLE_NAME = 'claim_events' THEN
            SELECT max(h.created_at) INTO latest FROM claim_events h
            WHERE h.entity_type = NEW.entity_type AND h.entity_id = NEW.entity_id;
        ELSIF TG_TABLE_NAME = 'status_changes' THEN
            SELECT max(h.created_at) INTO latest FROM status_changes h
            WHERE h.entity_type = NEW.entity_type AND h.entity_id = NEW.entity_id;
        ELSE
            EXECUTE format('SELECT max(created_at) FROM %I WHERE entity_type = $1 AND entity_id = $2', TG_TABLE_NAME)
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

-- 3. dispatch_record_access (0006, never redefined since) was LANGUAGE sql. Called from the
--    PL/pgSQL access triggers it is not inlined (PERFORM of a set-free void function), so its
--    INSERT was planned on every call, up to four calls per claim or release. In PL/pgSQL the
--    INSERT's plan is cached per session. Same signature and parameter names, same rows.
CREATE OR REPLACE FUNCTION dispatch_record_access(people uuid[], kind text, entity uuid, is_grant boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sync_access_changes (user_id, entity_type, entity_id, granted)
    SELECT DISTINCT p, kind, entity, is_grant FROM unnest(people) AS p WHERE p IS NOT NULL;
END;
$$;

-- 4. sync_access_changes (0006) took gen_random_uuid() keys, so every insert (three per task
--    create, more per claim) touched random pages of a primary-key index of millions of rows.
--    The key stays a uuid — the sync feed orders revocations by (txid, id) and its cursor
--    carries that id as a UUID — but new keys are time-ordered (the UUIDv7 layout: 48-bit
--    Unix milliseconds, then random bits; PostgreSQL 15 has no uuidv7()), so they land on
--    the index's rightmost pages. uuid comparison is bytewise, so later keys sort later.
--    The order of keys only breaks ties between records of one transaction, where any
--    fixed order is as good as another. Existing keys are left as they are.
CREATE FUNCTION dispatch_ordered_uuid() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN encode(
    set_bit(set_bit(
        overlay(uuid_send(gen_random_uuid())
                placing substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                FROM 1 FOR 6),
        52, 1), 53, 1),
    'hex')::uuid;

ALTER TABLE sync_access_changes ALTER COLUMN id SET DEFAULT dispatch_ordered_uuid();
