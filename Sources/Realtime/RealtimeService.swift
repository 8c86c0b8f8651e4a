import Accounts
import Foundation
import Logging
import ServiceKit
import Store
import Sync
import Synchronization

/// Supabase Realtime for one server instance: the Phoenix channel protocol over the
/// WebSocket route `GET /realtime/v1/websocket`, `postgres_changes` from the instance's
/// change stream with contract §2's visibility (RealtimeFeed), and `broadcast` between the
/// members of a topic on this instance (BroadcastHub) and the others (BroadcastBus). Presence is refused.
///
/// Tokens: each channel holds the identity of its join's `access_token` (replaced by
/// `access_token` events); a timer checks every `tokenCheckInterval` and every delivery
/// checks again, so an expired or revoked token closes its channels with a `system` error
/// and `phx_close`.
package final class RealtimeService: Sendable {
    let auth: AuthService
    let sync: SyncService
    let feed: RealtimeFeed
    let hub = BroadcastHub()
    /// Broadcasts to and from the other instances on this database.
    let bus: BroadcastBus
    let limits: RealtimeLimits
    /// Who may join which broadcast topic.
    let access: RealtimeTopicAccess
    let tokenCheckInterval: Duration
    let logger: Logger

    private struct Tracked {
        weak var connection: RealtimeConnection?
    }

    private struct State {
        var connections: [ObjectIdentifier: Tracked] = [:]
        var timerRunning = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let tokenTimer = BackgroundLoop(name: "realtime-tokens")

    /// `publicBroadcast`: public topics carry broadcast between any signed-in users
    /// (`REALTIME_PUBLIC_BROADCAST`); otherwise only private topics do (`RealtimeTopicAccess`).
    package init(auth: AuthService, sync: SyncService, limits: RealtimeLimits = RealtimeLimits(), publicBroadcast: Bool = false,
                tokenCheckInterval: Duration = .seconds(1), logger: Logger = Logger(label: "realtime")) {
        self.auth = auth
        access = RealtimeTopicAccess(publicBroadcast: publicBroadcast, listings: ListingStore(pool: auth.pool))
        self.sync = sync
        self.limits = limits
        self.tokenCheckInterval = tokenCheckInterval
        self.logger = logger
        let feed = RealtimeFeed(feed: sync.feed, logger: logger, requestChange: { sync.requestChangeRead() })
        sync.subscribeToChanges { [weak feed] change in feed?.changed(change) }
        self.feed = feed
        // The change stream's LISTEN target is the direct connection (never a transaction pooler).
        let hub = hub
        bus = BroadcastBus(pool: sync.feed.pool, listenOn: sync.changeStreamConnection, logger: logger) { room, content in
            hub.deliver(content, room: room)
        }
    }

    /// A handler for a new socket, or nil when `vsn` is not a version this server speaks.
    func connection(vsn: String?) -> RealtimeConnection? {
        guard let serializer = PhoenixSerializer(vsn: vsn) else { return nil }
        return RealtimeConnection(serializer: serializer, service: self)
    }

    /// Open connections (`realtime_connections`).
    package var connectionCount: Int { state.withLock { $0.connections.values.count { $0.connection != nil } } }
    /// Subscribed channels with postgres_changes on this instance.
    package var subscriptionCount: Int { feed.count }
    /// Delta reads for realtime subscribers since start.
    package var deltaReads: Int { feed.reads }

    package func stop() {
        let open = state.withLock { state in
            state.stopped = true
            return state.connections.values.compactMap(\.connection)
        }
        open.forEach { $0.closeForShutdown() }
        tokenTimer.stop()
        feed.stop()
        bus.stop()
    }

    func track(_ connection: RealtimeConnection) {
        let startTimer = state.withLock { state -> Bool in
            state.connections[ObjectIdentifier(connection)] = Tracked(connection: connection)
            defer { state.timerRunning = true }
            return !state.timerRunning && !state.stopped
        }
        if startTimer { startTokenTimer() }
    }

    func untrack(_ connection: RealtimeConnection) {
        state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// The server process id of the broadcast LISTEN connection (tests terminate it).
    package var broadcastListenerBackendPID: Int32? { bus.listenerBackendPID }

    /// Arms the change stream for a join: LISTEN is on (bounded wait) before the cursor is taken.
    func ensureListening() {
        sync.ensureListening()
    }

    /// Every `tokenCheckInterval`, each open connection checks its channels' tokens (expired or
    /// revoked ones close their channels).
    private func startTokenTimer() {
        tokenTimer.startEvery(tokenCheckInterval) { [self] in
            let open = state.withLock { state in
                state.connections = state.connections.filter { $0.value.connection != nil }
                return state.connections.values.compactMap(\.connection)
            }
            let now = Date()
            open.forEach { $0.checkTokens(now: now) }
        }
    }
}
