import HTTP1

/// Limits and timers of upgraded (WebSocket) connections. Every limit closes the connection
/// with a status code rather than buffering: the server's memory per connection stays bounded
/// whatever a client sends or fails to read.
public struct WebSocketConfiguration: Sendable {
    /// Largest payload of one incoming frame (→ 1009).
    public var maxFrameBytes: Int
    /// Largest incoming message (text or binary), fragments joined (→ 1009).
    public var maxMessageBytes: Int
    /// Incoming frames (any kind) allowed per second per connection (→ 1008).
    public var maxFramesPerSecond: Int
    /// Outgoing bytes (text and binary frames alike) queued but not yet taken by the client.
    /// A `send` that would pass it fails and the connection is closed with 1008 (too slow).
    public var sendQueueBytes: Int
    /// No message (text or binary) from the client for this long → close 1000 "idle timeout".
    public var idleTimeout: Duration
    /// Nothing at all from the client for this long → the server sends a ping.
    public var pingInterval: Duration
    /// After a ping, nothing at all from the client for this long → close 1001 and drop.
    public var pongTimeout: Duration
    /// After the server's close frame, the client's must come within this; then the socket is dropped.
    public var closeTimeout: Duration

    public init(maxFrameBytes: Int = 1 << 20, maxMessageBytes: Int = 1 << 20, maxFramesPerSecond: Int = 100,
                sendQueueBytes: Int = 1 << 20, idleTimeout: Duration = .seconds(60),
                pingInterval: Duration = .seconds(25), pongTimeout: Duration = .seconds(20),
                closeTimeout: Duration = .seconds(5)) {
        self.maxFrameBytes = maxFrameBytes
        self.maxMessageBytes = maxMessageBytes
        self.maxFramesPerSecond = maxFramesPerSecond
        self.sendQueueBytes = sendQueueBytes
        self.idleTimeout = idleTimeout
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
    }

    var decoderLimits: WebSocketDecoderLimits {
        WebSocketDecoderLimits(maxFrameBytes: maxFrameBytes, maxMessageBytes: maxMessageBytes)
    }

    /// The shortest timer, for the event loop's scan interval.
    var shortestTimer: Duration { min(idleTimeout, pingInterval, pongTimeout, closeTimeout) }
}
