/// RFC 6455 §5.2 opcodes.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Builds frames. The server sends unmasked frames (§5.1); `mask` is for clients (tests).
public enum WebSocketFrameEncoder {
    /// One frame with the minimal length encoding (§5.2).
    public static func frame(_ opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true,
                             mask: (UInt8, UInt8, UInt8, UInt8)? = nil, rsv: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | (rsv & 0x7) << 4 | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        let length = payload.count
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(maskBit | 127)
            let wide = UInt64(length)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((wide >> UInt64(shift)) & 0xFF)) }
        }
        guard let mask else {
            out.append(contentsOf: payload)
            return out
        }
        let key = [mask.0, mask.1, mask.2, mask.3]
        out.append(contentsOf: key)
        for (index, byte) in payload.enumerated() { out.append(byte ^ key[index & 3]) }
        return out
    }

    /// A close frame: the code, then the reason cut to fit the 125-byte control payload
    /// (at a character boundary, so it stays valid UTF-8).
    public static func closeFrame(code: UInt16?, reason: String = "",
                                  mask: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        frame(.close, payload: closePayload(code: code, reason: reason), mask: mask)
    }

    public static func closePayload(code: UInt16?, reason: String) -> [UInt8] {
        guard let code else { return [] }
        var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var used = 0
        for scalar in reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            guard used + bytes.count <= 123 else { break }
            payload.append(contentsOf: bytes)
            used += bytes.count
        }
        return payload
    }
}
