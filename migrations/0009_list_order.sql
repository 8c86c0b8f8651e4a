-- 0009: indexes for the `order` parameter of GET /v1/{listings|tasks|activities} (issue 15).
--
-- Each order is a keyset on (expression, id); the expressions here must stay identical to
-- Store/ListOrder.swift's, or the planner cannot use them. A descending order scans the same
-- index backward. updated_at already has (updated_at, id) from 0002.
-- * due_date: rows without a due date come last in both directions, so NULL becomes
--   +infinity ascending and -infinity descending: two expression indexes (one per sentinel)
--   keep the keyset a plain row comparison.
-- * priority: its meaning, low < medium < high < urgent (1…4), not the alphabet.
-- These serve admins and other broad readers; a realtor's visibility predicate usually
-- selects a few hundred rows through the declared_by / claimed_by / listing_id indexes and
-- sorts them (top-N), whatever the order.

CREATE INDEX listings_created_at_id_idx   ON listings (created_at, id);

CREATE INDEX tasks_created_at_id_idx      ON tasks (created_at, id);
CREATE INDEX tasks_due_asc_id_idx         ON tasks ((coalesce(due_date, 'infinity'::timestamptz)), id);
CREATE INDEX tasks_due_desc_id_idx        ON tasks ((coalesce(due_date, '-infinity'::timestamptz)), id);
CREATE INDEX tasks_priority_id_idx        ON tasks ((array_position('{low,medium,high,urgent}'::text[], priority)), id);

CREATE INDEX activities_created_at_id_idx ON activities (created_at, id);
CREATE INDEX activities_due_asc_id_idx    ON activities ((coalesce(due_date, 'infinity'::timestamptz)), id);
CREATE INDEX activities_due_desc_id_idx   ON activities ((coalesce(due_date, '-infinity'::timestamptz)), id);
CREATE INDEX activities_priority_id_idx   ON activities ((array_position('{low,medium,high,urgent}'::text[], priority)), id);
