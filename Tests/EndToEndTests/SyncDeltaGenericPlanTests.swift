import Foundation
import Postgres
@testable import Store
import Testing
import TestSupport

/// A delta read — each woken long-poll, each due Realtime channel — runs its statements with
/// generic plans, made once per pooled connection (SyncFeed.beginDeltaRead), and those plans
/// read about the changed rows, not the table. Counted on real PostgreSQL: the server's own
/// plan counters (`pg_prepared_statements`) and rows read in `EXPLAIN ANALYZE`, not time.
@Suite struct SyncDeltaGenericPlanTests {
    /// 201 realtors with a listing and ten tasks each, 5,000 more tasks of the last one; then
    /// `changed` tasks of the first realtor rewritten after the cursor.
    private static func seed(_ pool: PostgresPool, changed: Int) throws -> (viewers: [Viewer], cursor: SyncCursor) {
        let since = try SyncSharedDeltaPlanTests.seedRealtors(pool, othersOfLast: 5000)
        let users = try pool.query("SELECT id FROM users ORDER BY id LIMIT 2").map { try $0.decode("id", as: UUID.self) }
        try pool.execute("""
            UPDATE tasks SET description = 'changed' WHERE id IN (
              SELECT id FROM tasks WHERE title = 't' AND declared_by = \(users[0]) ORDER BY id LIMIT \(changed))
            """)
        let horizonText = try #require(try pool.query("SELECT horizon::text AS h FROM sync_horizon").first).decode("h", as: String.self)
        let horizon = try #require(UInt64(horizonText))
        return (users.map { Viewer(userID: $0, isAdmin: false) }, SyncCursor(since: since, horizon: horizon))
    }

    @Test func deltaReadsArePlannedOncePerConnection() throws {
        let database = try TestDatabase.create()
        let (viewers, cursor) = try Self.seed(database.pool, changed: 3)
        // One connection, so every read below runs on the session whose statements are counted.
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        let feed = SyncFeed(pool: pool)
        for _ in 0..<8 {
            #expect(try feed.page(viewer: viewers[0], cursor: cursor, limit: 1000).rows[.tasks]?.count == 3)
            let shared = try feed.sharedPages(viewers: viewers, cursor: cursor, limit: 1000)
            #expect(shared[viewers[0]]?.rows[.tasks]?.count == 3)
            #expect(shared[viewers[1]]?.isEmpty == true)
        }
        // The page's and the shared read's statements (not the idle check, which runs alone).
        let plans = try #require(try pool.query("""
            SELECT count(*)::int AS statements, coalesce(sum(generic_plans), 0)::int AS generic,
                   coalesce(sum(custom_plans), 0)::int AS custom
            FROM pg_prepared_statements WHERE statement LIKE '%pg_visible_in_snapshot%' AND statement NOT LIKE '%AS pending%'
            """).first)
        let statements: Int = try plans.decode("statements"), generic: Int = try plans.decode("generic"),
            custom: Int = try plans.decode("custom")
        #expect(statements >= 10, "the stages and the shared read are prepared statements")
        #expect(custom == 0, "\(custom) custom plans (a planning each) for \(statements) statements")
        #expect(generic >= 8 * statements / 2, "\(generic) generic plan uses for \(statements) statements")
    }

    /// Every stage's generic plan reads about the changed tasks, never the tasks table through.
    @Test func genericStagePlansReadTheChangedRowsOnly() throws {
        let database = try TestDatabase.create()
        let changed = 3
        let (viewers, cursor) = try Self.seed(database.pool, changed: changed)
        let since = try #require(cursor.since)
        try database.pool.withConnection { connection in
            try connection.withTransaction(isolation: .repeatableRead) { connection in
                try connection.runTrustedScript(SyncFeed.deltaReadSettings)
                let snapshotRow = try #require(try connection.query("SELECT pg_current_snapshot()::text AS s").first)
                let chainStart = try #require(SyncSnapshot(text: try snapshotRow.decode("s", as: String.self)))
                for viewer in [viewers[0], Viewer(userID: viewers[0].userID, isAdmin: true)] {
                    let query = SyncStageQuery(viewer: viewer, since: since, chainStart: chainStart, grants: .init())
                    for stage in SyncStage.allCases where stage != .removed || !viewer.isAdmin {
                        let statement = query.query(stage, after: nil, limit: 1001, bytes: 1 << 20, pageEmpty: true)
                        let rows = try connection.query(statement).count
                        let plan = try ListPlanTests.explainCached(connection, statement)
                        // Tasks is the big table (5,000 rows of one realtor): read through, a
                        // generic plan would cost every wake-up a table's worth.
                        #expect(plan.heapRows(of: "tasks") <= changed + 10, "\(stage), admin \(viewer.isAdmin): \(plan.text)")
                        #expect(plan.rowsRead(of: "tasks") <= changed + 10, "\(stage), admin \(viewer.isAdmin): \(plan.text)")
                        if stage == .tasks { #expect(rows == changed) }
                    }
                }
            }
        }
    }
}
