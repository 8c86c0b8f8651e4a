import Foundation
import Postgres
import Synchronization
import Testing

/// Copies of one queue pushed at the same time (a phone that timed out resends while the first
/// attempt still runs): every copy applies the queue in order, each mutation exactly once, and
/// gets the same results; nothing is rejected because an earlier mutation was still in flight.
@Suite struct SyncPushConcurrencyTests {
    /// Create, claim, edit, release, add a note, edit, claim, release — one task's life.
    static func lifeOfATask(_ task: String, note: String) -> [[String: Any]] {
        func mutation(_ op: String, _ type: String = "task", id: String? = nil, record: [String: Any]? = nil) -> [String: Any] {
            var entry: [String: Any] = ["mutation_id": UUID().uuidString, "op": op, "type": type, "id": id ?? task]
            if let record { entry["record"] = record }
            return entry
        }
        return [
            mutation("upsert", record: ["title": "first"]), mutation("claim"),
            mutation("upsert", record: ["title": "second"]), mutation("release"),
            mutation("upsert", "note", id: note, record: ["parent_type": "task", "parent_id": task, "content": "hi"]),
            mutation("upsert", record: ["title": "third"]), mutation("claim"), mutation("release"),
        ]
    }

    /// What the database holds about a task after a queue: its fields, how many claim events
    /// and status changes it has, and its notes.
    static func state(of task: String, in fixture: SyncPushTests.Fixture) throws -> [String] {
        let rows = try fixture.app.database.pool.query("""
            SELECT t.title, t.version, t.claimed_by IS NULL AS free,
                   (SELECT count(*) FROM claim_events c WHERE c.entity_id = t.id) AS claims,
                   (SELECT count(*) FROM status_changes s WHERE s.entity_id = t.id) AS statuses,
                   (SELECT count(*) FROM notes n WHERE n.parent_id = t.id) AS notes
            FROM tasks t WHERE t.id = \(task)::uuid
            """)
        guard let row = rows.first else { return ["missing"] }
        return [try row.decode("title", as: String.self), "v\(try row.decode("version", as: Int.self))",
                "free=\(try row.decode("free", as: Bool.self))", "claims=\(try row.decode("claims", as: Int.self))",
                "statuses=\(try row.decode("statuses", as: Int.self))", "notes=\(try row.decode("notes", as: Int.self))"]
    }

