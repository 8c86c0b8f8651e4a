-- A wake-up already covered by a push is not queued again (docs/operators/push.md, "Several
-- instances"). Every instance reads the change stream and queues wake-ups for what it read, so
-- without this a change read by instance 2 after instance 1 had woken the phone for it would
-- wake the phone a second time.
--
-- `covered_below`: every transaction below this id had committed when the device's last
-- successful push was claimed (the claim statement's pg_snapshot_xmin), so the sync that push
-- prompts sees it. A change whose transactions are all below it (its snapshot's xmax is not
-- above it) owes the device nothing. NULL: never pushed.
ALTER TABLE push_devices ADD COLUMN covered_below xid8;
