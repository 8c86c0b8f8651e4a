import Foundation
import Logging
import Store

/// Prunes the sync feed's access history on a background thread: at start, then every
/// `interval`. Every instance runs one; pruning is idempotent, so replicas need no election.
final class SyncHistoryPruner: @unchecked Sendable {
    private let feed: SyncFeed
    private let keep: Duration
    private let interval: Duration
    private let logger: Logger
    private let loop = BackgroundLoop(name: "sync-pruner")

    init(feed: SyncFeed, keep: Duration, interval: Duration, logger: Logger) {
        self.feed = feed
        self.keep = keep
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
            let deleted = try feed.prune(keep: keep)
            if deleted > 0 { logger.info("pruned sync history", metadata: ["records": "\(deleted)"]) }
        } catch {
            logger.warning("cannot prune sync history; will retry", metadata: ["error": "\(error)"])
        }
        loop.condition.lock()
        let deadline = Date().addingTimeInterval(interval.timeInterval)
        while !loop.isStopped && loop.condition.wait(until: deadline) {}
    }
}
