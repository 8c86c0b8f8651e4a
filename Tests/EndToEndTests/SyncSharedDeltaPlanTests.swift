import Foundation
import Postgres
@testable import Store
import Testing
import TestSupport

/// The shared delta read (SyncFeed+SharedDeltas) pairs changed rows with waiting realtors
/// through each row's candidates, so its work grows with rows × candidates, never with rows ×
/// viewers. Checked on real PostgreSQL's plan, by loops and rows read rather than time, on
/// bench/realtime's shape: 200 realtors who each own a listing with ten tasks, 2,000 more
/// tasks of one other realtor, and one admin write that changed tasks of some of them.
/// (`swift test --filter SyncSharedDeltaPlanTests` prints the planning and execution times
/// docs/performance.md "Realtime" quotes.)
@Suite struct SyncSharedDeltaPlanTests {
    /// `realtors` realtors had `each` of their tasks changed (200 × 10: 2,000 rows).
    @Test(arguments: [(200, 1), (1, 1), (200, 10)])
    func pairingRunsOncePerChangedRowNotPerViewer(realtorsChanged: Int, each: Int) throws {
        let changed = realtorsChanged * each
        let database = try TestDatabase.create()
        let pool = database.pool
        let since = try Self.seedRealtors(pool, othersOfLast: 2000)
        let realtors = try pool.query("SELECT id FROM users ORDER BY id LIMIT 200").map { try $0.decode("id", as: UUID.self) }
        try pool.execute("""
            UPDATE tasks SET description = 'changed' WHERE id IN (
              SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY declared_by ORDER BY id) AS n FROM tasks
                              WHERE title = 't' AND declared_by = ANY(\(Array(realtors.prefix(realtorsChanged))))) x
              WHERE n <= \(each))
            """)
        let now = try SyncFeed(pool: pool).audience(since: nil)
        let query = SyncSharedDeltaQuery(since: since, chainStart: now.snapshot, anyViewer: Viewer(userID: realtors[0], isAdmin: false))
            .rows(realtors: realtors, cap: SyncFeed.maxSharedRows + 1)

        let rows = try pool.query(query)
        #expect(rows.count == changed)
        // Every changed task is paired with its declarer (its listing's owner) only.
        #expect(try rows.allSatisfy { try $0.decode("viewers", as: String.self).split(separator: ",").reduce(into: Set<Substring>()) { $0.insert($1) }.count == 1 })
        try pool.withConnection { connection in
            // The first reads plan each time (custom plans); from the sixth PostgreSQL keeps a
            // generic plan. Both must run per changed row, not per viewer.
            let custom = try Self.plan(PostgresQuery(sql: "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query.sql, binds: query.binds), on: connection)
            for _ in 0..<6 { _ = try connection.queryPrepared(name: "sync_shared_rows", query) }
            let literals = query.binds.map { "'" + ($0.text ?? "").replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ",")
            let generic = try Self.plan(PostgresQuery(sql: "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE sync_shared_rows(\(literals))"), on: connection)
            for (name, plan) in [("custom", custom), ("generic", generic)] {
                // No node runs more often than once per changed row and candidate (4 per task), whatever the viewers.
                let loops = plan.nodes.map { ($0["Actual Loops"] as? Int) ?? 0 }.max() ?? 0
                #expect(loops <= 4 * changed, "\(name): a node ran \(loops) times for \(changed) rows")
                // No node reads the tasks table through.
                #expect(!plan.nodes.contains { $0["Node Type"] as? String == "Seq Scan" && $0["Relation Name"] as? String == "tasks" }, "\(name)")
                print("shared delta read (\(name) plan), \(realtors.count) viewers × \(changed) changed rows: planning \(plan.top["Planning Time"] ?? "?") ms,"
                      + " execution \(plan.top["Execution Time"] ?? "?") ms")
            }
        }
    }

    /// 201 realtors with a listing and ten tasks ('t') each, and `others` more tasks ('other')
    /// of the last one; returns a cursor every seeded row is below. Not the current snapshot:
    /// the tests share one PostgreSQL, and another test's open transaction would hold its xmin
    /// back below this test's seed, so the range would rightly cover the whole seed and a
    /// sequential scan would be the right plan (seen under parallel runs). This database's rows
    /// were all written by committed transactions below the fence.
    static func seedRealtors(_ pool: PostgresPool, othersOfLast others: Int) throws -> SyncSnapshot {
        for statement: PostgresQuery in [
            "INSERT INTO users (name, email) SELECT 'r' || n, 'r' || n || '@example.com' FROM generate_series(1, 201) n",
            "INSERT INTO listings (address, owned_by) SELECT 'a', id FROM users",
            "INSERT INTO tasks (title, declared_by, listing_id) SELECT 't', l.owned_by, l.id FROM listings l, generate_series(1, 10)",
            """
            INSERT INTO tasks (title, declared_by, listing_id) SELECT 'other', l.owned_by, l.id FROM listings l, generate_series(1, \(unsafeSQL: String(others)))
            WHERE l.owned_by = (SELECT id FROM users ORDER BY id DESC LIMIT 1)
            """,
            "ANALYZE",
        ] { try pool.execute(statement) }
        let fence = try #require(try pool.query("SELECT pg_current_xact_id()::text AS x").first).decode("x", as: String.self)
        return try #require(SyncSnapshot(text: "\(fence):\(fence):"))
    }

    /// An EXPLAIN (FORMAT JSON)'s top object and every plan node.
    private static func plan(_ explain: PostgresQuery, on connection: PostgresConnection) throws -> (top: [String: Any], nodes: [[String: Any]]) {
        let text = try #require(try connection.query(explain).first).decode("QUERY PLAN", as: String.self)
        let top = try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])?.first)
        var nodes: [[String: Any]] = []
        func walk(_ node: [String: Any]) {
            nodes.append(node)
            for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
        }
        walk(try #require(top["Plan"] as? [String: Any]))
        return (top, nodes)
    }
}
