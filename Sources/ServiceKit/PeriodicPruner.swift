import Foundation
import Postgres
import Logging

/// Deletes what has outlived its retention on a background thread: at start, then every
/// `interval`. Every instance runs its own; deleting is idempotent, so replicas need no
/// election.
package final class PeriodicPruner: @unchecked Sendable {
    /// What the rows are, for the log ("sync history", "idempotency keys").
    private let what: String
    private let interval: Duration
    private let logger: Logger
    private let prune: @Sendable () throws -> Int
    private let loop: BackgroundLoop

    /// `prune` deletes what is due and answers how many rows it deleted.
    package init(name: String, what: String, interval: Duration, logger: Logger, prune: @escaping @Sendable () throws -> Int) {
        self.what = what
        self.interval = interval
        self.logger = logger
        self.prune = prune
        loop = BackgroundLoop(name: name)
    }

    package func start() {
        loop.start { [self] in pruneThenWait() }
    }

    package func stop() {
        loop.stop()
    }

    /// One turn of the loop (lock held): prune without the lock, then sleep until the next
    /// round or `stop()`.
    private func pruneThenWait() {
        loop.condition.unlock()
        do {
            let deleted = try prune()
            if deleted > 0 { logger.info("pruned \(what)", metadata: ["rows": "\(deleted)"]) }
        } catch {
            logger.warning("cannot prune \(what); will retry", metadata: ["error": "\(error)"])
        }
        loop.condition.lock()
        let deadline = Date().addingTimeInterval(interval.timeInterval)
        while !loop.isStopped && loop.condition.wait(until: deadline) {}
    }
}