    @Test func twelveConcurrentCopiesOfOneQueueApplyItOnceInOrderWithIdenticalResults() throws {
        let fixture = try SyncPushTests.Fixture(workerCount: 12)
        // The reference: the same kind of queue, pushed once on its own.
        let reference = UUID().uuidString.lowercased()
        let once = try fixture.push(Self.lifeOfATask(reference, note: UUID().uuidString.lowercased()))
        #expect(once.results.map { $0["status"] as? String } == Array(repeating: "applied", count: 8))

        let task = UUID().uuidString.lowercased()
        let push = try RawPush(fixture, Self.lifeOfATask(task, note: UUID().uuidString.lowercased()))
        let bodies = Mutex<[[UInt8]]>([])
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<12 {
            group.enter()
            Thread {
                start.wait()
                let body = (try? push.send()) ?? []
                bodies.withLock { $0.append(body) }
                group.leave()
            }.start()
        }
        for _ in 0..<12 { start.signal() }
        group.wait()

        let answers = bodies.withLock { $0 }
        let first = try #require(answers.first)
        let results = (try JSONSerialization.jsonObject(with: Data(first)) as? [String: Any])?["results"] as? [[String: Any]]
        #expect(results?.map { $0["status"] as? String } == Array(repeating: "applied", count: 8),
                "\(String(decoding: first, as: UTF8.self))")
        for answer in answers {
            #expect(answer == first, "copies disagree: \(String(decoding: answer, as: UTF8.self))")
        }
        #expect(try Self.state(of: task, in: fixture) == Self.state(of: reference, in: fixture))
        #expect(try Self.state(of: task, in: fixture) == ["third", "v7", "free=true", "claims=4", "statuses=1", "notes=1"])
    }

    /// The first attempt of a 100 × (create, claim) queue is held on a row lock (a listing its
    /// creates refer to, locked from another connection) when the retry arrives. The retry must
    /// wait for the first attempt's in-flight create, not claim a task that does not exist yet.
    @Test func aRetryWhileTheFirstAttemptIsHeldOnALockClaimsEveryTask() throws {
        let fixture = try SyncPushTests.Fixture(workerCount: 4)
        let listing = UUID().uuidString.lowercased()
        let created = try fixture.app.request("PUT", "/v1/listings/\(listing)", token: fixture.realtor,
                                              json: ["address": "1 Lock Lane", "city": "Halifax"])
        #expect(created.status == 201)
        let tasks = (0..<100).map { _ in UUID().uuidString.lowercased() }
        var queue: [[String: Any]] = []
        for (index, task) in tasks.enumerated() {
            // From the 25th task on, creating one needs the listing's key-share lock.
            var record: [String: Any] = ["title": "Task \(index)"]
            if index >= 24 { record["listing_id"] = listing }
            queue.append(["mutation_id": UUID().uuidString, "op": "upsert", "type": "task", "id": task, "record": record])
            queue.append(["mutation_id": UUID().uuidString, "op": "claim", "type": "task", "id": task])
        }

        let push = try RawPush(fixture, queue)
        let locker = try fixture.app.database.connect()
        defer { locker.close() }
        try locker.execute("BEGIN")
        try locker.execute("SELECT 1 FROM listings WHERE id = \(listing)::uuid FOR UPDATE")
        let answers = Mutex<[Int: [UInt8]]>([:])
        let group = DispatchGroup()
        func attempt(_ number: Int) {
            group.enter()
            Thread {
                let body = (try? push.send()) ?? []
                answers.withLock { $0[number] = body }
                group.leave()
            }.start()
        }
        attempt(1)
        #expect(try Self.waitForLockWaiters(1, fixture), "the first attempt never waited on the listing")
        attempt(2)
        // The retry replays the recorded results, then waits for the first attempt's create.
        #expect(try Self.waitForLockWaiters(2, fixture), "the retry did not wait for the in-flight mutation")
        try locker.execute("COMMIT")
        group.wait()

        let bodies = answers.withLock { $0 }
        let first = try #require(bodies[1]), second = try #require(bodies[2])
        #expect(first == second, "\(String(decoding: second, as: UTF8.self).prefix(2000))")
        let results = (try JSONSerialization.jsonObject(with: Data(second)) as? [String: Any])?["results"] as? [[String: Any]] ?? []
        let notApplied = results.filter { $0["status"] as? String != "applied" }
        #expect(results.count == 200 && notApplied.isEmpty, "\(notApplied.prefix(3))")
        let claimed = try fixture.app.database.pool.query("""
            SELECT count(*) AS n FROM tasks WHERE claimed_by = \(fixture.realtorID)::uuid AND id::text = ANY(\(tasks))
            """).first?.decode("n", as: Int.self)
        #expect(claimed == 100)
        let events = try fixture.app.database.pool.query("""
            SELECT count(*) AS n FROM claim_events WHERE entity_id::text = ANY(\(tasks))
            """).first?.decode("n", as: Int.self)
        #expect(events == 100)
    }

    /// A mutation that waits longer than the lock timeout (15 s) fails the whole push with 503 +
    /// Retry-After and records nothing for it, so the retry applies it instead of replaying a
    /// rejection; the mutations before it keep their results.
    @Test func aLockWaitPastTheTimeoutIs503AndRecordsNoResult() throws {
        let fixture = try SyncPushTests.Fixture()
        let listing = UUID().uuidString.lowercased()
        #expect(try fixture.app.request("PUT", "/v1/listings/\(listing)", token: fixture.realtor,
                                        json: ["address": "2 Wait Way", "city": "Halifax"]).status == 201)
        let free = UUID().uuidString.lowercased(), held = UUID().uuidString.lowercased()
        let queue: [[String: Any]] = [
            ["mutation_id": UUID().uuidString, "op": "upsert", "type": "task", "id": free, "record": ["title": "free"]],
            ["mutation_id": UUID().uuidString, "op": "upsert", "type": "task", "id": held,
             "record": ["title": "held", "listing_id": listing]],
        ]
        let locker = try fixture.app.database.connect()
        defer { locker.close() }
        try locker.execute("BEGIN")
        try locker.execute("SELECT 1 FROM listings WHERE id = \(listing)::uuid FOR UPDATE")
        var client = fixture.app.client
        client.timeoutSeconds = 60
        let body = Array(try JSONSerialization.data(withJSONObject: ["mutations": queue]))
        let timedOut = try client.perform(method: "POST", path: "/v1/sync/push", headers: [
            "Authorization": "Bearer \(fixture.realtor)", "Content-Type": "application/json"], body: body)
        try locker.execute("ROLLBACK")
        #expect(timedOut.status == 503)
        #expect(timedOut.header("Retry-After") != nil)
        #expect(timedOut.json?["code"] as? String == "database_timeout")
        let recorded = try fixture.app.database.pool.query("SELECT count(*) AS n FROM sync_mutations").first?.decode("n", as: Int.self)
        #expect(recorded == 1)

        let retried = try fixture.push(queue)
        #expect(retried.status == 200)
        #expect(retried.results.map { $0["status"] as? String } == ["applied", "applied"])
        #expect(try fixture.app.database.pool.query("SELECT version FROM tasks WHERE id = \(free)::uuid")
            .first?.decode("version", as: Int.self) == 1)
    }

    /// Waits (up to 10 s) until `count` server backends wait on a lock; false if they never do
    /// (without the fix the retry never waits: the test then goes on and fails, not hangs).
    static func waitForLockWaiters(_ count: Int, _ fixture: SyncPushTests.Fixture) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let waiting = try fixture.app.database.pool.query("""
                SELECT count(*) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                """).first?.decode("n", as: Int.self) ?? 0
            if waiting >= count { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// One push body and its caller, encoded up front so that threads share only values.
    struct RawPush: Sendable {
        let client: TestHTTPClient
        let token: String
        let body: [UInt8]

        init(_ fixture: SyncPushTests.Fixture, _ mutations: [[String: Any]]) throws {
            var client = fixture.app.client
            client.timeoutSeconds = 60
            self.client = client
            token = fixture.realtor
            body = Array(try JSONSerialization.data(withJSONObject: ["mutations": mutations]))
        }

        func send() throws -> [UInt8] {
            try client.perform(method: "POST", path: "/v1/sync/push",
                               headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: body).body
        }
    }
}
