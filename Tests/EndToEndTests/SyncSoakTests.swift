import Foundation
import Testing

/// The convergence soak: two `dispatchd` processes on one database; writers
/// making every kind of API write (creates, edits, claims, releases, moves, reassignments,
/// deletes, notes, subtasks, offline pushes) on random instances; devices syncing with random
/// page sizes and long-polls; meanwhile `kill -9` of an instance (replaced by a fresh
/// process) and terminated database backends. At the end every device's replica must equal a
/// fresh snapshot for its user, table by table (nothing missing, stale or leaked), and no row
/// may ever have been applied before its parent.
///
/// About 20 s of writing by default (a minute or two in all under CI load); `SOAK_SECONDS=600
/// swift test --filter SyncSoakTests` for a release or benchmark run (docs/development.md).
@Suite struct SyncSoakTests {
    typealias Writer = SyncAPIConvergenceTests.Writer
    typealias SplitMix = SyncConvergenceTests.SplitMix

    static var seconds: Double {
        ProcessInfo.processInfo.environment["SOAK_SECONDS"].flatMap(Double.init).map { max($0, 1) } ?? 20
    }

    final class Faults: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var kills = 0, terminations = 0
        func killed() { lock.withLock { kills += 1 } }
        func terminated() { lock.withLock { terminations += 1 } }
    }

    @Test func twoInstancesUnderFaultsConvergeForEveryDevice() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        let cluster = try SyncSoakCluster(instances: 2)
        let admin = try cluster.member("ada", admin: true)
        let realtors = try (0..<4).map { try cluster.member("realtor\($0)") }
        let known = SyncAPIConvergenceTests.Known()
        let writers = (realtors.prefix(3) + [admin]).map { Writer(server: cluster, member: $0, people: realtors.map(\.key), known: known) }
        var setup = SplitMix(state: seed)
        for writer in writers {
            for kind in ["listing", "task", "task"] { try writer.setupWrite(kind, &setup) }
        }
        // The writing window starts once the cluster and its seed rows exist: on a loaded
        // machine their setup alone can take most of `seconds`, leaving no time to write.
        let deadline = Date().addingTimeInterval(Self.seconds)

        let outcome = SyncRaceTests.Outcome()
        let writersDone = DispatchGroup(), clientsDone = DispatchGroup(), faultsDone = DispatchGroup()
        let finished = SyncConvergenceTests.Flag()
        let attempts = SyncAPIConvergenceTests.Counter(), successes = SyncAPIConvergenceTests.Counter()
        for (index, writer) in writers.enumerated() {
            writersDone.enter()
            Thread.detachNewThread {
                var random = SplitMix(state: seed &+ 1 &+ UInt64(index))
                while Date() < deadline {
                    do {
                        attempts.increment()
                        if (200..<300).contains(try writer.randomWrite(&random)) { successes.increment() }
                    } catch { outcome.fail(error) }
                }
                writersDone.leave()
            }
        }
        let devices = realtors + [admin]
        let replicas = SyncConvergenceTests.startSyncingClients(devices, server: cluster, seed: seed, maximumLimit: 15, longPolls: true,
                                                                until: finished, group: clientsDone, outcome: outcome)
        let faults = Faults()
        faultsDone.enter()
        Thread.detachNewThread {
            var random = SplitMix(state: seed &+ 999)
            var round = 0
            // Until the writers stop, and at least one fault of each kind even on a slow machine.
            while Date() < deadline || faults.kills == 0 || faults.terminations == 0 {
                Thread.sleep(forTimeInterval: Double.random(in: 1...2.5, using: &random))
                do {
                    if round % 2 == 0 {
                        try cluster.terminateBackends()
                        faults.terminated()
                    } else {
                        try cluster.killAndRestart(Int.random(in: 0..<2, using: &random))
                        faults.killed()
                    }
                } catch { outcome.fail(error) }
                round += 1
            }
            faultsDone.leave()
        }

        let bound = DispatchTime.now() + Self.seconds + 240
        #expect(writersDone.wait(timeout: bound) == .success)
        #expect(faultsDone.wait(timeout: bound) == .success)
        finished.set()
        #expect(clientsDone.wait(timeout: bound) == .success)
        #expect(outcome.failures.isEmpty, "seed \(seed): \(outcome.failures.prefix(5))")
        #expect(faults.kills >= 1 && faults.terminations >= 1, "kills \(faults.kills), terminations \(faults.terminations)")
        // Most writes must have been accepted, or the soak exercised only refusals.
        #expect(successes.value > attempts.value / 3, "\(successes.value) of \(attempts.value) writes accepted, seed \(seed)")

        var pages = 0
        for (index, device) in devices.enumerated() {
            var replica = replicas.get(index)
            try replica.syncToEnd(cluster, as: device) { 7 }
            let expected = try SyncTestServer.expectedState(in: cluster.pool, for: device, admin: device.id == admin.id)
            let report = Self.discrepancies(replica.state, expected)
            #expect(report.isEmpty, "device \(index), seed \(seed): \(report)")
            #expect(replica.orphans.isEmpty, "device \(index), seed \(seed): \(replica.orphans.prefix(5))")
            #expect(replica.pages > 1)
            pages += replica.pages
        }
        print("sync soak: \(Self.seconds) s, seed \(seed), \(successes.value) of \(attempts.value) writes accepted, "
              + "\(pages) pages to \(devices.count) devices, \(faults.kills) kill -9, \(faults.terminations) backend terminations")
    }

    /// Per table, ids missing from the replica, present in a stale version, and leaked (the
    /// user may not see them); empty when the replica is exact.
    static func discrepancies(_ state: [String: [String: Int]], _ expected: [String: [String: Int]]) -> [String: String] {
        var report: [String: String] = [:]
        for table in SyncReplica.tables {
            let have = state[table] ?? [:], want = expected[table] ?? [:]
            let missing = want.keys.filter { have[$0] == nil }
            let leaked = have.keys.filter { want[$0] == nil }
            let stale = want.keys.filter { have[$0] != nil && have[$0] != want[$0] }
            if missing.count + leaked.count + stale.count > 0 {
                report[table] = "missing \(missing.prefix(3)) (\(missing.count)), stale \(stale.prefix(3)) (\(stale.count)), leaked \(leaked.prefix(3)) (\(leaked.count))"
            }
        }
        return report
    }
}
