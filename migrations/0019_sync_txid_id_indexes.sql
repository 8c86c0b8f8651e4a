-- 0019: the sync stages page on (txid, id) indexes.
-- The feed's stages page by (txid, id) (issue 14 item 4, README "### Sync"): each page asks
-- for the rows after the last one handed out, `(txid, id) > (last txid, last id)`, in
-- (txid, id) order. The indexes on txid alone (0002) find where a txid starts but not where an
-- id within it starts, so when many rows share one transaction id (a bulk import, a seeded
-- team: the bench's 18,000 tasks were written by one INSERT) every page re-read all the rows
-- of that txid after the position and sorted them for the top `limit`: a full sync was
-- quadratic in the rows of a transaction (~9,000 tasks read and sorted for a mid-chain page of
-- 1,000). On (txid, id) the position is an index condition and the order is the index's, so a
-- page reads about `limit` rows. The (txid, id) index serves every `txid >= xmin` range the
-- txid index did (the idle check, the audience read), so it replaces it rather than adding a
-- second index to every write.
CREATE INDEX users_txid_id_idx          ON users (txid, id);
CREATE INDEX listings_txid_id_idx       ON listings (txid, id);
CREATE INDEX tasks_txid_id_idx          ON tasks (txid, id);
CREATE INDEX activities_txid_id_idx     ON activities (txid, id);
CREATE INDEX notes_txid_id_idx          ON notes (txid, id);
CREATE INDEX subtasks_txid_id_idx       ON subtasks (txid, id);
CREATE INDEX claim_events_txid_id_idx   ON claim_events (txid, id);
CREATE INDEX status_changes_txid_id_idx ON status_changes (txid, id);

DROP INDEX users_txid_idx, listings_txid_idx, tasks_txid_idx, activities_txid_idx, notes_txid_idx,
           subtasks_txid_idx, claim_events_txid_idx, status_changes_txid_idx;
