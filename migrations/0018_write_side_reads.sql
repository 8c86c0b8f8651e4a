-- 0018: what every write makes PostgreSQL do besides the write itself, made cheaper (issue 14,
-- README "Cost per request"). Same records, same audience; less work per write.

-- 1. dispatch_sync_audience (0006), which ChangeFanout runs after every burst of writes, cost
--    ~3.2 ms of PostgreSQL CPU per call for a burst of eight creates on the bench database
--    (pgbench -M prepared, generic plan; perf: 20 % of the cluster's CPU under the create
--    workload was ExecInitAgg → BuildTupleHashTableExt → memset and page faults). Its filter
--    `txid >= lo.xid` compares with a CTE, so every estimate is a third of its table:
--    * the UNIONs of holders were hash aggregates sized for ~150,000 rows (1.5 MB allocated,
--      zeroed and returned to the kernel per call) to de-duplicate a handful of users;
--    * the listings of changed items were joined by hashing a sequential scan of every
--      listing, and an activity change or a listing change would hash the whole activities
--      or tasks table.
--    Now holders are a UNION ALL (the caller collects them into a set: SyncFeed.audience), and
--    each lookup is a LATERAL subquery fenced with OFFSET 0, so it stays a nested loop of
--    primary-key or listing_id index probes whatever the estimates. Same users, possibly
--    repeated: ~0.25 ms instead of ~3.2 ms for the same burst.
CREATE OR REPLACE FUNCTION dispatch_sync_audience(since pg_snapshot) RETURNS TABLE (user_id uuid)
LANGUAGE sql STABLE AS $$
    WITH lo AS (SELECT pg_snapshot_xmin(since) AS xid),
    changed_items AS (
        SELECT 'task' AS kind, r.id FROM tasks r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
        UNION SELECT 'activity', r.id FROM activities r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
        UNION SELECT r.parent_type, r.parent_id FROM notes r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
        UNION SELECT r.parent_type, r.parent_id FROM subtasks r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
        UNION SELECT r.entity_type, r.entity_id FROM claim_events r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
        UNION SELECT r.entity_type, r.entity_id FROM status_changes r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
        UNION SELECT 'listing', r.id FROM listings r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
    ),
    work_items AS (
        SELECT t.declared_by, t.claimed_by, t.listing_id FROM changed_items c
        CROSS JOIN LATERAL (SELECT declared_by, claimed_by, listing_id FROM tasks WHERE id = c.id OFFSET 0) t
        WHERE c.kind = 'task'
        UNION ALL
        SELECT a.declared_by, a.claimed_by, a.listing_id FROM changed_items c
        CROSS JOIN LATERAL (SELECT declared_by, claimed_by, listing_id FROM activities WHERE id = c.id OFFSET 0) a
        WHERE c.kind = 'activity'
    ),
    touched_listings AS (
        SELECT id FROM changed_items WHERE kind = 'listing'
        UNION SELECT listing_id FROM work_items WHERE listing_id IS NOT NULL
    )
    SELECT NULL::uuid FROM users r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
    UNION ALL
    SELECT holder FROM (
        SELECT c.user_id FROM sync_access_changes c, lo WHERE c.txid >= lo.xid AND NOT pg_visible_in_snapshot(c.txid, since)
        UNION ALL SELECT unnest(ARRAY[w.declared_by, w.claimed_by]) FROM work_items w
        UNION ALL SELECT unnest(ARRAY[l.owned_by, l.assigned_staff]) FROM touched_listings t
            CROSS JOIN LATERAL (SELECT owned_by, assigned_staff FROM listings WHERE id = t.id OFFSET 0) l
        UNION ALL SELECT unnest(ARRAY[t.declared_by, t.claimed_by]) FROM changed_items c
            CROSS JOIN LATERAL (SELECT declared_by, claimed_by FROM tasks WHERE listing_id = c.id OFFSET 0) t
            WHERE c.kind = 'listing'
        UNION ALL SELECT unnest(ARRAY[a.declared_by, a.claimed_by]) FROM changed_items c
            CROSS JOIN LATERAL (SELECT declared_by, claimed_by FROM activities WHERE listing_id = c.id OFFSET 0) a
            WHERE c.kind = 'listing'
    ) AS holders (holder)
    WHERE holder IS NOT NULL;
$$;

