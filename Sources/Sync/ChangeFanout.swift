import Foundation
import Logging
import Postgres
import ServiceKit
import Store

/// One instance's change stream: the LISTEN connection, and one thread that, after each
/// burst of notifications, reads *once* what committed since its previous read (one SQL
/// statement, SyncFeed.audience) and hands the result to every subscriber in order. What a
/// subscriber does with it is its own business: long-poll waiters re-read the pages of the
/// users named (SyncWaiters); a realtime feed would do the same for its sockets. The reads
/// are also kept in `history`, which answers idle syncs from memory (ChangeHistory).
///
/// Reads chain: each starts from the previous successful read's snapshot, so together they
/// cover every commit once, whatever the notifications did (they only say *when* to read).
/// After a reconnect, notifications sent meanwhile are lost, so the fanout reads at once; the
/// read is computed from the tables and covers the outage. A failed read is delivered as
/// `nil`: subscribers must treat it as "anyone may have changes".
///
/// A write's wake-up is its own transaction, sent by the writing process right after the
/// commit (migrations/0026). A process killed between the two leaves a commit nobody was told
/// about: nothing is lost (every read starts from the previous read's snapshot), but waiters
/// would sleep until the next write. So the fanout also reads when `safetyInterval` passes
/// without a read: that bounds the delay of such a commit.
package final class ChangeFanout: @unchecked Sendable {
    /// What committed after `base` (nil: the first read) and is visible in `snapshot`, and who
    /// may see it (`everyone`: anyone, e.g. a users row changed or there is no base).
    package struct Change: Sendable {
        package let base: SyncSnapshot?
        package let snapshot: SyncSnapshot
        package let users: Set<UUID>
        package let everyone: Bool

        package init(base: SyncSnapshot?, snapshot: SyncSnapshot, users: Set<UUID>, everyone: Bool) {
            self.base = base
            self.snapshot = snapshot
            self.users = users
            self.everyone = everyone
        }
    }

    package typealias Reader = @Sendable (SyncSnapshot?) throws -> SyncFeed.Audience
    package typealias Subscriber = @Sendable (Change?) -> Void

    /// How long a burst of notifications may settle before the read.
    package let coalescing: Duration
    /// The longest the fanout goes without a read (see the type's comment).
    package let safetyInterval: Duration
    package static let defaultSafetyInterval: Duration = .seconds(5)
    package let history = ChangeHistory()
    private(set) var listener: PostgresListener?
    private let reader: Reader
    private let logger: Logger
    private let loop = BackgroundLoop(name: "change-fanout")
    private var condition: NSCondition { loop.condition }
    // Guarded by `condition`'s lock.
    private var subscribers: [Subscriber] = []
    private var readAt: ContinuousClock.Instant?
    private var generationCount: UInt64 = 0
    /// Only the fanout thread touches these.
    private var lastSnapshot: SyncSnapshot?

    package init(connection: PostgresConnection.Configuration?, channel: String, coalescing: Duration = .milliseconds(20),
         safetyInterval: Duration = ChangeFanout.defaultSafetyInterval, logger: Logger, reader: @escaping Reader) {
        self.coalescing = coalescing
        self.safetyInterval = safetyInterval
        self.reader = reader
        self.logger = logger
        listener = nil
        guard let connection else { return }
        listener = try? PostgresListener(configuration: connection, channels: [channel], logger: logger,
                                         onReconnect: { [weak self] in self?.requestRead(after: .zero) },
                                         onNotification: { [weak self] _, _ in self?.notified() })
    }

    /// Subscribers are called on the fanout thread, one change at a time, in order: keep them short.
    package func subscribe(_ subscriber: @escaping Subscriber) {
        condition.lock()
        subscribers.append(subscriber)
        condition.unlock()
    }

    /// Notifications received so far. A request reads it before its first database read; if
    /// it has moved when the request parks, a change may have been delivered in between.
    package var generation: UInt64 { locked { generationCount } }

    /// Starts the listener and the fanout thread (idempotent); the first read follows at once.
    package func start() {
        listener?.start()
        condition.lock()
        defer { condition.unlock() }
        // The first read is worth more once LISTEN is on (ChangeHistory needs its epoch).
        let started = loop.startLocked(prologue: { [listener] in _ = listener?.waitUntilListening(timeout: .seconds(2)) },
                                       turn: { [self] in readWhenDue() })
        if started, readAt == nil { readAt = .now }
    }

    package func stop() {
        listener?.stop()
        loop.stop()
    }

    /// Asks for a read within `delay` (a subscriber that needs a fresh one, or a reconnect).
    package func requestRead(after delay: Duration = .zero) {
        condition.lock()
        let at = ContinuousClock.now + delay
        if readAt.map({ at < $0 }) ?? true { readAt = at }
        condition.signal()
        condition.unlock()
    }

    /// A notification: counted first (ChangeHistory's proof), then a read after `coalescing`.
    private func notified() {
        history.notified()
        condition.lock()
        generationCount &+= 1
        // The earlier of a read already due (a burst settling) and this one's.
        let at = ContinuousClock.now + coalescing
        if readAt.map({ at < $0 }) ?? true { readAt = at }
        condition.signal()
        condition.unlock()
    }

    // MARK: The thread

    /// One turn of the loop (lock held): wait for the next read to be due, or read and hand
    /// the change to every subscriber (without the lock).
    private func readWhenDue() {
        let now = ContinuousClock.now
        guard let at = readAt, at <= now else {
            let until = readAt ?? now + .seconds(60)
            _ = condition.wait(until: Date().addingTimeInterval((until - now).timeInterval))
            return
        }
        readAt = nil
        let current = subscribers
        condition.unlock()
        let change = readOnce()
        for subscriber in current { subscriber(change) }
        condition.lock()
        // The safety read (see the type's comment), unless a read is due sooner anyway.
        let safety = ContinuousClock.now + safetyInterval
        if readAt.map({ safety < $0 }) ?? true { readAt = safety }
    }

    /// One read from the last good snapshot. The epoch and notification count are taken
    /// *before* the query, as ChangeHistory's proof requires.
    private func readOnce() -> Change? {
        let epoch = listener?.listeningEpoch
        let notificationsBefore = history.notificationCount
        do {
            let audience = try reader(lastSnapshot)
            let change = Change(base: lastSnapshot, snapshot: audience.snapshot, users: audience.users,
                                everyone: audience.everyone)
            lastSnapshot = audience.snapshot
            // Not listening yet: read again soon, so idle syncs can be answered from memory.
            if listener != nil && epoch == nil { requestRead(after: .seconds(1)) }
            history.record(.init(snapshot: audience.snapshot, horizon: audience.horizon, users: audience.users,
                                 everyone: audience.everyone, epoch: epoch, notificationsBefore: notificationsBefore))
            return change
        } catch {
            logger.warning("sync change read failed; every waiter is re-checked", metadata: ["error": "\(error)"])
            history.forget()
            // Retry soon: until a read succeeds, idle syncs go to the database.
            requestRead(after: .seconds(1))
            return nil
        }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
