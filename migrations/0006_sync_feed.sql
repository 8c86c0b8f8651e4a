-- 0006: what the sync feed (SPEC 6) needs beyond the rows' own txid stamps.
--
-- 1. sync_access_changes: who gained or lost a relation to a row (owner, staff, declarer,
--    claimer, listing membership), written by triggers in the writing transaction with its
--    txid. Rows only carry their own txid, but visibility also changes when *another* row
--    changes (a listing reassigned makes its tasks visible to the new staff without touching
--    them), so the feed needs these records for two things:
--    * revocations: a record (user, entity, granted = false) with txid >= the cursor whose
--      entity the user can no longer see becomes a `removed` entry. Records are only written
--      for users who held a relation (and so could see the row) at that moment, so the feed
--      never names a row to someone who never could see it. Cascade: a listing's tasks and
--      activities get their own records for the old owner/staff (they existed then, so those
--      users saw them); notes, subtasks and history rows are never named in `removed` —
--      clients drop the children of a removed parent (README, openapi.yaml).
--    * grants: a record (user, entity, granted = true) makes the feed re-send the entity and
--      everything below it (tasks on a listing, notes, subtasks, history), whatever their own
--      txid, because the user may never have received them.
--    Records are candidates, not verdicts: the feed re-checks visibility at read time, so a
--    redundant record (the user still sees the row another way) costs nothing but a query.
-- 2. sync_horizon: pruning deletes old access records; a cursor older than what was pruned
--    could miss a revocation, so it answers 410 resync_required.
-- 3. A NOTIFY on channel dispatch_sync when any synced table changes, delivered at commit, for
--    long-polling waiters (one LISTEN connection per server instance), and
--    dispatch_sync_audience(snapshot): who may care about what committed after a snapshot, so
--    a wake-up re-reads the pages of those waiters only.

