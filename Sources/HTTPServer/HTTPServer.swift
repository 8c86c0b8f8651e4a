import Foundation
import HTTP1
import Logging
import Synchronization

/// An HTTP/1.1 server: one epoll thread for all sockets, a worker pool for handlers.
///
/// ```swift
/// var router = Router()
/// router.get("/v1/health") { _, _ in .response(try .json(["ok": true])) }
/// let server = HTTPServer(configuration: .init(port: 8080), responder: router,
///                         middleware: [LoggingMiddleware(), ErrorMiddleware()], logger: logger)
/// server.installSignalHandlers()   // before start: SIGTERM/SIGINT → graceful shutdown
/// try server.run()                  // starts, blocks until shut down
/// ```
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    private let chain: MiddlewareChain
    private let logger: Logger

    private struct State {
        var loop: EventLoop?
        var boundPort = 0
        var started = false
        var stopped = false
        var signalFD: Int32?
    }

    private let state = Mutex(State())
    private let stoppedSignal = StopSignal()

    /// `middleware` runs in order before `responder`; a `CORSMiddleware` is put first when
    /// `configuration.corsAllowedOrigins` is non-empty. Errors thrown anywhere in the chain are
    /// rendered like `ErrorMiddleware` does, even if it is not in the list.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), responder: any HTTPResponder,
                middleware: [any Middleware] = [], logger: Logger = Logger(label: "http-server")) {
        self.configuration = configuration
        self.logger = logger
        var all = middleware
        if !configuration.corsAllowedOrigins.isEmpty {
            all.insert(CORSMiddleware(allowedOrigins: configuration.corsAllowedOrigins), at: 0)
        }
        chain = MiddlewareChain(middleware: all, responder: responder)
    }

    /// Binds, listens and starts the event loop thread. Throws `HTTPServerError.addressInUse`
    /// when the port is taken.
    public func start() throws {
        let signalFD: Int32? = try state.withLock { state in
            guard !state.started else { throw HTTPServerError.alreadyStarted }
            state.started = true
            return state.signalFD
        }
        let kernelMaximum = ListenBacklog.kernelMaximum()
        let backlog = ListenBacklog.resolve(configured: configuration.listenBacklog, kernelMaximum: kernelMaximum)
        if let kernelMaximum, Int(backlog) > kernelMaximum {
            // The kernel silently caps it; say so, or the operator believes the setting took.
            logger.warning("Listen backlog above net.core.somaxconn; the kernel caps it",
                           metadata: ["backlog": "\(backlog)", "somaxconn": "\(kernelMaximum)"])
        }
        let loop: EventLoop
        let port: Int
        do {
            let (fd, boundPort) = try Socket.listen(host: configuration.host, port: configuration.port, backlog: backlog)
            port = boundPort
            do {
                loop = try EventLoop(listenFD: fd, signalFD: signalFD, configuration: configuration,
                                     chain: chain, logger: logger)
            } catch {
                close(fd)
                throw error
            }
        } catch {
            state.withLock { $0.started = false }
            throw error
        }
        state.withLock { state in
            state.loop = loop
            state.boundPort = port
        }
        stoppedSignal.arm()
        let thread = Thread { [self] in
            loop.run()
            state.withLock { $0.stopped = true }
            logger.info("HTTP server stopped")
            stoppedSignal.fire()
        }
        thread.name = "http-event-loop"
        thread.start()
        logger.info("HTTP server listening", metadata: ["host": "\(configuration.host)", "port": "\(port)", "backlog": "\(backlog)"])
    }

    /// The port actually bound (useful with `port: 0`); 0 before `start()`.
    public var boundPort: Int { state.withLock { $0.boundPort } }

    /// Starts the server if needed, then blocks until it has shut down.
    public func run() throws {
        if !state.withLock({ $0.started }) { try start() }
        waitUntilStopped()
    }

    /// Blocks until shutdown is complete (returns at once if the server never started).
    public func waitUntilStopped() {
        stoppedSignal.wait()
    }

    /// Begins a graceful shutdown and returns immediately (safe from any thread, including a
    /// handler): the listener closes, idle connections close, deferred requests are answered
    /// 503 `shutting_down`, in-flight requests get until `deadline` (default
    /// `configuration.shutdownGracePeriod`) to finish with `Connection: close`, then everything
    /// is closed and `run()` / `waitUntilStopped()` return.
    public func shutdown(deadline: Duration? = nil) {
        let grace = (deadline ?? configuration.shutdownGracePeriod).nanoseconds
        state.withLock { $0.loop }?.post(.shutdown(grace: grace))
    }

    /// Routes SIGTERM and SIGINT to `shutdown()`. Call before `start()`. The handler only
    /// writes a byte to a pipe the event loop watches (one server per process gets signals).
    public func installSignalHandlers() {
        do {
            let fd = try SignalPipe.install()
            state.withLock { $0.signalFD = fd }
        } catch {
            logger.error("Could not install signal handlers", metadata: ["error": "\(error)"])
        }
    }

    /// A snapshot of the connection and request counters.
    public var metrics: HTTPServerMetrics {
        guard let counters = state.withLock({ $0.loop?.counters }) else {
            return HTTPServerMetrics(openConnections: 0, acceptedConnections: 0, rejectedConnections: 0,
                                     totalRequests: 0, inFlightRequests: 0)
        }
        return HTTPServerMetrics(openConnections: counters.open.load(ordering: .relaxed),
                                 acceptedConnections: counters.accepted.load(ordering: .relaxed),
                                 rejectedConnections: counters.rejected.load(ordering: .relaxed),
                                 totalRequests: counters.requests.load(ordering: .relaxed),
                                 inFlightRequests: counters.inFlight.load(ordering: .relaxed),
                                 openWebSockets: counters.webSockets.load(ordering: .relaxed),
                                 webSocketSendQueueBytes: counters.webSocketQueuedBytes.load(ordering: .relaxed),
                                 webSocketSendQueuePeakBytes: counters.webSocketQueuePeakBytes.load(ordering: .relaxed),
                                 webSocketSendQueueOverflows: counters.webSocketQueueOverflows.load(ordering: .relaxed))
    }
}

/// A one-shot "stopped" latch any number of threads can wait on.
final class StopSignal: Sendable {
    private let state = Mutex((armed: false, fired: false))
    private let condition = NSCondition()

    func arm() { state.withLock { $0.armed = true } }

    func fire() {
        condition.lock()
        state.withLock { $0.fired = true }
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let (armed, fired) = state.withLock { ($0.armed, $0.fired) }
            if !armed || fired { return }
            condition.wait()
        }
    }
}
