import Domain
import Foundation
import HTTP1
import HTTPServer
import Logging
import Postgres
import RouteKit
import ServiceKit
import Store
import Synchronization

/// The sync feed of one server instance: page reads, the change stream (one LISTEN
/// connection, one shared read per burst of commits: ChangeFanout), the long-poll waiters
/// it wakes, and idle syncs answered from its history without a query (ChangeHistory).
package final class SyncService: Sendable {
    package static let channel = "dispatch_sync"
    /// The longest `wait` a client may ask for (contract §6).
    package static let maxWaitSeconds = 60
    /// How long revocation history is kept; older cursors answer 410 resync_required.
    package static let historyRetention: Duration = .seconds(30 * 24 * 3600)
    /// How long an idle sync waits for the LISTEN connection's fence before asking the
    /// database instead.
    package static let fenceTimeout: Duration = .milliseconds(250)

    package let feed: SyncFeed
    /// Last-seen times and sync health per session or API key, written in batches.
    package let devices: DeviceActivity
    package let fanout: ChangeFanout
    package let waiters: SyncWaiters
    /// Sessions holding a live long-poll or Realtime channel on this instance (push skips them).
    package let liveSessions: LiveSessions
    /// Hourly housekeeping: the feed's access history, and `Idempotency-Key` answers past
    /// 24 hours.
    private let pruner: PeriodicPruner
    private let idempotencyPruner: PeriodicPruner
    private let logger: Logger
    private let memoryAnswers = Mutex(0)

    /// `listenOn`: where the LISTEN connection goes (default: the pool's server), which must
    /// be PostgreSQL itself, never a transaction-mode pooler (docs/operators/pooling.md).
    package init(pool: PostgresPool, listenOn: PostgresConnection.Configuration? = nil,
                maxPageBytes: Int = SyncFeed.defaultMaxPageBytes, deviceFlushInterval: Duration = DeviceActivity.defaultInterval,
                logger: Logger = Logger(label: "sync")) {
        devices = DeviceActivity(store: DeviceHealthStore(pool: pool), interval: deviceFlushInterval, logger: logger)
        let feed = SyncFeed(pool: pool, maxPageBytes: maxPageBytes)
        self.feed = feed
        let fanout = ChangeFanout(connection: listenOn ?? pool.configuration.connection, channel: Self.channel, logger: logger) {
            try feed.audience(since: $0)
        }
        self.fanout = fanout
        let live = LiveSessions()
        liveSessions = live
        let waiters = SyncWaiters(sharedRead: { try feed.sharedPages(viewers: $0, cursor: $1, limit: $2) },
                                  idleAnswer: { Self.idleCursors($0, fanout: fanout) }, live: live,
                                  requestChange: { fanout.requestRead() })
        fanout.subscribe { waiters.changed($0) }
        self.waiters = waiters
        self.logger = logger
        pruner = PeriodicPruner(name: "sync-pruner", what: "sync history", interval: .seconds(3600), logger: logger) {
            try feed.prune(keep: Self.historyRetention)
        }
        let idempotencyKeys = IdempotencyKeyStore(pool: pool)
        idempotencyPruner = PeriodicPruner(name: "idempotency-pruner", what: "idempotency keys", interval: .seconds(3600),
                                           logger: logger) { try idempotencyKeys.prune() }
    }

    /// Starts the change stream and the hourly history pruning. Idempotent. (A long-poll also
    /// starts the stream, for embedders that never call this.)
    package func start() {
        devices.start()
        fanout.start()
        pruner.start()
        idempotencyPruner.start()
    }

    package func stop() {
        pruner.stop()
        idempotencyPruner.stop()
        fanout.stop()
        waiters.stop()
        devices.stop()
    }

    /// Long-poll requests currently parked (the `sync_waiters` gauge).
    package var waiterCount: Int { waiters.count }
    /// Parked requests answered or re-checked after a page read (`sync_waiter_checks_total`).
    package var waiterChecks: Int { waiters.checks }
    /// Page reads done for parked requests: one per distinct request per wake-up.
    package var waiterReads: Int { waiters.reads }
    /// Idle syncs answered from memory, without a database query.
    package var idleAnswersFromMemory: Int { memoryAnswers.withLock { $0 } }
    /// Expired long-polls answered from memory, without a page read.
    package var waiterAnswersFromMemory: Int { waiters.memoryAnswers }
    /// The server process id of this instance's LISTEN connection (tests terminate it).
    package var listenerBackendPID: Int32? { fanout.listener?.backendPID }

    /// Makes sure notifications reach this instance before a request relies on them. Bounded:
    /// with the database unreachable the request still ends at its deadline.
    package func ensureListening() {
        fanout.start()
        guard let listener = fanout.listener, !listener.isListening else { return }
        _ = listener.waitUntilListening(timeout: .seconds(2))
    }

    /// The caller and the empty page of an idle delta when ChangeHistory can prove nothing new
    /// is visible to user `userID` after `cursor`; nil means "ask the database". Costs a share
    /// of one round trip on the LISTEN connection (the fence), no pooled connection and no query.
    package func idlePageFromMemory(userID: UUID, cursor: SyncCursor) -> (Viewer, SyncPage)? {
        guard cursor.since != nil, cursor.position == nil else { return nil }
        fanout.start()
        guard let fence = fanout.listener?.fence(timeout: Self.fenceTimeout),
              let (viewer, next) = fanout.history.idleCursor(for: userID, cursor: cursor, fence: fence)
        else { return nil }
        memoryAnswers.withLock { $0 += 1 }
        return (viewer, SyncPage(next: next))
    }

    /// The `next_since` of each expired long-poll ChangeHistory proves idle (one fence for all,
    /// as `idlePageFromMemory` takes for one); nil where the database must answer.
    static func idleCursors(_ questions: [(Viewer, SyncCursor)], fanout: ChangeFanout) -> [SyncCursor?] {
        guard let fence = fanout.listener?.fence(timeout: fenceTimeout) else { return questions.map { _ in nil } }
        return questions.map { viewer, cursor in
            // The parked request's caller, as remembered now: a role or active flag that
            // changed since it parked leaves it to the database.
            guard let (known, next) = fanout.history.idleCursor(for: viewer.userID, cursor: cursor, fence: fence),
                  known == viewer else { return nil }
            return next
        }
    }

    /// Read before looking up a caller's users row, then pass to `remember`.
    package var usersGeneration: UInt64 { fanout.history.usersGeneration }

    /// The caller's users row as the database answered it (see ChangeHistory).
    package func remember(_ viewer: Viewer, isActive: Bool, tag: UInt64) {
        fanout.history.remember(viewer.userID, isAdmin: viewer.isAdmin, isActive: isActive, tag: tag)
    }

    /// Deletes revocation history older than the retention; cursors from before answer 410.
    @discardableResult
    package func pruneHistory(keep: Duration = SyncService.historyRetention) throws -> Int {
        try feed.prune(keep: keep)
    }

    /// The feed's refusals as the contract's errors; anything else unchanged.
    package static func mapped(_ error: any Error) -> any Error {
        switch error {
        case SyncFeedError.invalidCursor:
            DomainError(.badRequest, .invalidCursor, "The since cursor is not one this server issued.",
                        hint: "Start over without since (a full snapshot).")
        case SyncFeedError.resyncRequired:
            DomainError(.gone, .resyncRequired, "This cursor is too old to be served; its history was pruned.",
                        hint: "Drop local data and sync again without since.")
        case SyncFeedError.epochChanged:
            DomainError(.gone, .resyncRequired, "This cursor was issued before the server's data was restored from a backup.",
                        hint: "Drop local data and sync again without since.")
        default: error
        }
    }
}
