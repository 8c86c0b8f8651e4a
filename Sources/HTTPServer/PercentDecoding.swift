/// Percent-decoding for path segments and query components (RFC 3986 §2.1).
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as space when `plusAsSpace`, the form-encoding rule for
    /// queries). Returns nil for a malformed escape or bytes that are not UTF-8.
    static func decode(_ input: Substring, plusAsSpace: Bool) -> String? {
        if let decoded = input.utf8.withContiguousStorageIfAvailable({ decode($0, plusAsSpace: plusAsSpace) }) {
            return decoded
        }
        return Array(input.utf8).withUnsafeBufferPointer { decode($0, plusAsSpace: plusAsSpace) }
    }

    /// `decode` over UTF-8 bytes, by integer offsets (the query's pairs are decoded this way:
    /// walking a `Substring.UTF8View` by its indices cost several instructions a byte).
    static func decode(_ input: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) -> String? {
        guard input.contains(where: { $0 == 0x25 || (plusAsSpace && $0 == 0x2B) }) else {
            return String(validating: input, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == 0x25 {
                guard index + 2 < input.count,
                      let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusAsSpace && byte == 0x2B ? 0x20 : byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
