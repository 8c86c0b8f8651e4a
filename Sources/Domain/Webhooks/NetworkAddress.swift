/// An IPv4 or IPv6 address as bytes, parsed from its text (dotted quad, RFC 4291 text with
/// `::`, an embedded dotted quad) without any I/O, so the outbound guard and its tests agree
/// on exactly what an address is.
public enum NetworkAddress: Hashable, Sendable {
    case v4([UInt8])
    case v6([UInt8])

    public init?(_ text: String) {
        if let bytes = Self.parseV4(Substring(text)) {
            self = .v4(bytes)
        } else if let bytes = Self.parseV6(text) {
            self = .v6(bytes)
        } else {
            return nil
        }
    }

    /// The IPv4 address an IPv6 one carries (`::ffff:a.b.c.d`, v4-mapped), else nil: a mapped
    /// address reaches the IPv4 host, so it is classified as that host.
    public var mappedV4: [UInt8]? {
        guard case .v6(let bytes) = self, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return nil
        }
        return Array(bytes[12..<16])
    }

    static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            // Decimal only, no leading zeros: "010" is octal to some resolvers, refused here.
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit),
                  part == "0" || !part.hasPrefix("0"), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseV6(_ text: String) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseV4(piece) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), let value = UInt16(piece, radix: 16) else {
                    return nil
                }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count < 16 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
