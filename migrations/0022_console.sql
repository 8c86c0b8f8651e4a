-- 0022: the operator's console (issue 26).
--
-- A console sign-in is an ordinary sign-in session (auth_sessions: same throttle, same device
-- and revocation, listed under the person's sessions) plus a browser cookie. The cookie's value
-- is a random token stored here only as its SHA-256 hex, like every other token (0003), so a
-- leak of this table opens nothing. The session's refresh token is never handed out: a console
-- session cannot be turned into API tokens. Revoking the auth session (sign-out, an admin's
-- revoke, deactivation, password change) ends the console session with it.
-- `csrf_token` is the per-session secret every console form carries; it is compared, not hashed
-- (it is no credential on its own: it only proves a form came from a page this session rendered).
CREATE TABLE console_sessions (
    token_hash   text        PRIMARY KEY,
    session_id   uuid        NOT NULL UNIQUE REFERENCES auth_sessions (id) ON DELETE CASCADE,
    csrf_token   text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);

-- Every console action: who did what to which row, and when. Kept (no pruning); written after
-- the action succeeds, through the same store code the API uses. `actor_id` keeps its row
-- when the person is later deactivated (users are never deleted; no cascade wanted), and
-- `actor_email` keeps the name readable in the list without a join.
CREATE TABLE console_audit (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor_id    uuid        NOT NULL REFERENCES users (id),
    actor_email text        NOT NULL,
    action      text        NOT NULL,
    target_type text        NOT NULL,
    target_id   text        NOT NULL,
    summary     text        NOT NULL DEFAULT ''
);
-- The list pages newest first by id (keyset), optionally for one actor (by e-mail, as the filter
-- asks) or one action.
CREATE INDEX console_audit_actor_idx  ON console_audit (lower(actor_email), id);
CREATE INDEX console_audit_action_idx ON console_audit (action, id);
