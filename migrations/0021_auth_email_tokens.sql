-- 0021: e-mail sign-in codes and links, password recovery, invitations and address changes
-- (issue 25). Every secret here is stored only as a keyed hash (HMAC-SHA256 under a key
-- derived from the server secret, Sources/API/EmailTokenKeys.swift): a database leak reveals
-- no live code or link, and without the secret the million 6-digit candidates cannot be tried
-- offline either.

-- One row per mail that carries a code and a link. Both open the same door once: using either
-- ends the row (used_at). Rows die with their user.
CREATE TABLE auth_email_tokens (
    id              uuid        PRIMARY KEY,
    user_id         uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- What verifying it does: magiclink signs in; recovery and invite also let the new
    -- session set a password once without the current one; email_change moves the account
    -- to `email`.
    purpose         text        NOT NULL CHECK (purpose IN ('magiclink', 'recovery', 'invite', 'email_change')),
    -- The address the mail went to (the new address for email_change).
    email           text        NOT NULL,
    -- HMAC of "code:<id>:<6 digits>": the id makes equal codes of different rows hash apart.
    code_hash       text        NOT NULL,
    -- HMAC of the link's token (GoTrue's token_hash); PKCE links start with "pkce_".
    link_hash       text        NOT NULL UNIQUE,
    -- PKCE (RFC 7636): a link opened in the browser answers ?code= for the app to exchange
    -- with its verifier (POST /auth/v1/token?grant_type=pkce).
    code_challenge        text,
    code_challenge_method text  CHECK (code_challenge_method IN ('s256', 'plain')),
    -- Wrong codes tried against this row; at 5 it is void, whatever comes next.
    failed_attempts integer     NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    -- Used, or replaced by a newer mail of the same purpose.
    used_at         timestamptz
);
-- Verification looks up the live rows of one user and purpose.
CREATE INDEX auth_email_tokens_user_idx ON auth_email_tokens (user_id, purpose) WHERE used_at IS NULL;
CREATE INDEX auth_email_tokens_expires_idx ON auth_email_tokens (expires_at);

-- PKCE authorization codes handed out by GET /auth/v1/verify, exchanged once for a session.
CREATE TABLE auth_pkce_codes (
    code_hash             text        PRIMARY KEY,  -- SHA-256 hex of the code (high entropy)
    user_id               uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose               text        NOT NULL CHECK (purpose IN ('magiclink', 'recovery', 'invite', 'email_change')),
    code_challenge        text        NOT NULL,
    code_challenge_method text        NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
    created_at            timestamptz NOT NULL DEFAULT now(),
    expires_at            timestamptz NOT NULL
);
CREATE INDEX auth_pkce_codes_expires_idx ON auth_pkce_codes (expires_at);

-- A session opened by a recovery or invitation may set a new password once without
-- current_password, until this time; setting it clears the column.
ALTER TABLE auth_sessions ADD COLUMN password_reset_until timestamptz;
