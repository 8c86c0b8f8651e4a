import Glibc

/// An IPv4 or IPv6 address as its network-order bytes, parsed with `inet_pton` (so only
/// canonical literal forms are accepted: no hostnames, zones or ports). IPv4-mapped IPv6
/// (`::ffff:192.0.2.1`, what a dual-stack socket reports for IPv4 peers) becomes IPv4, so one
/// client has one spelling.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    public init?(_ text: some StringProtocol) {
        let string = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        let raw = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        bytes = raw.starts(with: mappedPrefix) ? Array(raw.suffix(4)) : raw
    }

    /// The address of a socket peer described as `ip:port` or `[ip]:port`.
    public init?(peer: String) {
        if peer.hasPrefix("["), let end = peer.firstIndex(of: "]") {
            self.init(peer[peer.index(after: peer.startIndex)..<end])
        } else if let colon = peer.lastIndex(of: ":"), !peer[..<colon].contains(":") {
            self.init(peer[..<colon])
        } else {
            self.init(peer)
        }
    }

    /// The canonical text form (`inet_ntop`).
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var buffer = bytes
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, &buffer, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
