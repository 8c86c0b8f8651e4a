/// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2), checked on raw bytes.
/// Userinfo (`@`), whitespace, paths and anything else outside the grammar are rejected: a
/// Host that different components could read differently is a routing/cache-poisoning risk.
enum HostSyntax {
    static func isValid<C: BidirectionalCollection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var hostEnd = bytes.endIndex
        if bytes.first == UInt8(ascii: "[") {
            // IP-literal: `[` IPv6address / IPvFuture `]`.
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let inside = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy(isIPLiteralChar) else { return false }
            hostEnd = bytes.index(after: close)
            guard hostEnd == bytes.endIndex || bytes[hostEnd] == UInt8(ascii: ":") else { return false }
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard bytes[bytes.startIndex..<hostEnd].allSatisfy(isRegNameChar) else { return false }
        }
        guard hostEnd != bytes.endIndex else { return true }
        // `port = *DIGIT`: may be empty, never signed or spaced.
        return bytes[bytes.index(after: hostEnd)...].allSatisfy(ByteClass.isDigit)
    }

    /// unreserved / pct-encoded / sub-delims (percent-escapes are only checked for their
    /// characters; their decoding is not the parser's business).
    private static func isRegNameChar(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    private static func isIPLiteralChar(_ b: UInt8) -> Bool {
        ByteClass.hexValue(b) != nil || b == UInt8(ascii: ":") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "v") || b == UInt8(ascii: "V")
    }
}

extension HostSyntax {
    /// RFC 9112 §3.2: a 1.1 request carries exactly one Host; any request with several, or
    /// with an invalid one, is answered 400. An empty value is grammatical (for targets without
    /// an authority) and is accepted.
    static func check(_ head: HTTPRequestHead) throws(HTTPParseError) {
        let hosts = head.headers.values(for: "Host")
        if hosts.count > 1 { throw .duplicateHost }
        guard let host = hosts.first else {
            if head.version == .http11 { throw .missingHost }
            return
        }
        if !host.isEmpty, !isValid(Array(host.utf8)) { throw .invalidHost }
    }
}
