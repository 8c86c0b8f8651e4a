import Credentials
import Foundation
import Logging
import ServiceKit
import Store
import Synchronization

/// Delivers `webhook_deliveries` on its own thread — never an event loop or an HTTP worker —
/// so a slow receiver slows no request. Every instance runs one; the lease
/// (`WebhookDeliveryQueue.claim`) keeps them from sending one delivery at the same time, and
/// no transaction is open while a request is in flight.
///
/// Each turn claims a batch of due deliveries, signs and POSTs each (`WebhookHTTPClient`), and
/// records the outcome: a 2xx is success; 410 kills the delivery and disables the endpoint;
/// anything else (3xx included, a timeout, a reset) is retried on `WebhookRetrySchedule`,
/// honouring `Retry-After`, until the attempts are used up (dead). An endpoint whose every
/// attempt failed for `disableAfter` is disabled.
package final class WebhookSender: Sendable {
    package struct Policy: Sendable {
        package var batchSize = 10
        /// How long a claim holds a delivery: longer than the client's timeout.
        package var lease: Duration = .seconds(120)
        package var pollInterval: Duration = .seconds(1)
        package var schedule = WebhookRetrySchedule()
        /// Failing this long (no success in between) disables an endpoint.
        package var disableAfter: Duration = .seconds(5 * 86_400)
        package var countsInterval: Duration = .seconds(15)
        /// Finished deliveries (each carries its event) are deleted after this long.
        package var retention: Duration = .seconds(30 * 86_400)
        package init() {}
    }

    package let queue: WebhookDeliveryQueue
    package let endpoints: WebhookEndpointStore
    package let seal: SecretSeal
    package let client: WebhookHTTPClient
    package let policy: Policy
    /// Mails an endpoint's creator when the server disables it; nil: nobody is told.
    let notice: WebhookDisabledNotice?
    private let logger: Logger
    private let worker: OutboxWorker
    private let state = Mutex(WebhookCounts())
    private let stopping = Atomic<Bool>(false)

    package init(service: WebhookService, client: WebhookHTTPClient, policy: Policy = Policy(),
                 notice: WebhookDisabledNotice? = nil, logger: Logger) {
        self.notice = notice
        queue = WebhookDeliveryQueue(pool: service.pool)
        endpoints = service.endpoints
        seal = service.seal
        self.client = client
        self.policy = policy
        self.logger = logger
        worker = OutboxWorker(name: "webhook-sender", subject: "webhook deliveries", logger: logger)
    }

    package var counts: WebhookCounts { state.withLock { $0 } }

    package func start() {
        worker.start(round: { [self] in
            deliverDueBatch() < policy.batchSize ? policy.pollInterval : .zero
        }, housekeeping: OutboxWorker.Housekeeping(countsInterval: policy.countsInterval, refreshCounts: { [self] in
            let stored = try queue.counts()
            state.withLock { $0.pending = stored.pending; $0.deadStored = stored.dead }
        }, prune: { [self] in try queue.prune(olderThan: policy.retention) }))
    }

    /// Stops the thread once the request in flight (bounded by the client's timeout) ends.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        worker.stop()
    }

    private func deliverDueBatch() -> Int {
        let batch: [WebhookDeliveryQueue.Claimed]
        do {
            batch = try queue.claim(limit: policy.batchSize, lease: policy.lease)
        } catch {
            worker.unavailable(error)
            return 0
        }
        for delivery in batch {
            if stopping.load(ordering: .relaxed) { break }
            let outcome = attempt(delivery)
            worker.record("webhook", metadata: ["delivery_id": .string(delivery.id.uuidString)]) {
                let recorded = try queue.finish(delivery, outcome.delivery)
                try outcome.endpoint?(self)
                return recorded
            }
        }
        return batch.count
    }

    func count(_ change: (inout WebhookCounts) -> Void) {
        state.withLock { change(&$0) }
    }

    var log: Logger { logger }

    /// Counts a disabling and tells the creator (a failed mail is logged, never fatal).
    func disabled(_ endpoint: WebhookEndpoint) {
        count { $0.endpointsDisabled += 1 }
        do {
            try notice?.send(endpoint)
        } catch {
            logger.warning("cannot queue the mail telling a webhook's creator it was disabled",
                           metadata: ["endpoint_id": .string(endpoint.id.uuidString), "error": .string(String(describing: error))])
        }
    }
}

