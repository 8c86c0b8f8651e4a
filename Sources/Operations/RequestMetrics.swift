import HTTPServer
import ServiceKit
import Synchronization

/// Per-process request counters and latency histograms, labelled by route pattern (never by
/// raw path, which would make label cardinality unbounded), plus a late-bound source of the
/// server's connection counts (the server is created after the application).
package final class RequestMetrics: MetricsSource {
    package struct Key: Hashable {
        var route: String
        var method: String
    }

    package struct Histogram {
        var bucketCounts: [Int]
        var sum: Double = 0
        var count: Int = 0

        mutating func add(_ seconds: Double, bounds: [Double]) {
            for (index, bound) in bounds.enumerated() where seconds <= bound { bucketCounts[index] += 1 }
            sum += seconds
            count += 1
        }
    }

    package struct State {
        var requests: [Key: [Int: Int]] = [:]
        var durations: [Key: Histogram] = [:]
        var serverMetrics: (@Sendable () -> HTTPServerMetrics)?
        /// The parked long-polls' durations (the client's wait, not the server's work), which
        /// the console's latency leaves out of the per-route sums; kept apart so that only a
        /// parked request pays for a second histogram.
        var parked = Histogram(bucketCounts: Array(repeating: 0, count: RequestMetrics.durationBuckets.count))
        var upgrades = 0
    }

    /// Running totals since start, all routes together (the heartbeat diffs two readings).
    package struct Totals: Sendable, Equatable {
        /// Requests answered without parking.
        package var requests: Int
        /// Of those, how many at or under each of `durationBuckets`.
        package var cumulativeBuckets: [Int]
        /// 5xx answers, parked or not.
        package var errors: Int
        /// Long-polls that parked and WebSocket upgrades.
        package var parked: Int
    }

    /// Upper bounds in seconds; `+Inf` is implied.
    package static let durationBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// The route label of requests no route matched (404, 405).
    package static let unmatchedRoute = ResolvedRoute.unmatchedLabel

    private let state = Mutex(State())

    package init() {}

    /// Where `http_open_connections` comes from; until set, the gauge is omitted.
    package func setServerMetricsSource(_ source: @escaping @Sendable () -> HTTPServerMetrics) {
        state.withLock { $0.serverMetrics = source }
    }

    /// `parked`: a long-poll that waited for changes or a WebSocket upgrade; still in the
    /// per-route histograms `/metrics` exports, but kept out of the console's latency.
    package func record(route: String, method: String, status: Int, seconds: Double, parked: Bool = false) {
        let key = Key(route: route, method: method)
        state.withLock { state in
            if parked { state.parked.add(seconds, bounds: Self.durationBuckets) }
            state.requests[key, default: [:]][status, default: 0] += 1
            // Changed in place through the dictionary's `default:` accessor: a copy taken out
            // and stored back made the bucket array non-unique, so every request copied it.
            state.durations[key, default: Histogram(bucketCounts: Array(repeating: 0, count: Self.durationBuckets.count))]
                .add(seconds, bounds: Self.durationBuckets)
        }
    }

    /// Every request so far, all routes together (for the console's charts, which diff two readings).
    package var totals: Totals {
        state.withLock { state in
            var totals = Totals(requests: -state.parked.count, cumulativeBuckets: state.parked.bucketCounts.map { -$0 }, errors: 0,
                                parked: state.parked.count + state.upgrades)
            for histogram in state.durations.values {
                totals.requests += histogram.count
                for index in totals.cumulativeBuckets.indices { totals.cumulativeBuckets[index] += histogram.bucketCounts[index] }
            }
            for statuses in state.requests.values {
                for (status, count) in statuses where status >= 500 { totals.errors += count }
            }
            return totals
        }
    }

    /// Counts a WebSocket upgrade for the console, which no response passes through (the 101 is
    /// the transport's, so `/metrics` has never listed it per route).
    package func recordUpgrade() {
        state.withLock { $0.upgrades += 1 }
    }

    package func writeMetrics(to output: inout PrometheusText) {
        let (requests, durations, source) = state.withLock { ($0.requests, $0.durations, $0.serverMetrics) }
        output.family("http_requests_total", type: "counter", help: "HTTP requests answered, by route pattern, method and status.")
        for key in requests.keys.sorted(by: Self.order) {
            for (status, count) in (requests[key] ?? [:]).sorted(by: { $0.key < $1.key }) {
                output.sample("http_requests_total", [("route", key.route), ("method", key.method), ("status", String(status))], count)
            }
        }
        output.family("http_request_duration_seconds", type: "histogram", help: "Time from request to response, by route pattern and method.")
        for key in durations.keys.sorted(by: Self.order) {
            guard let histogram = durations[key] else { continue }
            let labels = [("route", key.route), ("method", key.method)]
            for (bound, count) in zip(Self.durationBuckets, histogram.bucketCounts) {
                output.sample("http_request_duration_seconds_bucket", labels + [("le", PrometheusText.format(bound))], count)
            }
            output.sample("http_request_duration_seconds_bucket", labels + [("le", "+Inf")], histogram.count)
            output.sample("http_request_duration_seconds_sum", labels, histogram.sum)
            output.sample("http_request_duration_seconds_count", labels, histogram.count)
        }
        if let server = source?() {
            output.family("http_open_connections", type: "gauge", help: "Client connections currently open.")
            output.sample("http_open_connections", [], server.openConnections)
            output.family("http_rejected_connections_total", type: "counter", help: "Connections answered 503 because the connection limit was reached.")
            output.sample("http_rejected_connections_total", [], server.rejectedConnections)
            output.family("websocket_open_connections", type: "gauge", help: "Upgraded (WebSocket) connections currently open.")
            output.sample("websocket_open_connections", [], server.openWebSockets)
            output.family("websocket_send_queue_bytes", type: "gauge",
                          help: "Bytes accepted for WebSocket sends and not yet taken by the clients' sockets, all connections.")
            output.sample("websocket_send_queue_bytes", [], server.webSocketSendQueueBytes)
            output.family("websocket_send_queue_peak_bytes", type: "gauge",
                          help: "The most one WebSocket connection has held for sending at once since start.")
            output.sample("websocket_send_queue_peak_bytes", [], server.webSocketSendQueuePeakBytes)
            output.family("websocket_send_queue_overflows_total", type: "counter",
                          help: "WebSocket connections closed with 1008 because their send queue was full.")
            output.sample("websocket_send_queue_overflows_total", [], server.webSocketSendQueueOverflows)
        }
    }

    private static func order(_ left: Key, _ right: Key) -> Bool {
        (left.route, left.method) < (right.route, right.method)
    }
}
