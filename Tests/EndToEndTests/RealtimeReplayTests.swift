@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import Postgres
import Store
import Testing

/// No loss across reconnects: every `postgres_changes` event carries the sync cursor after it
/// (`data.cursor`), `/v1/sync` resumes from it, and a join that passes it (the presence key)
/// gets what it missed replayed before live events, with nothing lost or repeated at the seam.
@Suite struct RealtimeReplayTests {
    /// "table:id" for a row event, "gone:id" for a DELETE (a row that left the view).
    static func key(_ message: RealtimeTestClient.Message) -> String? {
        guard let id = RealtimeTestClient.id(of: message), let data = message.data else { return nil }
        return data["type"] as? String == "DELETE" ? "gone:\(id)" : "\(data["table"] as? String ?? "?"):\(id)"
    }

    /// Every row and removal `/v1/sync` returns from `since` to the end of its chain, as keys.
    static func syncKeys(_ server: SyncTestServer, _ member: SyncTestServer.Member, since: String) throws -> [String] {
        var keys: [String] = [], cursor = since
        while true {
            let response = try server.sync(member, since: cursor)
            let body = try #require(response.json, "status \(response.status)")
            for stage in SyncStage.allCases where stage != .removed {
                for row in body[stage.key] as? [[String: Any]] ?? [] { keys.append("\(stage.key):\(row["id"] as? String ?? "?")") }
            }
            for removal in body["removed"] as? [[String: Any]] ?? [] { keys.append("gone:\(removal["id"] as? String ?? "?")") }
            cursor = try #require(body["next_since"] as? String)
            if body["has_more"] as? Bool != true { return keys }
        }
    }

    /// The next `postgres_changes` events of `client`, `count` of them, in arrival order.
    static func events(_ client: RealtimeTestClient, _ count: Int) throws -> [RealtimeTestClient.Message] {
        try (0..<count).map { _ in try client.next { $0.event == "postgres_changes" } }
    }

    @Test func everyEventCarriesTheCursorAfterItAndSyncResumesThereExactly() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let rita = try server.member("rita")
        let client = try RealtimeTestClient(service, vsn: "2.0.0")
        try client.join("all", token: rita.token, changes: [RealtimeChangesTests.entry("tasks"), RealtimeChangesTests.entry("notes")])
        let task = try server.task(by: rita)
        var events = [try client.change(id: task)]  // before the update, or both come as one UPDATE
        // Two rows of one transaction come in one delta: the first one's cursor is mid-chain.
        try server.pool.withTransaction { connection in
            for _ in 0..<2 {
                try connection.execute("INSERT INTO notes (content, created_by, parent_type, parent_id) VALUES ('n', \(rita.id), 'task', \(task))")
            }
        }
        events += try Self.events(client, 2)
        try server.execute("UPDATE tasks SET title = 'renamed' WHERE id = \(task)")
        events += try Self.events(client, 1)
        let keys = events.compactMap(Self.key)
        #expect(keys.count == 4 && keys[0] == "tasks:\(task.uuidString.lowercased())" && keys[3] == keys[0], "\(keys)")
        let cursors = try events.map { try #require($0.data?["cursor"] as? String) }
        #expect(SyncCursor(decoding: cursors[1])?.position != nil, "the first of two rows of one delta is mid-chain")
        for (index, cursor) in cursors.enumerated() {
            #expect(SyncCursor(decoding: cursor) != nil)
            let resumed = try Self.syncKeys(server, rita, since: cursor)
            #expect(resumed.sorted() == Array(keys[(index + 1)...]).sorted(), "after event \(index): \(resumed)")
        }
    }

    @Test func aJoinWithACursorReplaysInsertsUpdatesAndLeavesBeforeLiveEvents() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let rita = try server.member("rita"), otto = try server.member("otto")
        let kept = try server.listing(owner: otto, staff: rita), leaving = try server.listing(owner: otto, staff: rita)
        let task = try server.task(by: otto, on: kept)
        let changes = [RealtimeChangesTests.entry("listings"), RealtimeChangesTests.entry("tasks")]
        var cursor = ""
        do {
            let before = try RealtimeTestClient(service)
            try before.join("work", token: rita.token, changes: changes)
            let marker = try server.task(by: rita)
            cursor = try #require(try before.change(id: marker).data?["cursor"] as? String)
        } // disconnected: the client is gone
        // While away: an insert, an update, a listing that leaves rita's view, and otto's secret.
        let added = try server.task(by: otto, on: kept)
        try server.execute("UPDATE tasks SET title = 'renamed' WHERE id = \(task)")
        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(leaving)")
        let secret = try server.task(by: otto)

