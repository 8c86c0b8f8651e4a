/// Whether an outbound request may reach an address: the SSRF guard's rule, applied to the
/// address a connection is about to use (the resolved one, never the URL's text).
///
/// Refused: everything that is not a public unicast address — this host (0/8, 127/8, ::,
/// ::1), private ranges (10/8, 172.16/12, 192.168/16, 100.64/10 carrier NAT, fc00::/7 unique
/// local), link-local (169.254/16 with the cloud metadata services, fe80::/10), multicast and
/// reserved space (224/4, 240/4, ff00::/8), benchmarking (198.18/15), and any IPv6 form that
/// embeds an IPv4 address (v4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16), judged by the
/// IPv4 address it reaches. An operator allows named ranges back (`AddressRange`).
public enum AddressClassifier {
    public enum Verdict: Equatable, Sendable {
        case allowed
        case refused(String)
    }

    public static func classify(_ address: NetworkAddress) -> Verdict {
        switch address {
        case .v4(let bytes): return classifyV4(bytes)
        case .v6(let bytes):
            if let v4 = address.mappedV4 { return classifyV4(v4) }
            return classifyV6(bytes)
        }
    }

    static let refusedV4: [(AddressRange, String)] = [
        ("0.0.0.0/8", "this host"), ("127.0.0.0/8", "loopback"), ("10.0.0.0/8", "private"),
        ("172.16.0.0/12", "private"), ("192.168.0.0/16", "private"), ("100.64.0.0/10", "carrier-grade NAT"),
        ("169.254.0.0/16", "link-local"), ("192.0.0.0/24", "IETF protocol assignments"), ("192.0.2.0/24", "documentation"),
        ("198.18.0.0/15", "benchmarking"), ("198.51.100.0/24", "documentation"), ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
    ].compactMap { entry in AddressRange(parsing: entry.0).map { ($0, entry.1) } }

    static let refusedV6: [(AddressRange, String)] = [
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("fc00::/7", "unique local"), ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"), ("ff00::/8", "multicast"), ("2001:db8::/32", "documentation"),
        ("100::/64", "discard"),
    ].compactMap { entry in AddressRange(parsing: entry.0).map { ($0, entry.1) } }

    static func classifyV4(_ bytes: [UInt8]) -> Verdict {
        let address = NetworkAddress.v4(bytes)
        for (range, reason) in refusedV4 where range.contains(address) { return .refused(reason) }
        return .allowed
    }

    static func classifyV6(_ bytes: [UInt8]) -> Verdict {
        let address = NetworkAddress.v6(bytes)
        for (range, reason) in refusedV6 where range.contains(address) { return .refused(reason) }
        // Forms that carry an IPv4 address reach it (NAT64, 6to4, IPv4-compatible): judged by it.
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, bytes[4..<12].allSatisfy({ $0 == 0 }) {
            return classifyV4(Array(bytes[12..<16]))
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return classifyV4(Array(bytes[2..<6])) }
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return classifyV4(Array(bytes[12..<16])) }
        return .allowed
    }
}
