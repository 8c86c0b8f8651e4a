import Foundation
import Postgres
import Testing

/// Idle incremental syncs answered from memory (ChangeHistory): each test first makes sure
/// the memory path is answering, then does the thing that must force a fresh answer, and
/// checks the very next sync carries it.
@Suite struct SyncIdleMemoryTests {
    /// Syncs `since` on `instance` until the answer comes from memory (the change stream has
    /// caught up); returns that answer's cursor.
    static func syncUntilAnsweredFromMemory(_ server: SyncTestServer, _ member: SyncTestServer.Member, since: String?,
                                            instance: Int = 0) throws -> String {
        let sync = server.instances[instance].sync
        let deadline = Date().addingTimeInterval(15)
        var since = since
        while Date() < deadline {
            let before = sync.idleAnswersFromMemory
            let response = try server.sync(member, since: since, instance: instance)
            #expect(response.status == 200)
            let json = try #require(response.json)
            since = json["next_since"] as? String
            if sync.idleAnswersFromMemory > before {
                for table in SyncReplica.tables { #expect((json[table] as? [Any])?.isEmpty == true, "\(table)") }
                return try #require(since)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw WaitError.timedOut("an idle sync answered from memory")
    }

    static func ids(_ response: TestHTTPClient.Response, _ table: String) -> [String] {
        (response.json?[table] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test func writeCommittedOnAnotherInstanceIsInTheNextSyncEvenRightAfterMemoryAnswers() throws {
        let server = try SyncTestServer(instances: 2)
        let rita = try server.member("rita"), otto = try server.member("otto")
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        var since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        for round in 0..<10 {
            // Otto's task is not rita's business: memory keeps answering her.
            _ = try server.task(by: otto)
            since = try Self.syncUntilAnsweredFromMemory(server, rita, since: since)
            // A write through instance 1, acknowledged, then at once a sync on instance 0.
            let body = Array(try JSONSerialization.data(withJSONObject: ["name": "Rita \(round)"]))
            let patch = try server.instances[1].client.perform(
                method: "PATCH", path: "/v1/me",
                headers: ["Authorization": "Bearer \(rita.token)", "Content-Type": "application/json"], body: body)
            #expect(patch.status == 200)
            let response = try server.sync(rita, since: since, instance: 0)
            let users = response.json?["users"] as? [[String: Any]] ?? []
            #expect(users.contains { $0["id"] as? String == rita.key && $0["name"] as? String == "Rita \(round)" }, "round \(round)")
            since = try #require(response.json?["next_since"] as? String)
        }
    }

    @Test func clientsOwnWriteAnsweredAMomentEarlierIsInItsNextSync() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        var since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        for round in 0..<10 {
            let body = Array(try JSONSerialization.data(withJSONObject: ["name": "Rita \(round)"]))
            let patch = try server.client.perform(
                method: "PATCH", path: "/v1/me",
                headers: ["Authorization": "Bearer \(rita.token)", "Content-Type": "application/json"], body: body)
            #expect(patch.status == 200)
            let response = try server.sync(rita, since: since)
            let users = response.json?["users"] as? [[String: Any]] ?? []
            #expect(users.contains { $0["name"] as? String == "Rita \(round)" }, "round \(round)")
            since = try Self.syncUntilAnsweredFromMemory(server, rita, since: try #require(response.json?["next_since"] as? String))
        }
    }

    @Test func transactionThatStartedBeforeTheCursorAndCommitsAfterItIsNotMissed() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        var replica = SyncReplica(), ottoReplica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        try ottoReplica.syncToEnd(server, as: otto)
        // A transaction writes rita's task (so it holds an xid) and stays open.
        let writer = try server.database.connect()
        defer { writer.close() }
        try writer.execute("BEGIN")
        let task = try writer.query("INSERT INTO tasks (title, declared_by) VALUES ('late', \(rita.id)) RETURNING id::text AS id")[0]
            .decode("id", as: String.self)
        // Later transactions commit meanwhile; rita's cursor lists the open one as running,
        // and memory answers her.
        _ = try server.task(by: otto)
        let since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        try writer.execute("COMMIT")
        // Wait until the change stream has read past the commit (memory answers otto again),
        // so that rita's next answer cannot rely on the commit's notification alone.
        var ottoSince = try #require(ottoReplica.since)
        ottoSince = try #require(try ottoReplica.apply(try server.sync(otto, since: ottoSince))["next_since"] as? String)
        _ = try Self.syncUntilAnsweredFromMemory(server, otto, since: ottoSince)
        let response = try server.sync(rita, since: since)
        #expect(Self.ids(response, "tasks") == [task])
    }

    @Test func listenConnectionDroppedFallsBackToTheDatabaseUntilCaughtUp() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let sync = server.instances[0].sync
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        var since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        for round in 0..<3 {
            let pid = try #require(sync.listenerBackendPID)
            try server.execute("SELECT pg_terminate_backend(\(Int(pid))::int)")
            // Written while the listener is gone: its notification is lost.
            let task = try server.task(by: rita)
            let response = try server.sync(rita, since: since)
            #expect(Self.ids(response, "tasks") == [task.uuidString.lowercased()], "round \(round)")
            since = try #require(response.json?["next_since"] as? String)
            // Once reconnected and caught up, memory answers again (on a new connection).
            since = try Self.syncUntilAnsweredFromMemory(server, rita, since: since)
            #expect(sync.listenerBackendPID != pid)
        }
    }

    @Test func writeCommittedWhileTheListenerReconnectsIsNotMissedBeforeTheCatchUpRead() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let sync = server.instances[0].sync
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        // Every feed read waits behind this lock: the fanout's catch-up read after the
        // reconnect, and any database answer.
        let locker = try server.database.connect()
        defer { locker.close() }
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE sync_horizon IN ACCESS EXCLUSIVE MODE")
        let writer = try server.database.connect()
        defer { writer.close() }
        try writer.execute("BEGIN")
        let task = try writer.query("INSERT INTO tasks (title, declared_by) VALUES ('lost', \(rita.id)) RETURNING id::text AS id")[0]
            .decode("id", as: String.self)
        let pid = try #require(sync.listenerBackendPID)
        try server.execute("SELECT pg_terminate_backend(\(Int(pid))::int)")
        try writer.execute("COMMIT")  // its notification is (most likely) lost
        try waitUntil("the listener reconnected") { sync.listenerBackendPID.map { $0 != pid } ?? false }
        let request = SyncLiveTests.Background { try server.sync(rita, since: since) }
        Thread.sleep(forTimeInterval: 0.3)
        try locker.execute("COMMIT")
        #expect(Self.ids(try request.join(), "tasks") == [task])
    }

    @Test func revocationIsInTheNextSync() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto, staff: rita)
        let task = try server.task(by: otto, on: listing)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        #expect(replica.ids("tasks") == [task.uuidString.lowercased()])
        let since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(listing)")
        let response = try server.sync(rita, since: since)
        let removed = (response.json?["removed"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(Set(removed) == [listing.uuidString.lowercased(), task.uuidString.lowercased()])
    }

    @Test func callerDeactivatedElsewhereIsRefusedAtOnce() throws {
        let server = try SyncTestServer(instances: 2)
        let rita = try server.member("rita"), otto = try server.member("otto")
        var replica = SyncReplica(), ottoReplica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        try ottoReplica.syncToEnd(server, as: otto)
        let since = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        // Only the row changes (no session is revoked): the remembered row must not be used.
        try server.instances[1].pool.execute("UPDATE users SET deactivated_at = now() WHERE id = \(rita.id)")
        // Once the change stream has read past it (memory answers otto again), rita's own
        // answer cannot lean on the notification alone.
        let ottoSince = try #require(try ottoReplica.apply(try server.sync(otto, since: ottoReplica.since))["next_since"] as? String)
        let latest = try Self.syncUntilAnsweredFromMemory(server, otto, since: ottoSince)
        #expect(try server.sync(rita, since: since).status == 401)
        // Even with a cursor from after the deactivation (whose delta holds nothing for her).
        #expect(try server.sync(rita, since: latest).status == 401)
    }

    @Test func adminsAndCursorsFromTheFutureAreLeftToTheDatabase() throws {
        let server = try SyncTestServer()
        let ada = try server.member("ada", admin: true), rita = try server.member("rita")
        var adminReplica = SyncReplica(), replica = SyncReplica()
        try adminReplica.syncToEnd(server, as: ada)
        try replica.syncToEnd(server, as: rita)
        _ = try Self.syncUntilAnsweredFromMemory(server, rita, since: replica.since)
        let sync = server.instances[0].sync
        let before = sync.idleAnswersFromMemory
        #expect(try server.sync(ada, since: adminReplica.since).status == 200)
        // A well-formed cursor whose snapshot lies in the future: 400 invalid_cursor, as before.
        let future = #"{"hz":"0","s":"9000000000:9000000000:","v":1}"#
        let encoded = Data(future.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let response = try server.sync(rita, since: encoded)
        #expect(response.status == 400)
        #expect(response.json?["code"] as? String == "invalid_cursor")
        #expect(sync.idleAnswersFromMemory == before)
    }
}
