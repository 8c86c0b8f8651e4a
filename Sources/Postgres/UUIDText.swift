import Foundation

/// UUIDs as text without Foundation's formatter and parser, which go through `snprintf` and
/// `sscanf`: they were 16 % of a `GET /v1/tasks/{id}`'s instructions (bench/callgrind), since
/// every query binds UUIDs as text and every row and access token carries them.
public enum UUIDText {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The canonical lowercase form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (what PostgreSQL prints).
    public static func lowercase(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36, initializingUTF8With: { (out: UnsafeMutableBufferPointer<UInt8>) -> Int in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int(byte >> 4)]
                    out[position + 1] = digits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            })
        }
    }

    /// Parses exactly what `UUID(uuidString:)` accepts: 8-4-4-4-12 hex digits of either case.
    public static func parse(_ text: some StringProtocol) -> UUID? {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for (index, char) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard char == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let nibble = nibble(char) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes.withUnsafeBytes { raw in
            UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
        }
    }

    private static func nibble(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