        let client = try RealtimeTestClient(service)
        let reply = try client.join("work", token: rita.token, changes: changes, replayFrom: cursor)
        #expect(reply.status == "ok")
        let live = try server.task(by: rita)
        let keys = try Self.events(client, 4).compactMap(Self.key)
        let id = { (uuid: UUID) in uuid.uuidString.lowercased() }
        #expect(keys == ["tasks:\(id(task))", "tasks:\(id(added))", "gone:\(id(leaving))", "tasks:\(id(live))"]
            || keys == ["tasks:\(id(added))", "tasks:\(id(task))", "gone:\(id(leaving))", "tasks:\(id(live))"], "\(keys)")
        Thread.sleep(forTimeInterval: 0.3)
        let extra = client.received { $0.event == "postgres_changes" }
        #expect(extra.isEmpty, "no repeats and nothing secret: \(extra)")
        _ = secret

        // The replay honours the subscription's event type: INSERT only skips the update and the leave.
        let inserts = try RealtimeTestClient(service)
        try inserts.join("inserts", token: rita.token, changes: [RealtimeChangesTests.entry("tasks", "INSERT")], replayFrom: cursor)
        let first = try inserts.next { $0.event == "postgres_changes" }
        #expect(Self.key(first) == "tasks:\(id(added))")
        let second = try inserts.next { $0.event == "postgres_changes" }
        #expect(Self.key(second) == "tasks:\(id(live))", "the live insert follows, nothing else in between")
    }

    /// The seam: a writer commits throughout the join, so commits land before, during and after
    /// the replay's read; each must arrive exactly once (the sync from the same cursor says
    /// which). Registering live delivery from the current snapshot instead of the replay's
    /// end loses some; registering it from the client's cursor repeats all of them.
    @Test func writesCommittedDuringTheReplayArriveExactlyOnce() throws {
        let server = try SyncTestServer()
        let service = RealtimeChannelTests.service(server)
        defer { service.stop() }
        let rita = try server.member("rita")
        let changes = [RealtimeChangesTests.entry("tasks", "INSERT")]
        for round in 0..<20 {
            let cursor = try server.instances[0].sync.feed.currentCursor().encoded()
            let written = LockedBox(0), stop = LockedFlag(), done = LockedFlag()
            let writer = Thread {
                while !stop.value {
                    if (try? server.task(by: rita)) != nil { written.update { $0 += 1 } }
                }
                done.set()
            }
            writer.start()
            try waitUntil("writes after the cursor") { written.value >= 2 }
            let client = try RealtimeTestClient(service, vsn: round % 2 == 0 ? "1.0.0" : "2.0.0")
            try client.join("seam\(round)", token: rita.token, changes: changes, replayFrom: cursor)
            stop.set()
            try waitUntil("the writer stopped") { done.value }
            let marker = try server.task(by: rita)
            var received: [String] = []
            while true {
                let event = try client.next(seconds: 10) { $0.event == "postgres_changes" }
                received.append(Self.key(event) ?? "?")
                if RealtimeTestClient.id(of: event) == marker.uuidString.lowercased() { break }
            }
            let expected = try Self.syncKeys(server, rita, since: cursor).filter { $0.hasPrefix("tasks:") }
            #expect(received.sorted() == expected.sorted(), "round \(round): \(received.count) received, \(expected.count) committed")
            #expect(Set(received).count == received.count, "round \(round): duplicates")
        }
    }

    @Test func aCursorThatCannotBeReplayedAnswersTheJoinWithAnError() throws {
        let server = try SyncTestServer()
        var limits = RealtimeLimits()
        limits.replayChanges = 3
        let service = RealtimeChannelTests.service(server, limits: limits)
        defer { service.stop() }
        let rita = try server.member("rita"), otto = try server.member("otto")
        let tasks = [RealtimeChangesTests.entry("tasks")]
        let client = try RealtimeTestClient(service)
        func reason(_ cursor: String, _ topic: String) throws -> String {
            let reply = try client.join(topic, token: rita.token, changes: tasks, replayFrom: cursor)
            #expect(reply.status == "error")
            return reply.response?["reason"] as? String ?? ""
        }
        #expect(try reason("not a cursor", "garbage").hasPrefix("InvalidCursor: "))
        // A well-formed cursor from this database's future was not written by this server.
        let now = try server.instances[0].sync.feed.currentCursor()
        let future = try #require(SyncSnapshot(text: "\(now.lower + 1_000_000):\(now.lower + 1_000_000):"))
        #expect(try reason(SyncCursor(since: future, horizon: 0).encoded(), "future").hasPrefix("InvalidCursor: "))
        // A cursor of another epoch (issued before a restore): resync, on both routes.
        let restored = now.encoded(epoch: String(repeating: "0", count: 32))
        #expect(try reason(restored, "restored").hasPrefix("ResyncRequired: "))
        #expect(try server.sync(rita, since: restored).status == 410)

        // More changes than a replay may carry: catch up with /v1/sync first.
        let cursor = now.encoded()
        for _ in 0..<4 { _ = try server.task(by: rita) }
        let tooMany = try reason(cursor, "many")
        #expect(tooMany.hasPrefix("ResyncRequired: ") && tooMany.contains("/v1/sync"), "\(tooMany)")

        // History pruned after the cursor (its access records are gone): /v1/sync answers 410.
        let listing = try server.listing(owner: otto, staff: rita)
        let old = try Self.syncCursorAtEnd(server, rita)
        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(listing)")
        #expect(try server.instances[0].sync.pruneHistory(keep: .seconds(0)) >= 1)
        #expect(try server.sync(rita, since: old).status == 410)
        #expect(try reason(old, "pruned").hasPrefix("ResyncRequired: "))
        // The client still works: a join without a cursor, or with a fresh one, is served.
        let fresh = try Self.syncCursorAtEnd(server, rita)
        #expect(try client.join("fresh", token: rita.token, changes: tasks, replayFrom: fresh).status == "ok")
    }

    static func syncCursorAtEnd(_ server: SyncTestServer, _ member: SyncTestServer.Member) throws -> String {
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: member)
        return try #require(replica.since)
    }
}
