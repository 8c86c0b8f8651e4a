import Foundation
import Postgres
import Testing
import TestSupport

/// The change stream's audience read (`dispatch_sync_audience`, run by `ChangeFanout` after
/// every burst of writes) must find the access records committed after a snapshot by their
/// transaction id, not scan the whole access log: that scan grew with the log and was the
/// largest part of a write's PostgreSQL time (migration 0016). Checked on the plan of real
/// PostgreSQL over a log of 100,000 old records, by rows read rather than time.
@Suite struct SyncAudiencePlanTests {
    @Test func accessRecordsAfterASnapshotAreFoundByTheirTransactionId() throws {
        let database = try TestDatabase.create()
        // Old records: transaction ids below every one still running, so all of them are
        // visible in the snapshot taken next (3 is the first normal transaction id).
        try database.pool.execute("""
            INSERT INTO sync_access_changes (txid, user_id, entity_type, entity_id, granted)
            SELECT greatest(3, pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1 - n % 100)::text::xid8,
                   gen_random_uuid(), 'task', gen_random_uuid(), true
            FROM generate_series(1, 100000) n
            """)
        try database.pool.execute("VACUUM (ANALYZE) sync_access_changes")
        let snapshot = try #require(try database.pool.query("SELECT pg_current_snapshot()::text AS s").first)
            .decode("s", as: String.self)
        try database.pool.execute("""
            INSERT INTO sync_access_changes (user_id, entity_type, entity_id, granted)
            VALUES (gen_random_uuid(), 'task', gen_random_uuid(), true)
            """)

        let plan = try database.pool.query(
            "EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM dispatch_sync_audience(\(snapshot)::pg_snapshot)")
        let text = try #require(plan.first).decode("QUERY PLAN", as: String.self)
        let audience = try database.pool.query("SELECT * FROM dispatch_sync_audience(\(snapshot)::pg_snapshot)")
        #expect(audience.count == 1)
        #expect(text.contains("sync_access_changes_txid_idx"), "the audience read does not use the txid index: \(text)")
    }
}
