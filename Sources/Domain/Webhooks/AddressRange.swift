/// A CIDR range (`10.0.0.0/8`, `fc00::/7`) or one address (a /32 or /128), for the guard's
/// refused list and the operator's allow-list (WEBHOOK_ALLOWED_HOSTS).
public struct AddressRange: Hashable, Sendable {
    public let base: NetworkAddress
    public let prefixLength: Int

    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let base = NetworkAddress(String(parts[0])) else { return nil }
        let width: Int
        switch base {
        case .v4: width = 32
        case .v6: width = 128
        }
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...width).contains(length), parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
            prefixLength = length
        } else {
            prefixLength = width
        }
        self.base = base
    }

    public func contains(_ address: NetworkAddress) -> Bool {
        let (mine, theirs): ([UInt8], [UInt8])
        switch (base, address) {
        case (.v4(let a), .v4(let b)), (.v6(let a), .v6(let b)): (mine, theirs) = (a, b)
        case (.v4(let a), .v6):
            // A v4 range also holds the v4-mapped form of its addresses.
            guard let mapped = address.mappedV4 else { return false }
            (mine, theirs) = (a, mapped)
        default: return false
        }
        var remaining = prefixLength
        for index in 0..<mine.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine[index] & mask != theirs[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}
