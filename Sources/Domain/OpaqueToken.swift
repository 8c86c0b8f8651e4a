import Foundation

/// The wire form of every opaque cursor the API hands out (list cursors, sync `next_since`):
/// a Codable value as JSON in unpadded base64url, so it travels in a query string unescaped.
/// Clients must not parse it; the server changes the inside freely.
public enum OpaqueToken {
    /// Encoding plain strings and numbers cannot fail; an empty token would be rejected, not misread.
    public static func encode(_ value: some Encodable, sortedKeys: Bool = false) -> String {
        let encoder = JSONEncoder()
        if sortedKeys { encoder.outputFormatting = .sortedKeys }
        let data = (try? encoder.encode(value)) ?? Data()
        // base64 → base64url byte by byte: Foundation's `replacingOccurrences` (three passes
        // through NSString) was a quarter of an idle sync's instructions (bench/callgrind).
        var url: [UInt8] = []
        for byte in data.base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// The value, or nil when `text` is not base64url of such a JSON value, or when the value
    /// is `RangeChecked` and its numbers are outside what this server can have written.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) -> Value? {
        var base64 = Data(text.utf8.map { byte in
            byte == UInt8(ascii: "-") ? UInt8(ascii: "+") : byte == UInt8(ascii: "_") ? UInt8(ascii: "/") : byte
        })
        base64.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4))
        guard let data = Data(base64Encoded: base64),
              let value = try? JSONDecoder().decode(type, from: data)
        else { return nil }
        if let checked = value as? any RangeChecked, !checked.isWithinRange { return nil }
        return value
    }
}

/// A token whose numbers must also lie in a range (a timestamp in microseconds the database
/// can hold, a transaction id). A forged token outside it is as malformed as bad base64: it is
/// refused here, where every cursor is decoded (400 `invalid_cursor`), instead of reaching
/// SQL and failing there as a data exception (which would answer 422 `invalid_value`).
public protocol RangeChecked {
    var isWithinRange: Bool { get }
}
