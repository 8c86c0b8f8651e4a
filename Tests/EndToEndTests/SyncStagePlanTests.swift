import Foundation
import Postgres
@testable import Store
import Testing
import TestSupport

/// What PostgreSQL reads for one page of a sync stage (issue 14 item 4, docs/performance.md "Sync"), from
/// `EXPLAIN (ANALYZE, FORMAT JSON)` of the feed's own stage statement: rows counted, not time.
///
/// A page resumes after the last (txid, id) handed out. Rows written by one transaction share a
/// txid (a bulk import; the bench's 18,000 seeded tasks), and with an index on txid alone every
/// page re-read all of that transaction's rows after the position and sorted them: a full sync
/// was quadratic in the size of a transaction. On (txid, id) (migration 0019) the position is
/// an index condition, so a page reads about `limit` rows wherever it is in the chain.
@Suite struct SyncStagePlanTests {
    static let listings = 100, tasksPerListing = 30

    @Test func midChainPageOfOneBigTransactionReadsAboutAPage() throws {
        let database = try TestDatabase.create()
        let viewer = try #require(try database.pool.query(
            "INSERT INTO users (name, email) VALUES ('Viewer', 'viewer@x.io') RETURNING id").first).decode("id", as: UUID.self)
        // One statement, so every task has the same txid.
        try database.pool.execute("""
            WITH l AS (INSERT INTO listings (address, owned_by)
                       SELECT n || ' Plan Ave', \(viewer)::uuid FROM generate_series(1, \(Self.listings)) n RETURNING id)
            INSERT INTO tasks (title, declared_by, listing_id)
            SELECT 'task ' || n, \(viewer)::uuid, l.id FROM l, generate_series(1, \(Self.tasksPerListing)) n
            """)
        try database.pool.execute("VACUUM (ANALYZE) tasks")
        try database.pool.execute("VACUUM (ANALYZE) listings")
        let total = Self.listings * Self.tasksPerListing
        // The position halfway through the tasks stage, as a full sync's page there holds it.
        let middle = try #require(try database.pool.query("""
            SELECT txid::text AS txid, id FROM tasks ORDER BY txid, id OFFSET \(total / 2) LIMIT 1
            """).first)
        let position = (txid: try #require(UInt64(try middle.decode("txid", as: String.self))), id: try middle.decode("id", as: UUID.self))
        let snapshotText = try #require(try database.pool.query("SELECT pg_current_snapshot()::text AS s").first).decode("s", as: String.self)
        let chainStart = try #require(SyncSnapshot(text: snapshotText))
        let query = SyncStageQuery(viewer: Viewer(userID: viewer, isAdmin: false), since: nil, chainStart: chainStart, grants: .init())
        let limit = 101

        let stage = query.query(.tasks, after: position, limit: limit, bytes: 1 << 30, pageEmpty: true)
        let plan = try ListPlanTests.explain(database, stage)
        #expect(plan.heapRows(of: "tasks") <= limit + 10, "\(plan.text)")
        // The statement itself answers the page that follows the position.
        let rows = try database.pool.query(stage).map(SyncStageRow.init)
        #expect(rows.count == limit)
        #expect(rows.allSatisfy { $0.id.uuidString.lowercased() > position.id.uuidString.lowercased() })
    }
}
