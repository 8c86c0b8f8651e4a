/// A point-in-time copy of the server's counters, for a future /metrics endpoint.
public struct HTTPServerMetrics: Sendable, Equatable {
    /// Connections currently open (excluding ones being turned away with 503).
    public var openConnections: Int
    /// Connections accepted since start.
    public var acceptedConnections: Int
    /// Connections answered 503 because `maxConnections` was reached.
    public var rejectedConnections: Int
    /// Requests handed to the responder since start.
    public var totalRequests: Int
    /// Requests currently with a handler or parked as deferred.
    public var inFlightRequests: Int
    /// Upgraded (WebSocket) connections currently open; also counted in `openConnections`.
    public var openWebSockets: Int = 0
}
