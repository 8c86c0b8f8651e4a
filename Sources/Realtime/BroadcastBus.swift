import Foundation
import Logging
import Postgres
import ServiceKit
import Synchronization

/// Realtime broadcast across instances, through the PostgreSQL they all share: every
/// broadcast a member sends is relayed on its own instance (`BroadcastHub`) and published
/// with NOTIFY on `dispatch_broadcast`; every instance LISTENs there and hands what other
/// instances published to its own members of the topic. Its own notifications come back
/// too (NOTIFY reaches every listener): each carries the publishing instance's id, so the
/// echo is dropped.
///
/// - A publish is one autocommit statement of its own, on a serial queue after the local
///   relay: never inside a write transaction, never holding up the sender's socket.
/// - A message over `inlineLimit` bytes (NOTIFY carries at most 8000) is stored in
///   `realtime_broadcasts` by the same statement and only its id is notified.
/// - Delivery is at most once. While an instance's LISTEN connection is down (and until it
///   has reconnected and LISTENs again) broadcasts from other instances are lost to its
///   members; nothing is replayed after a reconnect, so nothing arrives twice. Supabase
///   Realtime's broadcast gives the same promise.
final class BroadcastBus: Sendable {
    static let channel = "dispatch_broadcast"
    /// Bytes of a message sent inline; NOTIFY's payload limit is 8000.
    static let inlineLimit = 7900
    /// Stored messages older than this are deleted (by the instance that stored them).
    static let storedLifetimeSeconds = 60

    /// Random per process: how an instance recognises its own notifications.
    let instance: String
    private let pool: PostgresPool
    private let listener: PostgresListener?
    private let outbound = BackgroundThread.serialQueue(label: "realtime-broadcast-out")
    private let lastPrune = Mutex<ContinuousClock.Instant?>(nil)
    private let logger: Logger

    /// `listenOn`: a direct connection (never a transaction pooler); nil: this instance only
    /// publishes. `deliver` hands another instance's broadcast to this instance's members.
    init(pool: PostgresPool, listenOn: PostgresConnection.Configuration?, logger: Logger,
         deliver: @escaping @Sendable (_ room: String, BroadcastContent) -> Void) {
        let instance = UUID().uuidString.lowercased()
        self.instance = instance
        self.pool = pool
        self.logger = logger
        // Received in order on one queue, off the listener's thread (a stored message costs a read).
        let inbound = BackgroundThread.serialQueue(label: "realtime-broadcast-in")
        listener = listenOn.flatMap { configuration in
            try? PostgresListener(configuration: configuration, channels: [Self.channel], logger: logger,
                                  onNotification: { _, payload in
                                      inbound.async {
                                          Self.receive(payload, instance: instance, pool: pool, logger: logger, deliver: deliver)
                                      }
                                  })
        }
    }

    /// Starts listening (once) and waits, bounded, until LISTEN is on, so a member who has
    /// joined receives what other instances send from then on.
    func ensureListening() {
        guard let listener else { return }
        listener.start()
        if !listener.isListening { _ = listener.waitUntilListening(timeout: .seconds(2)) }
    }

    func stop() {
        listener?.stop()
        outbound.sync {}
    }

    /// The server process id of the LISTEN connection (tests terminate it).
    var listenerBackendPID: Int32? { listener?.backendPID }

    /// Sends `content` for broadcast room `room` (`BroadcastHub`) to the other instances
    /// (asynchronously, in order); the wire's `topic` field carries the room.
    func publish(_ content: BroadcastContent, room: String) {
        let message = BroadcastWire.encode(content, topic: room, instance: instance)
        outbound.async { [self] in
            do {
                if message.utf8.count <= Self.inlineLimit {
                    try pool.execute("SELECT pg_notify(\(Self.channel), \(message))")
                } else {
                    try pool.execute("""
                        WITH stored AS (INSERT INTO realtime_broadcasts (body) VALUES (\(message)) RETURNING id)
                        SELECT pg_notify(\(Self.channel), json_build_object('i', \(instance)::text, 'r', id)::text) FROM stored
                        """)
                    pruneIfDue()
                }
            } catch {
                logger.warning("broadcast not sent to other instances", metadata: ["error": "\(error)"])
            }
        }
    }

    private func pruneIfDue() {
        let now = ContinuousClock.now
        let due = lastPrune.withLock { last -> Bool in
            guard last.map({ now - $0 > .seconds(Self.storedLifetimeSeconds) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        _ = try? pool.execute("""
            DELETE FROM realtime_broadcasts WHERE created_at < now() - make_interval(secs => \(Self.storedLifetimeSeconds))
            """)
    }

    /// One notification: dropped when it is this instance's echo; a stored one is read first.
    private static func receive(_ payload: String, instance: String, pool: PostgresPool, logger: Logger,
                                deliver: @Sendable (String, BroadcastContent) -> Void) {
        guard let envelope = BroadcastWire.Envelope(payload), envelope.instance != instance else { return }
        var message = envelope
        if let id = envelope.storedID {
            let body = try? pool.query("SELECT body FROM realtime_broadcasts WHERE id = \(id)").first?.decode("body", as: String.self)
            guard let body, let stored = BroadcastWire.Envelope(body) else {
                logger.warning("stored broadcast not found", metadata: ["id": "\(id)"])
                return
            }
            message = stored
        }
        guard let topic = message.topic, let content = message.content else { return }
        deliver(topic, content)
    }
}
