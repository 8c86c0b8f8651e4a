import Foundation
import Store
import Testing

/// The sync feed's pages are bounded in bytes: a page stops at SYNC_PAGE_MAX_BYTES as well as at
/// `limit`, with `has_more` pointing on; a single row larger than the budget goes out alone.
@Suite struct SyncPageBytesTests {
    static let budget = 64 * 1024

    static func bigTask(_ server: SyncTestServer, by member: SyncTestServer.Member, on listing: UUID, bytes: Int) throws -> UUID {
        try server.insert("""
            INSERT INTO tasks (title, description, declared_by, listing_id)
            VALUES ('big', repeat('x', \(bytes)::int), \(member.id), \(listing)) RETURNING id
            """)
    }

    /// Rows plus removals in one response.
    static func entries(_ json: [String: Any]) -> Int {
        (SyncReplica.tables + ["removed"]).reduce(0) { $0 + ((json[$1] as? [Any])?.count ?? 0) }
    }

    /// Syncs to the end with the largest `limit`, checking every response against the budget.
    static func chain(_ server: SyncTestServer, as member: SyncTestServer.Member, into replica: inout SyncReplica,
                      oversized: Set<String>) throws -> Int {
        var pages = 0
        while true {
            let response = try server.sync(member, since: replica.since, limit: SyncFeed.maxLimit)
            let json = try replica.apply(response)
            pages += 1
            if response.body.count > budget {
                // Only a row larger than the budget may exceed it, and then it is alone.
                let tasks = (json["tasks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                #expect(entries(json) == 1 && tasks.count == 1 && oversized.contains(tasks[0]),
                        "a \(response.body.count)-byte page with \(entries(json)) entries")
            }
            if json["has_more"] as? Bool != true { return pages }
        }
    }

    @Test func pagesStayWithinTheByteBudgetAndTheChainStillDeliversEverything() throws {
        let server = try SyncTestServer(maxPageBytes: Self.budget)
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        var tasks: [UUID] = []
        for _ in 0..<30 { tasks.append(try Self.bigTask(server, by: rita, on: listing, bytes: 10_000)) }
        var oversized: Set<String> = []
        for _ in 0..<3 { oversized.insert(try Self.bigTask(server, by: rita, on: listing, bytes: 100_000).lowercased) }
        for task in tasks.prefix(10) { _ = try server.note(on: "task", task, by: rita) }

        var replica = SyncReplica()
        let pages = try Self.chain(server, as: rita, into: &replica, oversized: oversized)
        // 300 kB of ordinary tasks need at least five 64 KiB pages, the three large ones one each.
        #expect(pages >= 8)
        #expect(replica.state == (try server.expectedState(for: rita)))
        #expect(replica.orphans.isEmpty)

        // A delta of the same rows is cut the same way.
        try server.execute("UPDATE tasks SET title = 'edited'")
        let deltaPages = try Self.chain(server, as: rita, into: &replica, oversized: oversized)
        #expect(deltaPages >= 8)
        #expect(replica.state == (try server.expectedState(for: rita)))
        #expect(replica.rows["tasks"]?.values.allSatisfy { $0["title"] as? String == "edited" } == true)
    }

    @Test func theDefaultBudgetLeavesOrdinaryPagesToTheRowLimit() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        for _ in 0..<50 { _ = try server.task(by: rita, on: listing) }
        let json = try #require(try server.sync(rita, limit: SyncFeed.maxLimit).json)
        #expect(json["has_more"] as? Bool == false)
        #expect((json["tasks"] as? [Any])?.count == 50)
    }

    @Test func parentsTravellingWithTheirChildrenCountAgainstTheBudget() throws {
        let server = try SyncTestServer(maxPageBytes: Self.budget)
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        var tasks: [UUID] = []
        for _ in 0..<6 {
            let task = try Self.bigTask(server, by: rita, on: listing, bytes: 25_000)
            try server.execute("""
                INSERT INTO notes (content, created_by, parent_type, parent_id) VALUES (repeat('n', 20000), \(rita.id), 'task', \(task))
                """)
            tasks.append(task)
        }
        try server.execute("UPDATE listings SET address = 'changed' WHERE id = \(listing)")
        let first = try replica.apply(try server.sync(rita, since: replica.since, limit: 1))
        #expect(first["has_more"] as? Bool == true)
        // Rewritten after the chain began: each 20 kB note must bring its 25 kB task along.
        try server.execute("UPDATE tasks SET title = 'rewritten'")
        var withParents = 0
        while true {
            let response = try server.sync(rita, since: replica.since, limit: SyncFeed.maxLimit)
            let json = try replica.apply(response)
            #expect(response.body.count <= Self.budget, "a \(response.body.count)-byte page")
            if !((json["notes"] as? [Any]) ?? []).isEmpty && !((json["tasks"] as? [Any]) ?? []).isEmpty { withParents += 1 }
            if json["has_more"] as? Bool != true { break }
        }
        #expect(withParents >= 5, "six 45 kB note-and-task pairs need at least five 64 KiB pages")
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
        try replica.syncToEnd(server, as: rita)
        #expect(replica.state == (try server.expectedState(for: rita)))
    }
}
