import HTTP1
import HTTPServer
import ServiceKit

/// `GET /metrics` in the Prometheus text format, unauthenticated like the other operations
/// routes (docs/contract.md, "Operations"): keep it off the public internet at the proxy. Each
/// capability writes its own families (`MetricsSource`), in the order the composition root
/// lists them.
enum MetricsRoutes {
    static func register(on router: inout Router, sources: [any MetricsSource]) {
        router.get("/metrics", runsOnEventLoop: true) { _, _ in
            var output = PrometheusText()
            for source in sources { source.writeMetrics(to: &output) }
            return .response(HTTPResponse(status: .ok, headers: ["Content-Type": PrometheusText.contentType],
                                          body: Array(output.text.utf8)))
        }
    }
}
