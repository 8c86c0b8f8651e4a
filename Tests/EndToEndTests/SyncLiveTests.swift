import Foundation
import Testing

/// Long-polling (`wait=N`): wake-up on a visible commit, deadline answers, other instances'
/// writes, many parked requests on few workers.
@Suite struct SyncLiveTests {
    /// Runs `body` on its own thread; `join` returns its result.
    final class Background<Value>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<Value, any Error>?

        init(_ body: @escaping @Sendable () throws -> Value) {
            Thread.detachNewThread { [self] in
                result = Result { try body() }
                done.signal()
            }
        }

        func join() throws -> Value {
            guard done.wait(timeout: .now() + 90) == .success, let result else { throw WaitError.timedOut("background request") }
            return try result.get()
        }
    }

    @Test func parkedRequestAnswersWithTheRowOnceAVisibleChangeCommits() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let since = replica.since
        let request = Background { try server.sync(rita, since: since, wait: 60) }
        try waitUntil("the request is parked") { server.instances[0].sync.waiterCount == 1 }
        let metrics = String(decoding: try server.client.get("/metrics").body, as: UTF8.self)
        #expect(MetricsTests.sampleValue(metrics, "sync_waiters") == 1)

        let task = try server.task(by: rita)
        let response = try request.join()
        #expect(response.status == 200)
        let tasks = response.json?["tasks"] as? [[String: Any]]
        #expect(tasks?.map { $0["id"] as? String } == [task.lowercased])
        #expect(server.instances[0].sync.waiterCount == 0)
    }

    @Test func parkedRequestWithNothingVisibleAnswersAnEmptyPageAtTheDeadline() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let since = replica.since
        let request = Background { try server.sync(rita, since: since, wait: 2) }
        try waitUntil("the request is parked") { server.instances[0].sync.waiterCount == 1 }
        _ = try server.task(by: otto) // invisible to rita: wakes the check, not the answer

        let response = try request.join()
        #expect(response.status == 200)
        let json = try #require(response.json)
        for table in SyncReplica.tables where table != "users" { #expect((json[table] as? [Any])?.isEmpty == true, "\(table)") }
        #expect((json["removed"] as? [Any])?.isEmpty == true)
        let next = try #require(json["next_since"] as? String)
        #expect(try server.sync(rita, since: next).status == 200)
    }

    @Test func requestWithWaitReturnsAtOnceWhenThereIsAlreadySomething() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let response = try server.sync(rita, wait: 60)
        #expect(response.status == 200)
        #expect((response.json?["users"] as? [Any])?.count == 1)
    }

    @Test func writeThroughAnotherInstanceWakesARequestParkedOnThisOne() throws {
        let server = try SyncTestServer(instances: 2)
        let rita = try server.member("rita"), ada = try server.member("ada", admin: true)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let since = replica.since
        let request = Background { try server.sync(rita, since: since, wait: 60, instance: 0) }
        try waitUntil("the request is parked on instance 0") { server.instances[0].sync.waiterCount == 1 }

        let body = Array(try JSONSerialization.data(withJSONObject: ["name": "Ada Renamed"]))
        let patch = try server.instances[1].client.perform(
            method: "PATCH", path: "/v1/me",
            headers: ["Authorization": "Bearer \(ada.token)", "Content-Type": "application/json"], body: body)
        #expect(patch.status == 200)

        let response = try request.join()
        #expect(response.status == 200)
        let users = response.json?["users"] as? [[String: Any]]
        #expect(users?.contains { $0["id"] as? String == ada.key && $0["name"] as? String == "Ada Renamed" } == true)
    }

    @Test func commitVisibleToOneUserRereadsOnlyThatUsersParkedRequest() throws {
        let server = try SyncTestServer()
        let sync = server.instances[0].sync
        let rita = try server.member("rita"), otto = try server.member("otto"), sam = try server.member("sam")
        var ritaReplica = SyncReplica(), ottoReplica = SyncReplica()
        try ritaReplica.syncToEnd(server, as: rita)
        try ottoReplica.syncToEnd(server, as: otto)
        let (ritaSince, ottoSince) = (ritaReplica.since, ottoReplica.since)
        let ritaRequest = Background { try server.sync(rita, since: ritaSince, wait: 60) }
        let ottoRequest = Background { try server.sync(otto, since: ottoSince, wait: 60) }
        try waitUntil("both requests are parked") { sync.waiterCount == 2 }

        // A request parked before the change stream caught up is re-read once; let that pass.
        var settled = sync.waiterReads
        try waitUntil("no more page reads") {
            Thread.sleep(forTimeInterval: 1)
            defer { settled = sync.waiterReads }
            return sync.waiterReads == settled
        }
        let before = sync.waiterReads
        _ = try server.task(by: sam)  // nobody's business: no page is read
        Thread.sleep(forTimeInterval: 0.5)
        #expect(sync.waiterReads == before)

        let task = try server.task(by: otto)
        let answer = try ottoRequest.join()
        #expect((answer.json?["tasks"] as? [[String: Any]])?.map { $0["id"] as? String } == [task.lowercased])
        #expect(sync.waiterReads == before + 1)
        #expect(sync.waiterCount == 1)

        _ = try server.task(by: rita)
        #expect((try ritaRequest.join().json?["tasks"] as? [Any])?.count == 1)
    }

    @Test func manyParkedRequestsOnFourWorkersAllAnswerAfterOneCommit() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        var ritaReplica = SyncReplica(), ottoReplica = SyncReplica()
        try ritaReplica.syncToEnd(server, as: rita)
        try ottoReplica.syncToEnd(server, as: otto)
        let count = 60
        let requests = (0..<count).map { index in
            let (member, since) = index.isMultiple(of: 2) ? (rita, ritaReplica.since) : (otto, ottoReplica.since)
            return Background { try server.sync(member, since: since, wait: 60) }
        }
        // More parked requests than workers (4) and database connections (8).
        try waitUntil("every request is parked") { server.instances[0].sync.waiterCount == count }
        #expect(try server.client.get("/healthz").status == 200)

        // A user row change is visible to every signed-in user.
        try server.execute("UPDATE users SET name = 'Rita R.' WHERE id = \(rita.id)")
        for request in requests {
            let response = try request.join()
            #expect(response.status == 200)
            #expect((response.json?["users"] as? [Any])?.count == 1)
        }
    }
}

