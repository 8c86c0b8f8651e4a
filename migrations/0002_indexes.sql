-- 0002: indexes for the three access paths the API has (see SPEC sections 2, 5, 6).
--
-- 1. Visibility (SPEC 2). A realtor sees a listing it owns or staffs, or on which it declared
--    or claimed a task/activity; a task/activity it declared or claimed, or whose listing it
--    owns/staffs; notes/subtasks/history through their parent. Each predicate is an equality on
--    one column, so the planner ORs single-column index scans (BitmapOr). Nullable columns get
--    partial indexes: most rows are unclaimed / unstaffed, and NULLs are never looked up.
-- 2. Delta sync (SPEC 6): txid >= cursor per table -> (txid).
-- 3. List pagination (SPEC 5): keyset on (updated_at, id), which also serves updated_since.

-- users: email lookup is the unique lower(email) index from 0001.
CREATE INDEX users_txid_idx           ON users (txid);
CREATE INDEX users_updated_at_id_idx  ON users (updated_at, id);

CREATE INDEX listings_owned_by_idx       ON listings (owned_by);
CREATE INDEX listings_assigned_staff_idx ON listings (assigned_staff) WHERE assigned_staff IS NOT NULL;
CREATE INDEX listings_txid_idx           ON listings (txid);
CREATE INDEX listings_updated_at_id_idx  ON listings (updated_at, id);

CREATE INDEX tasks_declared_by_idx      ON tasks (declared_by);
CREATE INDEX tasks_claimed_by_idx       ON tasks (claimed_by) WHERE claimed_by IS NOT NULL;
CREATE INDEX tasks_listing_id_idx       ON tasks (listing_id) WHERE listing_id IS NOT NULL;
CREATE INDEX tasks_txid_idx             ON tasks (txid);
CREATE INDEX tasks_updated_at_id_idx    ON tasks (updated_at, id);

CREATE INDEX activities_declared_by_idx   ON activities (declared_by);
CREATE INDEX activities_claimed_by_idx    ON activities (claimed_by) WHERE claimed_by IS NOT NULL;
CREATE INDEX activities_listing_id_idx    ON activities (listing_id) WHERE listing_id IS NOT NULL;
CREATE INDEX activities_txid_idx          ON activities (txid);
CREATE INDEX activities_updated_at_id_idx ON activities (updated_at, id);

-- Notes are listed per parent (GET /v1/{parent}s/{id}/notes) newest-last.
CREATE INDEX notes_parent_idx         ON notes (parent_type, parent_id, created_at);
CREATE INDEX notes_txid_idx           ON notes (txid);
CREATE INDEX notes_updated_at_id_idx  ON notes (updated_at, id);

-- Subtasks are always read per parent in display order.
CREATE INDEX subtasks_parent_idx        ON subtasks (parent_type, parent_id, position);
CREATE INDEX subtasks_txid_idx          ON subtasks (txid);
CREATE INDEX subtasks_updated_at_id_idx ON subtasks (updated_at, id);

-- History is read per entity in time order.
CREATE INDEX claim_events_entity_idx          ON claim_events (entity_type, entity_id, created_at);
CREATE INDEX claim_events_txid_idx            ON claim_events (txid);
CREATE INDEX claim_events_updated_at_id_idx   ON claim_events (updated_at, id);

CREATE INDEX status_changes_entity_idx        ON status_changes (entity_type, entity_id, created_at);
CREATE INDEX status_changes_txid_idx          ON status_changes (txid);
CREATE INDEX status_changes_updated_at_id_idx ON status_changes (updated_at, id);
