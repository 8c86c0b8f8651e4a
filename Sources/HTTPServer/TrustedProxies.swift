/// The reverse proxies whose `X-Forwarded-For` is believed (TRUSTED_PROXIES), and the rule
/// that turns a request into its client's address.
///
/// The rule: start from the socket peer. While the current hop is a trusted proxy, step to the
/// address it reports, the right-most not yet used entry of `X-Forwarded-For`. The first
/// untrusted hop is the client. Entries left of it were written by the client itself and are
/// never believed, so a client cannot choose its own address (and escape per-address limits)
/// by sending the header. With no trusted proxies the header is ignored entirely.
public struct TrustedProxies: Sendable {
    public struct Network: Sendable, Hashable {
        public let address: IPAddress
        public let prefixLength: Int

        /// `192.0.2.10`, `10.0.0.0/8`, `2001:db8::/32`; nil for anything else (including host
        /// bits set beyond the prefix, a likely typo).
        public init?(_ text: some StringProtocol) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(parts[0]) else { return nil }
            let maxLength = address.bytes.count * 8
            var length = maxLength
            if parts.count == 2 {
                guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let parsed = Int(parts[1]), (0...maxLength).contains(parsed) else { return nil }
                length = parsed
            }
            self.address = address
            self.prefixLength = length
            guard Network.masked(address.bytes, length) == address.bytes else { return nil }
        }

        public func contains(_ candidate: IPAddress) -> Bool {
            candidate.bytes.count == address.bytes.count
                && Network.masked(candidate.bytes, prefixLength) == Network.masked(address.bytes, prefixLength)
        }

        static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
            bytes.enumerated().map { index, byte in
                let bits = min(8, max(0, length - index * 8))
                return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
            }
        }
    }

    public let networks: [Network]

    public init(_ networks: [Network] = []) {
        self.networks = networks
    }

    /// Parses a comma-separated list; throws the first entry that is not an address or CIDR.
    public init(parsing list: String) throws(InvalidEntry) {
        var networks: [Network] = []
        for entry in list.split(separator: ",") {
            let trimmed = entry.trimmingBlanks()
            if trimmed.isEmpty { continue }
            guard let network = Network(trimmed) else { throw InvalidEntry(text: String(trimmed)) }
            networks.append(network)
        }
        self.networks = networks
    }

    public struct InvalidEntry: Error, Sendable, Equatable {
        public let text: String
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func trusts(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The client's address: see the type's rule. `forwardedFor` are the values of every
    /// `X-Forwarded-For` field in order. A malformed entry stops the walk at the hop that
    /// reported it (that hop is the best-known client). An unparsable peer is returned as is.
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard var current = IPAddress(peer: peer) else { return peer }
        guard trusts(current), !forwardedFor.isEmpty else { return current.description }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingBlanks() }
        for hop in hops.reversed() {
            guard trusts(current) else { break }
            guard let reported = IPAddress(hop) else { break }
            current = reported
        }
        return current.description
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingBlanks() -> Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
