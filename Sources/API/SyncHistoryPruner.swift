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
    // Guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var started = false
    private var stopped = false
    private var finished = false

    init(feed: SyncFeed, keep: Duration, interval: Duration, logger: Logger) {
        self.feed = feed
        self.keep = keep
        self.interval = interval
        self.logger = logger
    }

    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started, !stopped else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "sync-pruner"
        thread.start()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while started && !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !stopped {
            condition.unlock()
            do {
                let deleted = try feed.prune(keep: keep)
                if deleted > 0 { logger.info("pruned sync history", metadata: ["records": "\(deleted)"]) }
            } catch {
                logger.warning("cannot prune sync history; will retry", metadata: ["error": "\(error)"])
            }
            condition.lock()
            let deadline = Date().addingTimeInterval(interval.timeInterval)
            while !stopped && condition.wait(until: deadline) {}
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
