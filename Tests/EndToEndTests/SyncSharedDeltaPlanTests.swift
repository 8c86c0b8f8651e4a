import Foundation
import Postgres
@testable import Store
import Testing
import TestSupport

/// The shared delta read (SyncFeed+SharedDeltas) pairs changed rows with waiting realtors
/// through each row's candidates, so its work grows with rows × candidates, never with rows ×
/// viewers. Checked on real PostgreSQL's plan, by loops and rows read rather than time, on
/// bench/realtime's shape: 200 realtors who each own a listing with ten tasks, 2,000 more
/// tasks of one other realtor, and one admin write that changed one task of each realtor.
/// (`swift test --filter SyncSharedDeltaPlanTests` prints the planning and execution times
/// README "### Realtime" quotes.)
@Suite struct SyncSharedDeltaPlanTests {
    @Test(arguments: [200, 1])
    func pairingRunsOncePerChangedRowNotPerViewer(changed: Int) throws {
        let database = try TestDatabase.create()
        let pool = database.pool
        for statement: PostgresQuery in [
            "INSERT INTO users (name, email) SELECT 'r' || n, 'r' || n || '@example.com' FROM generate_series(1, 201) n",
            "INSERT INTO listings (address, owned_by) SELECT 'a', id FROM users",
            "INSERT INTO tasks (title, declared_by, listing_id) SELECT 't', l.owned_by, l.id FROM listings l, generate_series(1, 10)",
            """
            INSERT INTO tasks (title, declared_by, listing_id) SELECT 'other', l.owned_by, l.id FROM listings l, generate_series(1, 2000)
            WHERE l.owned_by = (SELECT id FROM users ORDER BY id DESC LIMIT 1)
            """,
            "ANALYZE",
        ] { try pool.execute(statement) }
        let realtors = try pool.query("SELECT id FROM users ORDER BY id LIMIT 200").map { try $0.decode("id", as: UUID.self) }
        let cursor = try SyncFeed(pool: pool).audience(since: nil)
        try pool.execute("""
            UPDATE tasks t SET description = 'changed' WHERE t.id IN (
              SELECT DISTINCT ON (declared_by) id FROM tasks WHERE declared_by = ANY(\(Array(realtors.prefix(changed)))) ORDER BY declared_by, id)
            """)
        let now = try SyncFeed(pool: pool).audience(since: nil)
        let query = SyncSharedDeltaQuery(since: cursor.snapshot, chainStart: now.snapshot, anyViewer: Viewer(userID: realtors[0], isAdmin: false))
            .rows(realtors: realtors, cap: SyncFeed.maxSharedRows + 1)

        let plan = try pool.query(PostgresQuery(sql: "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query.sql, binds: query.binds))
        let text = try #require(plan.first).decode("QUERY PLAN", as: String.self)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let top = try #require(json.first)
        var nodes: [[String: Any]] = []
        func walk(_ node: [String: Any]) {
            nodes.append(node)
            for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child) }
        }
        walk(try #require(top["Plan"] as? [String: Any]))
        let rows = try pool.query(query)
        #expect(rows.count == changed)
        // Every changed task is paired with its declarer (its listing's owner) only.
        #expect(try rows.allSatisfy { try $0.decode("viewers", as: String.self).split(separator: ",").reduce(into: Set<Substring>()) { $0.insert($1) }.count == 1 })
        // No node runs more often than once per changed row and candidate (4 per task), whatever the viewers.
        let loops = nodes.map { ($0["Actual Loops"] as? Int) ?? 0 }.max() ?? 0
        #expect(loops <= 4 * changed, "a node ran \(loops) times for \(changed) rows: \(nodes.map { $0["Node Type"] ?? "" })")
        // No node reads the tasks table through.
        #expect(!nodes.contains { $0["Node Type"] as? String == "Seq Scan" && $0["Relation Name"] as? String == "tasks" })
        print("shared delta read, \(realtors.count) viewers × \(changed) changed rows: planning \(top["Planning Time"] ?? "?") ms,"
              + " execution \(top["Execution Time"] ?? "?") ms, shared buffers hit \((top["Plan"] as? [String: Any])?["Shared Hit Blocks"] ?? "?")")
    }
}
