-- Idempotency-Key on /v1 writes (docs/app-developers/errors.md): the first successful answer
-- to a caller's (route, key) is kept and replayed to retries for 24 hours; a row without a
-- status is a request still running. Pruned hourly by every instance (IdempotencyKeyPruner).
CREATE TABLE idempotency_keys (
    caller uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    route text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    status integer,
    content_type text,
    location text,
    etag text,
    body text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (caller, route, key)
);

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
