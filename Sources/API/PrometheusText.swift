/// Renders samples in the Prometheus text exposition format (version 0.0.4).
enum PrometheusText {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func render(_ samples: [MetricSample]) -> String {
        var text = ""
        for sample in samples {
            text += "# HELP \(sample.name) \(sample.help)\n"
            text += "# TYPE \(sample.name) \(sample.kind.rawValue)\n"
            text += "\(sample.name) \(format(sample.value))\n"
        }
        return text
    }

    private static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
