-- Each webhook delivery carries its event's type and payload; the separate webhook_events
-- table is gone (docs/performance.md, "One insert per subscribed write"). A subscribed write
-- inserted an event row (its key and created_at index) and one delivery per endpoint; the
-- profile put the event's insert, its two index entries and the CTE joining the two inserts
-- at about a fifth of what a subscriber added to a create. Now the trigger's one INSERT writes
-- the deliveries and nothing else. The receivers see the same thing: the same webhook-id
-- (event_id, shared by an event's deliveries and copied by a replay) and the same payload
-- bytes, built as before. With several endpoints the payload is stored once per delivery
-- (a few hundred bytes to a few KB each): the price of the common case, one endpoint,
-- writing one row.
ALTER TABLE webhook_deliveries ADD COLUMN type text, ADD COLUMN payload text;
UPDATE webhook_deliveries d SET type = ev.type, payload = ev.payload FROM webhook_events ev WHERE ev.id = d.event_id;
-- A delivery whose event is gone could not be sent (0040's cascade leaves none).
DELETE FROM webhook_deliveries WHERE payload IS NULL;
ALTER TABLE webhook_deliveries ALTER COLUMN type SET NOT NULL, ALTER COLUMN payload SET NOT NULL;

DROP TRIGGER webhook_events_gone ON webhook_events;
DROP FUNCTION dispatch_webhook_events_gone();
DROP TABLE webhook_events;

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
