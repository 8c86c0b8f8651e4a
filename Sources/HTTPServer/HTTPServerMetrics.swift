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
    /// Bytes the server holds for WebSocket sends the clients have not taken yet (accepted by
    /// `send`, still in the loop's mailbox or the connection's output), all connections.
    public var webSocketSendQueueBytes: Int = 0
    /// The most one connection has held that way at once since start: at most
    /// `WebSocketConfiguration.sendQueueBytes` plus a close frame.
    public var webSocketSendQueuePeakBytes: Int = 0
    /// Connections closed with 1008 because a send would have passed the bound.
    public var webSocketSendQueueOverflows: Int = 0
}
