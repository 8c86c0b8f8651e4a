-- 0033: signed webhooks (docs/integrators/webhooks.md). One durable outbox: an AFTER trigger
-- on every synced table an integrator can subscribe to writes the event and one delivery per
-- subscribed endpoint in the transaction of the write itself, whatever path made it (/v1,
-- /rest/v1, sync push, the console). A rolled-back write leaves no event; a committed one
-- leaves exactly one. Senders (one per instance, Sources/Webhooks/WebhookSender.swift) claim
-- due deliveries with FOR UPDATE SKIP LOCKED under a lease (the mail outbox's LeasedQueue)
-- and never hold a transaction open during HTTP.

-- An endpoint an administrator registered. The secret is stored sealed (AES-256-GCM under a
-- key derived from the server secret, WebhookSecretSeal), never in the clear.
CREATE TABLE webhook_endpoints (
    id                         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    url                        text        NOT NULL CHECK (octet_length(url) BETWEEN 8 AND 2048),
    -- Event types (`task.created`, …) or '*'; checked by the server (WebhookEventType).
    events                     text[]      NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 64),
    description                text        NOT NULL DEFAULT '' CHECK (octet_length(description) <= 1000),
    enabled                    boolean     NOT NULL DEFAULT true,
    -- Why the server disabled it (410, failing for days); NULL when an admin did or it is on.
    disabled_reason            text,
    secret                     text        NOT NULL,
    -- After a rotation the old secret keeps signing beside the new one until it expires.
    previous_secret            text,
    previous_secret_expires_at timestamptz,
    created_by                 uuid        REFERENCES users (id) ON DELETE SET NULL,
    -- The first failure since the last success: an endpoint failing for 5 days is disabled.
    failing_since              timestamptz,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now()
);
-- What each write's trigger reads: only enabled endpoints, and usually none.
CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (id) WHERE enabled;

-- One change, rendered once: `payload` is the exact body every delivery of it sends (and
-- signs). `id` is the `webhook-id`, the same on every retry and replay.
CREATE TABLE webhook_events (
    id         text        PRIMARY KEY,
    type       text        NOT NULL,
    payload    text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

-- One event for one endpoint, and the outcome of its last attempt. The lease columns are the
-- mail outbox's (0020): next_attempt_at, claim, attempts, sent_at, dead_at.
CREATE TABLE webhook_deliveries (
    id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    endpoint_id      uuid        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         text        NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    created_at       timestamptz NOT NULL DEFAULT now(),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    claim            uuid,
    attempts         integer     NOT NULL DEFAULT 0,
    last_status      integer,
    last_duration_ms integer,
    last_error       text,
    last_attempt_at  timestamptz,
    sent_at          timestamptz,
    dead_at          timestamptz,
    CHECK (sent_at IS NULL OR dead_at IS NULL)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

-- The event of one row change, for the endpoints subscribed to it. Cheap when nobody
-- subscribes: one probe of the (normally empty) partial index, then return. Types:
--   INSERT → created; DELETE, or an UPDATE that sets status 'deleted' / deleted_at → deleted;
--   an UPDATE of a task or activity that changes claimed_by → claimed / released (the actor
--   is the claim_events row of this transaction, inserted by the same statement);
--   any other UPDATE → updated. previous_status is set whenever the status changed. `actor`
--   is known only for claims: other writes record their author after the row (status_changes).
-- `data` is the row as GET /v1 renders it (dispatch_json, 0005), with its version; the
-- timestamp is the transaction's time. A restore (deleted → another status) is an update.
CREATE FUNCTION dispatch_webhook_event() RETURNS trigger
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

CREATE TRIGGER listings_webhook   AFTER INSERT OR UPDATE OR DELETE ON listings   FOR EACH ROW EXECUTE FUNCTION dispatch_webhook_event();
CREATE TRIGGER tasks_webhook      AFTER INSERT OR UPDATE OR DELETE ON tasks      FOR EACH ROW EXECUTE FUNCTION dispatch_webhook_event();
CREATE TRIGGER activities_webhook AFTER INSERT OR UPDATE OR DELETE ON activities FOR EACH ROW EXECUTE FUNCTION dispatch_webhook_event();
CREATE TRIGGER notes_webhook      AFTER INSERT OR UPDATE OR DELETE ON notes      FOR EACH ROW EXECUTE FUNCTION dispatch_webhook_event();
CREATE TRIGGER subtasks_webhook   AFTER INSERT OR UPDATE OR DELETE ON subtasks   FOR EACH ROW EXECUTE FUNCTION dispatch_webhook_event();
