import Foundation
import Testing

/// `GET /v1/sync` over HTTP against real PostgreSQL: snapshots by role, deltas, tombstones,
/// paging and cursor errors. Rows are written with SQL (the feed does not care who wrote them).
@Suite struct SyncFeedTests {
    @Test func fullSnapshotAsRealtorHoldsExactlyWhatTheRealtorCanSee() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let mine = try server.listing(owner: rita)
        let theirs = try server.listing(owner: otto)
        let task = try server.task(by: rita, on: mine)
        _ = try server.task(by: otto, on: theirs)
        _ = try server.note(on: "task", task, by: rita)
        _ = try server.subtask(on: "task", task)
        _ = try server.note(on: "listing", theirs, by: otto)
        try server.execute("UPDATE users SET deactivated_at = now() WHERE id = \(otto.id)")

        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        #expect(replica.state == (try server.expectedState(for: rita)))
        #expect(replica.ids("listings") == [mine.lowercased])
        #expect(!replica.ids("users").contains(otto.key))
        let json = try #require(try server.sync(rita).json)
        #expect(json["has_more"] as? Bool == false)
        #expect((json["removed"] as? [Any])?.isEmpty == true)
    }

    @Test func fullSnapshotAsAdminHoldsEverythingIncludingDeactivatedUsers() throws {
        let server = try SyncTestServer()
        let admin = try server.member("ada", admin: true)
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto)
        _ = try server.task(by: rita)
        _ = try server.task(by: otto, on: listing, table: "activities")
        try server.execute("UPDATE users SET deactivated_at = now() WHERE id = \(otto.id)")

        var replica = SyncReplica()
        try replica.syncToEnd(server, as: admin)
        #expect(replica.state == (try server.expectedState(for: admin, admin: true)))
        #expect(replica.ids("users").contains(otto.key))
        #expect(replica.ids("activities").count == 1)
    }

    @Test func deltaAfterEachKindOfWriteCarriesTheNewVersionsAndTombstones() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        let task = try server.task(by: rita, on: listing)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)

        try server.execute("UPDATE tasks SET title = 'renamed' WHERE id = \(task)")
        let note = try server.note(on: "task", task, by: rita)
        try server.execute("UPDATE listings SET status = 'deleted', deleted_at = now() WHERE id = \(listing)")
        try server.execute("INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by) VALUES ('listing', \(listing), 'draft', 'deleted', \(rita.id))")
        try server.execute("INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id) VALUES ('task', \(task), \(rita.id), 'claimed', \(rita.id))")
        let json = try replica.apply(try server.sync(rita, since: replica.since))

        #expect((json["tasks"] as? [[String: Any]])?.first?["title"] as? String == "renamed")
        #expect((json["notes"] as? [[String: Any]])?.map { $0["id"] as? String } == [note.lowercased])
        #expect((json["listings"] as? [[String: Any]])?.first?["status"] as? String == "deleted")
        #expect((json["status_changes"] as? [Any])?.count == 1)
        #expect((json["claim_events"] as? [Any])?.count == 1)
        #expect(replica.state == (try server.expectedState(for: rita)))

        // Nothing new: the next delta is empty (no repeats without concurrent writes).
        let quiet = try replica.apply(try server.sync(rita, since: replica.since))
        for table in SyncReplica.tables { #expect((quiet[table] as? [Any])?.isEmpty == true, "\(table)") }
    }

    @Test(arguments: [1, 2, 3, 7])
    func pagingWithSmallLimitsDeliversEverythingInForeignKeyOrder(limit: Int) throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        for _ in 0..<3 {
            let listing = try server.listing(owner: rita)
            let task = try server.task(by: rita, on: listing)
            _ = try server.note(on: "task", task, by: rita)
            _ = try server.subtask(on: "task", task)
        }
        var replica = SyncReplica()
        var lastStage = 0
        while true {
            let json = try replica.apply(try server.sync(rita, since: replica.since, limit: limit))
            let counts = SyncReplica.tables.map { (json[$0] as? [Any])?.count ?? 0 }
            #expect(counts.reduce(0, +) <= limit)
            // Within the chain the stages never go backwards.
            if let first = counts.firstIndex(where: { $0 > 0 }) {
                #expect(first >= lastStage)
                lastStage = counts.lastIndex(where: { $0 > 0 }) ?? first
            }
            if json["has_more"] as? Bool != true { break }
        }
        #expect(replica.state == (try server.expectedState(for: rita)))
        let total = 1 + 3 * 4 // rita herself; 3 × (listing, task, note, subtask)
        #expect(replica.state.values.map(\.count).reduce(0, +) == total)
        #expect(replica.pages >= (total + limit - 1) / limit)
    }

    @Test func pagingWithLimitEqualToTheRowCountEndsInOnePageAndOneLessNeedsTwo() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        _ = try server.task(by: rita, on: listing)
        // users (1) + listings (1) + tasks (1)
        let exact = try #require(try server.sync(rita, limit: 3).json)
        #expect(exact["has_more"] as? Bool == false)
        let short = try #require(try server.sync(rita, limit: 2).json)
        #expect(short["has_more"] as? Bool == true)
        #expect((short["tasks"] as? [Any])?.isEmpty == true)
        let rest = try #require(try server.sync(rita, since: short["next_since"] as? String, limit: 2).json)
        #expect((rest["tasks"] as? [Any])?.count == 1)
        #expect(rest["has_more"] as? Bool == false)
    }

    @Test(arguments: ["garbage!", "e30", "eyJ2IjoyLCJsbyI6IjEifQ", "eyJ2IjoxLCJzIjoiOTk5OTk5OTk5OTk6OTk5OTk5OTk5OTk6IiwiaHoiOiIwIn0"])
    func malformedOrForeignCursorAnswers400InvalidCursor(cursor: String) throws {
        // e30 = {}, then {"v":2,"lo":"1"}, then {"v":1,"s":"99999999999:99999999999:","hz":"0"} (a snapshot from the future).
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let response = try server.sync(rita, since: cursor)
        #expect(response.status == 400)
        #expect(response.json?["code"] as? String == "invalid_cursor")
    }

    @Test(arguments: ["limit=0", "limit=5001", "limit=x", "wait=61", "wait=-1", "wait=soon"])
    func invalidLimitOrWaitAnswers400(query: String) throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let response = try server.client.perform(method: "GET", path: "/v1/sync?\(query)",
                                                 headers: ["Authorization": "Bearer \(rita.token)"])
        #expect(response.status == 400)
        #expect(response.json?["code"] as? String == "invalid_parameter")
    }

    @Test func syncWithoutCredentialsAnswers401() throws {
        let server = try SyncTestServer()
        #expect(try server.client.get("/v1/sync").status == 401)
    }

    @Test func cursorOlderThanPrunedHistoryAnswers410AndAFreshSnapshotWorks() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto, staff: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let old = try #require(replica.since)
        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(listing)")
        // Records from finished transactions are older than the pruning transaction's now().
        let deleted = try server.instances[0].sync.pruneHistory(keep: .seconds(0))
        #expect(deleted >= 1)

        // A cursor issued before the pruning whose lower bound the pruned records reach.
        let response = try server.sync(rita, since: old)
        #expect(response.status == 410)
        #expect(response.json?["code"] as? String == "resync_required")
        var fresh = SyncReplica()
        try fresh.syncToEnd(server, as: rita)
        #expect(fresh.state == (try server.expectedState(for: rita)))
        // A cursor issued after the pruning is served.
        #expect(try server.sync(rita, since: fresh.since).status == 200)
    }
}

extension UUID {
    var lowercased: String { uuidString.lowercased() }
}
