-- A wake-up already covered by a push is not queued again (docs/operators/push.md, "Limits").
-- Every instance reads the change stream and queues wake-ups for what it read, so without this
-- a change read by instance 2 after instance 1 had woken the phone for it would wake the phone
-- a second time.
--
-- `covered_by`: the snapshot of the claim under which the device's last successful push was
-- sent. Every transaction visible in it had committed before the push left, so the sync that
-- push prompts sees it. A change whose own snapshot that one covers owes the device nothing.
-- NULL: never pushed.
ALTER TABLE push_devices ADD COLUMN covered_by pg_snapshot;

-- Whether every transaction visible in `earlier` is visible in `later` too.
CREATE FUNCTION dispatch_snapshot_covers(later pg_snapshot, earlier pg_snapshot) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT pg_snapshot_xmax(earlier) <= pg_snapshot_xmax(later)
       AND NOT EXISTS (SELECT 1 FROM pg_snapshot_xip(later) x
                       WHERE x < pg_snapshot_xmax(earlier) AND pg_visible_in_snapshot(x, earlier))
$$;
