import Foundation
import Postgres
import Store
import Testing

/// `SyncFeed.sharedPages` against real PostgreSQL: every page it returns is the page
/// `page(viewer:cursor:limit:)` returns for that viewer, for random teams and random writes,
/// and the read costs the same statements for 3 viewers as for 30.
@Suite struct SyncSharedDeltaTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func sharedPagesEqualPerViewerPagesAfterRandomWrites(seed: UInt64) throws {
        let world = try SharedDeltaWorld(seed: seed, realtorCount: 12)
        if seed.isMultiple(of: 2) { try world.bigItem(bytes: 5000) }
        let cursor = try world.cursor()
        try world.writeBatch(10)
        if seed.isMultiple(of: 2) { try world.bigItem(bytes: 6000) }
        for maxPageBytes in [SyncFeed.defaultMaxPageBytes, SyncFeed.minimumMaxPageBytes] {
            let feed = SyncFeed(pool: world.pool, maxPageBytes: maxPageBytes)
            for limit in [1, 2, 3, 7, 1000] {
                let shared = try feed.sharedPages(viewers: world.viewers, cursor: cursor, limit: limit)
                for (viewer, page) in shared {
                    let expected = try feed.page(viewer: viewer, cursor: cursor, limit: limit)
                    #expect(Self.describe(page) == Self.describe(expected), "seed \(seed), limit \(limit), bytes \(maxPageBytes), admin \(viewer.isAdmin)")
                }
                // Admins never have access records to read, and no parent here is late; realtors
                // untouched by grants and revocations are answered too, not left to the
                // per-viewer path.
                #expect(shared[world.viewers[0]] != nil)
                #expect(shared.keys.contains { !$0.isAdmin }, "seed \(seed): no realtor answered")
            }
        }
    }

    @Test func everyoneSeesTheirOwnChangeWhenAnAdminEditsOneTaskOfEach() throws {
        let world = try SharedDeltaWorld(seed: 42, realtorCount: 8)
        let mine = try world.realtors.map { realtor in
            try #require(try world.pool.query("INSERT INTO tasks (title, declared_by) VALUES ('own', \(realtor)) RETURNING id").first)
                .decode("id", as: UUID.self)
        }
        let cursor = try world.cursor()
        for task in mine { try world.execute("UPDATE tasks SET title = 'edited by admin' WHERE id = \(task)") }
        let feed = SyncFeed(pool: world.pool)
        let shared = try feed.sharedPages(viewers: world.viewers, cursor: cursor, limit: 100)
        #expect(shared.count == world.viewers.count)
        for (viewer, page) in shared {
            #expect(Self.describe(page) == Self.describe(try feed.page(viewer: viewer, cursor: cursor, limit: 100)))
            #expect(page.rows[.tasks]?.count == (viewer.isAdmin ? mine.count : 1))
        }
    }

    @Test func theSharedReadRunsAsManyStatementsForThirtyViewersAsForThree() throws {
        let world = try SharedDeltaWorld(seed: 7, realtorCount: 30)
        let cursor = try world.cursor()
        try world.writeBatch(20)
        let feed = SyncFeed(pool: world.pool)
        func statements(_ viewers: [Viewer]) throws -> (count: Int, answered: Int) {
            let before = world.pool.queryTimings.snapshot.count
            let pages = try feed.sharedPages(viewers: viewers, cursor: cursor, limit: 100)
            return (world.pool.queryTimings.snapshot.count - before, pages.count)
        }
        let few = try statements(Array(world.viewers.prefix(3)))
        let many = try statements(world.viewers)
        #expect(few.count == many.count)
        #expect(many.answered > few.answered)
    }

    /// A page as comparable text. Each read names its own snapshot F (PostgreSQL's
    /// transaction ids are cluster-wide, so other tests' transactions move it between the two
    /// reads); it is written as "F" so pages read at two instants with nothing written to this
    /// database in between compare equal.
    static func describe(_ page: SyncPage) -> String {
        let chain = page.hasMore ? page.next.position?.chainStart : page.next.since
        func cursor(_ cursor: SyncCursor) -> String {
            func snapshot(_ s: SyncSnapshot?) -> String { s.map { $0 == chain ? "F" : $0.text } ?? "-" }
            let position = cursor.position.map { "\($0.stage.key)/\($0.txid)/\($0.id)/\(snapshot($0.chainStart))" } ?? "-"
            return "\(snapshot(cursor.since)) hz\(cursor.horizon) \(position)"
        }
        var lines = ["has_more \(page.hasMore) next \(cursor(page.next))"]
        for stage in SyncStage.allCases { lines += (page.rows[stage] ?? []).map { "\(stage.key): \($0)" } }
        lines += page.removed.map { "removed \($0.type) \($0.id)" }
        lines += page.entries.map { "entry \($0.stage.key)[\($0.index)] after \(cursor($0.after))" }
        return lines.joined(separator: "\n")
    }
}
