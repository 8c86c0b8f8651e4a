import ServiceKit

extension SyncService: MetricsSource {
    package func writeMetrics(to output: inout PrometheusText) {
        output.family("sync_waiters", type: "gauge", help: "Long-poll GET /v1/sync requests parked on this instance.")
        output.sample("sync_waiters", [], waiterCount)
        output.family("sync_waiter_checks_total", type: "counter", help: "Parked long-poll requests re-checked after a commit or at their deadline.")
        output.sample("sync_waiter_checks_total", [], waiterChecks)
        output.family("sync_waiter_reads_total", type: "counter", help: "Page reads for parked long-poll requests (one per distinct request per wake-up).")
        output.sample("sync_waiter_reads_total", [], waiterReads)
        output.family("sync_waiter_memory_answers_total", type: "counter", help: "Parked long-poll requests answered at their deadline from memory, without a page read.")
        output.sample("sync_waiter_memory_answers_total", [], waiterAnswersFromMemory)
        output.family("sync_idle_memory_answers_total", type: "counter", help: "Idle GET /v1/sync answered from memory, without a feed query.")
        output.sample("sync_idle_memory_answers_total", [], idleAnswersFromMemory)
    }
}
