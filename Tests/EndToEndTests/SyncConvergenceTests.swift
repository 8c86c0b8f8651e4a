import Foundation
import Postgres
import Testing

/// Concurrent writers (creates, edits, claims, releases, reassignments, moves, deletes,
/// deactivations) while several clients sync in a loop with random page sizes; afterwards one
/// more chain each, and every client's replica must equal exactly what the server says that
/// user can see.
@Suite struct SyncConvergenceTests {
    /// Deterministic per seed, so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Each client syncs to the end in a loop, with random page sizes up to `maximumLimit`,
    /// until `finished` is set; its last replica lands in the result when it leaves `group`.
    /// With `longPolls`, about one chain in four starts with a long-poll of 1–2 s.
    static func startSyncingClients(_ clients: [SyncTestServer.Member], server: some SyncEndpoint, seed: UInt64,
                                    maximumLimit: Int, longPolls: Bool = false, until finished: Flag, group: DispatchGroup,
                                    outcome: SyncRaceTests.Outcome) -> Replicas {
        let replicas = Replicas(count: clients.count)
        for (index, client) in clients.enumerated() {
            group.enter()
            Thread.detachNewThread {
                var random = SplitMix(state: seed &+ 100 &+ UInt64(index))
                var replica = SyncReplica()
                while !finished.isSet {
                    do {
                        let wait = longPolls && replica.since != nil && Int.random(in: 0..<4, using: &random) == 0
                            ? Int.random(in: 1...2, using: &random) : nil
                        try replica.syncToEnd(server, as: client, wait: wait) { Int.random(in: 1...maximumLimit, using: &random) }
                    } catch { outcome.fail(error); break }
                }
                replicas.set(index, replica)
                group.leave()
            }
        }
        return replicas
    }

    static let writers = 3
    static let operationsPerWriter = 40

    @Test func clientsSyncingDuringConcurrentWritesConvergeToWhatTheyMaySee() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        let server = try SyncTestServer()
        let clients = [try server.member("a"), try server.member("b"), try server.member("c"), try server.member("ada", admin: true)]
        let people = clients.dropLast().map(\.id) + [try server.member("d").id, try server.member("e").id]
        for index in 0..<4 {
            _ = try server.listing(owner: clients[index % 3], staff: index == 0 ? clients[1] : nil)
        }
        for index in 0..<6 { _ = try server.task(by: clients[index % 3]) }

        let outcome = SyncRaceTests.Outcome()
        let writersDone = DispatchGroup(), clientsDone = DispatchGroup()
        let finished = Flag()
        for writer in 0..<Self.writers {
            writersDone.enter()
            Thread.detachNewThread {
                var random = SplitMix(state: seed &+ UInt64(writer))
                for _ in 0..<Self.operationsPerWriter {
                    do { try Self.randomWrite(server.pool, people: people, random: &random) } catch { outcome.fail(error) }
                }
                writersDone.leave()
            }
        }
        let replicas = Self.startSyncingClients(clients, server: server, seed: seed, maximumLimit: 9,
                                                until: finished, group: clientsDone, outcome: outcome)
        #expect(writersDone.wait(timeout: .now() + 240) == .success)
        finished.set()
        #expect(clientsDone.wait(timeout: .now() + 240) == .success)
        #expect(outcome.failures.isEmpty, "seed \(seed)")

