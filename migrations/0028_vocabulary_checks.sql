-- 0028: the enumerated columns' CHECK constraints call a short function instead of storing an
-- IN list (issue 28 item 1, docs/performance.md "Create and claim cost").
--
-- Why: PostgreSQL rebuilds a table's CHECK expressions from their stored node text for every
-- statement that writes the table (ExecRelCheck: stringToNode, then expression planning, which
-- for an IN list folds each text constant again). Measured with callgrind on PostgreSQL 15,
-- single-row INSERTs into a table with `tasks`' three enumerated columns: the three IN lists
-- cost ~109k instructions per insert; three calls of one-argument PL/pgSQL functions ~55k.
-- 0027 did the same for `status_changes_status_valid`.
--
-- How: each vocabulary is written once, in dispatch_vocabulary(name). Each constraint is
-- `dispatch_is_<name>(column)`, a PL/pgSQL function whose one expression is
-- `value = ANY (dispatch_vocabulary('<name>'))`: PL/pgSQL plans that expression once per
-- session, and planning folds the IMMUTABLE call with a constant argument into the array, so a
-- row costs one small function call and the `= ANY` test. (Putting
-- `column = ANY (dispatch_vocabulary('<name>'))` in the CHECK itself was measured too: no
-- cheaper than the IN list, since the CHECK is planned, and the call folded, per statement.)
-- A multi-row write pays the call per row and column, where the IN list was inline; seed-demo
-- is the only bulk writer. Same constraint names (the default `<table>_<column>_check`), same
-- accepted values, validated against the rows already there.
--
-- ResourceCatalogTests reads each constraint's vocabulary name, checks the function it calls
-- is exactly the template below, and compares dispatch_vocabulary(name) with the Swift catalog.
-- Changing a vocabulary later: CREATE OR REPLACE dispatch_vocabulary, then drop and re-add the
-- constraints that use it (PostgreSQL neither re-validates a CHECK when a function it calls
-- changes nor, within a session, re-plans what it has cached).

CREATE FUNCTION dispatch_vocabulary(name text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    vocabulary text[];
BEGIN
    vocabulary := CASE name
        WHEN 'user_type'         THEN ARRAY['admin', 'realtor']
        WHEN 'listing_type'      THEN ARRAY['sale', 'rental']
        WHEN 'listing_status'    THEN ARRAY['draft', 'active', 'pending', 'closed', 'deleted']
        WHEN 'created_via'       THEN ARRAY['dispatch', 'slack']
        WHEN 'priority'          THEN ARRAY['low', 'medium', 'high', 'urgent']
        WHEN 'work_item_status'  THEN ARRAY['open', 'in_progress', 'completed', 'deleted']
        WHEN 'activity_type'     THEN ARRAY['call', 'email', 'meeting', 'show_property', 'follow_up', 'other']
        -- What a subtask or a claim belongs to, and what a note or a status change is about.
        WHEN 'work_item_type'    THEN ARRAY['task', 'activity']
        WHEN 'entity_type'       THEN ARRAY['task', 'activity', 'listing']
        WHEN 'claim_action'      THEN ARRAY['claimed', 'released']
    END;
    -- A misspelt name must not check nothing (`x = ANY (NULL)` is NULL, which a CHECK accepts).
    IF vocabulary IS NULL THEN
        RAISE EXCEPTION 'dispatch_vocabulary: no vocabulary named %', name;
    END IF;
    RETURN vocabulary;
END;
$$;

-- One membership function per vocabulary, from one template (so they cannot drift apart).
-- dispatch_vocabulary is named with its schema: pg_restore loads rows with an empty
-- search_path, and these functions run then, in the CHECKs (BackupRestoreTests).
DO $$
DECLARE
    vocabulary text;
BEGIN
    FOREACH vocabulary IN ARRAY ARRAY['user_type', 'listing_type', 'listing_status', 'created_via', 'priority',
                                'work_item_status', 'activity_type', 'work_item_type', 'entity_type', 'claim_action'] LOOP
        EXECUTE format('CREATE FUNCTION %I(value text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS %L',
                       'dispatch_is_' || vocabulary,
                       format('BEGIN RETURN value = ANY (%I.dispatch_vocabulary(%L)); END;', current_schema(), vocabulary));
    END LOOP;
END;
$$;

-- Each enumerated column's constraint, replaced under its default name `<table>_<column>_check`;
-- one ALTER TABLE per table, so a table's rows are read once to validate its new constraints.
DO $$
DECLARE
    alteration text;
BEGIN
    FOR alteration IN
        SELECT format('ALTER TABLE %I ', t) || string_agg(
                   format('DROP CONSTRAINT %1$I, ADD CONSTRAINT %1$I CHECK (%2$I(%3$I))',
                          t || '_' || c || '_check', 'dispatch_is_' || v, c), ', ')
        FROM (VALUES ('users', 'user_type', 'user_type'),
                     ('listings', 'listing_type', 'listing_type'),
                     ('listings', 'status', 'listing_status'),
                     ('listings', 'created_via', 'created_via'),
                     ('tasks', 'priority', 'priority'),
                     ('tasks', 'status', 'work_item_status'),
                     ('tasks', 'created_via', 'created_via'),
                     ('activities', 'type', 'activity_type'),
                     ('activities', 'priority', 'priority'),
                     ('activities', 'status', 'work_item_status'),
                     ('activities', 'created_via', 'created_via'),
                     ('notes', 'parent_type', 'entity_type'),
                     ('subtasks', 'parent_type', 'work_item_type'),
                     ('claim_events', 'entity_type', 'work_item_type'),
                     ('claim_events', 'action', 'claim_action'),
                     ('status_changes', 'entity_type', 'entity_type')) AS checks (t, c, v)
        GROUP BY t
    LOOP
        EXECUTE alteration;
    END LOOP;
END;
$$;

-- The status rule of 0027 spelled the two status lists out again; it now takes them from the
-- same place (named with its schema, as above). PL/pgSQL plans each expression once per
-- session, and that planning folds the IMMUTABLE call with a constant argument into the array,
-- so a row still costs no extra call.
DO $do$
BEGIN
    EXECUTE format($body$
CREATE OR REPLACE FUNCTION dispatch_status_change_valid(entity_type text, old_status text, new_status text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
    -- The CASE of 0001: 'listing' has the listing vocabulary, anything else the work items'.
    IF entity_type = 'listing' THEN
        RETURN new_status = ANY (%1$I.dispatch_vocabulary('listing_status'))
           AND (old_status IS NULL OR old_status = ANY (%1$I.dispatch_vocabulary('listing_status')));
    END IF;
    RETURN new_status = ANY (%1$I.dispatch_vocabulary('work_item_status'))
       AND (old_status IS NULL OR old_status = ANY (%1$I.dispatch_vocabulary('work_item_status')));
END;
$fn$$body$, current_schema());
END;
$do$;
