import ServiceKit

/// This instance's push counters since start, and the shared outbox's gauges (every
/// instance), re-read by the sender every few seconds and absent until first read.
package struct PushCounts: Sendable, Equatable {
    package var queued = 0
    package var coalesced = 0
    package var sent = 0
    package var failed = 0
    package var droppedStale = 0
    package var dead = 0
    package var devicesRemoved = 0
    package var interrupted = 0
    package var providerTokens = 0
    package var oauthTokens = 0
    package var pending: Int?
    package var deadStored: Int?
}

extension PushSender: MetricsSource {
    package func writeMetrics(to output: inout PrometheusText) {
        let counts = counts
        let counters: [(String, String, Int)] = [
            ("push_queued_total", "Wake-ups queued for a device.", counts.queued),
            ("push_coalesced_total", "Changes folded into a wake-up already pending for the device.", counts.coalesced),
            ("push_sent_total", "Wake-ups the provider accepted.", counts.sent),
            ("push_failures_total", "Attempts that failed and will be retried (5xx, 429, network).", counts.failed),
            ("push_dropped_stale_total", "Wake-ups dropped because they were owed too long to be worth sending.", counts.droppedStale),
            ("push_dead_total", "Wake-ups given up (a token the provider refused, a request it rejected).", counts.dead),
            ("push_devices_removed_total", "Devices removed because the provider no longer knows their token.", counts.devicesRemoved),
            ("push_interrupted_total", "Wake-ups whose earlier send was cut short (a killed sender), postponed by one interval.",
             counts.interrupted),
            ("push_provider_tokens_total", "Provider authentication tokens (APNs JWTs) signed.", counts.providerTokens),
            ("push_fcm_access_tokens_total", "OAuth access tokens fetched for FCM.", counts.oauthTokens),
        ]
        for (name, help, value) in counters {
            output.family(name, type: "counter", help: help)
            output.sample(name, [], value)
        }
        if let pending = counts.pending {
            output.family("push_outbox_pending", type: "gauge", help: "Wake-ups waiting, all instances.")
            output.sample("push_outbox_pending", [], pending)
        }
        if let dead = counts.deadStored {
            output.family("push_outbox_dead", type: "gauge", help: "Dead wake-ups kept (7 days), all instances.")
            output.sample("push_outbox_dead", [], dead)
        }
    }
}
