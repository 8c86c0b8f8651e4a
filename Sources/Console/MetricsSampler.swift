import API
import Dispatch
import Foundation
import Operations
import Postgres
import ServiceKit
import Sync
import Synchronization

/// Readings of the process's own metrics every `interval`, kept for the last `capacity`
/// readings (15 minutes by default), from which the Server page draws its charts. The same
/// counters `/metrics` exports; nothing is stored in the database.
package final class MetricsSampler: Sendable {
    struct Reading: Sendable {
        var at: Date
        var requests: Int
        var cumulativeBuckets: [Int]
        var syncWaiters: Int
        var poolWaiting: Int
        var poolInUse: Int
    }

    /// One chart point: the change between two readings.
    struct Point: Sendable {
        var at: Date
        var requestsPerSecond: Double
        /// The upper bound of the histogram bucket holding the 95th percentile (seconds); nil
        /// when no request finished in the interval.
        var p95: Double?
        var syncWaiters: Int
        var poolWaiting: Int
    }

    let metrics: RequestMetrics
    let pool: PostgresPool
    let sync: SyncService?
    let interval: Duration
    let capacity: Int
    private let readings = Mutex<[Reading]>([])
    private let loop = BackgroundLoop(name: "console-metrics")

    package init(metrics: RequestMetrics, pool: PostgresPool, sync: SyncService?, interval: Duration = .seconds(10),
                capacity: Int = 90) {
        self.metrics = metrics
        self.pool = pool
        self.sync = sync
        self.interval = interval
        self.capacity = capacity
    }

    /// Samples now and then every `interval` on a thread of its own until `stop()`.
    package func start() {
        loop.startEvery(interval, immediately: true) { [self] in sample() }
    }

    package func stop() {
        loop.stop()
    }

    func reading() -> Reading {
        let totals = metrics.totals
        let stats = pool.stats
        return Reading(at: Date(), requests: totals.requests, cumulativeBuckets: totals.cumulativeBuckets,
                       syncWaiters: sync?.waiterCount ?? 0, poolWaiting: stats.waiting, poolInUse: stats.inUse)
    }

    func sample() {
        let now = reading()
        readings.withLock { readings in
            readings.append(now)
            if readings.count > capacity { readings.removeFirst(readings.count - capacity) }
        }
    }

    /// The chart points: one per pair of consecutive readings, the last pair ending now.
    func points() -> [Point] {
        let all = readings.withLock { $0 } + [reading()]
        return zip(all, all.dropFirst()).map { earlier, later in Self.point(from: earlier, to: later) }
    }

    static func point(from earlier: Reading, to later: Reading) -> Point {
        let seconds = max(later.at.timeIntervalSince(earlier.at), 0.001)
        let count = later.requests - earlier.requests
        var p95: Double?
        if count > 0 {
            let rank = Int((Double(count) * 0.95).rounded(.up))
            let deltas = zip(later.cumulativeBuckets, earlier.cumulativeBuckets).map { $0 - $1 }
            let index = deltas.firstIndex { $0 >= rank }
            // Past the last bound: slower than every bucket; shown as the last bound.
            p95 = index.map { RequestMetrics.durationBuckets[$0] } ?? RequestMetrics.durationBuckets.last
        }
        return Point(at: later.at, requestsPerSecond: Double(count) / seconds, p95: p95,
                     syncWaiters: later.syncWaiters, poolWaiting: later.poolWaiting)
    }
}
