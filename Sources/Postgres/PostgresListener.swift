import CLibPQ
import Foundation
import Logging

/// LISTENs on channels over a dedicated connection on its own thread and calls `onNotification`
/// for each NOTIFY. After losing the connection it reconnects with backoff, LISTENs again, and
/// calls `onReconnect` — notifications sent while it was down are lost, so subscribers should
/// re-read whatever they track.
public final class PostgresListener: Sendable {
    public typealias NotificationHandler = @Sendable (_ channel: String, _ payload: String) -> Void

    public let configuration: PostgresConnection.Configuration
    public let channels: [String]
    /// Silence after which the listener runs `SELECT 1`, to notice connections that died
    /// without the socket telling us.
    public let probeInterval: Duration
    private let onNotification: NotificationHandler
    private let onReconnect: @Sendable () -> Void
    private let control: ListenerControl
    private let logger: Logger

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
            control.setListening(true)
            if hasConnectedBefore {
                logger.info("listener reconnected")
                onReconnect()
            }
            hasConnectedBefore = true
            receive(on: connection)
            control.setListening(false)
            connection.close()
        }
    }

    /// Delivers notifications until the connection fails or stop is requested.
    private func receive(on connection: PostgresConnection) {
        guard let handle = try? connection.liveHandle() else { return }
        let timeoutMilliseconds = Int32(clamping: probeInterval.postgresMilliseconds)
        while !control.isStopRequested {
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
            if descriptors[1].revents != 0 { return }
            if ready == 0 {
                // Quiet for a while: make sure the connection is still alive.
                if (try? connection.query("SELECT 1")) == nil {
                    logger.warning("listener connection probe failed; reconnecting")
                    return
                }
                continue
            }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                logger.warning("listener connection lost; reconnecting")
                return
            }
            while let notification = PQnotifies(handle) {
                let channel = String(cString: notification.pointee.relname)
                let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(notification)
                if control.isStopRequested { return }
                onNotification(channel, payload)
            }
        }
    }
}
