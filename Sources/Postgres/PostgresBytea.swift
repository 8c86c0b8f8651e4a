import Foundation

/// bytea hex format (`\x0aff…`), the server default for `bytea_output`.
enum PostgresBytea {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func encode(_ data: Data) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        bytes.reserveCapacity(2 + data.count * 2)
        for byte in data {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decode(_ text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count % 2 == 0, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x")
        else { return nil }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    /// One hex digit's value (either case); also `UUIDText`'s.
    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
