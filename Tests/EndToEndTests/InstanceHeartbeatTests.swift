import Foundation
import Logging
import Operations
import Postgres
import Store
import Testing
import TestSupport

/// The heartbeat rows and per-minute samples every instance writes (migration 0037), against a
/// real PostgreSQL: what a beat records, how a minute's running totals are kept and restarted,
/// the sum over instances, and the pruning.
@Suite struct InstanceHeartbeatTests {
    static let quiet = Logger(label: "heartbeat", factory: { _ in SwiftLogNoOpLogHandler() })
    /// 12:00:10 UTC on some day: a whole minute starts at 12:00:00.
    static let noon = Date(timeIntervalSince1970: 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 60) + 10)

    func heartbeat(_ database: TestDatabase, _ metrics: RequestMetrics, address: String = "host-a:8080") -> InstanceHeartbeat {
        let heartbeat = InstanceHeartbeat(version: "1.2.3", address: address, interval: .seconds(15), pool: database.pool,
                                          metrics: metrics, logger: Self.quiet)
        return heartbeat
    }

    @Test func aBeatRecordsTheInstanceAndItsMinuteWithoutParkedRequestsInTheLatency() throws {
        let database = try TestDatabase.create()
        let metrics = RequestMetrics()
        metrics.record(route: "/v1/tasks", method: "GET", status: 200, seconds: 0.003)
        metrics.record(route: "/v1/tasks", method: "GET", status: 503, seconds: 0.2)
        metrics.record(route: "/v1/sync", method: "GET", status: 200, seconds: 25, parked: true)
        metrics.recordUpgrade()
        let beat = heartbeat(database, metrics)
        try beat.beat(at: Self.noon)
        let store = InstanceStore(pool: database.pool)
        let (instances, _) = try store.list()
        #expect(instances.map(\.id) == [beat.id])
        #expect(instances.first?.version == "1.2.3" && instances.first?.address == "host-a:8080")
        let samples = try store.samples(instanceID: beat.id, since: Self.noon.addingTimeInterval(-3600))
        let sample = try #require(samples.first)
        #expect(samples.count == 1)
        #expect(sample.minute == Self.noon.addingTimeInterval(-10))
        #expect(sample.requests == 2, "the parked long-poll and the WebSocket are not latency")
        #expect(sample.errors == 1 && sample.parked == 2)
        // 3 ms is under the first bound (5 ms); 200 ms only under 250 ms and above.
        #expect(sample.latencyBuckets.first == 1 && sample.latencyBuckets.last == 2)
    }

    @Test func aMinuteIsRewrittenWhileItLastsAndTheNextStartsFromTheLastBeat() throws {
        let database = try TestDatabase.create()
        let metrics = RequestMetrics()
        let beat = heartbeat(database, metrics)
        for _ in 0..<3 { metrics.record(route: "/x", method: "GET", status: 200, seconds: 0.001) }
        try beat.beat(at: Self.noon)
        metrics.record(route: "/x", method: "GET", status: 200, seconds: 0.001)
        try beat.beat(at: Self.noon.addingTimeInterval(30))
        metrics.record(route: "/x", method: "GET", status: 500, seconds: 0.001)
        try beat.beat(at: Self.noon.addingTimeInterval(60))
        let samples = try InstanceStore(pool: database.pool).samples(instanceID: nil, since: Self.noon.addingTimeInterval(-3600))
        #expect(samples.map(\.requests) == [4, 1])
        #expect(samples.map(\.errors) == [0, 1])
        #expect(samples.map(\.minute) == [Self.noon.addingTimeInterval(-10), Self.noon.addingTimeInterval(50)])
    }

    @Test func theSumOverInstancesAddsEachMinute() throws {
        let database = try TestDatabase.create()
        let (first, second) = (RequestMetrics(), RequestMetrics())
        first.record(route: "/x", method: "GET", status: 200, seconds: 0.001)
        for _ in 0..<2 { second.record(route: "/x", method: "GET", status: 200, seconds: 2) }
        let a = heartbeat(database, first), b = heartbeat(database, second, address: "host-b:8080")
        try a.beat(at: Self.noon)
        try b.beat(at: Self.noon)
        let store = InstanceStore(pool: database.pool)
        let since = Self.noon.addingTimeInterval(-3600)
        let all = try store.samples(instanceID: nil, since: since)
        #expect(all.count == 1 && all.first?.requests == 3)
        #expect(all.first?.latencyBuckets.first == 1 && all.first?.latencyBuckets.last == 3)
        #expect(try store.samples(instanceID: b.id, since: since).first?.requests == 2)
        #expect(try store.list().instances.count == 2)
    }

    @Test func pruningDropsOldSamplesAndInstancesSilentForADay() throws {
        let database = try TestDatabase.create()
        let metrics = RequestMetrics()
        let (old, live) = (heartbeat(database, metrics), heartbeat(database, metrics, address: "host-b:8080"))
        let store = InstanceStore(pool: database.pool)
        try old.beat()
        try live.beat()
        try store.record(InstanceSample(minute: Date().addingTimeInterval(-7200), requests: 9, latencyBuckets: [9]), instanceID: live.id)
        try database.pool.execute("UPDATE server_instances SET last_seen = now() - interval '25 hours' WHERE id = \(old.id)")
        try store.prune(samplesFor: InstanceHeartbeat.sampleRetention, instancesFor: 24 * 3600)
        #expect(try store.list().instances.map(\.id) == [live.id])
        let left = try store.samples(instanceID: nil, since: Date().addingTimeInterval(-86400))
        #expect(!left.contains { $0.requests == 9 }, "the two-hour-old sample is gone")
        #expect(left.count == 1, "this minute's sample of the live instance stays")
    }

    @Test func staleAfterIsThreeIntervals() throws {
        let database = try TestDatabase.create()
        #expect(heartbeat(database, RequestMetrics()).staleAfter == 45)
    }
}
