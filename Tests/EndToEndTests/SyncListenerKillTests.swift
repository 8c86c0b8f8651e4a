import Foundation
import Postgres
import Testing

/// The convergence scenario (SyncConvergenceTests) on two server instances, requests spread
/// over both, while instance 0's LISTEN connection is terminated again and again: its
/// long-poll wake-ups and its idle syncs from memory must never cost a client a change.
@Suite struct SyncListenerKillTests {
    /// Each request goes to a random instance of `server`.
    struct EitherInstance: SyncEndpoint {
        let server: SyncTestServer

        func sync(_ member: SyncTestServer.Member, since: String?, limit: Int?, wait: Int?) throws -> TestHTTPClient.Response {
            try server.sync(member, since: since, limit: limit, wait: wait, instance: Int.random(in: 0..<server.instances.count))
        }

        func perform(method: String, path: String, headers: [String: String], body: [UInt8]) throws -> TestHTTPClient.Response {
            try server.instances[Int.random(in: 0..<server.instances.count)].client
                .perform(method: method, path: path, headers: headers, body: body)
        }
    }

    @Test func clientsConvergeOnTwoInstancesWhileOneInstancesListenConnectionIsKilledRepeatedly() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        let server = try SyncTestServer(instances: 2)
        let clients = [try server.member("a"), try server.member("b"), try server.member("c"), try server.member("ada", admin: true)]
        let people = clients.dropLast().map(\.id) + [try server.member("d").id, try server.member("e").id]
        for index in 0..<4 {
            _ = try server.listing(owner: clients[index % 3], staff: index == 0 ? clients[1] : nil)
        }
        for index in 0..<6 { _ = try server.task(by: clients[index % 3]) }
        let victim = server.instances[0].sync
        victim.start()

        let outcome = SyncRaceTests.Outcome()
        let writersDone = DispatchGroup(), clientsDone = DispatchGroup(), killerDone = DispatchGroup()
        let finished = SyncConvergenceTests.Flag()
        let kills = Counter()
        killerDone.enter()
        Thread.detachNewThread {
            while !finished.isSet {
                Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.3))
                guard let pid = victim.listenerBackendPID else { continue }
                do {
                    let rows = try server.pool.query("SELECT pg_terminate_backend(\(Int(pid))::int) AS done")
                    if try rows.first?.decode("done", as: Bool.self) == true { kills.increment() }
                } catch { outcome.fail(error) }
            }
            killerDone.leave()
        }
        for writer in 0..<SyncConvergenceTests.writers {
            writersDone.enter()
            Thread.detachNewThread {
                var random = SyncConvergenceTests.SplitMix(state: seed &+ UInt64(writer))
                for _ in 0..<SyncConvergenceTests.operationsPerWriter {
                    do { try SyncConvergenceTests.randomWrite(server.pool, people: people, random: &random) } catch { outcome.fail(error) }
                }
                writersDone.leave()
            }
        }
        let endpoint = EitherInstance(server: server)
        let replicas = SyncConvergenceTests.startSyncingClients(clients, server: endpoint, seed: seed, maximumLimit: 9,
                                                                longPolls: true, until: finished, group: clientsDone,
                                                                outcome: outcome)
        #expect(writersDone.wait(timeout: .now() + 240) == .success)
        // On a quiet machine the writers can finish before the killer has struck three times:
        // keep writing (bounded) until it has, so that every kill lands among writes.
        var more = SyncConvergenceTests.SplitMix(state: seed &+ 0x5EED)
        let writeUntil = Date().addingTimeInterval(60)
        while kills.value < 3, Date() < writeUntil {
            do { try SyncConvergenceTests.randomWrite(server.pool, people: people, random: &more) } catch { outcome.fail(error) }
            Thread.sleep(forTimeInterval: 0.05)
        }
        finished.set()
        #expect(clientsDone.wait(timeout: .now() + 240) == .success)
        #expect(killerDone.wait(timeout: .now() + 30) == .success)
        #expect(outcome.failures.isEmpty, "seed \(seed): \(outcome.failures.prefix(3))")
        #expect(kills.value >= 3, "the listener was terminated only \(kills.value) times")

        for (index, client) in clients.enumerated() {
            var replica = replicas.get(index)
            try replica.syncToEnd(endpoint, as: client) { 5 }
            let expected = try server.expectedState(for: client, admin: index == 3)
            let differences = SyncReplica.differences(replica.state, expected)
            #expect(differences.isEmpty, "client \(index), seed \(seed): \(differences)")
            #expect(replica.orphans.isEmpty, "client \(index), seed \(seed): \(replica.orphans.prefix(5))")
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}
