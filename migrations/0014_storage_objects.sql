-- 0014: Storage objects (/storage/v1, issue 13): named images in a bucket, as Supabase Storage
-- clients upload them. The bytes stay in `avatars` (content-addressed by SHA-256 hex, 0004), so
-- two names of the same image store it once; an object row only names them. Only the public
-- `avatars` bucket exists. Overwriting a name points it at other bytes and keeps its id;
-- deleting a name leaves the bytes (a user's avatar_hash or a client's cache may still name
-- them, as 0004 explains).
CREATE TABLE storage_objects (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    bucket     text        NOT NULL CHECK (bucket = 'avatars'),
    -- Checked in full by the server (Sources/Store/StorageObjectName.swift); bounded here as well.
    name       text        NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 512),
    -- Who uploaded it: they (and admins) may overwrite or delete it. Users are never deleted.
    owner      uuid        NOT NULL REFERENCES users (id),
    hash       text        NOT NULL REFERENCES avatars (hash),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (bucket, name)
);

-- users.avatar_hash must name a stored image, whichever surface sets it (/v1, /rest/v1,
-- /auth/v1): the server answers the violation as 422 `unknown_avatar`. Until now only the
-- upload route set it, always after storing the image, so existing rows satisfy this.
ALTER TABLE users ADD CONSTRAINT users_avatar_hash_fkey FOREIGN KEY (avatar_hash) REFERENCES avatars (hash);
