-- 0039: less PostgreSQL work per write for the webhook outbox (docs/performance.md, "Writes:
-- where they stand against PocketBase, and the write-side work bounded"). Same events, same payload bytes, same deliveries; fewer steps.
--
-- 1. The deliveries' foreign keys are gone. Each delivery insert ran two referential checks
--    through SPI, and each took a KEY SHARE lock on the endpoint's row and the event's: every
--    concurrent write locked the same endpoint row (a multixact under load). Both references
--    are proved by the statement that writes them (the trigger below inserts deliveries only
--    for endpoints it reads and for the event it writes in the same transaction; a replay
--    copies an existing delivery's pair). What ON DELETE CASCADE did is done by the statement
--    triggers after them, which first take SHARE ROW EXCLUSIVE on webhook_deliveries: a write
--    that already inserted a delivery for the endpoint or event being deleted commits first
--    and its delivery is deleted with the rest; one that has not yet inserted waits, and its
--    INSERT, which reads the endpoints in the same statement, then no longer sees the deleted
--    endpoint. A delivery can therefore not outlive its endpoint or its event.
ALTER TABLE webhook_deliveries
    DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey,
    DROP CONSTRAINT webhook_deliveries_event_id_fkey;

CREATE FUNCTION dispatch_webhook_endpoints_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE webhook_deliveries IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM webhook_deliveries d USING gone g WHERE d.endpoint_id = g.id;
    RETURN NULL;
END $$;
CREATE TRIGGER webhook_endpoints_gone AFTER DELETE ON webhook_endpoints
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION dispatch_webhook_endpoints_gone();

CREATE FUNCTION dispatch_webhook_events_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE webhook_deliveries IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM webhook_deliveries d USING gone g WHERE d.event_id = g.id;
    RETURN NULL;
END $$;
CREATE TRIGGER webhook_events_gone AFTER DELETE ON webhook_events
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION dispatch_webhook_events_gone();

-- The deliveries' event index served the cascade and the prune's "no delivery left" test, both
-- now set-wise (a hash join per prune, hourly) rather than a probe per event: one index
-- insert fewer per subscribed write. Reads by event go through webhook_events' key.
DROP INDEX webhook_deliveries_event_idx;

-- 2. The event trigger, same verdicts as 0035 in fewer steps:
--    * an update reads the columns it compares from NEW and OLD (PL/pgSQL compiles a trigger
--      function per table, and a statement naming `NEW.status` or `NEW.claimed_by` is only
--      planned when a table that has the column reaches it), instead of turning both whole
--      rows, stored JSON included, into jsonb;
--    * the deliveries and the event are one statement, the deliveries first with the event's
--      id chosen beforehand: their insert is also the test of whether an endpoint takes this
--      type (one read of the endpoints instead of two, one statement instead of three);
--    * the stored JSON of a task or activity goes into the payload as the text it is, not
--      parsed as json and printed again (the same bytes: json keeps its input text).
CREATE OR REPLACE FUNCTION dispatch_webhook_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    resource text;
    action   text;
    kind     text;
    data     text;
    previous text;
    actor    uuid;
    event    text;
    deleting boolean := false;
BEGIN
    PERFORM 1 FROM webhook_endpoints WHERE enabled LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    resource := CASE TG_TABLE_NAME WHEN 'tasks' THEN 'task' WHEN 'activities' THEN 'activity'
                                   WHEN 'listings' THEN 'listing' WHEN 'notes' THEN 'note' ELSE 'subtask' END;
    IF TG_OP = 'INSERT' THEN
        action := 'created';
    ELSIF TG_OP = 'DELETE' THEN
        action := 'deleted';
    ELSE
        -- previous_status whenever the status changed, whatever else did.
        IF TG_TABLE_NAME IN ('tasks', 'activities', 'listings') THEN
            IF NEW.status IS DISTINCT FROM OLD.status THEN
                previous := OLD.status;
                deleting := NEW.status = 'deleted';
            END IF;
        END IF;
        IF NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL THEN
            action := 'deleted';
        ELSIF deleting THEN
            action := 'deleted';
        ELSE
            action := 'updated';
            IF TG_TABLE_NAME IN ('tasks', 'activities') THEN
                IF NEW.claimed_by IS DISTINCT FROM OLD.claimed_by THEN
                    action := CASE WHEN NEW.claimed_by IS NULL THEN 'released' ELSE 'claimed' END;
                    SELECT c.actor_id INTO actor FROM claim_events c
                    WHERE c.entity_type = resource AND c.entity_id = NEW.id AND c.txid = pg_current_xact_id()
                    ORDER BY c.created_at DESC, c.id DESC LIMIT 1;
                END IF;
            END IF;
        END IF;
    END IF;
    -- The author, where the row itself names who did this (0035).
    IF actor IS NULL AND action = 'created' AND TG_TABLE_NAME IN ('tasks', 'activities') THEN
        actor := NEW.declared_by;
    ELSIF actor IS NULL AND TG_TABLE_NAME = 'notes' AND action = 'created' THEN
        actor := NEW.created_by;
    ELSIF actor IS NULL AND TG_TABLE_NAME = 'notes' AND action = 'updated' THEN
        actor := NEW.edited_by;
    END IF;
    kind := resource || '.' || action;
    event := 'msg_' || replace(gen_random_uuid()::text, '-', '');
    IF TG_OP = 'DELETE' THEN
        data := dispatch_json(OLD)::text;
    ELSIF TG_TABLE_NAME IN ('tasks', 'activities') THEN
        -- The JSON the stamping trigger already stored for this row (0027): not rendered twice.
        data := NEW.row_json;
    ELSE
        data := dispatch_json(NEW)::text;
    END IF;
    -- One statement: the deliveries, then the event only if there was one. Built as text so
    -- `data` keeps dispatch_json's exact bytes (key order, nulls).
    WITH delivered AS (
        INSERT INTO webhook_deliveries (endpoint_id, event_id)
        SELECT id, event FROM webhook_endpoints WHERE enabled AND (kind = ANY (events) OR '*' = ANY (events))
        RETURNING 1)
    INSERT INTO webhook_events (id, type, payload)
    SELECT event, kind, '{"type":' || to_json(kind)::text || ',"timestamp":' || to_json(dispatch_ts(now()))::text
        || ',"data":' || data
        || CASE WHEN previous IS NULL THEN '' ELSE ',"previous_status":' || to_json(previous)::text END
        || CASE WHEN actor IS NULL THEN '' ELSE ',"actor":' || to_json(actor)::text END || '}'
    WHERE EXISTS (SELECT 1 FROM delivered);
    RETURN NULL;
END;
$$;

-- 3. The push sender's reasons query (0036) without de-duplication: its caller puts the rows in
--    sets, and each UNION's hash table, sized from the tables' estimates, was built and cleared
--    on every change read (about a fifth of what a change read cost with 1,000 devices); and
--    the declarer of a claimed item looked up by key per claim event, where a hash join
--    hashed every task and activity on every change read, claims or none.
CREATE OR REPLACE FUNCTION dispatch_push_reasons(since pg_snapshot, upto pg_snapshot)
RETURNS TABLE (user_id uuid, urgent boolean)
LANGUAGE sql STABLE AS $$
    WITH lo AS (SELECT pg_snapshot_xmin(since) AS xid),
    claims AS (
        SELECT c.* FROM claim_events c, lo
        WHERE c.txid >= lo.xid AND NOT pg_visible_in_snapshot(c.txid, since) AND pg_visible_in_snapshot(c.txid, upto)),
    items AS (
        SELECT t.priority, t.listing_id, t.declared_by, 'task' AS kind, t.id FROM tasks t, lo
        WHERE t.txid >= lo.xid AND NOT pg_visible_in_snapshot(t.txid, since) AND pg_visible_in_snapshot(t.txid, upto)
        UNION ALL
        SELECT a.priority, a.listing_id, a.declared_by, 'activity', a.id FROM activities a, lo
        WHERE a.txid >= lo.xid AND NOT pg_visible_in_snapshot(a.txid, since) AND pg_visible_in_snapshot(a.txid, upto))
    SELECT c.user_id, true FROM claims c WHERE c.user_id <> c.actor_id
    UNION ALL
    SELECT i.declared_by, true FROM claims c
        CROSS JOIN LATERAL (SELECT t.declared_by FROM tasks t WHERE t.id = c.entity_id
                            UNION ALL SELECT a.declared_by FROM activities a WHERE a.id = c.entity_id) i
        WHERE i.declared_by <> c.actor_id
    UNION ALL
    SELECT u.person, true FROM items i JOIN listings l ON l.id = i.listing_id,
        LATERAL (VALUES (l.owned_by), (l.assigned_staff)) u(person)
        WHERE i.priority = 'urgent' AND u.person IS NOT NULL
    UNION ALL
    SELECT c.actor_id, false FROM claims c
$$;
