-- Webhook events name their `actor` beyond claims and releases wherever the row itself says
-- who acted: a created task or activity (declared_by), a created note (created_by) and an
-- edited note (edited_by). Other updates, deletes and listings carry no actor: the row does
-- not record who changed it, and naming one would need the writer's identity in every write
-- statement (docs/integrators/webhooks.md). Only the function changes; the triggers stay.

CREATE OR REPLACE FUNCTION dispatch_webhook_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    resource text;
    action   text;
    kind     text;
    data     json;
    previous text;
    actor    uuid;
    event    text;
    newer    jsonb;
    older    jsonb;
BEGIN
    PERFORM 1 FROM webhook_endpoints WHERE enabled LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    resource := CASE TG_TABLE_NAME WHEN 'tasks' THEN 'task' WHEN 'activities' THEN 'activity'
                                   WHEN 'listings' THEN 'listing' WHEN 'notes' THEN 'note' ELSE 'subtask' END;
    -- Each row is turned into jsonb once (only for an update), for the generic column reads.
    IF TG_OP = 'UPDATE' THEN
        newer := to_jsonb(NEW);
        older := to_jsonb(OLD);
    END IF;
    IF TG_OP = 'INSERT' THEN
        action := 'created';
    ELSIF TG_OP = 'DELETE' THEN
        action := 'deleted';
    ELSIF newer ->> 'deleted_at' IS NOT NULL AND older ->> 'deleted_at' IS NULL THEN
        action := 'deleted';
    ELSIF TG_TABLE_NAME IN ('tasks', 'activities', 'listings')
          AND (newer ->> 'status') = 'deleted' AND (older ->> 'status') IS DISTINCT FROM 'deleted' THEN
        action := 'deleted';
    ELSIF TG_TABLE_NAME IN ('tasks', 'activities') AND (newer ->> 'claimed_by') IS DISTINCT FROM (older ->> 'claimed_by') THEN
        action := CASE WHEN newer ->> 'claimed_by' IS NULL THEN 'released' ELSE 'claimed' END;
        SELECT c.actor_id INTO actor FROM claim_events c
        WHERE c.entity_type = resource AND c.entity_id = NEW.id AND c.txid = pg_current_xact_id() ORDER BY c.created_at DESC, c.id DESC LIMIT 1;
    ELSE
        action := 'updated';
    END IF;
    -- The author, where the row itself names who did this: the declarer of a new task or
    -- activity, the writer of a new note, the editor of an edited note.
    IF actor IS NULL AND action = 'created' AND TG_TABLE_NAME IN ('tasks', 'activities') THEN
        actor := NEW.declared_by;  -- compiled per table: only tasks and activities reach it
    ELSIF actor IS NULL AND TG_TABLE_NAME = 'notes' AND action = 'created' THEN
        actor := NEW.created_by;
    ELSIF actor IS NULL AND TG_TABLE_NAME = 'notes' AND action = 'updated' THEN
        actor := NEW.edited_by;
    END IF;
    kind := resource || '.' || action;
    IF NOT EXISTS (SELECT 1 FROM webhook_endpoints
                   WHERE enabled AND (kind = ANY (events) OR '*' = ANY (events))) THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        data := dispatch_json(OLD);
    ELSIF TG_TABLE_NAME IN ('tasks', 'activities') THEN
        -- The JSON the stamping trigger already stored for this row (0027): not rendered twice.
        data := NEW.row_json::json;
    ELSE
        data := dispatch_json(NEW);
    END IF;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME IN ('tasks', 'activities', 'listings')
       AND (newer ->> 'status') IS DISTINCT FROM (older ->> 'status') THEN
        previous := older ->> 'status';
    END IF;
    event := 'msg_' || replace(gen_random_uuid()::text, '-', '');
    -- Built as text so `data` keeps dispatch_json's exact bytes (key order, nulls).
    INSERT INTO webhook_events (id, type, payload)
    VALUES (event, kind, '{"type":' || to_json(kind)::text || ',"timestamp":' || to_json(dispatch_ts(now()))::text
        || ',"data":' || data::text
        || CASE WHEN previous IS NULL THEN '' ELSE ',"previous_status":' || to_json(previous)::text END
        || CASE WHEN actor IS NULL THEN '' ELSE ',"actor":' || to_json(actor)::text END || '}');
    INSERT INTO webhook_deliveries (endpoint_id, event_id)
    SELECT id, event FROM webhook_endpoints WHERE enabled AND (kind = ANY (events) OR '*' = ANY (events));
    RETURN NULL;
END;
$$;
