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

    /// Who may care about a changed activity is found by index probes, whatever the planner
    /// estimates (migration 0018): the audience read compares transaction ids with a CTE, so
    /// every estimate is a third of its table, and before 0018 that made PostgreSQL hash a
    /// sequential scan of every activity and every listing after each such write. Checked by
    /// the plan's executed nodes, not by time, and by the users it names.
    @Test func aChangedActivitysHoldersAreFoundWithoutScanningTheTables() throws {
        let database = try TestDatabase.create()
        let ids = try #require(try database.pool.query("""
            WITH owner AS (INSERT INTO users (name, email) VALUES ('O', 'o@x.io') RETURNING id),
                 staff AS (INSERT INTO users (name, email) VALUES ('S', 's@x.io') RETURNING id),
                 declarer AS (INSERT INTO users (name, email) VALUES ('D', 'd@x.io') RETURNING id)
            SELECT owner.id::text AS owner, staff.id::text AS staff, declarer.id::text AS declarer FROM owner, staff, declarer
            """).first)
        let owner: String = try ids.decode("owner"), staff: String = try ids.decode("staff")
        let declarer: String = try ids.decode("declarer")
        try database.pool.execute("""
            INSERT INTO listings (address, owned_by, assigned_staff)
            SELECT 'street ' || n, \(owner)::uuid, \(staff)::uuid FROM generate_series(1, 3000) n
            """)
        try database.pool.execute("""
            INSERT INTO activities (title, declared_by, listing_id)
            SELECT 'call ' || n, \(declarer)::uuid, l.id
            FROM generate_series(1, 20000) n
            JOIN (SELECT id, row_number() OVER (ORDER BY id) % 3000 AS k FROM listings) l ON l.k = n % 3000
            """)
        try database.pool.execute("VACUUM (ANALYZE) listings, activities, tasks")
        let snapshot = try #require(try database.pool.query("SELECT pg_current_snapshot()::text AS s").first)
            .decode("s", as: String.self)
        try database.pool.execute("UPDATE activities SET title = 'changed' WHERE id = (SELECT id FROM activities ORDER BY id LIMIT 1)")

        let plan = try database.pool.withConnection { connection in
            try connection.execute("SET jit = off")
            return try #require(try connection.query(
                "EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM dispatch_sync_audience(\(snapshot)::pg_snapshot)").first)
                .decode("QUERY PLAN", as: String.self)
        }
        let scanned = try Self.executedSequentialScans(plan)
        #expect(scanned.isDisjoint(with: ["activities", "listings"]), "sequential scans of \(scanned): \(plan)")
        let audience = try database.pool.query("SELECT user_id::text AS user_id FROM dispatch_sync_audience(\(snapshot)::pg_snapshot)")
        #expect(Set(try audience.map { try $0.decode("user_id", as: String.self) }) == [owner, staff, declarer])
    }

    /// The relations a plan (EXPLAIN … FORMAT JSON) read with a Seq Scan that actually ran.
    static func executedSequentialScans(_ json: String) throws -> Set<String> {
        let top = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        var found: Set<String> = []
        func walk(_ node: [String: Any]) {
            if node["Node Type"] as? String == "Seq Scan", let relation = node["Relation Name"] as? String,
               (node["Actual Loops"] as? Int ?? 0) > 0 {
                found.insert(relation)
            }
            for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
        }
        for entry in top { if let plan = entry["Plan"] as? [String: Any] { walk(plan) } }
        return found
    }
}
