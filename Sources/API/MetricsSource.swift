import HTTPServer
import Postgres
import Synchronization

/// Something that contributes samples to `GET /metrics`.
public protocol MetricsSource: Sendable {
    func samples() -> [MetricSample]
}

/// One Prometheus sample without labels (the exposition format's simplest form).
public struct MetricSample: Sendable, Equatable {
    public enum Kind: String, Sendable { case counter, gauge }

    public var name: String
    public var help: String
    public var kind: Kind
    public var value: Double

    public init(name: String, help: String, kind: Kind, value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.value = value
    }
}

/// Database pool occupancy: saturation (`waiting` > 0) is the first sign of an undersized pool.
public struct PoolMetricsSource: MetricsSource {
    let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    public func samples() -> [MetricSample] {
        let stats = pool.stats
        return [
            MetricSample(name: "dispatch_db_connections_open", help: "Open database connections.", kind: .gauge, value: Double(stats.open)),
            MetricSample(name: "dispatch_db_connections_in_use", help: "Database connections checked out.", kind: .gauge, value: Double(stats.inUse)),
            MetricSample(name: "dispatch_db_connections_idle", help: "Idle database connections.", kind: .gauge, value: Double(stats.idle)),
            MetricSample(name: "dispatch_db_pool_waiting", help: "Requests waiting for a database connection.", kind: .gauge, value: Double(stats.waiting)),
        ]
    }
}

/// The HTTP server's counters. Attached after the server is built, because the server is
/// built from the router that serves `/metrics`.
public final class HTTPServerMetricsSource: MetricsSource {
    private let server = Mutex<HTTPServer?>(nil)

    public init() {}

    public func attach(_ server: HTTPServer) {
        self.server.withLock { $0 = server }
    }

    public func samples() -> [MetricSample] {
        guard let metrics = server.withLock({ $0?.metrics }) else { return [] }
        return [
            MetricSample(name: "dispatch_http_connections_open", help: "Open client connections.", kind: .gauge, value: Double(metrics.openConnections)),
            MetricSample(name: "dispatch_http_connections_accepted_total", help: "Client connections accepted.", kind: .counter, value: Double(metrics.acceptedConnections)),
            MetricSample(name: "dispatch_http_connections_rejected_total", help: "Client connections refused at the connection limit.", kind: .counter, value: Double(metrics.rejectedConnections)),
            MetricSample(name: "dispatch_http_requests_total", help: "Requests handled.", kind: .counter, value: Double(metrics.totalRequests)),
            MetricSample(name: "dispatch_http_requests_in_flight", help: "Requests being handled or parked.", kind: .gauge, value: Double(metrics.inFlightRequests)),
        ]
    }
}
