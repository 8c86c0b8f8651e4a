import Foundation
import HTTP1
import HTTPServer
import Logging
import Postgres
import Store

/// The sync feed of one server instance: page reads, long-poll waiters, and the one LISTEN
/// connection that wakes them when any instance's writes commit.
public final class SyncService: Sendable {
    public static let channel = "dispatch_sync"
    /// The longest `wait` a client may ask for (contract §6).
    public static let maxWaitSeconds = 60
    /// How long revocation history is kept; older cursors answer 410 resync_required.
    public static let historyRetention: Duration = .seconds(30 * 24 * 3600)

    public let feed: SyncFeed
    let waiters: SyncWaiters
    private let listener: PostgresListener?
    private let pruner: SyncHistoryPruner
    private let logger: Logger

    public init(pool: PostgresPool, maxPageBytes: Int = SyncFeed.defaultMaxPageBytes, logger: Logger = Logger(label: "sync")) {
        let feed = SyncFeed(pool: pool, maxPageBytes: maxPageBytes)
        self.feed = feed
        let waiters = SyncWaiters(audience: { try feed.audience(since: $0) })
        self.waiters = waiters
        self.logger = logger
        pruner = SyncHistoryPruner(feed: feed, keep: Self.historyRetention, interval: .seconds(3600), logger: logger)
        // Notifications sent while the listener was reconnecting are lost: wake everyone.
        listener = try? PostgresListener(configuration: pool.configuration.connection, channels: [Self.channel],
                                         logger: logger, onReconnect: { waiters.notifyChange() },
                                         onNotification: { _, _ in waiters.notifyChange() })
    }

    /// Starts listening and the hourly history pruning. Idempotent. (A long-poll also starts
    /// the listener, for embedders that never call this.)
    public func start() {
        listener?.start()
        pruner.start()
    }

    public func stop() {
        pruner.stop()
        listener?.stop()
        waiters.stop()
    }

    /// Long-poll requests currently parked (the `sync_waiters` gauge).
    public var waiterCount: Int { waiters.count }
    /// Page re-reads done for parked requests (`sync_waiter_checks_total`).
    public var waiterChecks: Int { waiters.checks }

    /// Makes sure notifications reach this instance before a request relies on them. Bounded:
    /// with the database unreachable the request still ends at its deadline.
    func ensureListening() {
        guard let listener, !listener.isListening else { return }
        listener.start()
        _ = listener.waitUntilListening(timeout: .seconds(2))
    }

    /// Deletes revocation history older than the retention; cursors from before answer 410.
    @discardableResult
    public func pruneHistory(keep: Duration = SyncService.historyRetention) throws -> Int {
        try feed.prune(keep: keep)
    }

    static func render(_ page: SyncPage) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                     body: Array(page.json().utf8))
    }

    /// `httpError(for:)` for the failures it knows; anything else (an `UnknownStoredValue`)
    /// passes on unchanged, so `ErrorMiddleware` logs it and answers 500.
    static func mapped(_ error: any Error) -> any Error {
        switch error {
        case is SyncFeedError, is HTTPError, is PostgresError: httpError(for: error)
        default: error
        }
    }

    static func httpError(for error: any Error) -> HTTPError {
        switch error {
        case SyncFeedError.invalidCursor:
            return HTTPError(status: .badRequest, code: "invalid_cursor",
                             message: "The since cursor is not one this server issued.",
                             hint: "Start over without since (a full snapshot).")
        case SyncFeedError.resyncRequired:
            return HTTPError(status: .gone, code: "resync_required",
                             message: "This cursor is too old to be served; its history was pruned.",
                             hint: "Drop local data and sync again without since.")
        case let error as HTTPError:
            return error
        case let error as PostgresError:
            return DatabaseErrorMapping.httpError(for: error)
        default:
            return DatabaseErrorMapping.internalError
        }
    }
}
