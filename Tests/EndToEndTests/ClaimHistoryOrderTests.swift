import Foundation
import Postgres
import Synchronization
import Testing

/// History rows are listed in commit order (migration 0010): a release is never listed before
/// the claim it ends. Before, rows were stamped with their transaction's start time (`now()`),
/// so a release whose transaction began before the claim's, then waited for its lock, came first.
@Suite struct ClaimHistoryOrderTests {
    /// The interleaving itself, made deterministic: transaction A starts, B writes the first
    /// event and commits, then A writes the second one and commits. A's row must come second.
    @Test(arguments: ["claim_events", "status_changes"])
    func rowOfTheLaterCommitIsListedLaterEvenIfItsTransactionStartedFirst(_ table: String) throws {
        let world = try ResourceWorld(extraRoles: [.claimer])
        let task = UUID()
        let pool = world.app.database.pool
        let admin = world.id(.admin), claimer = world.id(.claimer)
        try pool.execute("INSERT INTO tasks (id, title, declared_by) VALUES (\(task), 'Race', \(admin)::uuid)")
        func insert(_ first: Bool, on connection: PostgresConnection) throws {
            if table == "claim_events" {
                try connection.execute("""
                    INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id)
                    VALUES ('task', \(task), \(claimer)::uuid, \(first ? "claimed" : "released"), \(claimer)::uuid)
                    """)
            } else {
                try connection.execute("""
                    INSERT INTO status_changes (entity_type, entity_id, old_status, new_status, changed_by)
                    VALUES ('task', \(task), \(first ? "open" : "in_progress"), \(first ? "in_progress" : "completed"), \(admin)::uuid)
                    """)
            }
        }
        try pool.withTransaction { late in
            _ = try late.query("SELECT now()")  // fixes this transaction's start time
            Thread.sleep(forTimeInterval: 0.02)
            try pool.withConnection { early in try insert(true, on: early) }
            try insert(false, on: late)
        }
        let path = table == "claim_events" ? "claim-events" : "status-changes"
        let items = try #require(try world.request("GET", "/v1/tasks/\(task)/\(path)", as: .admin).json?["items"] as? [[String: Any]])
        if table == "claim_events" {
            #expect(items.compactMap { $0["action"] as? String } == ["claimed", "released"])
        } else {
            #expect(items.compactMap { $0["new_status"] as? String } == ["in_progress", "completed"])
        }
    }

    /// Claimers that release what they win and admins that release whatever is held, all at
    /// once on one task: the listed history alternates claimed/released, and each release
    /// names the user of the claim before it.
    @Test func claimStormHistoryAlternatesAndEachReleaseEndsThePrecedingClaim() throws {
        let world = try ResourceWorld(extraRoles: [])
        var users: [(id: String, token: String)] = []
        for index in 0..<8 {
            let user = try world.app.auth.users.create(email: "storm\(index)@example.com", name: "Storm \(index)",
                                                       userType: .admin, passwordHash: "unused")
            users.append((user.id.uuidString.lowercased(), try world.signedToken(for: user.id)))
        }
        let task = UUID().uuidString.lowercased()
        try world.app.database.pool.execute("""
            INSERT INTO tasks (id, title, declared_by) VALUES (\(task)::uuid, 'Storm', \(world.id(.admin))::uuid)
            """)
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for (index, user) in users.enumerated() {
            group.enter()
            let client = world.app.client
            let thread = Thread {
                start.wait()
                let headers = ["Authorization": "Bearer \(user.token)"]
                for _ in 0..<30 {
                    // Even threads claim and release their own claim; odd threads only release.
                    if index % 2 == 0 {
                        let claim = try? client.perform(method: "POST", path: "/v1/tasks/\(task)/claim", headers: headers)
                        guard claim?.status == 200 || claim?.status == 409 else {
                            failures.withLock { $0.append("claim \(claim?.status ?? -1)") }
                            continue
                        }
                        if claim?.json?["claimed_by"] as? String != user.id { continue }
                    }
                    let release = try? client.perform(method: "DELETE", path: "/v1/tasks/\(task)/claim", headers: headers)
                    if release?.status != 200 { failures.withLock { $0.append("release \(release?.status ?? -1)") } }
                }
                group.leave()
            }
            thread.start()
        }
        for _ in users { start.signal() }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")

        var events: [[String: Any]] = []
        var cursor: String?
        repeat {
            let query = cursor.map { "&cursor=\($0)" } ?? ""
            let page = try world.request("GET", "/v1/tasks/\(task)/claim-events?limit=37\(query)", as: .admin)
            events += (page.json?["items"] as? [[String: Any]]) ?? []
            cursor = page.json?["next_cursor"] as? String
        } while cursor != nil
        let stored = try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(task)::uuid")
        #expect(events.count == stored)
        #expect(events.count >= 2)
        var holder: String?
        for (position, event) in events.enumerated() {
            let action = event["action"] as? String, user = event["user_id"] as? String
            if position % 2 == 0 {
                #expect(action == "claimed" && holder == nil, "event \(position): \(event)")
                holder = user
            } else {
                #expect(action == "released" && user == holder, "event \(position): \(event) after a claim by \(holder ?? "-")")
                holder = nil
            }
        }
    }
}
