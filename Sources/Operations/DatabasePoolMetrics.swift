import Postgres
import ServiceKit

/// The database pool's connections, statement timings and fault counters for `/metrics`.
package struct DatabasePoolMetrics: MetricsSource {
    package let pool: PostgresPool

    package init(pool: PostgresPool) {
        self.pool = pool
    }

    package func writeMetrics(to output: inout PrometheusText) {
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
}
