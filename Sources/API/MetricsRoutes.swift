import HTTP1
import HTTPServer
import Postgres

/// `GET /metrics` in the Prometheus text format, unauthenticated like the other operations
/// routes (contract §5): keep it off the public internet at the proxy.
enum MetricsRoutes {
    static func register(on router: inout Router, metrics: RequestMetrics, pool: PostgresPool?, auth: AuthService?, sync: SyncService?,
                         mail: MailSender? = nil, backups: BackupStatus? = nil) {
        router.get("/metrics", runsOnEventLoop: true) { _, _ in
            var output = PrometheusText()
            metrics.write(to: &output)
            if let pool {
                let stats = pool.stats
                output.family("db_pool_connections", type: "gauge", help: "Database connections by state; waiting counts requests queued for one.")
                output.sample("db_pool_connections", [("state", "in_use")], stats.inUse)
                output.sample("db_pool_connections", [("state", "idle")], stats.idle)
                output.sample("db_pool_connections", [("state", "waiting")], stats.waiting)
                let timings = pool.queryTimings.snapshot
                output.family("db_query_duration_seconds", type: "histogram", help: "Round trip of each database statement (send, execute, read the result).")
                for (bound, count) in zip(QueryTimings.bucketBounds, timings.cumulativeCounts) {
                    output.sample("db_query_duration_seconds_bucket", [("le", PrometheusText.format(bound))], count)
                }
                output.sample("db_query_duration_seconds_bucket", [("le", "+Inf")], timings.count)
                output.sample("db_query_duration_seconds_sum", [], timings.sum)
                output.sample("db_query_duration_seconds_count", [], timings.count)
                output.family("db_after_commit_notify_failures_total", type: "counter",
                              help: "Wake-ups after a committed write that failed; the write was answered as committed and the fan-out's safety read delivered it.")
                output.sample("db_after_commit_notify_failures_total", [], pool.faultCounters.afterCommitNotifyFailures)
                output.family("db_unanswered_statements_total", type: "counter",
                              help: "Statements given up because the database sent no answer within DB_STATEMENT_TIMEOUT plus 2 s; each answered 503.")
                output.sample("db_unanswered_statements_total", [], pool.faultCounters.unansweredStatements)
            }
            if let auth {
                output.family("auth_login_failures_total", type: "counter", help: "Sign-ins refused for a wrong email, password or a deactivated account.")
                output.sample("auth_login_failures_total", [], auth.loginFailures)
            }
            if let sync {
                output.family("sync_waiters", type: "gauge", help: "Long-poll GET /v1/sync requests parked on this instance.")
                output.sample("sync_waiters", [], sync.waiterCount)
                output.family("sync_waiter_checks_total", type: "counter", help: "Parked long-poll requests re-checked after a commit or at their deadline.")
                output.sample("sync_waiter_checks_total", [], sync.waiterChecks)
                output.family("sync_waiter_reads_total", type: "counter", help: "Page reads for parked long-poll requests (one per distinct request per wake-up).")
                output.sample("sync_waiter_reads_total", [], sync.waiterReads)
                output.family("sync_idle_memory_answers_total", type: "counter", help: "Idle GET /v1/sync answered from memory, without a feed query.")
                output.sample("sync_idle_memory_answers_total", [], sync.idleAnswersFromMemory)
            }
            if let mail { MailMetrics.write(mail.counts, to: &output) }
            backups?.writeMetrics(to: &output)
            return .response(HTTPResponse(status: .ok, headers: ["Content-Type": PrometheusText.contentType],
                                          body: Array(output.text.utf8)))
        }
    }
}
