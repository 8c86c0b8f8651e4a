import Foundation
import Postgres

/// The heartbeat rows and per-minute samples of every dispatchd process sharing the database
/// (migration 0037). Each process writes only its own rows; any process reads them all.
public struct InstanceStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records that `instance` is alive now (the database's clock, so instances with skewed
    /// clocks still compare), inserting its row on the first beat.
    public func beat(_ instance: ServerInstance) throws {
        try pool.execute("""
            INSERT INTO server_instances (id, version, address, started_at, last_seen)
            VALUES (\(instance.id), \(instance.version), \(instance.address), \(instance.startedAt), now())
            ON CONFLICT (id) DO UPDATE SET last_seen = now(), version = EXCLUDED.version, address = EXCLUDED.address
            """)
    }

    /// Writes the instance's sample for `sample.minute`, replacing what an earlier beat of the
    /// same minute wrote (the caller sends the minute's running totals).
    public func record(_ sample: InstanceSample, instanceID: UUID) throws {
        try pool.execute("""
            INSERT INTO server_instance_samples (instance_id, minute, requests, errors, parked, pool_waiting, latency_buckets)
            VALUES (\(instanceID), \(sample.minute), \(sample.requests), \(sample.errors), \(sample.parked),
                    \(sample.poolWaiting), \(sample.latencyBuckets))
            ON CONFLICT (instance_id, minute) DO UPDATE SET requests = EXCLUDED.requests, errors = EXCLUDED.errors,
                parked = EXCLUDED.parked, pool_waiting = EXCLUDED.pool_waiting, latency_buckets = EXCLUDED.latency_buckets
            """)
    }

    /// Removes samples older than `samplesFor` and instances not heard from for `instancesFor`
    /// (their samples go with them).
    public func prune(samplesFor: TimeInterval, instancesFor: TimeInterval) throws {
        try pool.execute("DELETE FROM server_instance_samples WHERE minute < now() - make_interval(secs => \(samplesFor))")
        try pool.execute("DELETE FROM server_instances WHERE last_seen < now() - make_interval(secs => \(instancesFor))")
    }

    /// Every recorded instance, most recently started first, and the database's time now (to
    /// judge staleness by the clock that wrote `last_seen`).
    public func list() throws -> (instances: [ServerInstance], now: Date) {
        let rows = try pool.query("""
            SELECT id, version, address, started_at, last_seen, now() AS now FROM server_instances
            ORDER BY started_at DESC, id
            """)
        var now = Date()
        let instances = try rows.map { row in
            now = try row.decode("now")
            return ServerInstance(id: try row.decode("id"), version: try row.decode("version"), address: try row.decode("address"),
                                  startedAt: try row.decode("started_at"), lastSeen: try row.decode("last_seen"))
        }
        return (instances, now)
    }

    /// The samples since `since`, oldest first: one instance's, or (nil) the sum over all per minute.
    public func samples(instanceID: UUID?, since: Date) throws -> [InstanceSample] {
        let filter: PostgresQuery = instanceID.map { "AND instance_id = \($0)" } ?? ""
        let rows = try pool.query("""
            SELECT minute, requests, errors, parked, pool_waiting, latency_buckets FROM server_instance_samples
            WHERE minute >= \(since) \(filter) ORDER BY minute
            """)
        var byMinute: [InstanceSample] = []
        for row in rows {
            let sample = InstanceSample(minute: try row.decode("minute"), requests: try row.decode("requests"), errors: try row.decode("errors"),
                                        parked: try row.decode("parked"), poolWaiting: try row.decode("pool_waiting"),
                                        latencyBuckets: try row.decode("latency_buckets"))
            if let last = byMinute.last, last.minute == sample.minute {
                byMinute[byMinute.count - 1] = last.adding(sample)
            } else {
                byMinute.append(sample)
            }
        }
        return byMinute
    }
}
