import Foundation
import Postgres
import Store
import Synchronization
import Testing
import TestSupport

/// contract §6 exactly-once under crashes: a real `dispatchd serve` process is killed (-9) in the
/// middle of a 300-mutation push, a fresh one is started on the same database, someone edits
/// a finished row through /v1, and the same push is replayed. Every mutation must have been
/// applied exactly once (the rows, their versions, claim events and status changes equal a push
/// that was never interrupted) and the replay must not overwrite the edit made in between.
@Suite struct SyncPushCrashTests {
    static let rounds = 20
    static let tasksPerQueue = 12
    static let mutationsPerTask = 25

    /// One task's 25 mutations: create, then claim / edit / release cycles, a last edit, and a
    /// release (odd tasks) or a delete (even tasks). Every one changes the row exactly once.
    static func queue(tasks: [String]) -> [[String: Any]] {
        var mutations: [[String: Any]] = []
        func add(_ op: String, _ task: String, title: String? = nil) {
            var entry: [String: Any] = ["mutation_id": UUID().uuidString, "op": op, "type": "task", "id": task]
            if let title { entry["record"] = ["title": title] }
            mutations.append(entry)
        }
        for (index, task) in tasks.enumerated() {
            add("upsert", task, title: "created")
            for step in 0..<22 {
                switch step % 3 {
                case 0: add("claim", task)
                case 1: add("upsert", task, title: "edit \(step)")
                default: add("release", task)
                }
            }
            add("upsert", task, title: "final")
            add(index.isMultiple(of: 2) ? "delete" : "release", task)
        }
        return mutations
    }

    /// Everything a repeated mutation would change.
    struct TaskState: Equatable {
        var title: String
        var version: Int
        var status: String
        var claimed: Bool
        var claimEvents: Int
        var statusChanges: Int
        var taskDescription: String?
    }

    static func state(_ tasks: [String], _ pool: PostgresPool) throws -> [TaskState?] {
        try tasks.map { task in
            let rows = try pool.query("""
                SELECT t.title, t.version, t.status, t.claimed_by IS NOT NULL AS claimed, t.description,
                       (SELECT count(*) FROM claim_events c WHERE c.entity_id = t.id) AS claims,
                       (SELECT count(*) FROM status_changes s WHERE s.entity_id = t.id) AS statuses
                FROM tasks t WHERE t.id = \(task)::uuid
                """)
            guard let row = rows.first else { return nil }
            return TaskState(title: try row.decode("title"), version: try row.decode("version"), status: try row.decode("status"),
                             claimed: try row.decode("claimed"), claimEvents: try row.decode("claims"),
                             statusChanges: try row.decode("statuses"), taskDescription: try row.decode("description"))
        }
    }

