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
    /// Over the contiguous UTF-8 bytes, not generic: a generic `StringProtocol` walk cost more
    /// than Foundation's `sscanf`.
    public static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { utf8 -> UUID? in
            guard utf8.count == 36 else { return nil }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
                var position = 0, count = 0
                while position < 36 {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        guard utf8[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                        continue
                    }
                    guard let high = PostgresBytea.nibble(utf8[position]), let low = PostgresBytea.nibble(utf8[position + 1]) else { return false }
                    out[count] = high << 4 | low
                    count += 1
                    position += 2
                }
                return true
            }
            return parsed ? UUID(uuid: bytes) : nil
        }
    }
}
