-- Less PostgreSQL work for the integrations (docs/performance.md, "The write-side work of the
-- integrations, third round"): the same events, payloads and wake-ups.
--
-- 1. Each webhook delivery carries its event's type and payload; the separate webhook_events
--    table is gone (a view stands in for the release before, below). A subscribed write inserted an event row (its key and created_at index)
--    and one delivery per endpoint; the event's insert, its two index entries and the CTE
--    joining the two inserts were about a fifth of what a subscriber added to a create. Now
--    the trigger's one INSERT writes the deliveries and nothing else. Receivers see the same
--    thing: the same webhook-id (event_id, shared by an event's deliveries and copied by a
--    replay) and the same payload bytes, built as before. With several endpoints the payload
--    is stored once per delivery (a few hundred bytes to a few KB each): the price of making
--    the common case, one endpoint, one row.
--
--    The release before this one still runs during a rolling upgrade (docs/operators/
--    upgrades.md, expand/contract), and it reads webhook_events (its sender's claim, the
--    deliveries' listing), deletes from it (its prune) and replays by copying a delivery's
--    endpoint and event id only. So the new columns stay nullable, and webhook_events
--    becomes a view of the deliveries (one row per event) whose DELETE does nothing: events
--    without deliveries no longer exist, and finished deliveries are pruned with their
--    payload. A replay the old release makes has no type or payload of its own; this
--    release's sender and listing take them from the delivery it copied (same event id).
--    The next release may make the columns NOT NULL and drop the view.
ALTER TABLE webhook_deliveries ADD COLUMN type text, ADD COLUMN payload text;
UPDATE webhook_deliveries d SET type = ev.type, payload = ev.payload FROM webhook_events ev WHERE ev.id = d.event_id;

DROP TRIGGER webhook_events_gone ON webhook_events;
DROP FUNCTION dispatch_webhook_events_gone();
DROP TABLE webhook_events;
CREATE VIEW webhook_events AS
    SELECT DISTINCT ON (d.event_id) d.event_id AS id, d.type, d.payload, d.created_at
    FROM webhook_deliveries d WHERE d.payload IS NOT NULL ORDER BY d.event_id, d.created_at;
CREATE FUNCTION dispatch_webhook_events_view_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RETURN NULL;
END $$;
CREATE TRIGGER webhook_events_delete INSTEAD OF DELETE ON webhook_events
    FOR EACH ROW EXECUTE FUNCTION dispatch_webhook_events_view_delete();

-- Same verdicts, actors and payload text as 0040; the deliveries are the only insert.
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
    payload  text;
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
    IF actor IS NULL AND action = 'created' AND TG_TABLE_NAME IN ('tasks', 'activities') THEN
        actor := NEW.declared_by;
    ELSIF actor IS NULL AND TG_TABLE_NAME = 'notes' AND action = 'created' THEN
        actor := NEW.created_by;
    ELSIF actor IS NULL AND TG_TABLE_NAME = 'notes' AND action = 'updated' THEN
        actor := NEW.edited_by;
    END IF;
    kind := resource || '.' || action;
    IF TG_OP = 'DELETE' THEN
        data := dispatch_json(OLD)::text;
    ELSIF TG_TABLE_NAME IN ('tasks', 'activities') THEN
        -- The JSON the stamping trigger already stored for this row (0027): not rendered twice.
        data := NEW.row_json;
    ELSE
        data := dispatch_json(NEW)::text;
    END IF;
    event := 'msg_' || replace(gen_random_uuid()::text, '-', '');
    -- Built as text so `data` keeps dispatch_json's exact bytes (key order, nulls); in
    -- variables, so every endpoint's delivery gets the one event id and payload.
    payload := '{"type":' || to_json(kind)::text || ',"timestamp":' || to_json(dispatch_ts(now()))::text
        || ',"data":' || data
        || CASE WHEN previous IS NULL THEN '' ELSE ',"previous_status":' || to_json(previous)::text END
        || CASE WHEN actor IS NULL THEN '' ELSE ',"actor":' || to_json(actor)::text END || '}';
    INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload)
    SELECT e.id, event, kind, payload FROM webhook_endpoints e
    WHERE e.enabled AND (kind = ANY (e.events) OR '*' = ANY (e.events));
    RETURN NULL;
END;
$$;

-- 2. The push sender's reasons query (0040), same rows: the urgent items' listings are found by
--    key (a lookup per urgent item; OFFSET 0 keeps the planner from turning it back into a join)
--    instead of a hash of every listing built on every change read, urgent items or none (two
--    thirds of what the query cost), and the items are filtered on priority where they are read.
CREATE OR REPLACE FUNCTION dispatch_push_reasons(since pg_snapshot, upto pg_snapshot)
RETURNS TABLE (user_id uuid, urgent boolean)
LANGUAGE sql STABLE AS $$
    WITH lo AS (SELECT pg_snapshot_xmin(since) AS xid),
    claims AS (
        SELECT c.* FROM claim_events c, lo
        WHERE c.txid >= lo.xid AND NOT pg_visible_in_snapshot(c.txid, since) AND pg_visible_in_snapshot(c.txid, upto)),
    urgent AS (
        SELECT t.listing_id FROM tasks t, lo
        WHERE t.txid >= lo.xid AND t.priority = 'urgent'
          AND NOT pg_visible_in_snapshot(t.txid, since) AND pg_visible_in_snapshot(t.txid, upto)
        UNION ALL
        SELECT a.listing_id FROM activities a, lo
        WHERE a.txid >= lo.xid AND a.priority = 'urgent'
          AND NOT pg_visible_in_snapshot(a.txid, since) AND pg_visible_in_snapshot(a.txid, upto))
    SELECT c.user_id, true FROM claims c WHERE c.user_id <> c.actor_id
    UNION ALL
    SELECT i.declared_by, true FROM claims c
        CROSS JOIN LATERAL (SELECT t.declared_by FROM tasks t WHERE t.id = c.entity_id
                            UNION ALL SELECT a.declared_by FROM activities a WHERE a.id = c.entity_id) i
        WHERE i.declared_by <> c.actor_id
    UNION ALL
    SELECT u.person, true FROM urgent i
        CROSS JOIN LATERAL (SELECT l.owned_by, l.assigned_staff FROM listings l WHERE l.id = i.listing_id OFFSET 0) l,
        LATERAL (VALUES (l.owned_by), (l.assigned_staff)) u(person)
        WHERE u.person IS NOT NULL
    UNION ALL
    SELECT c.actor_id, false FROM claims c
$$;
