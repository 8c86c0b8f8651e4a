/// `request-line = method SP request-target SP HTTP-version` (RFC 9112 §3), parsed from the
/// bytes of one line without its CRLF.
struct RequestLine: Sendable, Equatable {
    var method: HTTPMethod
    var target: String
    var version: HTTPVersion

    static func parse(_ line: [UInt8]) throws(HTTPParseError) -> RequestLine {
        // Control characters are rejected before the structure is looked at, so a NUL or a
        // stray HTAB gets one clear error wherever it sits.
        for b in line where ByteClass.isControl(b) { throw .invalidCharacter }

        guard let firstSpace = line.firstIndex(of: ByteClass.sp) else {
            throw line.allSatisfy(ByteClass.isTokenChar) && !line.isEmpty ? .invalidRequestTarget : .invalidMethod
        }
        let method = line[..<firstSpace]
        guard !method.isEmpty, method.allSatisfy(ByteClass.isTokenChar) else { throw .invalidMethod }

        let afterMethod = firstSpace + 1
        // Exactly one SP between parts: an empty target means two SPs in a row.
        guard let secondSpace = line[afterMethod...].firstIndex(of: ByteClass.sp) else {
            // "GET /" with no version (HTTP/0.9 shape) or an empty target.
            throw afterMethod < line.count ? .invalidVersion : .invalidRequestTarget
        }
        let target = line[afterMethod..<secondSpace]
        let methodValue = HTTPMethod(String(decoding: method, as: UTF8.self))
        try validateTarget(target, method: methodValue)

        let version = try parseVersion(line[(secondSpace + 1)...])
        return RequestLine(method: methodValue, target: String(decoding: target, as: UTF8.self), version: version)
    }

    /// Accepts origin-form (`/path?query`), asterisk-form (`*`, OPTIONS only) and absolute-form
    /// (`http://host/path`). Authority-form is CONNECT's, and this server is not a proxy.
    private static func validateTarget(_ target: ArraySlice<UInt8>, method: HTTPMethod) throws(HTTPParseError) {
        guard let first = target.first else { throw .invalidRequestTarget }
        guard target.allSatisfy(ByteClass.isTargetChar) else { throw .invalidRequestTarget }
        if first == UInt8(ascii: "/") { return }
        if target.count == 1, first == UInt8(ascii: "*") {
            guard method == .options else { throw .invalidRequestTarget }
            return
        }
        try validateAbsoluteForm(target)
    }

    private static func validateAbsoluteForm(_ target: ArraySlice<UInt8>) throws(HTTPParseError) {
        guard let colon = target.firstIndex(of: UInt8(ascii: ":")) else { throw .invalidRequestTarget }
        let scheme = target[..<colon]
        guard ByteClass.equalsLowercased(scheme, "http") || ByteClass.equalsLowercased(scheme, "https") else {
            throw .invalidRequestTarget
        }
        let rest = target[(colon + 1)...]
        guard rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) else { throw .invalidRequestTarget }
        let authorityStart = rest.startIndex + 2
        let authorityEnd = rest[authorityStart...].firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?")
        } ?? rest.endIndex
        let authority = rest[authorityStart..<authorityEnd]
        // userinfo (`user@host`) is deprecated for http(s) and a classic spoofing vector.
        guard !authority.isEmpty, HostSyntax.isValid(authority) else { throw .invalidRequestTarget }
    }

    /// `HTTP-version = "HTTP" "/" DIGIT "." DIGIT`, case-sensitive.
    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.starts(with: prefix) else { throw .invalidVersion }
        let major = bytes[bytes.startIndex + 5]
        let dot = bytes[bytes.startIndex + 6]
        let minor = bytes[bytes.startIndex + 7]
        guard ByteClass.isDigit(major), dot == UInt8(ascii: "."), ByteClass.isDigit(minor) else {
            throw .invalidVersion
        }
        switch (major, minor) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): return .http11
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .http10
        default: throw .unsupportedVersion
        }
    }
}
