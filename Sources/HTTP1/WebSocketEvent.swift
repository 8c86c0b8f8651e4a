/// What a client sent, one complete unit at a time.
public enum WebSocketEvent: Sendable, Equatable {
    /// A whole text message: fragments joined, UTF-8 checked.
    case text([UInt8])
    /// A whole binary message: fragments joined, bytes as sent (unmasked).
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame; `code` nil when it carried none (1005 "no status").
    case close(code: UInt16?, reason: String)
}

/// Why the stream is unusable, as the close code to send (RFC 6455 §7.4.1).
public struct WebSocketFailure: Error, Sendable, Equatable {
    public var closeCode: UInt16
    public var reason: String

    public init(closeCode: UInt16, reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    static func protocolError(_ reason: String) -> WebSocketFailure { .init(closeCode: 1002, reason: reason) }
}

public enum WebSocketDecodeResult: Sendable, Equatable {
    /// Every presented byte was taken (partial frames are kept inside); feed more.
    case needMore(consumed: Int)
    /// One event, found after `consumed` bytes; call again with the rest.
    case event(WebSocketEvent, consumed: Int)
    /// Fatal and sticky: every later call answers the same.
    case failure(WebSocketFailure)
}
