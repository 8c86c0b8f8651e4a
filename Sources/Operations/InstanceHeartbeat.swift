import Foundation
import Logging
import Postgres
import ServiceKit
import Store
import Synchronization

/// This process's heartbeat: every `interval` it records in the database that it is alive
/// (`server_instances`) and the running totals of the current minute's requests, errors,
/// parked long-polls and pool waits (`server_instance_samples`), so any instance's console can
/// list every instance and chart each one or their sum. Once a minute it prunes samples older
/// than `sampleRetention` and instances silent for a day. A failed beat is logged and retried
/// at the next one; the process serves on regardless.
package final class InstanceHeartbeat: Sendable {
    package let id: UUID
    package let version: String
    package let startedAt: Date
    package let interval: Duration
    /// Set once the listener is bound (`listening(on:)`), before the first beat.
    private let address: Mutex<String>
    let store: InstanceStore
    let metrics: RequestMetrics
    let pool: PostgresPool
    let logger: Logger
    private let minute = Mutex(MinuteState())
    private let loop = BackgroundLoop(name: "instance-heartbeat")

    /// The chart covers the last hour; five minutes more so the oldest minute is whole.
    package static let sampleRetention: TimeInterval = 65 * 60
    static let instanceRetention: TimeInterval = 24 * 3600

    struct MinuteState {
        var start: Date?
        /// The totals at the last beat before this minute began (zero for the process's first).
        var base: RequestMetrics.Totals?
        var last: RequestMetrics.Totals?
        var poolWaiting = 0
    }

    package init(id: UUID = UUID(), version: String, address: String = "starting", startedAt: Date = Date(), interval: Duration,
                 pool: PostgresPool, metrics: RequestMetrics, logger: Logger) {
        self.id = id
        self.version = version
        self.startedAt = startedAt
        self.address = Mutex(address)
        self.interval = interval
        self.store = InstanceStore(pool: pool)
        self.metrics = metrics
        self.pool = pool
        self.logger = logger
    }

    /// The address other instances' consoles show for this one (host name and bound port).
    package func listening(on address: String) {
        self.address.withLock { $0 = address }
    }

    package var instance: ServerInstance {
        ServerInstance(id: id, version: version, address: address.withLock { $0 }, startedAt: startedAt, lastSeen: startedAt)
    }

    /// An instance is stale when its last beat is older than three intervals: two beats missed,
    /// so one slow write does not flag it.
    package var staleAfter: TimeInterval { interval.timeInterval * 3 }

    /// Beats now and then every `interval` on a thread of its own until `stop()`.
    package func start() {
        loop.startEvery(interval, immediately: true) { [self] in
            do {
                try beat()
            } catch {
                logger.warning("instance heartbeat failed; retried at the next one", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Stops the loop and writes a last beat, so the final counts are kept; the row then turns
    /// stale on every console after `staleAfter`.
    package func stop() {
        loop.stop()
        try? beat()
    }

    /// One beat: the heartbeat row, then the current minute's sample (and the pruning when a
    /// new minute begins).
    package func beat(at now: Date = Date()) throws {
        let totals = metrics.totals
        let waiting = pool.stats.waiting
        let start = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60)
        let (sample, newMinute) = minute.withLock { state -> (InstanceSample, Bool) in
            let newMinute = state.start != start
            if newMinute {
                state.start = start
                state.base = state.last
                state.poolWaiting = 0
            }
            state.last = totals
            state.poolWaiting = max(state.poolWaiting, waiting)
            return (Self.sample(minute: start, from: state.base, to: totals, poolWaiting: state.poolWaiting), newMinute)
        }
        try store.beat(instance)
        try store.record(sample, instanceID: instance.id)
        if newMinute { try store.prune(samplesFor: Self.sampleRetention, instancesFor: Self.instanceRetention) }
    }

    static func sample(minute: Date, from base: RequestMetrics.Totals?, to totals: RequestMetrics.Totals, poolWaiting: Int) -> InstanceSample {
        let buckets = totals.cumulativeBuckets.enumerated().map { index, count in
            count - (base?.cumulativeBuckets.indices.contains(index) == true ? base?.cumulativeBuckets[index] ?? 0 : 0)
        }
        return InstanceSample(minute: minute, requests: totals.requests - (base?.requests ?? 0), errors: totals.errors - (base?.errors ?? 0),
                              parked: totals.parked - (base?.parked ?? 0), poolWaiting: poolWaiting, latencyBuckets: buckets)
    }
}
