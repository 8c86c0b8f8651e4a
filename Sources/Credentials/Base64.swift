import Foundation

/// Base64 variants used by the credential formats: unpadded standard alphabet inside password
/// hashes (PHC string style), unpadded URL-safe alphabet for tokens.
enum Base64 {
    static func unpaddedEncoded(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func unpaddedDecoded(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        guard !padded.contains("=") else { return nil }
        while padded.count % 4 != 0 { padded.append("=") }
        return Data(base64Encoded: padded).map { Array($0) }
    }

    /// Decodes unpadded base64url; nil on any character outside the alphabet or on padding.
    static func urlSafeDecoded(_ text: Substring) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") }) else { return nil }
        let standard = String(text.map { character -> Character in
            switch character {
            case "-": "+"
            case "_": "/"
            default: character
            }
        })
        return unpaddedDecoded(Substring(standard))
    }

    static func urlSafeEncoded(_ bytes: [UInt8]) -> String {
        String(unpaddedEncoded(bytes).map { character -> Character in
            switch character {
            case "+": "-"
            case "/": "_"
            default: character
            }
        })
    }
}
