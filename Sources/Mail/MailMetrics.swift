import ServiceKit
/// The `mail_*` families of `GET /metrics`. Counters are this instance's since start;
/// the `mail_outbox_*` gauges are the shared outbox (every instance), re-read by the sender
/// every few seconds, and absent until first read.
package enum MailMetrics {
    static func write(_ counts: MailSender.Counts, to output: inout PrometheusText) {
        output.family("mail_sent_total", type: "counter", help: "Mails this instance handed to the relay (or dev mail directory).")
        output.sample("mail_sent_total", [], counts.sent)
        output.family("mail_attempt_failures_total", type: "counter", help: "Delivery attempts that failed and will be retried.")
        output.sample("mail_attempt_failures_total", [], counts.failedAttempts)
        output.family("mail_dead_total", type: "counter", help: "Mails this instance gave up on after MAIL_MAX_ATTEMPTS attempts.")
        output.sample("mail_dead_total", [], counts.dead)
        if let pending = counts.pending {
            output.family("mail_outbox_pending", type: "gauge", help: "Mails waiting for delivery, all instances.")
            output.sample("mail_outbox_pending", [], pending)
        }
        if let dead = counts.deadStored {
            output.family("mail_outbox_dead", type: "gauge", help: "Dead mails kept in the outbox (30 days), all instances.")
            output.sample("mail_outbox_dead", [], dead)
        }
    }
}

extension MailSender: MetricsSource {
    package func writeMetrics(to output: inout PrometheusText) {
        MailMetrics.write(counts, to: &output)
    }
}
