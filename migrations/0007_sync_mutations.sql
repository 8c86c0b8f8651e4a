-- 0007: the idempotency log of POST /v1/sync/push (SPEC 6).
--
-- A client's offline queue may be sent twice (a timeout after the server applied it, an app
-- restart). Each mutation carries a client-generated mutation_id; the first result is kept
-- here and returned for every replay, so nothing is applied twice.
-- Keyed by (user_id, mutation_id): ids are client-chosen, so they are only unique per user,
-- and one user's ids must never reveal or collide with another's.
CREATE TABLE sync_mutations (
    user_id     uuid        NOT NULL REFERENCES users (id),
    mutation_id uuid        NOT NULL,
    -- 'pending' while the mutation is being applied; 'done' with its result afterwards.
    state       text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
    -- The exact JSON result object sent to the client the first time.
    result      text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, mutation_id),
    CONSTRAINT sync_mutations_result_when_done CHECK ((state = 'done') = (result IS NOT NULL))
);

-- Pruning old entries (README: operations) scans by age.
CREATE INDEX sync_mutations_created_at_idx ON sync_mutations (created_at);
