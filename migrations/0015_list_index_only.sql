-- 0015: the updated_at indexes of tasks and activities carry the columns a list filters on,
-- so a list page finds its rows with an index-only scan (issue 14, README "Cost per request").
--
-- `GET /v1/tasks?limit=50` walks (updated_at, id) and tests every entry against the caller's
-- visibility (declared_by, claimed_by, listing_id) and the list's filters (deleted_at,
-- status; claimed_by and listing_id again): ~440 entries for a 51-row page of the busiest
-- seeded realtor, who sees 11 % of the tasks. With those columns in the index the walk never
-- reads the table; only the rows kept are read, by primary key, for their JSON
-- (`ResourceSQL.pageQuery`, `keysFirst`). The other orders keep their plain indexes (0009).
--
-- Same name, same key columns: every plan that used the old index can use this one. INCLUDE
-- columns are not keys, so updates that change only them still maintain the index exactly
-- as before (updated_at changes on every update, so no update was HOT anyway).
DROP INDEX tasks_updated_at_id_idx;
CREATE INDEX tasks_updated_at_id_idx ON tasks (updated_at, id)
    INCLUDE (deleted_at, status, declared_by, claimed_by, listing_id);

DROP INDEX activities_updated_at_id_idx;
CREATE INDEX activities_updated_at_id_idx ON activities (updated_at, id)
    INCLUDE (deleted_at, status, declared_by, claimed_by, listing_id);
