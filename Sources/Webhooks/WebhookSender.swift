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
        /// Finished deliveries (and their events) are deleted after this long.
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
    private let loop = BackgroundLoop(name: "webhook-sender")
    private let state = Mutex(WebhookCounts())
    private let stopping = Atomic<Bool>(false)
    private let housekeeping = Mutex<(counts: ContinuousClock.Instant?, prune: ContinuousClock.Instant?)>((nil, nil))

    package init(service: WebhookService, client: WebhookHTTPClient, policy: Policy = Policy(),
                 notice: WebhookDisabledNotice? = nil, logger: Logger) {
        self.notice = notice
        queue = WebhookDeliveryQueue(pool: service.pool)
        endpoints = service.endpoints
        seal = service.seal
        self.client = client
        self.policy = policy
        self.logger = logger
    }

    package var counts: WebhookCounts { state.withLock { $0 } }

    package func start() {
        loop.start { [self] in turn() }
    }

    /// Stops the thread once the request in flight (bounded by the client's timeout) ends.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
        loop.stop()
    }

    /// Called with the loop's lock held; unlocks around the database and HTTP work.
    private func turn() {
        loop.condition.unlock()
        let delivered = deliverDueBatch()
        housekeep()
        loop.condition.lock()
        guard !loop.isStopped, delivered < policy.batchSize else { return }
        _ = loop.condition.wait(until: Date().addingTimeInterval(policy.pollInterval.timeInterval))
    }

    private func deliverDueBatch() -> Int {
        let batch: [WebhookDeliveryQueue.Claimed]
        do {
            batch = try queue.claim(limit: policy.batchSize, lease: policy.lease)
        } catch {
            logger.warning("webhook deliveries unavailable", metadata: ["error": .string(String(describing: error))])
            return 0
        }
        for delivery in batch {
            if stopping.load(ordering: .relaxed) { break }
            let outcome = attempt(delivery)
            do {
                if try !queue.finish(delivery, outcome.delivery) {
                    logger.warning("webhook claim lost before its outcome was recorded (lease too short?)",
                                   metadata: ["delivery_id": .string(delivery.id.uuidString)])
                }
                try outcome.endpoint?(self)
            } catch {
                // The lease ends and the delivery is tried again: at least once, never lost.
                logger.warning("cannot record a webhook outcome", metadata: ["delivery_id": .string(delivery.id.uuidString),
                                                                             "error": .string(String(describing: error))])
            }
        }
        return batch.count
    }

    private func housekeep() {
        let now = ContinuousClock.now
        let (countsDue, pruneDue) = housekeeping.withLock { last in
            let counts = last.counts.map { now - $0 >= policy.countsInterval } ?? true
            let prune = last.prune.map { now - $0 >= .seconds(3600) } ?? true
            if counts { last.counts = now }
            if prune { last.prune = now }
            return (counts, prune)
        }
        do {
            if pruneDue { try queue.prune(olderThan: policy.retention) }
            if countsDue {
                let stored = try queue.counts()
                state.withLock { $0.pending = stored.pending; $0.deadStored = stored.dead }
            }
        } catch {
            logger.warning("webhook housekeeping failed", metadata: ["error": .string(String(describing: error))])
        }
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

