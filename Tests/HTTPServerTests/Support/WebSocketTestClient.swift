import HTTP1
import TestSupport

/// A blocking WebSocket client for tests: the handshake by hand, masked frames out, server
/// frames parsed back, over a RawClient (its socket, timeouts and receive buffer). Every read
/// has a timeout, so a test fails but never hangs.
final class WebSocketTestClient {
    typealias Frame = ServerFrame

    typealias ClientError = RawClient.ClientError

    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    let connection: RawClient
    var fd: Int32 { connection.fd }

    init(port: Int, readTimeoutSeconds: Int = 5, receiveBuffer: Int32? = nil) throws {
        connection = try RawClient(port: port, readTimeoutSeconds: readTimeoutSeconds, receiveBuffer: receiveBuffer)
    }

    static func handshake(path: String = "/ws", key: String = sampleKey, version: String = "13",
                          extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            + "Sec-WebSocket-Version: \(version)\r\nSec-WebSocket-Key: \(key)\r\n\(extra)\r\n"
    }

    /// Sends the handshake (plus `after`, pipelined in the same write) and reads the answer head.
    @discardableResult
    func upgrade(path: String = "/ws", after: [UInt8] = []) throws -> (status: Int, head: String) {
        try send(Array(Self.handshake(path: path).utf8) + after)
        return try readHead()
    }

    /// The status line and headers of an HTTP answer (the body, if any, stays buffered).
    func readHead() throws -> (status: Int, head: String) {
        while true {
            if let end = RawClient.find([13, 10, 13, 10], in: connection.buffer) {
                let head = String(decoding: connection.buffer[..<end], as: UTF8.self)
                connection.buffer.removeFirst(end + 4)
                let parts = head.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError.malformed(head) }
                return (status, head)
            }
            try fill()
        }
    }

    func send(_ bytes: [UInt8]) throws { try connection.send(bytes) }

    static func masked(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.frame(opcode, payload: payload, fin: fin, mask: (0x12, 0x34, 0x56, 0x78))
    }

    func sendText(_ text: String) throws { try send(Self.masked(.text, Array(text.utf8))) }

    func sendClose(_ code: UInt16?, reason: String = "") throws {
        try send(WebSocketFrameEncoder.closeFrame(code: code, reason: reason, mask: (1, 2, 3, 4)))
    }

    /// The next server frame.
    func readFrame() throws -> Frame {
        while true {
            if let (frame, used) = ServerFrame.parse(connection.buffer) {
                connection.buffer.removeFirst(used)
                return frame
            }
            try fill()
        }
    }

    /// Reads frames until one that is not a ping (pings the server sends on its own are skipped).
    func readNonPing() throws -> Frame {
        while true {
            let frame = try readFrame()
            if frame.opcode != 0x9 { return frame }
        }
    }

    /// True when the server closes the TCP connection before a read times out.
    func waitForEOF() -> Bool { connection.waitForClose() }

    /// More bytes into the connection's buffer; the end of the stream is an error here.
    private func fill() throws {
        guard try connection.fill() else { throw ClientError.closed }
    }
}

extension ServerFrame {
    var text: String { String(decoding: payload, as: UTF8.self) }
    /// The close code of a close frame (nil when empty).
    var closeCode: UInt16? { payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
    var closeReason: String { String(decoding: payload.dropFirst(2), as: UTF8.self) }
}
