-- Silent push (docs/operators/push.md): the phones that asked to be woken when their user's
-- data changes, and one outbox of wake-ups per device. The sender (Sources/Push/PushSender.swift,
-- one per instance) claims due rows with the outboxes' lease (LeasedQueue: next_attempt_at,
-- claim, attempts, sent_at, dead_at) and never holds a transaction open during HTTP.

-- A device token a signed-in session registered. The token is unique: a phone that changes
-- hands moves to whoever registers it last (the row is taken over, `registered_at` renewed).
-- Provider key files never live here (they come from files named in settings), so a backup
-- holds only device tokens, which are worthless without the provider key.
CREATE TABLE push_devices (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id         uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The registering session: its end (sign-out, revocation) removes the device.
    session_id      uuid        REFERENCES auth_sessions (id) ON DELETE CASCADE,
    platform        text        NOT NULL CHECK (platform IN ('ios', 'android')),
    token           text        NOT NULL UNIQUE CHECK (octet_length(token) BETWEEN 8 AND 4096),
    app_id          text        NOT NULL CHECK (octet_length(app_id) BETWEEN 1 AND 255),
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- Renewed by each registration: APNs' 410 timestamp is compared with it.
    registered_at   timestamptz NOT NULL DEFAULT now(),
    -- When the last wake-up was handed to the provider (PUSH_MIN_INTERVAL counts from it).
    last_push_at    timestamptz,
    last_failure_at timestamptz,
    last_failure    text
);
CREATE INDEX push_devices_user_idx ON push_devices (user_id);
CREATE INDEX push_devices_session_idx ON push_devices (session_id);

-- The wake-up owed to one device. Coalescing: at most one pending row per device (the partial
-- unique index); a change for a device with a pending row updates it instead. A change that
-- arrives while the row is being sent (`claim` set) sets `again`, so the row is re-armed when
-- the send is recorded rather than a second row being inserted beside it.
CREATE TABLE push_outbox (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    device_id       uuid        NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
    -- `urgent` (sent at once, within the interval) or `changed` (waits for the interval).
    reason          text        NOT NULL CHECK (reason IN ('urgent', 'changed')),
    -- When the wake-up became owed: older than the staleness limit when sent, it is dropped.
    due_at          timestamptz NOT NULL DEFAULT now(),
    -- Changes folded into this row after it was queued (the `push_coalesced_total` metric).
    coalesced       integer     NOT NULL DEFAULT 0,
    again           boolean     NOT NULL DEFAULT false,
    again_urgent    boolean     NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claim           uuid,
    attempts        integer     NOT NULL DEFAULT 0,
    last_status     integer,
    last_error      text,
    sent_at         timestamptz,
    dead_at         timestamptz,
    CHECK (sent_at IS NULL OR dead_at IS NULL)
);
CREATE UNIQUE INDEX push_outbox_pending_idx ON push_outbox (device_id) WHERE sent_at IS NULL AND dead_at IS NULL;
CREATE INDEX push_outbox_due_idx ON push_outbox (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
CREATE INDEX push_outbox_created_idx ON push_outbox (created_at);

-- Every path that ends a session or deactivates a user (sign-out, GoTrue, the console, a
-- refresh-token reuse, a password change) removes the devices it registered: written once
-- here rather than in each path.
CREATE FUNCTION dispatch_push_forget_session() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM push_devices WHERE session_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER auth_sessions_push_forget AFTER UPDATE OF revoked_at ON auth_sessions
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION dispatch_push_forget_session();

CREATE FUNCTION dispatch_push_forget_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM push_devices WHERE user_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER users_push_forget AFTER UPDATE OF deactivated_at ON users
    FOR EACH ROW WHEN (OLD.deactivated_at IS NULL AND NEW.deactivated_at IS NOT NULL)
    EXECUTE FUNCTION dispatch_push_forget_user();

-- Who must be woken at once by what committed after `since` and is visible in `upto` (the
-- change stream's read), and who acted. Urgent for a user:
--   * a claim or release of an item they declared, by someone else;
--   * a claim handed to them or a claim of theirs released by someone else (the console's
--     hand-over and off-boarding are claim events with the admin as actor);
--   * an urgent task or activity written on a listing they own or staff.
-- `actor` rows name who made a claim event: the push skips a user whose only part in the
-- change was their own claim (they already know).
CREATE FUNCTION dispatch_push_reasons(since pg_snapshot, upto pg_snapshot)
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
    UNION
    SELECT i.declared_by, true FROM claims c
        JOIN (SELECT t.id, t.declared_by FROM tasks t UNION ALL SELECT a.id, a.declared_by FROM activities a) i ON i.id = c.entity_id
        WHERE i.declared_by <> c.actor_id
    UNION
    SELECT u.person, true FROM items i JOIN listings l ON l.id = i.listing_id,
        LATERAL (VALUES (l.owned_by), (l.assigned_staff)) u(person)
        WHERE i.priority = 'urgent' AND u.person IS NOT NULL
    UNION
    SELECT c.actor_id, false FROM claims c
$$;
