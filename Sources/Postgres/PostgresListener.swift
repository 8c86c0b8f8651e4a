import CLibPQ
import Foundation
import Logging
import Synchronization

/// LISTENs on channels over a dedicated connection on its own thread and calls `onNotification`
/// for each NOTIFY. After losing the connection it reconnects with backoff, LISTENs again, and
/// calls `onReconnect` — notifications sent while it was down are lost, so subscribers should
/// re-read whatever they track.
///
/// A *fence* (`fence(timeout:)`) is a round trip on the LISTEN connection itself. PostgreSQL
/// signals listening backends when a notifying transaction commits, before that commit is
/// acknowledged to its client, and a listening backend delivers the notifications it was
/// signalled about before the ReadyForQuery of the next command it runs (PostgreSQL ≥ 14,
/// postgres.c). So when a fence returns, every notification of a transaction whose commit was
/// acknowledged before the fence was requested has been handed to `onNotification` — on
/// the connection the fence names (`epoch`): a reconnect in between loses notifications.
public final class PostgresListener: Sendable {
    public typealias NotificationHandler = @Sendable (_ channel: String, _ payload: String) -> Void

    /// A completed fence: the connection it ran on (`epoch`, counted from 1 per successful
    /// LISTEN) and the database's `pg_current_snapshot()` when it ran.
    public struct Fence: Sendable, Equatable {
        public let epoch: UInt64
        public let snapshot: String
    }

    public let configuration: PostgresConnection.Configuration
    public let channels: [String]
    /// Silence after which the listener runs `SELECT 1`, to notice connections that died
    /// without the socket telling us.
    public let probeInterval: Duration
    private let onNotification: NotificationHandler
    private let onReconnect: @Sendable () -> Void
    private let control: ListenerControl
    private let fences = ListenerFences()
    private let state = Mutex(State())
    private let logger: Logger

    private struct State {
        var epoch: UInt64 = 0
        var backendPID: Int32?
    }

    public init(
        configuration: PostgresConnection.Configuration,
        channels: [String],
        probeInterval: Duration = .seconds(30),
        logger: Logger = Logger(label: "postgres.listener"),
        onReconnect: @escaping @Sendable () -> Void = {},
        onNotification: @escaping NotificationHandler
    ) throws {
        self.configuration = configuration
        self.channels = channels
        self.probeInterval = probeInterval
        self.logger = logger
        self.onReconnect = onReconnect
        self.onNotification = onNotification
        self.control = try ListenerControl()
    }

    /// Starts the listener thread (once).
    public func start() {
        guard control.markStarted() else { return }
        let thread = Thread { [self] in
            run()
            control.markFinished()
        }
        thread.name = "postgres-listener"
        thread.start()
    }

    /// Stops the thread and waits for it to exit. No callbacks run after this returns.
    public func stop() {
        control.requestStop()
        control.waitUntilFinished()
    }

    /// Blocks until the listener has issued LISTEN on all channels (after start or a
    /// reconnect), or the timeout passes. Returns whether it is listening.
    public func waitUntilListening(timeout: Duration) -> Bool {
        control.waitUntilListening(timeout: timeout)
    }

    public var isListening: Bool { control.isListening }

    /// The current connection's epoch while listening, nil while (re)connecting. Read it
    /// before an action that relies on notifications; if a fence later reports the same
    /// epoch, no notification was lost in between.
    public var listeningEpoch: UInt64? {
        guard control.isListening else { return nil }
        return state.withLock { $0.epoch }
    }

    /// The server process id of the LISTEN connection (tests terminate it to simulate a drop).
    public var backendPID: Int32? { state.withLock { $0.backendPID } }

    /// A round trip on the LISTEN connection, shared with every caller waiting at the same
    /// time (see the type's comment). Nil when not listening, on failure, or after `timeout`.
    public func fence(timeout: Duration) -> Fence? {
        guard control.isListening else { return nil }
        let ticket = fences.request()
        control.wake()
        return fences.wait(for: ticket, until: Date().addingTimeInterval(timeout.timeInterval))
    }

    // MARK: Thread body

    private func run() {
        var backoff: Duration = .milliseconds(100)
        var hasConnectedBefore = false
        while !control.isStopRequested {
            let connection: PostgresConnection
            do {
                connection = try PostgresConnection(configuration: configuration)
                for channel in channels {
                    try connection.execute("LISTEN \(unsafeSQL: try connection.quotedIdentifier(channel))")
                }
            } catch {
                logger.warning("listener cannot connect; retrying", metadata: ["error": "\(error)", "in": "\(backoff)"])
                control.sleep(backoff)
                backoff = min(backoff * 2, .seconds(5))
                continue
            }
            backoff = .milliseconds(100)
            state.withLock {
                $0.epoch += 1
                $0.backendPID = (try? connection.liveHandle()).map { PQbackendPID($0) }
            }
            control.setListening(true)
            if hasConnectedBefore {
                logger.info("listener reconnected")
                onReconnect()
            }
            hasConnectedBefore = true
            receive(on: connection)
            control.setListening(false)
            fences.failPending()
            connection.close()
        }
    }

    /// Delivers notifications until the connection fails or stop is requested.
    private func receive(on connection: PostgresConnection) {
        guard let handle = try? connection.liveHandle() else { return }
        let timeoutMilliseconds = Int32(clamping: probeInterval.postgresMilliseconds)
        while !control.isStopRequested {
            if let ticket = fences.pending() {
                guard runFence(ticket, on: connection, handle: handle) else { return }
                continue
            }
            var descriptors = [
                pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0),
                pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            guard descriptors[0].fd >= 0 else { return }
            let ready = poll(&descriptors, 2, timeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 {
                control.drainWake()  // a stop (checked above) or a fence request
                continue
            }
            if ready == 0 {
                // Quiet for a while: make sure the connection is still alive.
                if (try? connection.query("SELECT 1")) == nil {
                    logger.warning("listener connection probe failed; reconnecting")
                    return
                }
                // Notifications that arrived with the probe's answer are queued in libpq,
                // not readable on the socket any more.
                guard deliverNotifications(handle) else { return }
                continue
            }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                logger.warning("listener connection lost; reconnecting")
                return
            }
            guard deliverNotifications(handle) else { return }
        }
    }

    /// Hands every notification libpq has queued to `onNotification`; false when stopping.
    private func deliverNotifications(_ handle: OpaquePointer) -> Bool {
        while let notification = PQnotifies(handle) {
            let channel = String(cString: notification.pointee.relname)
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            PQfreemem(notification)
            if control.isStopRequested { return false }
            onNotification(channel, payload)
        }
        return true
    }

    /// Runs one fence for every ticket up to `ticket` (all taken before this query is sent).
    /// libpq queues the notifications that arrive before the query's ReadyForQuery; they are
    /// delivered before the fence completes. False when the connection failed.
    private func runFence(_ ticket: UInt64, on connection: PostgresConnection, handle: OpaquePointer) -> Bool {
        let epoch = state.withLock { $0.epoch }
        guard let rows = try? connection.query("SELECT pg_current_snapshot()::text AS snapshot"),
              let snapshot = try? rows.first?.decode("snapshot", as: String.self) else {
            logger.warning("listener fence failed; reconnecting")
            fences.complete(through: ticket, with: nil)
            return false
        }
        guard deliverNotifications(handle) else {
            fences.complete(through: ticket, with: nil)
            return false
        }
        fences.complete(through: ticket, with: Fence(epoch: epoch, snapshot: snapshot))
        return true
    }
}
