import Domain
import Foundation
import Testing

/// `OpaqueToken` converts base64 to base64url byte by byte; tokens already handed out must
/// keep decoding, and new ones must look exactly as before. The reference is the former
/// Foundation-string conversion.
@Suite struct OpaqueTokenTests {
    struct Value: Codable, Equatable {
        var s: String
        var n: Int
    }

    /// Sorted keys on both sides: JSONEncoder's key order otherwise varies between processes.
    static func reference(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func encodesAsBeforeAndRoundTrips() throws {
        var sawURLBytes = false, sawPadding = false
        // Strings of every length mod 3 and with bytes that base64 maps to "+" and "/".
        for length in 0..<40 {
            let value = Value(s: String(repeating: "?>~", count: length / 3) + String("ÿþ".prefix(length % 3)), n: length * 977)
            let token = OpaqueToken.encode(value, sortedKeys: true)
            #expect(token == (try Self.reference(value)))
            #expect(OpaqueToken.decode(Value.self, from: token) == value)
            sawURLBytes = sawURLBytes || token.contains("-") || token.contains("_")
            let jsonLength = try JSONEncoder().encode(value).count
            sawPadding = sawPadding || jsonLength % 3 != 0
        }
        #expect(sawURLBytes && sawPadding)
    }

    @Test func decodesPaddedAndRefusesGarbage() throws {
        let value = Value(s: "ab", n: 1)  // 16 bytes of JSON: two padding characters
        let plain = try JSONEncoder().encode(value).base64EncodedString()
        #expect(plain.hasSuffix("="))
        #expect(OpaqueToken.decode(Value.self, from: plain) == value)  // padding and + / still accepted
        for bad in ["", "!!!!", "e30", "eyJzIjoiYSIsIm4iOjF9é", "eyJz IjoiYSIsIm4iOjF9"] {
            #expect(OpaqueToken.decode(Value.self, from: bad) == nil, "\(bad)")
        }
    }
}
