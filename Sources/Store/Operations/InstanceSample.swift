import Foundation

/// One instance's request counters over one minute (or, read back for several instances, their sum).
public struct InstanceSample: Sendable, Equatable {
    /// The start of the minute (UTC, whole minute).
    public var minute: Date
    /// Requests answered in the minute, parked long-polls and WebSockets excluded.
    public var requests: Int
    /// Of those, answers with a 5xx status.
    public var errors: Int
    /// Long-polls that parked and WebSocket upgrades, counted apart from latency.
    public var parked: Int
    /// The most requests seen waiting for a database connection at one heartbeat.
    public var poolWaiting: Int
    /// Requests at or under each duration bucket bound (cumulative, as the histogram keeps them).
    public var latencyBuckets: [Int]

    public init(minute: Date, requests: Int = 0, errors: Int = 0, parked: Int = 0, poolWaiting: Int = 0, latencyBuckets: [Int] = []) {
        self.minute = minute
        self.requests = requests
        self.errors = errors
        self.parked = parked
        self.poolWaiting = poolWaiting
        self.latencyBuckets = latencyBuckets
    }

    /// Two samples of the same minute added up (instances summed); pool waits add too, since
    /// each instance has its own pool.
    public func adding(_ other: InstanceSample) -> InstanceSample {
        let count = max(latencyBuckets.count, other.latencyBuckets.count)
        let buckets = (0..<count).map { (latencyBuckets.indices.contains($0) ? latencyBuckets[$0] : 0)
            + (other.latencyBuckets.indices.contains($0) ? other.latencyBuckets[$0] : 0) }
        return InstanceSample(minute: minute, requests: requests + other.requests, errors: errors + other.errors,
                              parked: parked + other.parked, poolWaiting: poolWaiting + other.poolWaiting, latencyBuckets: buckets)
    }
}
