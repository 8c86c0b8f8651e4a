-- Devices that signed in to an account (Store/SignInDevices.swift): where the server cannot
-- tell sources apart (one office NAT, a proxy without TRUSTED_PROXIES), the sign-in throttle
-- recognises the owner's device by the long-lived `dispatch_device` cookie a successful
-- sign-in sets, and gives it a failure budget of its own, so nobody at the same address can
-- lock the owner out. Only the token's SHA-256 is stored; a device is known for the accounts
-- that signed in on it, for 180 days after the last such sign-in.
CREATE TABLE sign_in_devices (
    token_hash      text        NOT NULL,
    user_id         uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_sign_in_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (token_hash, user_id)
);
CREATE INDEX sign_in_devices_user_idx ON sign_in_devices (user_id);
CREATE INDEX sign_in_devices_time_idx ON sign_in_devices (last_sign_in_at);

-- The known device a failed attempt came from (its token hash); NULL for every other source.
-- Failures from a known device count only against that device's budget; all others count
-- against the per-address, per-(account, address) and per-account limits.
ALTER TABLE login_attempts ADD COLUMN device_hash text;
CREATE INDEX login_attempts_device_idx ON login_attempts (email, device_hash, attempted_at) WHERE device_hash IS NOT NULL;
