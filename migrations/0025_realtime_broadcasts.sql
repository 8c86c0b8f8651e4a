-- Realtime broadcast across instances (docs/app-developers/realtime.md#broadcast-across-instances):
-- a broadcast too large for a NOTIFY payload (PostgreSQL's limit is 8000 bytes) is stored here
-- and only its id is notified. The other instances read it within moments; the sending
-- instance deletes rows older than a minute. Additive: older servers never touch it.
CREATE TABLE realtime_broadcasts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now(),
    body text NOT NULL
);
CREATE INDEX realtime_broadcasts_created_at ON realtime_broadcasts (created_at);
