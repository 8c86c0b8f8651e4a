import Foundation
import Synchronization
import Testing

/// `rpc("claim_task")` under real concurrency: 20 users call it on one task at the same
/// moment; exactly one wins, the 19 others get 409 `claim_conflict` naming the winner, and
/// exactly one `claim_events` row is written.
@Suite struct RestRPCRaceTests {
    static let claimers = 20
    static let rounds = 20

    @Test func twentyConcurrentClaimCallsHaveExactlyOneWinnerInEveryRound() throws {
        let world = try ResourceWorld(extraRoles: [])
        let claimers = try world.adminClaimers(Self.claimers, emailPrefix: "rpc")
        for round in 0..<Self.rounds {
            let task = UUID().uuidString.lowercased()
            try world.app.database.pool.execute("""
                INSERT INTO tasks (id, title, declared_by) VALUES (\(task)::uuid, 'Race', \(world.id(.admin))::uuid)
                """)
            let results = Mutex<[(status: Int, claimer: String, code: String?, holder: String?)]>([])
            let group = DispatchGroup()
            let start = DispatchSemaphore(value: 0)
            for claimer in claimers {
                group.enter()
                let client = world.app.client
                Thread {
                    start.wait()
                    let response = try? client.perform(
                        method: "POST", path: "/rest/v1/rpc/claim_task",
                        headers: ["Authorization": "Bearer \(claimer.token)", "apikey": AuthTestServer.publishableKey,
                                  "Content-Type": "application/json"],
                        body: Array("{\"task_id\":\"\(task.uppercased())\"}".utf8))
                    let holder = response?.json?["claimed_by"] as? String
                    results.withLock { $0.append((response?.status ?? -1, claimer.id, response?.json?["code"] as? String, holder)) }
                    group.leave()
                }.start()
            }
            for _ in claimers { start.signal() }
            group.wait()
            let all = results.withLock { $0 }
            let winners = all.filter { $0.status == 200 }
            #expect(winners.count == 1, "round \(round): \(all.map(\.status))")
            let losers = all.filter { $0.status == 409 && $0.code == "claim_conflict" }
            #expect(losers.count == Self.claimers - 1, "round \(round): \(all.map(\.status))")
            #expect(losers.allSatisfy { $0.holder == winners.first?.claimer }, "round \(round)")
            #expect(try world.count("SELECT count(*) FROM claim_events WHERE entity_id = \(task)::uuid") == 1)
            let holder = try world.app.database.pool.query("SELECT claimed_by::text FROM tasks WHERE id = \(task)::uuid")
                .first?.decode(0, as: String.self)
            #expect(holder == winners.first?.claimer)
        }
    }
}
