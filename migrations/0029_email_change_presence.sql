-- 0029: an e-mail change needs proof of presence and can be cancelled from the old address.

-- When this session last proved the password (a password sign-in). An address change without
-- current_password is accepted only from a session that did so within the last 5 minutes:
-- a stolen access token or a session opened by a mailed code is not proof of presence.
ALTER TABLE auth_sessions ADD COLUMN password_verified_at timestamptz;

-- The keyed hash of the cancel token mailed to the *old* address with an address change's
-- notice. Using it voids the change (used_at) as long as the change is still pending.
ALTER TABLE auth_email_tokens ADD COLUMN cancel_hash text UNIQUE;
