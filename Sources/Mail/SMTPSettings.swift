import Foundation

/// Where and how mail is relayed (SMTP_*), checked once at start-up.
public struct SMTPSettings: Sendable, Equatable {
    /// SMTP_TLS.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain connection upgraded with STARTTLS, which must succeed (port 587 by default).
        case starttls
        /// TLS from the first byte, "SMTPS" (port 465 by default).
        case implicit
        /// No TLS at all: only for a relay on the same host (loopback), e.g. a local MTA.
        case none

        var defaultPort: Int {
            switch self {
            case .starttls: 587
            case .implicit: 465
            case .none: 25
            }
        }
    }

    public let host: String
    public let port: Int
    public let username: String?
    public let password: String?
    public let tls: TLSMode
    /// SMTP_CA_FILE: a PEM bundle trusted instead of the system's (a relay with a private CA).
    public let caFile: String?

    public init(host: String, port: Int? = nil, username: String? = nil, password: String? = nil,
                tls: TLSMode = .starttls, caFile: String? = nil) throws(MailError) {
        guard !host.isEmpty, host.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") }) else {
            throw .invalidSettings("SMTP_HOST must be a host name or an IP address (got \"\(host)\")")
        }
        if tls == .none, !Self.isLoopback(host) {
            throw .invalidSettings("SMTP_TLS=none is accepted only when SMTP_HOST is a loopback address (127.0.0.1, ::1, localhost); got \"\(host)\". Use starttls or implicit.")
        }
        if (username == nil) != (password == nil) {
            throw .invalidSettings("SMTP_USER and SMTP_PASS go together: set both or neither")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .invalidSettings("SMTP_CA_FILE \(caFile) cannot be read")
        }
        self.host = host
        self.port = port ?? tls.defaultPort
        self.username = username
        self.password = password
        self.tls = tls
        self.caFile = caFile
    }

    /// The libcurl URL: smtps:// for implicit TLS, smtp:// otherwise; IPv6 in brackets.
    var url: String {
        let scheme = tls == .implicit ? "smtps" : "smtp"
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(name):\(port)"
    }

    /// Loopback only by literal address or the name `localhost`: a name that resolves to
    /// loopback today may not tomorrow, and plaintext credentials would then cross a network.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }
}
