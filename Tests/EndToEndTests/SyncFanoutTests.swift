import Foundation
import Testing

/// Shared fan-out: a wake-up reads what changed once for all waiters, then one page per
/// distinct question, however many parked requests ask it.
@Suite struct SyncFanoutTests {
    @Test func manyParkedRequestsOfOneUserShareOnePageReadPerWakeUp() throws {
        let server = try SyncTestServer()
        let sync = server.instances[0].sync
        let rita = try server.member("rita"), otto = try server.member("otto")
        var replica = SyncReplica(), ottoReplica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        try ottoReplica.syncToEnd(server, as: otto)
        let count = 40
        let since = replica.since
        let requests = (0..<count).map { _ in SyncLiveTests.Background { try server.sync(rita, since: since, wait: 60) } }
        let ottoRequest = SyncLiveTests.Background { [ottoSince = ottoReplica.since] in try server.sync(otto, since: ottoSince, wait: 60) }
        try waitUntil("every request is parked") { sync.waiterCount == count + 1 }
        // Let any re-read of newly parked requests happen before counting.
        Thread.sleep(forTimeInterval: 0.5)
        let before = sync.waiterReads

        let task = try server.task(by: rita)
        for request in requests {
            let response = try request.join()
            #expect(response.status == 200)
            #expect(SyncIdleMemoryTests.ids(response, "tasks") == [task.uuidString.lowercased()])
        }
        // One read for rita's 40 identical requests (two if a re-read of fresh ones
        // coincided); otto's request is not read at all: the change is not his business.
        #expect(sync.waiterReads - before <= 2, "\(sync.waiterReads - before) page reads")
        #expect(sync.waiterCount == 1)
        _ = try server.task(by: otto)
        #expect(SyncIdleMemoryTests.ids(try ottoRequest.join(), "tasks").count == 1)
    }

    /// Parks `perUser` requests for each of `members` on one shared cursor (memory answers
    /// every caught-up realtor with the change stream's latest snapshot).
    static func parkAll(_ server: SyncTestServer, _ members: [SyncTestServer.Member],
                        perUser: Int) throws -> [(SyncTestServer.Member, SyncLiveTests.Background<TestHTTPClient.Response>)] {
        var cursors: [String] = []
        for member in members {
            var replica = SyncReplica()
            try replica.syncToEnd(server, as: member)
            cursors.append(try SyncIdleMemoryTests.syncUntilAnsweredFromMemory(server, member, since: replica.since))
        }
        // Re-ask until every member holds the same (latest) cursor.
        for (index, member) in members.enumerated() where cursors[index] != cursors.last {
            cursors[index] = try SyncIdleMemoryTests.syncUntilAnsweredFromMemory(server, member, since: cursors[index])
        }
        var requests: [(SyncTestServer.Member, SyncLiveTests.Background<TestHTTPClient.Response>)] = []
        for (member, since) in zip(members, cursors) {
            for _ in 0..<perUser { requests.append((member, SyncLiveTests.Background { try server.sync(member, since: since, wait: 60) })) }
        }
        try waitUntil("every request is parked") { server.instances[0].sync.waiterCount == requests.count }
        return requests
    }

    @Test func aChangeEveryoneSeesIsReadOnceForAllRealtorsOnTheSameCursor() throws {
        let server = try SyncTestServer()
        let sync = server.instances[0].sync
        let members = try (0..<8).map { try server.member("r\($0)") }
        let requests = try Self.parkAll(server, members, perUser: 2)
        Thread.sleep(forTimeInterval: 0.5)
        let before = sync.waiterReads
        try server.execute("UPDATE users SET name = 'Renamed' WHERE id = \(members[0].id)")
        for (_, request) in requests {
            let users = try request.join().json?["users"] as? [[String: Any]] ?? []
            #expect(users.map { $0["name"] as? String } == ["Renamed"])
        }
        #expect(sync.waiterReads - before <= 2, "\(sync.waiterReads - before) page reads")
    }

    /// A write seen by several users wakes all their requests on one cursor with one shared
    /// read (SyncFeed.sharedPages), and each answer holds that user's row only. (On the
    /// per-question path this took 9 reads: checked.)
    @Test func aWriteSeenByManyUsersIsOneSharedRead() throws {
        let server = try SyncTestServer()
        let sync = server.instances[0].sync
        let members = try (0..<8).map { try server.member("r\($0)") }
        let requests = try Self.parkAll(server, members, perUser: 2)
        Thread.sleep(forTimeInterval: 0.5)
        let before = sync.waiterReads
        let mine = try RealtimeChangesTests.oneTaskEach(server, members)
        for (member, request) in requests {
            let response = try request.join()
            #expect(response.status == 200)
            #expect(SyncIdleMemoryTests.ids(response, "tasks") == [mine[member.id]!.uuidString.lowercased()])
        }
        #expect(sync.waiterReads - before <= 2, "\(sync.waiterReads - before) page reads")
    }

    @Test func aChangeEveryoneSeesTogetherWithAPrivateOneIsAnsweredPerUser() throws {
        let server = try SyncTestServer()
        let members = try (0..<6).map { try server.member("r\($0)") }
        let requests = try Self.parkAll(server, members, perUser: 2)
        let task = try server.pool.withTransaction { connection in
            try connection.execute("UPDATE users SET name = 'Renamed' WHERE id = \(members[0].id)")
            return try connection.query("INSERT INTO tasks (title, declared_by) VALUES ('mine', \(members[1].id)) RETURNING id::text AS id")[0]
                .decode("id", as: String.self)
        }
        for (member, request) in requests {
            let response = try request.join()
            let users = response.json?["users"] as? [[String: Any]] ?? []
            #expect(users.map { $0["name"] as? String } == ["Renamed"])
            #expect(SyncIdleMemoryTests.ids(response, "tasks") == (member.id == members[1].id ? [task] : []))
        }
    }
}
