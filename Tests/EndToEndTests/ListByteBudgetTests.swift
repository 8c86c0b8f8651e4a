import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import Postgres
import Synchronization
import Testing

/// List pages bounded by bytes (`LIST_PAGE_MAX_BYTES`). Huge rows are inserted with
/// SQL, past the per-field limits, so the budget itself is what is tested.
@Suite struct ListByteBudgetTests {
    static let budget = 64 * 1024

    /// Tasks whose descriptions are `sizes` bytes, declared by the admin.
    static func insertTasks(_ world: ResourceWorld, sizes: [Int]) throws -> Set<String> {
        var ids: Set<String> = []
        try world.app.database.pool.withTransaction { connection in
            for size in sizes {
                let id = UUID().uuidString.lowercased()
                ids.insert(id)
                try connection.execute("""
                    INSERT INTO tasks (id, title, description, declared_by)
                    VALUES (\(id)::uuid, 'Huge', repeat('d', \(size)::int), \(world.id(.admin))::uuid)
                    """)
            }
        }
        return ids
    }

    /// Walks `path` with `limit=500`: every page within the budget unless it holds one row.
    static func walk(_ world: ResourceWorld, _ path: String, budget: Int = budget) throws -> (ids: [String], pages: Int) {
        var ids: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let page = try world.request("GET", "\(path)\(separator)limit=500" + (cursor.map { "&cursor=\($0)" } ?? ""), as: .admin)
            #expect(page.status == 200)
            let items = ResourceWorld.ids(in: page)
            #expect(!items.isEmpty)
            #expect(page.body.count <= budget || items.count == 1, "page \(pages): \(page.body.count) bytes, \(items.count) rows")
            ids += items
            cursor = page.json?["next_cursor"] as? String
            pages += 1
        } while cursor != nil && pages < 100
        return (ids, pages)
    }

    @Test func hugeRowsNeverMakeAPageLargerThanTheBudget() throws {
        let world = try ResourceWorld(extraRoles: [], listPaging: ListPaging(maxBytes: Self.budget))
        // Rows of 20 KB (three fit), one of 100 KB (larger than the budget: goes out alone).
        let sizes = [20_000, 20_000, 20_000, 20_000, 100_000, 20_000, 5_000, 20_000, 30_000, 40_000, 1_000, 60_000]
        let ids = try Self.insertTasks(world, sizes: sizes)
        for path in ["/v1/tasks", "/v1/tasks?order=due_date.desc", "/v1/tasks?order=priority.asc&status=open"] {
            let walk = try Self.walk(world, path)
            #expect(walk.ids.count == ids.count, "\(path): every row once")
            #expect(Set(walk.ids) == ids, "\(path)")
            #expect(walk.pages >= 6, "\(path): \(walk.pages) pages")
        }
    }

    @Test func notesAndHistoryPagesAreBoundedToo() throws {
        let world = try ResourceWorld(extraRoles: [], listPaging: ListPaging(maxBytes: Self.budget))
        let task = try #require(try Self.insertTasks(world, sizes: [10]).first)
        var notes: Set<String> = []
        try world.app.database.pool.withTransaction { connection in
            for size in [30_000, 30_000, 30_000, 70_000, 30_000, 10] {
                let id = UUID().uuidString.lowercased()
                notes.insert(id)
                try connection.execute("""
                    INSERT INTO notes (id, content, created_by, parent_type, parent_id)
                    VALUES (\(id)::uuid, repeat('n', \(size)::int), \(world.id(.admin))::uuid, 'task', \(task)::uuid)
                    """)
                try connection.execute("""
                    INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id)
                    VALUES ('task', \(task)::uuid, \(world.id(.admin))::uuid, 'claimed', \(world.id(.admin))::uuid)
                    """)
            }
        }
        let walk = try Self.walk(world, "/v1/tasks/\(task)/notes")
        #expect(Set(walk.ids) == notes)
        #expect(walk.ids.count == notes.count)
        #expect(try Self.walk(world, "/v1/tasks/\(task)/claim-events").ids.count == 6)
    }

    /// Five clients read pages of 250 KB rows at once, again and again: no statement ever
    /// hands the server more than about one budget (1 MiB) of rows, never a whole list (48 rows,
    /// 12 MB: before the budget, 5 readers added hundreds of MiB). Measured as what the server
    /// holds (the largest result libpq returned to it, `QueryTimings.largestResultBytes`), not
    /// as the test process's RSS, which moves with malloc's arenas and with every other suite
    /// running in the same process.
    @Test func memoryStaysFlatAcrossConcurrentReadsOfHugePages() throws {
        let world = try ResourceWorld(extraRoles: [], workerCount: 6)
        try world.app.database.pool.execute("""
            INSERT INTO tasks (title, declared_by, source_slack_messages)
            SELECT 'Slack ' || g, \(world.id(.admin))::uuid, array_fill(repeat(chr(97 + g % 26), 25000), ARRAY[10])
            FROM generate_series(1, 48) g
            """)
        let client = world.app.client
        let headers = ["Authorization": "Bearer \(world.token(.admin))"]
        @Sendable func readAll() -> (rows: Int, largest: Int) {
            var cursor: String?
            var rows = 0
            var largest = 0
            for _ in 0..<100 {
                let path = "/v1/tasks?limit=500" + (cursor.map { "&cursor=\($0)" } ?? "")
                guard let page = try? client.perform(method: "GET", path: path, headers: headers), page.status == 200 else { return (-1, 0) }
                largest = max(largest, page.body.count)
                rows += ResourceWorld.ids(in: page).count
                cursor = page.json?["next_cursor"] as? String
                if cursor == nil { break }
            }
            return (rows, largest)
        }
        #expect(readAll().rows == 48)
        let results = Mutex<[(rows: Int, largest: Int)]>([])
        DispatchQueue.concurrentPerform(iterations: 5) { _ in
            for _ in 0..<2 {
                let result = readAll()
                results.withLock { $0.append(result) }
            }
        }
        let held = world.app.database.pool.queryTimings.largestResultBytes
        #expect(results.withLock { $0 }.allSatisfy { $0.rows == 48 && $0.largest <= ListPaging.defaultMaxBytes })
        // The rows within the budget, the one crossing it and the marker: about 1.3 MB here.
        #expect(held > 250_000 && held < 3 << 20, "the largest result held \(held) bytes")
        print("largest database result during concurrent reads: \(held >> 10) KiB")
    }
}
