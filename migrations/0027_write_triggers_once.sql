-- 0027: less PostgreSQL work per create, claim and release of a task or activity (issue 28
-- item 1, docs/performance.md "Create and claim cost"). Same rows, same stored JSON, same
-- access records, same locks; fewer trigger calls.

-- 1. Two BEFORE row triggers became one. Every insert or update of a task or activity ran
--    `*_stamp` (dispatch_stamp_synced_row, 0001) and then `*_zz_row_json`
--    (dispatch_store_row_json, 0017). Each PL/pgSQL trigger call unpacks the whole new row
--    into a record and, having assigned to NEW, builds a new tuple from it on return: with the
--    stored JSON that is a ~1 KB row unpacked and rebuilt twice per write. The stamping
--    function now also stores the JSON of the tables that keep it, after stamping (the JSON
--    describes the stamped row, as before), so the row is unpacked and rebuilt once. Other
--    tables never reach that branch (PL/pgSQL resolves `NEW.row_json` only when it runs it).
CREATE OR REPLACE FUNCTION dispatch_stamp_synced_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.txid := pg_current_xact_id();
    IF TG_OP = 'INSERT' THEN
        NEW.updated_at := now();
        NEW.version := 1;
    ELSE
        NEW.id := OLD.id;
        NEW.created_at := OLD.created_at;
        NEW.updated_at := now();
        NEW.version := OLD.version + 1;
    END IF;
    IF TG_TABLE_NAME IN ('tasks', 'activities') THEN
        -- PL/pgSQL compiles a trigger function once per table, so this resolves to that
        -- table's dispatch_json overload and its plan is cached per session (as in 0017).
        NEW.row_json := dispatch_json(NEW)::text;
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER tasks_zz_row_json ON tasks;
DROP TRIGGER activities_zz_row_json ON activities;
-- dispatch_store_row_json has no trigger left; dropped so nobody re-attaches it.
DROP FUNCTION dispatch_store_row_json();

-- 2. The access trigger of a new task or activity (0006, 0018) ran the whole insert-or-update
--    function for what an insert needs: lock the listing FOR SHARE (the reason is in 0006:
--    no holder falls between this trigger and a concurrent reassignment's), and record a
--    listing grant for the declarer and claimer unless they are its owner or staff. It did
--    that through two nested PL/pgSQL calls (dispatch_uuid_except, dispatch_record_access)
--    and ran even for an item without a listing, where an insert records nothing. Now the
--    insert has its own function, fired only when there is a listing, with the difference
--    computed inline and the INSERT issued only when someone is to be recorded (the common
--    create, on one's own listing, records no one). Same lock, same records. Updates keep
--    dispatch_work_item_access.
CREATE FUNCTION dispatch_work_item_access_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    staff uuid[];
BEGIN
    SELECT ARRAY[owned_by, assigned_staff] INTO staff FROM listings WHERE id = NEW.listing_id FOR SHARE;
    -- `p = ANY (staff)` is NULL when staff is NULL (no such listing) or holds a NULL: not staff.
    IF (NEW.declared_by IS NOT NULL AND NOT coalesce(NEW.declared_by = ANY (staff), false))
       OR (NEW.claimed_by IS NOT NULL AND NOT coalesce(NEW.claimed_by = ANY (staff), false)) THEN
        INSERT INTO sync_access_changes (user_id, entity_type, entity_id, granted)
        SELECT DISTINCT p, 'listing', NEW.listing_id, true FROM unnest(ARRAY[NEW.declared_by, NEW.claimed_by]) AS p
        WHERE p IS NOT NULL AND NOT coalesce(p = ANY (staff), false);
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER tasks_access ON tasks;
CREATE TRIGGER tasks_access AFTER INSERT ON tasks FOR EACH ROW
    WHEN (NEW.listing_id IS NOT NULL) EXECUTE FUNCTION dispatch_work_item_access_insert();
DROP TRIGGER activities_access ON activities;
CREATE TRIGGER activities_access AFTER INSERT ON activities FOR EACH ROW
    WHEN (NEW.listing_id IS NOT NULL) EXECUTE FUNCTION dispatch_work_item_access_insert();

-- 3. The history table's status check is one function call instead of a CASE of four lists.
--    PostgreSQL rebuilds a table's CHECK expressions from their stored text for every
--    statement that writes the table (ExecRelCheck: stringToNode, then expression planning),
--    and `status_changes_status_valid` (0001) is 5.7 KB of node text: reading it was ~12 % of
--    PostgreSQL's instructions per create (valgrind callgrind, docs/performance.md). The rule
--    is the same, written once in a function whose stored call is a few hundred bytes and
--    whose PL/pgSQL expressions are planned once per session. Same constraint name (error
--    mapping and tests name it), validated against the rows already there.
CREATE FUNCTION dispatch_status_change_valid(entity_type text, old_status text, new_status text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    -- The CASE of 0001: 'listing' has the listing vocabulary, anything else the work items'.
    IF entity_type = 'listing' THEN
        RETURN new_status IN ('draft', 'active', 'pending', 'closed', 'deleted')
           AND (old_status IS NULL OR old_status IN ('draft', 'active', 'pending', 'closed', 'deleted'));
    END IF;
    RETURN new_status IN ('open', 'in_progress', 'completed', 'deleted')
       AND (old_status IS NULL OR old_status IN ('open', 'in_progress', 'completed', 'deleted'));
END;
$$;

ALTER TABLE status_changes DROP CONSTRAINT status_changes_status_valid,
    ADD CONSTRAINT status_changes_status_valid CHECK (dispatch_status_change_valid(entity_type, old_status, new_status));