-- 2. The access trigger of tasks and activities (0006) ran, per claim or release, the
--    listing's FOR SHARE read twice (once for OLD, once for NEW: the same row, already locked
--    by the first), four `ARRAY(SELECT unnest … EXCEPT …)` subqueries and four
--    dispatch_record_access calls, each a full executor run in PL/pgSQL even when its array
--    was empty (most are: a claim changes one person). Now the second read is skipped when
--    the listing did not change (the lock taken by the first read means no reassignment can
--    commit in between, so it would read the same owner and staff), the differences are
--    computed by dispatch_uuid_except (a loop of simple expressions, no executor), and
--    dispatch_record_access is called only with someone to record (the EXCEPTs' NULLs were
--    dropped by it anyway, and it de-duplicates). Listing records are no longer written for
--    the listing's own owner or staff (see below); every other record is as before.

-- The non-null elements of `a` that are not in `b` (order and repeats do not matter to the
-- callers: dispatch_record_access de-duplicates).
CREATE FUNCTION dispatch_uuid_except(a uuid[], b uuid[]) RETURNS uuid[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    result uuid[] := '{}';
    p      uuid;
BEGIN
    FOREACH p IN ARRAY coalesce(a, '{}') LOOP
        IF p IS NOT NULL AND NOT coalesce(p = ANY (b), false) THEN
            result := result || p;
        END IF;
    END LOOP;
    RETURN result;
END;
$$;

CREATE OR REPLACE FUNCTION dispatch_work_item_access() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    kind        text := CASE TG_TABLE_NAME WHEN 'tasks' THEN 'task' ELSE 'activity' END;
    old_people  uuid[] := '{}';
    new_people  uuid[];
    old_staff   uuid[] := '{}';
    new_staff   uuid[] := '{}';
    old_holders uuid[];
    new_holders uuid[];
    people      uuid[];
BEGIN
    new_people := ARRAY[NEW.declared_by, NEW.claimed_by];
    -- FOR SHARE: a concurrent reassignment of the listing either commits first (and we read
    -- its new staff) or waits for us (and its own trigger then sees this row's new listing),
    -- so no holder falls between the two triggers.
    IF NEW.listing_id IS NOT NULL THEN
        SELECT ARRAY[owned_by, assigned_staff] INTO new_staff FROM listings WHERE id = NEW.listing_id FOR SHARE;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        old_people := ARRAY[OLD.declared_by, OLD.claimed_by];
        IF OLD.listing_id IS NOT DISTINCT FROM NEW.listing_id THEN
            -- The row read above, still locked by this transaction: the same owner and staff.
            old_staff := new_staff;
        ELSIF OLD.listing_id IS NOT NULL THEN
            SELECT ARRAY[owned_by, assigned_staff] INTO old_staff FROM listings WHERE id = OLD.listing_id FOR SHARE;
        END IF;
    END IF;
    old_holders := old_people || coalesce(old_staff, '{}');
    new_holders := new_people || coalesce(new_staff, '{}');

    -- The row itself. (On insert the row is new anyway; no grant needed.)
    IF TG_OP = 'UPDATE' THEN
        people := dispatch_uuid_except(old_holders, new_holders);
        IF cardinality(people) > 0 THEN PERFORM dispatch_record_access(people, kind, NEW.id, false); END IF;
        people := dispatch_uuid_except(new_holders, old_holders);
        IF cardinality(people) > 0 THEN PERFORM dispatch_record_access(people, kind, NEW.id, true); END IF;
    END IF;

    -- Its listing, for declarer and claimer, except those who see it as its owner or staff
    -- anyway (read above, under the lock): such a record named someone who kept or already
    -- had the listing, so the feed's re-check dropped it (a revocation) or re-sent a listing
    -- the device had (a grant). One fewer record per create on one's own listing, and per
    -- claim and release by its owner or staff.
    IF TG_OP = 'UPDATE' AND OLD.listing_id IS NOT NULL THEN
        people := dispatch_uuid_except(
            CASE WHEN NEW.listing_id IS DISTINCT FROM OLD.listing_id THEN old_people
                 ELSE dispatch_uuid_except(old_people, new_people) END,
            old_staff);
        IF cardinality(people) > 0 THEN PERFORM dispatch_record_access(people, 'listing', OLD.listing_id, false); END IF;
    END IF;
    IF NEW.listing_id IS NOT NULL THEN
        people := dispatch_uuid_except(
            CASE WHEN TG_OP = 'INSERT' OR NEW.listing_id IS DISTINCT FROM OLD.listing_id THEN new_people
                 ELSE dispatch_uuid_except(new_people, old_people) END,
            new_staff);
        IF cardinality(people) > 0 THEN PERFORM dispatch_record_access(people, 'listing', NEW.listing_id, true); END IF;
    END IF;
    RETURN NULL;
END;
$$;
