-- 0012: a pushed mutation's effect and its recorded result now commit in one transaction
-- (README: sync push), so an entry is never 'pending' once committed. The state column and
-- the stale-takeover it served are gone.
--
-- A 'pending' row left by the old design is a request that died between applying and
-- recording; the old code would have re-applied it after 60 s. Dropping it lets the next
-- replay apply the mutation now (its versioned, idempotent rules make that safe).
DELETE FROM sync_mutations WHERE state = 'pending';

ALTER TABLE sync_mutations DROP CONSTRAINT sync_mutations_result_when_done;
ALTER TABLE sync_mutations DROP COLUMN state;
-- result is NULL only inside the inserting transaction, between claiming the key and
-- recording the result; no committed row lacks it (MutationLog.record runs before COMMIT).
COMMENT ON COLUMN sync_mutations.result IS
    'The exact JSON result object sent the first time; NULL only inside the inserting transaction.';