/// Lifecycle of parked requests and of the history pruning.
@Suite struct SyncLifecycleTests {
    @Test func clientThatDisconnectsWhileParkedIsForgotten() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #expect(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.instances[0].server.boundPort).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = "GET /v1/sync?wait=60&since=\(replica.since ?? "") HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(rita.token)\r\n\r\n"
        let bytes = Array(request.utf8)
        #expect(bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count)
        try waitUntil("the request is parked") { server.instances[0].sync.waiterCount == 1 }
        close(descriptor)
        try waitUntil("the parked request is dropped") { server.instances[0].sync.waiterCount == 0 }
    }

    @Test func startedServicePrunesHistoryOlderThanTheRetention() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        try server.execute("""
            INSERT INTO sync_access_changes (user_id, entity_type, entity_id, granted, created_at)
            VALUES (\(rita.id), 'task', gen_random_uuid(), false, now() - interval '40 days'),
                   (\(rita.id), 'task', gen_random_uuid(), false, now())
            """)
        server.instances[0].sync.start()
        try waitUntil("the old record is pruned") {
            try server.pool.query("SELECT count(*) AS n FROM sync_access_changes")[0].decode("n", as: Int.self) == 1
        }
        let horizon = try server.pool.query("SELECT horizon::text AS h FROM sync_horizon")[0].decode("h", as: String.self)
        #expect(horizon != "0")
    }
}
