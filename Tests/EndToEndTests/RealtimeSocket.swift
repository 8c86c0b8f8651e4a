import Foundation
import Glibc
import HTTP1
import TestSupport

/// A realtime client over a real socket, as an official client talks to the server: the
/// WebSocket upgrade on `/realtime/v1/websocket?apikey=…&vsn=2.0.0`, masked frames out (JSON-array
/// text messages and binary pushes), server frames back. Every read has a timeout.
final class RealtimeSocket {
    enum Frame: Equatable {
        case text(String)
        case binary([UInt8])
        case close(UInt16?)
    }

    enum SocketError: Error { case connect(Int32), closed, timeout, handshake(String) }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var refs = 0

    init(port: Int, apikey: String = AuthTestServer.publishableKey, vsn: String = "2.0.0") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw SocketError.connect(code)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try write(Array("""
            GET /realtime/v1/websocket?apikey=\(apikey)&vsn=\(vsn) HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\n\
            Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n
            """.utf8))
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else { throw SocketError.handshake(head) }
                return
            }
            try fill()
        }
    }

    deinit { close(fd) }

    func nextRef() -> String {
        refs += 1
        return String(refs)
    }

    func send(text: String) throws {
        try write(WebSocketFrameEncoder.frame(.text, payload: Array(text.utf8), mask: (0x11, 0x22, 0x33, 0x44)))
    }

    func send(binary: [UInt8]) throws {
        try write(WebSocketFrameEncoder.frame(.binary, payload: binary, mask: (0x55, 0x66, 0x77, 0x88)))
    }

    /// A vsn 2.0.0 text message `[join_ref, ref, topic, event, payload]`.
    func push(joinRef: String?, ref: String?, topic: String, event: String, payload: [String: Any]) throws {
        let array: [Any] = [joinRef ?? NSNull(), ref ?? NSNull(), topic, event, payload]
        try send(text: String(decoding: try JSONSerialization.data(withJSONObject: array), as: UTF8.self))
    }

    /// Joins `realtime:<name>` with `token` and waits for the ok reply; returns the join ref.
    func join(_ name: String, token: String, broadcast: [String: Any] = [:], isPrivate: Bool = false) throws -> String {
        let (ref, reply) = try joinReply(name, token: token, broadcast: broadcast, isPrivate: isPrivate)
        guard reply["status"] as? String == "ok" else { throw SocketError.handshake("join refused: \(reply)") }
        return ref
    }

    /// Sends a join as supabase clients do (`config.private`, empty `postgres_changes` unless
    /// `changes`) and returns its ref and the reply's payload, whatever it says.
    func joinReply(_ name: String, token: String, broadcast: [String: Any] = [:], isPrivate: Bool,
                   changes: [[String: Any]] = []) throws -> (ref: String, payload: [String: Any]) {
        let ref = nextRef()
        try push(joinRef: ref, ref: ref, topic: "realtime:\(name)", event: "phx_join",
                 payload: ["config": ["broadcast": broadcast, "presence": ["key": ""], "postgres_changes": changes,
                                      "private": isPrivate] as [String: Any],
                           "access_token": token])
        let reply = try nextText { $0[1] as? String == ref && $0[3] as? String == "phx_reply" }
        return (ref, reply[4] as? [String: Any] ?? [:])
    }

    /// The reason of an error reply's payload (`response.reason`), or nil.
    static func reason(_ payload: [String: Any]) -> String? {
        (payload["response"] as? [String: Any])?["reason"] as? String
    }

    /// The next data or close frame (pings answered by nobody: the test is short).
    func next() throws -> Frame {
        while true {
            if let (frame, used) = ServerFrame.parse(buffer) {
                buffer.removeFirst(used)
                let payload = frame.payload
                switch frame.opcode {
                case 0x1: return .text(String(decoding: payload, as: UTF8.self))
                case 0x2: return .binary(payload)
                case 0x8: return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
                default: continue
                }
            }
            try fill()
        }
    }

    /// The next text message matching `matching`, as its JSON array (skipping other frames).
    func nextText(_ matching: ([Any]) -> Bool = { _ in true }) throws -> [Any] {
        while true {
            guard case .text(let text) = try next(),
                  let array = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any], array.count == 5 else { continue }
            if matching(array) { return array }
        }
    }

    /// Frames arriving within `seconds` (for "nothing else came").
    func drain(seconds: Int) -> [Frame] {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var frames: [Frame] = []
        while let frame = try? next() { frames.append(frame) }
        return frames
    }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw SocketError.closed }
            offset += sent
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if received > 0 {
            buffer.append(contentsOf: chunk[..<received])
            return
        }
        if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw SocketError.timeout }
        throw SocketError.closed
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