    @Test func killedMidPushThenReplayedAppliesEveryMutationExactlyOnce() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let environment = ["DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "c", count: 40), "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789",
                           "HOST": "127.0.0.1", "PORT": "0", "ACCESS_TOKEN_TTL": "86400", "LOG_LEVEL": "critical"]
        var server = try ServedDispatchd(environment: environment)
        defer { _ = try? server.stop() }
        let email = "crash-\(UUID().uuidString.prefix(8))@example.com".lowercased()
        let user = try UserStore(pool: database.pool).create(
            email: email, name: "Crash", userType: .realtor, passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
        let token = try Self.login(email, port: server.port)

        // The reference: one queue pushed without interruption.
        let reference = (0..<Self.tasksPerQueue).map { _ in UUID().uuidString.lowercased() }
        let referenceResults = try Self.push(Self.queue(tasks: reference), token: token, port: server.port)
        #expect(referenceResults.filter { $0 != "applied" }.isEmpty)
        let expected = try Self.state(reference, database.pool)
        // 1 create + 24 changes; claims 8 and releases 7 (+1 for odd tasks); a delete for even ones.
        #expect(expected[0] == TaskState(title: "final", version: 25, status: "deleted", claimed: true, claimEvents: 15,
                                         statusChanges: 2, taskDescription: nil))
        #expect(expected[1] == TaskState(title: "final", version: 25, status: "open", claimed: false, claimEvents: 16,
                                         statusChanges: 1, taskDescription: nil))

        var interrupted = 0, edits = 0
        for round in 0..<Self.rounds {
            let tasks = (0..<Self.tasksPerQueue).map { _ in UUID().uuidString.lowercased() }
            let queue = Self.queue(tasks: tasks)
            let body = Array(try JSONSerialization.data(withJSONObject: ["mutations": queue]))
            let recordedBefore = try Self.recorded(user.id, database.pool)
            // Kill once a random number of this queue's mutations has committed.
            let target = Int.random(in: 1..<queue.count)
            let pushing = DispatchGroup()
            pushing.enter()
            let port = server.port
            Thread {
                _ = try? TestHTTPClient(port: port, timeoutSeconds: 60).perform(
                    method: "POST", path: "/v1/sync/push",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: body)
                pushing.leave()
            }.start()
            let deadline = Date().addingTimeInterval(30)
            while try Self.recorded(user.id, database.pool) - recordedBefore < target, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.002)
            }
            server.kill()
            pushing.wait()
            let committed = try Self.recorded(user.id, database.pool) - recordedBefore
            if committed < queue.count { interrupted += 1 }
            server = try ServedDispatchd(environment: environment)

            // An edit made between the crash and the replay, on every live task whose
            // mutations had all committed: the replay must not overwrite it.
            let finished = committed / Self.mutationsPerTask
            var edited: Set<Int> = []
            for index in 0..<finished where !index.isMultiple(of: 2) {
                let response = try TestHTTPClient(port: server.port).perform(
                    method: "PATCH", path: "/v1/tasks/\(tasks[index])",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: Array(#"{"description":"edited after the crash"}"#.utf8))
                #expect(response.status == 200, "round \(round): \(String(decoding: response.body, as: UTF8.self))")
                edited.insert(index)
            }
            edits += edited.count

            let results = try Self.push(queue, token: token, port: server.port)
            #expect(results.count == queue.count && results.allSatisfy { $0 == "applied" },
                    "round \(round), killed after \(committed): \(Set(results))")
            let state = try Self.state(tasks, database.pool)
            for index in tasks.indices {
                var want = expected[index]
                if edited.contains(index) {
                    want?.version += 1
                    want?.taskDescription = "edited after the crash"
                }
                #expect(state[index] == want, "round \(round), killed after \(committed), task \(index)")
            }
        }
        // The kills must land mid-push, or the test proves nothing.
        #expect(interrupted >= Self.rounds * 3 / 4, "only \(interrupted) of \(Self.rounds) pushes were interrupted")
        #expect(edits > 0, "no round finished a task before the kill, so no edit was checked")
    }

    /// Committed results of this user's mutations.
    static func recorded(_ user: UUID, _ pool: PostgresPool) throws -> Int {
        try pool.query("SELECT count(*) AS n FROM sync_mutations WHERE user_id = \(user)").first?.decode("n", as: Int.self) ?? 0
    }

    static func login(_ email: String, port: Int) throws -> String {
        let body = Array(try JSONSerialization.data(withJSONObject: ["email": email, "password": AuthTestServer.password]))
        let response = try TestHTTPClient(port: port).perform(method: "POST", path: "/v1/auth/login",
                                                              headers: ["Content-Type": "application/json"], body: body)
        guard let token = response.json?["access_token"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return token
    }

    /// The statuses of a push's results.
    static func push(_ queue: [[String: Any]], token: String, port: Int) throws -> [String] {
        let body = Array(try JSONSerialization.data(withJSONObject: ["mutations": queue]))
        let response = try TestHTTPClient(port: port, timeoutSeconds: 60).perform(
            method: "POST", path: "/v1/sync/push",
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: body)
        let results = response.json?["results"] as? [[String: Any]] ?? []
        guard response.status == 200 else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return results.map { $0["status"] as? String ?? "?" }
    }
}
