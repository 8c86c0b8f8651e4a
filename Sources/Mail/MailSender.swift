import Foundation
import Logging
import ServiceKit
import Synchronization

/// Delivers `mail_outbox` on its own thread — never an event loop or an HTTP worker — so a
/// slow or dead relay slows no request. Every instance runs one; `MailQueue.claim` keeps
/// them from sending one mail twice.
///
/// Each turn claims a batch of due mail, hands each to the transport, and records the
/// outcome: sent (message dropped), failed (retried after an exponential backoff with
/// jitter), or dead after `maxAttempts` (message dropped, logged as an error and counted in
/// `mail_dead_total`). With nothing due it sleeps `pollInterval`; a database error is logged
/// and retried on the next turn.
public final class MailSender: Sendable {
    public struct Policy: Sendable {
        public var batchSize = 10
        /// How long a claim holds a mail: longer than the transport's timeout.
        public var lease: Duration = .seconds(300)
        public var pollInterval: Duration = .seconds(1)
        /// Attempts before a mail is dead (MAIL_MAX_ATTEMPTS).
        public var maxAttempts = 10
        /// The wait after the first failure (MAIL_RETRY_INITIAL); doubles per attempt up to `maxRetry`.
        public var initialRetry: Duration = .seconds(30)
        public var maxRetry: Duration = .seconds(3600)
        /// How often the `mail_outbox_*` gauges are re-read from the database.
        public var countsInterval: Duration = .seconds(15)
        /// Sent and dead rows (already without their message) are deleted after this long.
        public var retention: Duration = .seconds(30 * 86_400)
        public init() {}
    }

    /// Counters and gauges for `/metrics`.
    public struct Counts: Sendable, Equatable {
        public var sent = 0
        public var failedAttempts = 0
        public var dead = 0
        /// Read from the database every `countsInterval` (all instances); nil until then.
        public var pending: Int?
        public var deadStored: Int?
    }

    public let queue: MailQueue
    public let transport: any MailTransport
    public let policy: Policy
    /// MAIL FROM: SMTP_SENDER's address (bounces go there).
    public let envelopeSender: String
    private let logger: Logger
    private let worker: OutboxWorker
    private let cancellation = MailCancellation()
    private let state = Mutex(Counts())

    public init(queue: MailQueue, transport: any MailTransport, envelopeSender: String, policy: Policy = Policy(), logger: Logger) {
        self.queue = queue
        self.envelopeSender = envelopeSender
        self.transport = transport
        self.policy = policy
        self.logger = logger
        worker = OutboxWorker(name: "mail-sender", subject: "mail outbox", logger: logger)
    }

    public var counts: Counts { state.withLock { $0 } }

    public func start() {
        worker.start(round: { [self] in
            deliverDueBatch() < policy.batchSize ? policy.pollInterval : .zero
        }, housekeeping: OutboxWorker.Housekeeping(countsInterval: policy.countsInterval, refreshCounts: { [self] in
            let stored = try queue.counts()
            state.withLock { $0.pending = stored.pending; $0.deadStored = stored.dead }
        }, prune: { [self] in try queue.prune(olderThan: policy.retention) }))
    }

    /// Stops the thread; an attempt in flight is aborted (its mail is retried after the lease).
    public func stop() {
        cancellation.cancel()
        worker.stop()
    }

    /// Claims and delivers one batch; the number claimed (a full batch: look again at once).
    private func deliverDueBatch() -> Int {
        let batch: [MailQueue.Claimed]
        do {
            batch = try queue.claim(limit: policy.batchSize, lease: policy.lease)
        } catch {
            worker.unavailable(error)
            return 0
        }
        for mail in batch {
            if cancellation.isCancelled { break }
            let outcome = attempt(mail)
            worker.record("mail", metadata: ["mail_id": .string(mail.id.uuidString)]) { try queue.finish(mail, outcome) }
        }
        return batch.count
    }

    private func attempt(_ mail: MailQueue.Claimed) -> MailQueue.Outcome {
        let metadata: Logger.Metadata = ["mail_id": .string(mail.id.uuidString), "kind": .string(mail.kind),
                                         "attempt": .stringConvertible(mail.attempts)]
        do {
            try transport.deliver(mail.message, from: envelopeSender, to: mail.recipient, cancellation: cancellation)
            state.withLock { $0.sent += 1 }
            if !(transport is FileMailTransport) {
                // The file transport logs its own line: that mail was written to disk, not sent.
                logger.info("mail sent", metadata: metadata)
            }
            return .sent
        } catch {
            if mail.attempts >= policy.maxAttempts {
                state.withLock { $0.dead += 1 }
                logger.error("mail dead: giving up after \(mail.attempts) attempts",
                             metadata: metadata.merging(["error": .string(error.message)]) { $1 })
                return .dead(error: error.message)
            }
            state.withLock { $0.failedAttempts += 1 }
            let retry = retryDelay(afterAttempt: mail.attempts)
            logger.warning("mail attempt failed; will retry", metadata: metadata.merging([
                "error": .string(error.message), "retry_in_seconds": .stringConvertible(Int(retry.timeInterval)),
            ]) { $1 })
            return .failed(error: error.message, retryAfter: retry)
        }
    }

    /// initialRetry × 2^(attempt-1), capped at maxRetry, with jitter (`ExponentialBackoff`).
    package func retryDelay(afterAttempt attempt: Int) -> Duration {
        ExponentialBackoff(initial: policy.initialRetry, maximum: policy.maxRetry).delay(afterAttempt: attempt)
    }
}