        for (index, client) in clients.enumerated() {
            var replica = replicas.get(index)
            try replica.syncToEnd(server, as: client) { 5 }
            let expected = try server.expectedState(for: client, admin: index == 3)
            let differences = SyncReplica.differences(replica.state, expected)
            #expect(differences.isEmpty, "client \(index), seed \(seed): \(differences)")
            #expect(replica.orphans.isEmpty, "client \(index), seed \(seed): \(replica.orphans.prefix(5))")
            #expect(replica.pages > 1)
        }
    }

    /// One random write in its own transaction; some pause mid-transaction so that
    /// transactions overlap and commit out of xid order.
    static func randomWrite(_ pool: PostgresPool, people: [UUID], random: inout SplitMix) throws {
        let person = people.randomElement(using: &random) ?? people[0]
        let other = people.randomElement(using: &random) ?? people[0]
        let table = Bool.random(using: &random) ? "tasks" : "activities"
        let type = table == "tasks" ? "task" : "activity"
        let pause = Int.random(in: 0..<4, using: &random) == 0 ? Double.random(in: 0.005...0.04, using: &random) : 0
        let choice = Int.random(in: 0..<12, using: &random)
        try pool.withTransaction(maxAttempts: 5) { connection in
            let item: PostgresQuery = "SELECT id FROM \(unsafeSQL: table) ORDER BY random() LIMIT 1"
            let listing: PostgresQuery = "SELECT id FROM listings ORDER BY random() LIMIT 1"
            switch choice {
            case 0:
                try connection.execute("""
                    INSERT INTO \(unsafeSQL: table) (title, declared_by, listing_id)
                    VALUES ('new', \(person), CASE WHEN random() < 0.7 THEN (\(listing)) END)
                    """)
            case 1:
                try connection.execute("""
                    INSERT INTO notes (content, created_by, parent_type, parent_id)
                    SELECT 'note', \(person), \(type), id FROM (\(item)) i
                    """)
            case 2:
                try connection.execute("INSERT INTO subtasks (title, parent_type, parent_id) SELECT 'sub', \(type), id FROM (\(item)) i")
            case 3:
                try connection.execute("UPDATE \(unsafeSQL: table) SET title = 'edited' WHERE id = (\(item))")
            case 4:
                let claimed = try connection.query("""
                    UPDATE \(unsafeSQL: table) SET claimed_by = \(person), claimed_at = now()
                    WHERE id = (SELECT id FROM \(unsafeSQL: table) WHERE claimed_by IS NULL ORDER BY random() LIMIT 1) RETURNING id
                    """)
                if pause > 0 { try connection.execute("SELECT pg_sleep(\(pause))") }
                for row in claimed {
                    try connection.execute("""
                        INSERT INTO claim_events (entity_type, entity_id, user_id, action, actor_id)
                        VALUES (\(type), \(try row.decode("id", as: UUID.self)), \(person), 'claimed', \(person))
                        """)
                }
            case 5:
                try connection.execute("""
                    UPDATE \(unsafeSQL: table) SET claimed_by = NULL, claimed_at = NULL
                    WHERE id = (SELECT id FROM \(unsafeSQL: table) WHERE claimed_by IS NOT NULL ORDER BY random() LIMIT 1)
                    """)
            case 6:
                try connection.execute("UPDATE listings SET assigned_staff = CASE WHEN random() < 0.7 THEN \(other)::uuid END WHERE id = (\(listing))")
            case 7:
                try connection.execute("UPDATE listings SET owned_by = \(other) WHERE id = (\(listing))")
            case 8:
                try connection.execute("UPDATE \(unsafeSQL: table) SET listing_id = CASE WHEN random() < 0.8 THEN (\(listing)) END WHERE id = (\(item))")
            case 9:
                let deleted = try connection.query("""
                    UPDATE \(unsafeSQL: table) SET status = 'deleted', deleted_at = now() WHERE id = (\(item)) RETURNING id
                    """)
                if pause > 0 { try connection.execute("SELECT pg_sleep(\(pause))") }
                for row in deleted {
                    try connection.execute("""
                        INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by)
                        VALUES (\(type), \(try row.decode("id", as: UUID.self)), 'deleted', \(person))
                        """)
                }
            case 10:
                try connection.execute("""
                    UPDATE users SET deactivated_at = CASE WHEN deactivated_at IS NULL THEN now() END WHERE id = \(people[people.count - 1])
                    """)
            default:
                try connection.execute("UPDATE notes SET content = 'edited' WHERE id = (SELECT id FROM notes ORDER BY random() LIMIT 1)")
            }
            if pause > 0 { try connection.execute("SELECT pg_sleep(\(pause))") }
        }
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    final class Replicas: @unchecked Sendable {
        private let lock = NSLock()
        private var replicas: [SyncReplica]
        init(count: Int) { replicas = Array(repeating: SyncReplica(), count: count) }
        func set(_ index: Int, _ replica: SyncReplica) { lock.withLock { replicas[index] = replica } }
        func get(_ index: Int) -> SyncReplica { lock.withLock { replicas[index] } }
    }
}
