-- 0003: secrets, kept out of the synced tables so that no SELECT of a synced row can ever carry
-- one into a response (SPEC 1: secrets never appear in any response). Every token or key is
-- stored only as its SHA-256 hex: a database leak does not hand out usable credentials, and
-- high-entropy random tokens need no slow hash. Passwords use a slow, salted KDF instead.
-- Rows die with their user (ON DELETE CASCADE): they have no meaning without it.

-- One password per user. `hash` is self-describing (algorithm, parameters, salt, digest, e.g.
-- "$scrypt$ln=15,r=8,p=3$<salt>$<hash>"), so parameters can be raised later and old hashes
-- upgraded on the next successful login (PasswordHasher.needsRehash).
CREATE TABLE user_passwords (
    user_id    uuid        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    hash       text        NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- A sign-in session: one per login, carried by a rotating refresh token. Only the current
-- token's hash is here; spent ones move to auth_spent_refresh_tokens so that presenting one
-- again is recognised as theft and revokes the whole session (SPEC 5).
CREATE TABLE auth_sessions (
    id                 uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id            uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    refresh_token_hash text        NOT NULL UNIQUE,
    rotation_count     integer     NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    rotated_at         timestamptz,
    expires_at         timestamptz NOT NULL,
    revoked_at         timestamptz,
    revoked_reason     text        CHECK (revoked_reason IN ('logout', 'reuse_detected', 'deactivated', 'password_changed', 'admin')),
    user_agent         text,
    client_address     text
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id) WHERE revoked_at IS NULL;

CREATE TABLE auth_spent_refresh_tokens (
    token_hash text        PRIMARY KEY,
    session_id uuid        NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    spent_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_spent_refresh_tokens_session_idx ON auth_spent_refresh_tokens (session_id);

-- Long-lived integration keys. `prefix` (the first characters of the key) is shown in
-- listings so people can tell keys apart without the server keeping the key itself.
CREATE TABLE api_keys (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    key_hash     text        NOT NULL UNIQUE,
    prefix       text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    expires_at   timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id) WHERE revoked_at IS NULL;

-- Login attempts, for rate limiting per account and per client address (count failures in a
-- sliding window). Email is stored lowercased and not as a FK: attempts against unknown
-- accounts must be limited too. Old rows are pruned by the server; nothing else reads them.
CREATE TABLE login_attempts (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email          text,
    client_address text,
    succeeded      boolean     NOT NULL,
    attempted_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_attempts_email_idx   ON login_attempts (email, attempted_at) WHERE email IS NOT NULL;
CREATE INDEX login_attempts_address_idx ON login_attempts (client_address, attempted_at) WHERE client_address IS NOT NULL;
CREATE INDEX login_attempts_time_idx    ON login_attempts (attempted_at);
