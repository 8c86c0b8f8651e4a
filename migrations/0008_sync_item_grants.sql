-- 0008: a gained listing grants its items as of that commit (issue 17).
--
-- 0006 recorded one grant (user, listing, L) when someone became owner or staff of L, and the
-- feed expanded it at read time into "the tasks and activities on L *now*". An item that left
-- L between the grant and the next sync (moved by its new viewer, who already saw the target
-- listing, so the move granted nothing) fell out of that expansion: the item came back
-- because its own row changed, but its older notes, subtasks and history never did.
--
-- Now the grant carries what it grants at the moment it happens, like the loss cascade
-- always did: one (user, task|activity, id, granted) record per item on L at that commit.
-- Those item grants make the feed re-send each item and its children wherever the item is
-- by the time the device syncs. Concurrency is as in 0006: an item moving onto L either
-- commits first (this loop sees it) or takes FOR SHARE on L in its own trigger and so waits
-- for this transaction, then reads the new owner/staff and records its own grant.
--
-- The grants also let the feed tell which parents a device may lack mid-chain (SyncFeed):
-- every way a row becomes visible to a user now writes a record naming that row.
CREATE OR REPLACE FUNCTION dispatch_listing_access() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lost   uuid[] := ARRAY(SELECT unnest(ARRAY[OLD.owned_by, OLD.assigned_staff])
                           EXCEPT SELECT unnest(ARRAY[NEW.owned_by, NEW.assigned_staff]));
    gained uuid[] := ARRAY(SELECT unnest(ARRAY[NEW.owned_by, NEW.assigned_staff])
                           EXCEPT SELECT unnest(ARRAY[OLD.owned_by, OLD.assigned_staff]));
    item   record;
BEGIN
    PERFORM dispatch_record_access(lost, 'listing', NEW.id, false);
    PERFORM dispatch_record_access(gained, 'listing', NEW.id, true);
    -- Per item existing now: the old owner/staff saw each of them, the new ones see each now.
    FOR item IN SELECT id, 'task' AS kind FROM tasks WHERE listing_id = NEW.id
                UNION ALL SELECT id, 'activity' FROM activities WHERE listing_id = NEW.id LOOP
        PERFORM dispatch_record_access(lost, item.kind, item.id, false);
        PERFORM dispatch_record_access(gained, item.kind, item.id, true);
    END LOOP;
    RETURN NULL;
END;
$$;

-- The feed no longer expands a listing grant into the listing's items (SyncStageQuery), so
-- listing grants written before this migration get their item grants now, for the items on
-- the listing today: what 0006's expansion would have sent.
INSERT INTO sync_access_changes (txid, user_id, entity_type, entity_id, granted, created_at)
SELECT c.txid, c.user_id, 'task', t.id, true, c.created_at
FROM sync_access_changes c JOIN tasks t ON t.listing_id = c.entity_id
WHERE c.entity_type = 'listing' AND c.granted
UNION ALL
SELECT c.txid, c.user_id, 'activity', a.id, true, c.created_at
FROM sync_access_changes c JOIN activities a ON a.listing_id = c.entity_id
WHERE c.entity_type = 'listing' AND c.granted;
