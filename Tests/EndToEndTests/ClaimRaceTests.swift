import Credentials
import Foundation
import Synchronization
import Testing

/// contract §3 under real concurrency: many users claim one task at the same moment; exactly one
/// wins, every other gets 409 `claim_conflict`, and exactly one claim event is written.
@Suite struct ClaimRaceTests {
    static let claimers = 50
    static let rounds = 100

    @Test func fiftyConcurrentClaimersHaveExactlyOneWinnerInEveryRound() throws {
        let world = try ResourceWorld(extraRoles: [])
        let claimers = try world.adminClaimers(Self.claimers, emailPrefix: "claimer")
        for round in 0..<Self.rounds {
            let task = UUID().uuidString.lowercased()
            try world.app.database.pool.execute("""
                INSERT INTO tasks (id, title, declared_by) VALUES (\(task)::uuid, 'Race', \(world.id(.admin))::uuid)
                """)
            let statuses = Mutex<[(Int, String, String?)]>([])
            let group = DispatchGroup()
            let start = DispatchSemaphore(value: 0)
            for claimer in claimers {
                group.enter()
                let client = world.app.client
                let thread = Thread {
                    start.wait()
                    let response = try? client.perform(method: "POST", path: "/v1/tasks/\(task)/claim",
                                                       headers: ["Authorization": "Bearer \(claimer.token)"])
                    statuses.withLock { $0.append((response?.status ?? -1, claimer.id, response?.json?["code"] as? String)) }
                    group.leave()
                }
                thread.start()
            }
            for _ in claimers { start.signal() }
            group.wait()
            let results = statuses.withLock { $0 }
            let winners = results.filter { $0.0 == 200 }
            #expect(winners.count == 1, "round \(round): \(results.map(\.0))")
            #expect(results.filter { $0.0 == 409 && $0.2 == "claim_conflict" }.count == Self.claimers - 1, "round \(round)")
            #expect(try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(task)::uuid") == 1)
            let holder = try world.app.database.pool.query("SELECT claimed_by::text FROM tasks WHERE id = \(task)::uuid")
                .first?.decode(0, as: String.self)
            #expect(holder == winners.first?.1)
        }
    }
}
