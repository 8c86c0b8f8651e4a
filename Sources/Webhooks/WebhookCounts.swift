import ServiceKit

/// This instance's webhook counters since start, and the shared queue's gauges (every
/// instance), re-read by the sender every few seconds and absent until first read.
package struct WebhookCounts: Sendable, Equatable {
    package var delivered = 0
    package var failedAttempts = 0
    package var dead = 0
    package var endpointsDisabled = 0
    package var refusedByGuard = 0
    package var pending: Int?
    package var deadStored: Int?
}

extension WebhookSender: MetricsSource {
    package func writeMetrics(to output: inout PrometheusText) {
        let counts = counts
        output.family("webhook_deliveries_total", type: "counter", help: "Webhook deliveries a receiver accepted with a 2xx.")
        output.sample("webhook_deliveries_total", [], counts.delivered)
        output.family("webhook_attempt_failures_total", type: "counter", help: "Webhook attempts that failed and will be retried.")
        output.sample("webhook_attempt_failures_total", [], counts.failedAttempts)
        output.family("webhook_dead_total", type: "counter", help: "Webhook deliveries given up (attempts used up, or 410).")
        output.sample("webhook_dead_total", [], counts.dead)
        output.family("webhook_endpoints_disabled_total", type: "counter", help: "Endpoints disabled by a 410 or days of failure.")
        output.sample("webhook_endpoints_disabled_total", [], counts.endpointsDisabled)
        output.family("webhook_guard_refusals_total", type: "counter", help: "Attempts refused because the target address is not public.")
        output.sample("webhook_guard_refusals_total", [], counts.refusedByGuard)
        if let pending = counts.pending {
            output.family("webhook_deliveries_pending", type: "gauge", help: "Webhook deliveries waiting, all instances.")
            output.sample("webhook_deliveries_pending", [], pending)
        }
        if let dead = counts.deadStored {
            output.family("webhook_deliveries_dead", type: "gauge", help: "Dead webhook deliveries kept (30 days), all instances.")
            output.sample("webhook_deliveries_dead", [], dead)
        }
    }
}
