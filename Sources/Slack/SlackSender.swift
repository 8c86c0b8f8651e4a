import Foundation
import Logging
import OutboundHTTP
import ServiceKit
import Store

/// The instance's Slack sender, on its own thread (never an HTTP worker): each turn turns new
/// history into posts (`SlackEventScan`), sends the due follow-ups to `response_url`, and at
/// most one post to the incoming webhook (the pace gate in `SlackOutboxStore.claimPost`). No
/// transaction is open while it talks to Slack.
extension SlackService {
    package func start() {
        worker.start(round: { [self] in work() }, housekeeping: OutboxWorker.Housekeeping(countsInterval: .seconds(15), refreshCounts: { [self] in
            let stored = try outbox.counts()
            counts.withLock { $0.pending = stored.pending; $0.deadStored = stored.dead }
        }, prune: { [self] in try outbox.prune(olderThan: settings.retention) }))
    }

    /// Stops the thread after the attempt in flight (bounded by the transport's timeout).
    package func stop() {
        worker.stop()
    }

    /// One round; how long to rest before the next: the pace after a post (the webhook's gate
    /// opens then), else the poll interval.
    package func work() -> Duration {
        var rest = settings.pollInterval
        do {
            // Without an integration there is nothing to read or send: one cheap query a turn.
            guard try integrations.get() != nil else { return rest }
            try queueNewEvents()
            for message in try outbox.claimResponses(limit: 10, lease: settings.lease) { deliver(message) }
            if let post = try outbox.claimPost(lease: settings.lease) {
                deliver(post)
                rest = min(rest, settings.pace + .milliseconds(50))
            }
        } catch {
            worker.unavailable(error)
        }
        return rest
    }

    /// New history rows of the chosen event types become queued posts.
    func queueNewEvents() throws {
        guard let (events, through) = try scan.read(lookBack: settings.lookBack) else { return }
        for event in events {
            let body = try SlackBlocks.encode(SlackBlocks.message(event, link: taskLink(entityType: event.entityType, id: event.entityID)))
            try outbox.enqueuePost(eventKey: event.key, eventType: event.type, body: body)
        }
        try scan.advance(to: through)
    }

    private func deliver(_ message: SlackOutboxStore.Claimed) {
        let isPost = message.kind == "post"
        var metadata: Logger.Metadata = ["slack_message_id": .string(message.id.uuidString.lowercased()), "kind": .string(message.kind),
                                         "attempt": .stringConvertible(message.attempts)]
        let url: String?
        if isPost {
            url = (try? integrations.get())?.flatMap { seal.open($0.incomingWebhookURL) }
        } else {
            url = message.target.flatMap(seal.open)
        }
        let verdict: SlackVerdict
        var status: Int?
        if let url, settings.allows(url) {
            do {
                let answer = try transport.post(url: url, headers: [], body: Array(message.body.utf8))
                status = answer.status
                metadata["status"] = .stringConvertible(answer.status)
                verdict = SlackVerdict.of(answer, isPost: isPost, attempts: message.attempts, maxAttempts: settings.maxAttempts,
                                          backoff: retryDelay(afterAttempt: message.attempts))
            } catch {
                verdict = SlackVerdict.failed(error.message, attempts: message.attempts, maxAttempts: settings.maxAttempts,
                                              backoff: retryDelay(afterAttempt: message.attempts))
            }
        } else {
            // Sealed under another JWT_SECRET, or outside SLACK_HOOKS_BASE_URL: never sendable.
            verdict = .dead(reason: "the target URL does not open or is not under SLACK_HOOKS_BASE_URL")
        }
        record(message, verdict, status: status, metadata: metadata)
    }

    private func record(_ message: SlackOutboxStore.Claimed, _ verdict: SlackVerdict, status: Int?, metadata: Logger.Metadata) {
        let outcome: SlackOutboxStore.Outcome
        switch verdict {
        case .sent:
            counts.withLock { $0.sent += 1 }
            logger.info("slack message sent", metadata: metadata)
            outcome = .sent(status: status ?? 200)
        case .retry(let after, let reason):
            counts.withLock { $0.failedAttempts += 1 }
            logger.warning("slack attempt failed; will retry", metadata: metadata.merging([
                "error": .string(reason), "retry_in_seconds": .stringConvertible(Int(after.timeInterval)),
            ]) { $1 })
            outcome = .failed(status: status, error: reason, retryAfter: after)
        case .pause(let reason):
            counts.withLock { $0.pauses += 1 }
            logger.error("slack integration paused: the incoming webhook refuses posts; resume it in the console (Integrations) or store it again",
                         metadata: metadata.merging(["reason": .string(reason)]) { $1 })
            outcome = .paused(status: status ?? 0, reason: reason)
        case .invalidPayload(let reason):
            counts.withLock { $0.dead += 1 }
            // Slack will never take this body: a bug in how the server builds messages.
            logger.critical("slack refused the message as invalid: a bug in the server's Block Kit; the message is dead",
                            metadata: metadata.merging(["reason": .string(reason), "body_bytes": .stringConvertible(message.body.utf8.count)]) { $1 })
            outcome = .dead(status: status, error: reason)
        case .dead(let reason):
            counts.withLock { $0.dead += 1 }
            logger.error("slack message dead", metadata: metadata.merging(["reason": .string(reason)]) { $1 })
            outcome = .dead(status: status, error: reason)
        }
        worker.record("slack", metadata: metadata) { try outbox.finish(message, outcome, pace: settings.pace) }
    }

    /// initialRetry × 2^(attempt-1), capped, with jitter (`ExponentialBackoff`).
    package func retryDelay(afterAttempt attempt: Int) -> Duration {
        ExponentialBackoff(initial: settings.initialRetry, maximum: settings.maxRetry).delay(afterAttempt: attempt)
    }
}
