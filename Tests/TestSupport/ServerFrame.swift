/// One unmasked WebSocket frame as a server sends it, read by the tests' WebSocket clients
/// (`WebSocketTestClient` in HTTPServerTests, `RealtimeSocket` in EndToEndTests).
public struct ServerFrame: Equatable, Sendable {
    public var fin: Bool
    public var opcode: UInt8
    public var payload: [UInt8]

    public init(fin: Bool, opcode: UInt8, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame at the start of `bytes` and how many bytes it used; nil until it is complete.
    public static func parse(_ bytes: [UInt8]) -> (frame: ServerFrame, used: Int)? {
        guard bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        let frame = ServerFrame(fin: bytes[0] & 0x80 != 0, opcode: bytes[0] & 0x0F,
                                payload: Array(bytes[offset..<(offset + length)]))
        return (frame, offset + length)
    }
}
