-- 0004: avatar images, content-addressed by the SHA-256 hex of their bytes (users.avatar_hash
-- points here). Content addressing makes the images immutable: the same hash always serves the
-- same bytes, so GET /v1/avatars/{hash} can be cached forever, and identical uploads share a row.
-- Rows are not deleted when a user changes avatar: an old hash may still sit in a client's
-- cache or local database, and images are small.
CREATE TABLE avatars (
    hash         text        PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
    content_type text        NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg')),
    bytes        bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
