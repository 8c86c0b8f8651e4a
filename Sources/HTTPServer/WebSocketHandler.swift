/// The seam between the WebSocket transport (RFC 6455 framing, limits and timeouts, in the
/// event loop) and what runs over it (the realtime channel protocol). The transport knows
/// nothing of channels; the protocol knows nothing of frames, masks or sockets.
///
/// A route accepts an upgrade by answering `HandlerReply.webSocket(handler)`; the transport
/// then writes the 101 answer, calls `opened` once, `received` for each complete message
/// (text UTF-8-checked, binary as sent), and `closed` exactly once at the end, whoever closed it. Calls to one handler are
/// never concurrent and come in that order. They run on the HTTP worker pool (so they may use
/// the database, but should not block long). If the upgrade never happens (bad handshake,
/// client gone, shutdown) neither `opened` nor `closed` is called.
public protocol WebSocketHandler: AnyObject, Sendable {
    func opened(_ outbound: any WebSocketOutbound)
    /// One complete text message (fragments joined, UTF-8 already checked).
    func received(text: String)
    /// One complete binary message (fragments joined, under the same size limit as text). A
    /// handler whose protocol has no binary messages closes with `.unsupportedData` (1003).
    func received(binary: [UInt8])
    /// The connection is gone; `code` is the close code sent or received, nil when the peer vanished.
    func closed(code: WebSocketCloseCode?)
}

/// The sending half of one connection. Safe to call from any thread.
public protocol WebSocketOutbound: AnyObject, Sendable {
    /// Queues one text message. False when the connection is closing or closed, or when this
    /// message would pass the connection's send-queue bound; the transport then closes the
    /// connection (1008) rather than buffering without end.
    @discardableResult
    func send(text: String) -> Bool
    /// Queues one binary message, under the same send-queue bound as text.
    @discardableResult
    func send(binary: [UInt8]) -> Bool
    /// Starts the close handshake with `code` and `reason` (reason at most 123 bytes of UTF-8).
    func close(code: WebSocketCloseCode, reason: String)
}

/// RFC 6455 §7.4.1 status codes used by this server.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = WebSocketCloseCode(rawValue: 1000)
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
}
