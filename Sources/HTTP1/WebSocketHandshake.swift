/// The client half of the RFC 6455 §4.2.1 opening handshake, checked without I/O. The accept
/// value itself (SHA-1) is computed by the server with OpenSSL.
public enum WebSocketHandshake {
    public enum Problem: Error, Sendable, Equatable {
        /// Not an upgrade request at all (method, version, `Connection`, `Upgrade`): 400.
        case notAnUpgrade(String)
        /// `Sec-WebSocket-Version` is missing or not 13: 426 with `Sec-WebSocket-Version: 13`.
        case unsupportedVersion
        /// `Sec-WebSocket-Key` missing or not the base64 of 16 bytes: 400.
        case invalidKey
    }

    /// The GUID appended to the key before hashing (§1.3).
    public static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Returns the client's key when `head` is a valid opening handshake.
    public static func validate(_ head: HTTPRequestHead) -> Result<String, Problem> {
        guard head.method == .get else { return .failure(.notAnUpgrade("A WebSocket upgrade must be a GET.")) }
        guard head.version == .http11 else { return .failure(.notAnUpgrade("A WebSocket upgrade needs HTTP/1.1.")) }
        guard head.headers.containsToken("upgrade", in: "Connection") else {
            return .failure(.notAnUpgrade("Connection must include 'Upgrade'."))
        }
        guard head.headers.containsToken("websocket", in: "Upgrade") else {
            return .failure(.notAnUpgrade("Upgrade must be 'websocket'."))
        }
        let versions = head.headers.values(for: "Sec-WebSocket-Version")
        guard versions.count == 1, versions[0].trimmingASCIIWhitespace() == "13" else {
            return .failure(.unsupportedVersion)
        }
        let keys = head.headers.values(for: "Sec-WebSocket-Key")
        guard keys.count == 1 else { return .failure(.invalidKey) }
        let key = String(keys[0].trimmingASCIIWhitespace())
        guard isSixteenByteBase64(key) else { return .failure(.invalidKey) }
        return .success(key)
    }

    /// 24 characters: 21 base64 digits, one whose low four bits are zero (16 bytes leave
    /// 4 bits over), then `==`.
    static func isSixteenByteBase64(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        for byte in bytes[..<21] where base64Value(byte) == nil { return false }
        guard let last = base64Value(bytes[21]) else { return false }
        return last & 0x0F == 0
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
