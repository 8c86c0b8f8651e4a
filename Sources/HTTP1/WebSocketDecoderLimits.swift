/// Size limits of an incoming WebSocket stream (→ close 1009 when passed).
public struct WebSocketDecoderLimits: Sendable, Equatable {
    /// Largest payload of one frame.
    public var maxFrameBytes: Int
    /// Largest message (text or binary), fragments joined.
    public var maxMessageBytes: Int

    public init(maxFrameBytes: Int = 1 << 20, maxMessageBytes: Int = 1 << 20) {
        self.maxFrameBytes = maxFrameBytes
        self.maxMessageBytes = maxMessageBytes
    }
}
