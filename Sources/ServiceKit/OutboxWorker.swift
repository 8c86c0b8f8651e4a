import Foundation
import Logging
import Synchronization

/// The thread every outbox sender runs (mail, webhook deliveries, Slack), so each sender is
/// only what it sends and how it judges an answer. Each turn runs the sender's `round` without
/// the lock: the round claims due rows (through `LeasedQueue`, so instances never hold one row
/// at once), does the slow work with no transaction open, and records the outcomes. It answers
/// how long to rest: zero to look again at once (it claimed a full batch). Then, when due, the
/// housekeeping: the `/metrics` gauges re-read from the table (all instances), and an hourly
/// prune of finished rows. A failing database is logged and tried again on the next turn.
package final class OutboxWorker: Sendable {
    /// What the worker keeps up besides sending.
    package struct Housekeeping: Sendable {
        /// How often `refreshCounts` runs.
        package var countsInterval: Duration
        package var pruneInterval: Duration = .seconds(3600)
        package var refreshCounts: @Sendable () throws -> Void
        package var prune: @Sendable () throws -> Void

        package init(countsInterval: Duration, refreshCounts: @escaping @Sendable () throws -> Void,
                     prune: @escaping @Sendable () throws -> Void) {
            self.countsInterval = countsInterval
            self.refreshCounts = refreshCounts
            self.prune = prune
        }
    }

    private let loop: BackgroundLoop
    /// What the log lines call the outbox ("mail outbox").
    private let subject: String
    private let logger: Logger
    private let lastRun = Mutex<(counts: ContinuousClock.Instant?, prune: ContinuousClock.Instant?)>((nil, nil))

    package init(name: String, subject: String, logger: Logger) {
        loop = BackgroundLoop(name: name)
        self.subject = subject
        self.logger = logger
    }

    /// Starts the thread; false when already started or stopped. `hasNewWork` is asked with
    /// the lock held before resting: work that `wake()` announced during the round is not left
    /// waiting for the rest to end.
    @discardableResult
    package func start(round: @escaping @Sendable () -> Duration, housekeeping: Housekeeping,
                       hasNewWork: (@Sendable () -> Bool)? = nil) -> Bool {
        loop.start { [self] in
            loop.condition.unlock()
            let rest = round()
            housekeep(housekeeping)
            loop.condition.lock()
            guard !loop.isStopped, rest > .zero, !(hasNewWork?() ?? false) else { return }
            _ = loop.condition.wait(until: Date().addingTimeInterval(rest.timeInterval))
        }
    }

    /// Cuts the rest short: new work arrived (from another thread).
    package func wake() {
        loop.condition.lock()
        loop.condition.signal()
        loop.condition.unlock()
    }

    /// Stops the thread once the round in flight ends (the sender bounds it: its transport's
    /// timeout, or a cancellation it triggers first).
    package func stop() {
        loop.stop()
    }

    /// Records one claimed row's outcome with `finish` (false: the claim was lost). A failure
    /// to record is logged: the lease ends and the row is tried again, at least once, never lost.
    /// `what` names the row in the log ("mail"); `metadata` identifies it.
    package func record(_ what: String, metadata: Logger.Metadata, _ finish: () throws -> Bool) {
        do {
            if try !finish() {
                logger.warning("\(what) claim lost before its outcome was recorded (lease too short?)", metadata: metadata)
            }
        } catch {
            logger.warning("cannot record a \(what) outcome",
                           metadata: metadata.merging(["error": .string(String(describing: error))]) { $1 })
        }
    }

    /// Logs that the outbox could not be read; the round rests and tries again.
    package func unavailable(_ error: any Error) {
        logger.warning("\(subject) unavailable", metadata: ["error": .string(String(describing: error))])
    }

    private func housekeep(_ housekeeping: Housekeeping) {
        let now = ContinuousClock.now
        let (countsDue, pruneDue) = lastRun.withLock { last in
            let counts = last.counts.map { now - $0 >= housekeeping.countsInterval } ?? true
            let prune = last.prune.map { now - $0 >= housekeeping.pruneInterval } ?? true
            if counts { last.counts = now }
            if prune { last.prune = now }
            return (counts, prune)
        }
        do {
            if pruneDue { try housekeeping.prune() }
            if countsDue { try housekeeping.refreshCounts() }
        } catch {
            logger.warning("\(subject) housekeeping failed", metadata: ["error": .string(String(describing: error))])
        }
    }
}
