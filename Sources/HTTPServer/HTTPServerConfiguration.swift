import Glibc
import HTTP1

/// Everything tunable about the server. Defaults follow nginx where it has an equivalent.
public struct HTTPServerConfiguration: Sendable {
    /// IPv4/IPv6 literal or `localhost`.
    public var host: String
    /// 0 picks an ephemeral port; read it back from `HTTPServer.boundPort`.
    public var port: Int
    public var limits: HTTPParserLimits
    /// The whole header section must arrive within this, however slowly it trickles (slowloris).
    public var headerReadTimeout: Duration
    /// The whole body must arrive within this, counted from the end of the header section.
    public var bodyReadTimeout: Duration
    /// How long a keep-alive connection may sit between requests.
    public var idleTimeout: Duration
    /// Queued response bytes must be taken by the client within this (slow readers).
    public var writeTimeout: Duration
    /// The listen(2) backlog: connections the kernel completes and holds until the server
    /// accepts them. nil: `net.core.somaxconn`, the most the kernel allows (`ListenBacklog`).
    public var listenBacklog: Int?
    /// Beyond this, new connections get 503 `too_many_connections` with `Retry-After: 1`.
    public var maxConnections: Int
    /// Threads running handlers (which may block on the database); size it to the DB pool.
    public var workerCount: Int
    /// How long `shutdown()` lets in-flight requests finish before closing everything.
    public var shutdownGracePeriod: Duration
    /// When non-empty, a `CORSMiddleware` with these origins runs first in the chain.
    public var corsAllowedOrigins: [String]
    /// Upgraded connections (`HandlerReply.webSocket`): limits and timers.
    public var webSocket: WebSocketConfiguration

    public init(host: String = "127.0.0.1", port: Int = 8080, limits: HTTPParserLimits = HTTPParserLimits(),
                headerReadTimeout: Duration = .seconds(10), bodyReadTimeout: Duration = .seconds(30),
                idleTimeout: Duration = .seconds(75), writeTimeout: Duration = .seconds(30),
                maxConnections: Int = 10_000, workerCount: Int = HTTPServerConfiguration.defaultWorkerCount,
                shutdownGracePeriod: Duration = .seconds(10), corsAllowedOrigins: [String] = [],
                webSocket: WebSocketConfiguration = WebSocketConfiguration(), listenBacklog: Int? = nil) {
        self.host = host
        self.port = port
        self.limits = limits
        self.headerReadTimeout = headerReadTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.workerCount = workerCount
        self.shutdownGracePeriod = shutdownGracePeriod
        self.corsAllowedOrigins = corsAllowedOrigins
        self.webSocket = webSocket
        self.listenBacklog = listenBacklog
    }

    /// Twice the core count, at least 4: handlers mostly wait on the database, not the CPU.
    public static var defaultWorkerCount: Int {
        max(4, 2 * Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

extension Duration {
    /// Whole nanoseconds, saturating; the event loop's clock unit.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        return scaled &+ attoseconds / 1_000_000_000
    }
}
