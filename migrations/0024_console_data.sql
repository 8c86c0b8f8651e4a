-- 0024: sync health per device, for the console (issue 26).
--
-- Cursors are held by clients; the server did not know when a phone last synced or pushed.
-- One row per device: a sign-in session (auth_sessions.id) or an API key (api_keys.id). The
-- server keeps what it learns in memory and writes it here in batches (API/DeviceActivity:
-- one INSERT … ON CONFLICT over unnest() arrays per flush, every few seconds and only when
-- something happened), never a write per request. Counters are added, times take the
-- latest, so several instances flushing the same device add up instead of overwriting.
-- `last_cursor` is the next_since last handed to the device: the console asks the sync feed
-- what would follow it (how far behind the head the device is). Rows die with their user.
CREATE TABLE sync_device_health (
    device_id       uuid        PRIMARY KEY,
    device_kind     text        NOT NULL CHECK (device_kind IN ('session', 'api_key')),
    user_id         uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    first_seen_at   timestamptz NOT NULL,
    last_seen_at    timestamptz NOT NULL,
    last_sync_at    timestamptz,
    last_push_at    timestamptz,
    last_reset_at   timestamptz,
    last_cursor     text,
    syncs           bigint      NOT NULL DEFAULT 0,
    pushes          bigint      NOT NULL DEFAULT 0,
    resets          bigint      NOT NULL DEFAULT 0,
    rejected        bigint      NOT NULL DEFAULT 0,
    conflicts       bigint      NOT NULL DEFAULT 0,
    claim_conflicts bigint      NOT NULL DEFAULT 0
);
-- The console lists a user's devices, and all devices newest first (keyset on last_seen_at, id).
CREATE INDEX sync_device_health_user_idx ON sync_device_health (user_id, last_seen_at DESC);
CREATE INDEX sync_device_health_seen_idx ON sync_device_health (last_seen_at DESC, device_id DESC);
