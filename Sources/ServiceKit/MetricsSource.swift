/// What a capability contributes to `GET /metrics`: its families, written in the Prometheus
/// text format. The operations routes iterate the sources the composition root lists, so
/// `/metrics` names no service and a new engine adds its metrics by conforming.
package protocol MetricsSource: Sendable {
    func writeMetrics(to output: inout PrometheusText)
}
