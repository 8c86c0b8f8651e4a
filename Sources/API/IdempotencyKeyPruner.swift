import Foundation
import Logging
import Store

/// Deletes `Idempotency-Key` answers past their 24 hours on a background thread: at start,
/// then every `interval`. Every instance runs one; deleting is idempotent, so replicas need no
/// election (as `SyncHistoryPruner`).
final class IdempotencyKeyPruner: @unchecked Sendable {
    private let store: IdempotencyKeyStore
    private let interval: Duration
    private let logger: Logger
    private let loop = BackgroundLoop(name: "idempotency-pruner")

    init(store: IdempotencyKeyStore, interval: Duration, logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    func start() {
        loop.start { [self] in pruneThenWait() }
    }

    func stop() {
        loop.stop()
    }

    /// One turn of the loop (lock held): prune without the lock, then sleep until the next
    /// round or `stop()`.
    private func pruneThenWait() {
        loop.condition.unlock()
        do {
            let deleted = try store.prune()
            if deleted > 0 { logger.info("pruned idempotency keys", metadata: ["keys": "\(deleted)"]) }
        } catch {
            logger.warning("cannot prune idempotency keys; will retry", metadata: ["error": "\(error)"])
        }
        loop.condition.lock()
        let deadline = Date().addingTimeInterval(interval.timeInterval)
        while !loop.isStopped && loop.condition.wait(until: deadline) {}
    }
}
