-- 0011: auth hardening (issue 15): refresh retries must not sign the user out (15.4), and an
-- index for the sign-in throttle (15.2).
--
-- A phone that retries a refresh after a timeout presents a token the server has just spent.
-- Within a short grace window that replay answers with the session's current token instead of
-- revoking the session. Only hashes of refresh tokens are stored, so the successor of each
-- spent token is kept sealed (AES-256-GCM) under a key derived from the spent token itself
-- (Credentials.TokenSealer): only whoever presents the spent token can open it, and a leak of
-- this table opens nothing. NULL for tokens spent before this migration (no grace for them).
ALTER TABLE auth_spent_refresh_tokens ADD COLUMN successor_sealed bytea;

-- The sign-in throttle's account-wide limit spares addresses the account recently signed in
-- from (Store/LoginThrottle.swift); that lookup goes by user and creation time, revoked
-- sessions included (auth_sessions_user_idx covers live sessions only).
CREATE INDEX auth_sessions_user_created_idx ON auth_sessions (user_id, created_at);