CREATE TABLE sync_access_changes (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    txid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    user_id     uuid        NOT NULL,
    entity_type text        NOT NULL CHECK (entity_type IN ('listing', 'task', 'activity')),
    entity_id   uuid        NOT NULL,
    granted     boolean     NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sync_access_changes_user_txid_idx ON sync_access_changes (user_id, txid);
CREATE INDEX sync_access_changes_created_at_idx ON sync_access_changes (created_at);

CREATE TABLE sync_horizon (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    -- Cursors whose lower bound is <= this may have lost access records: 410.
    horizon   xid8    NOT NULL
);
INSERT INTO sync_horizon (horizon) VALUES ('0'::xid8);

-- Records one access change per distinct non-null user.
CREATE FUNCTION dispatch_record_access(people uuid[], kind text, entity uuid, is_grant boolean) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO sync_access_changes (user_id, entity_type, entity_id, granted)
    SELECT DISTINCT p, kind, entity, is_grant FROM unnest(people) AS p WHERE p IS NOT NULL;
$$;

-- Tasks and activities: declarer, claimer and listing owner/staff see the row; declarer and
-- claimer also see its listing.
CREATE FUNCTION dispatch_work_item_access() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    kind        text := CASE TG_TABLE_NAME WHEN 'tasks' THEN 'task' ELSE 'activity' END;
    old_people  uuid[] := '{}';
    new_people  uuid[];
    old_staff   uuid[] := '{}';
    new_staff   uuid[] := '{}';
    old_holders uuid[];
    new_holders uuid[];
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
        IF OLD.listing_id IS NOT NULL THEN
            SELECT ARRAY[owned_by, assigned_staff] INTO old_staff FROM listings WHERE id = OLD.listing_id FOR SHARE;
        END IF;
    END IF;
    old_holders := old_people || coalesce(old_staff, '{}');
    new_holders := new_people || coalesce(new_staff, '{}');

    -- The row itself. (On insert the row is new anyway; no grant needed.)
    IF TG_OP = 'UPDATE' THEN
        PERFORM dispatch_record_access(
            ARRAY(SELECT unnest(old_holders) EXCEPT SELECT unnest(new_holders)), kind, NEW.id, false);
        PERFORM dispatch_record_access(
            ARRAY(SELECT unnest(new_holders) EXCEPT SELECT unnest(old_holders)), kind, NEW.id, true);
    END IF;

    -- Its listing, for declarer and claimer.
    IF TG_OP = 'UPDATE' AND OLD.listing_id IS NOT NULL THEN
        PERFORM dispatch_record_access(
            CASE WHEN NEW.listing_id IS DISTINCT FROM OLD.listing_id THEN old_people
                 ELSE ARRAY(SELECT unnest(old_people) EXCEPT SELECT unnest(new_people)) END,
            'listing', OLD.listing_id, false);
    END IF;
    IF NEW.listing_id IS NOT NULL THEN
        PERFORM dispatch_record_access(
            CASE WHEN TG_OP = 'INSERT' OR NEW.listing_id IS DISTINCT FROM OLD.listing_id THEN new_people
                 ELSE ARRAY(SELECT unnest(new_people) EXCEPT SELECT unnest(old_people)) END,
            'listing', NEW.listing_id, true);
    END IF;
    RETURN NULL;
END;
$$;

-- Listings: owner and staff see the listing and every task/activity on it.
CREATE FUNCTION dispatch_listing_access() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lost   uuid[] := ARRAY(SELECT unnest(ARRAY[OLD.owned_by, OLD.assigned_staff])
                           EXCEPT SELECT unnest(ARRAY[NEW.owned_by, NEW.assigned_staff]));
    gained uuid[] := ARRAY(SELECT unnest(ARRAY[NEW.owned_by, NEW.assigned_staff])
                           EXCEPT SELECT unnest(ARRAY[OLD.owned_by, OLD.assigned_staff]));
    item   record;
BEGIN
    PERFORM dispatch_record_access(lost, 'listing', NEW.id, false);
    -- One grant for the listing covers its whole subtree (the feed expands it).
    PERFORM dispatch_record_access(gained, 'listing', NEW.id, true);
    -- The cascade of the loss, per item existing now: the old owner/staff saw each of them.
    FOR item IN SELECT id, 'task' AS kind FROM tasks WHERE listing_id = NEW.id
                UNION ALL SELECT id, 'activity' FROM activities WHERE listing_id = NEW.id LOOP
        PERFORM dispatch_record_access(lost, item.kind, item.id, false);
    END LOOP;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tasks_access AFTER INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION dispatch_work_item_access();
CREATE TRIGGER tasks_access_update AFTER UPDATE ON tasks FOR EACH ROW
    WHEN (OLD.declared_by IS DISTINCT FROM NEW.declared_by OR OLD.claimed_by IS DISTINCT FROM NEW.claimed_by
          OR OLD.listing_id IS DISTINCT FROM NEW.listing_id)
    EXECUTE FUNCTION dispatch_work_item_access();
CREATE TRIGGER activities_access AFTER INSERT ON activities FOR EACH ROW EXECUTE FUNCTION dispatch_work_item_access();
CREATE TRIGGER activities_access_update AFTER UPDATE ON activities FOR EACH ROW
    WHEN (OLD.declared_by IS DISTINCT FROM NEW.declared_by OR OLD.claimed_by IS DISTINCT FROM NEW.claimed_by
          OR OLD.listing_id IS DISTINCT FROM NEW.listing_id)
    EXECUTE FUNCTION dispatch_work_item_access();
CREATE TRIGGER listings_access_update AFTER UPDATE ON listings FOR EACH ROW
    WHEN (OLD.owned_by IS DISTINCT FROM NEW.owned_by OR OLD.assigned_staff IS DISTINCT FROM NEW.assigned_staff)
    EXECUTE FUNCTION dispatch_listing_access();

-- Deletes access records older than `keep` and raises the horizon past them. Returns how many
-- were deleted. Cursors at or below the horizon answer 410 resync_required.
CREATE FUNCTION dispatch_prune_sync_history(keep interval) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    newest xid8;
    deleted bigint;
BEGIN
    WITH gone AS (
        DELETE FROM sync_access_changes WHERE created_at < now() - keep RETURNING txid
    )
    SELECT max(txid), count(*) INTO newest, deleted FROM gone;
    IF newest IS NOT NULL THEN
        UPDATE sync_horizon SET horizon = greatest(horizon, newest);
    END IF;
    RETURN deleted;
END;
$$;

-- One NOTIFY per writing transaction (PostgreSQL folds identical notifications in a
-- transaction), sent at commit: a long-poll waiter is woken only by committed data.
CREATE FUNCTION dispatch_notify_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('dispatch_sync', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER users_notify          AFTER INSERT OR UPDATE OR DELETE ON users          FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER listings_notify       AFTER INSERT OR UPDATE OR DELETE ON listings       FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER tasks_notify          AFTER INSERT OR UPDATE OR DELETE ON tasks          FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER activities_notify     AFTER INSERT OR UPDATE OR DELETE ON activities     FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER notes_notify          AFTER INSERT OR UPDATE OR DELETE ON notes          FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER subtasks_notify       AFTER INSERT OR UPDATE OR DELETE ON subtasks       FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER claim_events_notify   AFTER INSERT OR UPDATE OR DELETE ON claim_events   FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();
CREATE TRIGGER status_changes_notify AFTER INSERT OR UPDATE OR DELETE ON status_changes FOR EACH STATEMENT EXECUTE FUNCTION dispatch_notify_sync();

-- Users who may see something written after `since` (a superset: re-checking a waiter that
-- sees nothing new costs a query, skipping one that does would delay it to its deadline).
-- A NULL user_id means "everyone" (a users row changed: every signed-in user sees users).
CREATE FUNCTION dispatch_sync_audience(since pg_snapshot) RETURNS TABLE (user_id uuid)
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
        SELECT t.declared_by, t.claimed_by, t.listing_id FROM tasks t JOIN changed_items c ON c.kind = 'task' AND c.id = t.id
        UNION ALL
        SELECT a.declared_by, a.claimed_by, a.listing_id FROM activities a JOIN changed_items c ON c.kind = 'activity' AND c.id = a.id
    ),
    touched_listings AS (
        SELECT id FROM changed_items WHERE kind = 'listing'
        UNION SELECT listing_id FROM work_items WHERE listing_id IS NOT NULL
    )
    SELECT NULL::uuid FROM users r, lo WHERE r.txid >= lo.xid AND NOT pg_visible_in_snapshot(r.txid, since)
    UNION
    SELECT holder FROM (
        SELECT c.user_id FROM sync_access_changes c, lo WHERE c.txid >= lo.xid AND NOT pg_visible_in_snapshot(c.txid, since)
        UNION SELECT unnest(ARRAY[w.declared_by, w.claimed_by]) FROM work_items w
        UNION SELECT unnest(ARRAY[l.owned_by, l.assigned_staff]) FROM listings l JOIN touched_listings t ON t.id = l.id
        UNION SELECT unnest(ARRAY[t.declared_by, t.claimed_by]) FROM tasks t JOIN changed_items c ON c.kind = 'listing' AND c.id = t.listing_id
        UNION SELECT unnest(ARRAY[a.declared_by, a.claimed_by]) FROM activities a JOIN changed_items c ON c.kind = 'listing' AND c.id = a.listing_id
    ) AS holders (holder)
    WHERE holder IS NOT NULL;
$$;
