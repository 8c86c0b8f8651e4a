import ServiceKit

/// `slack_*` in `/metrics`: this instance's sends, failures, pauses, tasks created and refused
/// requests since start, and the outbox's pending and dead messages across instances.
extension SlackService: MetricsSource {
    package func writeMetrics(to output: inout PrometheusText) {
        let counts = counts.withLock { $0 }
        output.family("slack_messages_sent_total", type: "counter", help: "Messages Slack accepted (posts and follow-ups).")
        output.sample("slack_messages_sent_total", [], counts.sent)
        output.family("slack_message_attempts_failed_total", type: "counter", help: "Attempts that will be retried.")
        output.sample("slack_message_attempts_failed_total", [], counts.failedAttempts)
        output.family("slack_messages_dead_total", type: "counter", help: "Messages given up on (invalid payload, attempts used up).")
        output.sample("slack_messages_dead_total", [], counts.dead)
        output.family("slack_pauses_total", type: "counter", help: "Times Slack's answer paused the integration.")
        output.sample("slack_pauses_total", [], counts.pauses)
        output.family("slack_tasks_created_total", type: "counter", help: "Tasks created from Slack commands and shortcuts.")
        output.sample("slack_tasks_created_total", [], counts.tasksCreated)
        output.family("slack_requests_refused_total", type: "counter", help: "Inbound requests refused for a bad or stale signature.")
        output.sample("slack_requests_refused_total", [], counts.refusedRequests)
        if let pending = counts.pending, let dead = counts.deadStored {
            output.family("slack_outbox_pending", type: "gauge", help: "Messages waiting to be sent (all instances).")
            output.sample("slack_outbox_pending", [], pending)
            output.family("slack_outbox_dead", type: "gauge", help: "Dead messages kept for the operator (all instances).")
            output.sample("slack_outbox_dead", [], dead)
        }
    }
}
