import Foundation
import Operations
import Store

/// The Server page's charts, one point per recorded minute over the last hour: requests
/// answered, their p95 latency, server errors, parked long-polls and WebSockets (apart, since
/// their duration is the client's wait), and the most requests seen waiting for a database
/// connection. Each carries its current value (the newest minute) and its range over the hour.
enum ConsoleServerCharts {
    struct Series: Sendable {
        var label: String
        var help: String
        var unit: @Sendable (Double) -> String
        var value: @Sendable (InstanceSample) -> Double?
        /// The least top of the value axis: 2 for counts, 100 ms for latency.
        var minimumTop = 2.0
    }

    static let series: [Series] = [
        Series(label: "Requests answered", help: "Requests answered per minute, long-polls and WebSockets not included.",
               unit: perMinute, value: { Double($0.requests) }),
        Series(label: "Slowest 5 % took at most", help: "95th percentile latency (p95): the upper bound of the histogram bucket holding it. Long-polls and WebSockets are left out, since they wait for the client on purpose.",
               unit: latency, value: p95, minimumTop: 0.1),
        Series(label: "Server errors", help: "Answers with a 5xx status per minute; each is in the log with its request id.",
               unit: perMinute, value: { Double($0.errors) }),
        Series(label: "Long-polls and WebSockets", help: "Sync long-polls that waited for changes and WebSocket connections opened, per minute.",
               unit: perMinute, value: { Double($0.parked) }),
        Series(label: "Waiting for the database", help: "The most requests seen waiting for a database connection at one heartbeat in the minute (pool waits).",
               unit: count, value: { Double($0.poolWaiting) }),
    ]

    static func charts(_ samples: [InstanceSample], start: Date, end: Date) -> [[String: Any]] {
        series.map { series in
            let points = samples.compactMap { sample in series.value(sample).map { SVGChart.Point(at: sample.minute, value: $0) } }
            let values = points.map(\.value)
            var chart: [String: Any] = [
                "label": series.label, "help": series.help,
                "now": points.last.map { series.unit($0.value) } ?? "no data yet",
                "svg": SVGChart.svg(points, start: start, end: end, step: 60, label: "\(series.label), the last hour",
                                    minimumTop: series.minimumTop, unit: series.unit),
            ]
            if let low = values.min(), let high = values.max() { chart["range"] = "\(series.unit(low)) to \(series.unit(high))" }
            return chart
        }
    }

    static func perMinute(_ value: Double) -> String {
        count(value) + " /min"
    }

    static func count(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    static func latency(_ seconds: Double) -> String {
        seconds == 0 ? "0 ms" : ConsoleFormat.milliseconds(seconds)
    }

    /// The bound of the bucket holding the 95th percentile; past the last bound, that bound
    /// (the chart says "at most" of the buckets it has). Nil when nothing was answered.
    static func p95(_ sample: InstanceSample) -> Double? {
        guard sample.requests > 0 else { return nil }
        let rank = Int((Double(sample.requests) * 0.95).rounded(.up))
        let index = sample.latencyBuckets.firstIndex { $0 >= rank }
        return index.flatMap { RequestMetrics.durationBuckets.indices.contains($0) ? RequestMetrics.durationBuckets[$0] : nil }
            ?? RequestMetrics.durationBuckets.last
    }
}
