-- 0016: the change stream's audience read finds access records by transaction id alone
-- (issue 14, README "Cost per request").
--
-- After every burst of writes `ChangeFanout` asks `dispatch_sync_audience(snapshot)` who may
-- care, which reads the access records committed after the snapshot: `txid >= xmin`. The only
-- index on txid was (user_id, txid), useless without a user, so PostgreSQL scanned the whole
-- index or table: ~8.5 ms at 156k rows, growing with the log, which measured at 4.9 ms of
-- PostgreSQL time per create and 6.7 ms per claim+release (pg_stat_statements, track=all).
-- Every other table the audience reads has had its txid index since 0002.
CREATE INDEX sync_access_changes_txid_idx ON sync_access_changes (txid);
