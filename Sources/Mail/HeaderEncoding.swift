import Foundation

/// Header values that may carry user or operator text (Subject, display names): plain ASCII
/// stays as is; anything else becomes RFC 2047 encoded words (UTF-8, base64), which no CR/LF
/// survives, so a value can never start another header.
enum HeaderEncoding {
    /// Characters a display name may use unquoted (RFC 5322 atext and spaces).
    private static let atext = Set("!#$%&'*+-/=?^_`{|}~ ".utf8)

    /// A display name: plain when every byte is a letter, digit, space or atext symbol.
    static func phrase(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0 | 0x20) || atext.contains($0) }
        return plain ? text : encodedWords(text)
    }

    /// An unstructured value (Subject): CR/LF and other controls become spaces, then printable
    /// ASCII stays plain and anything else is encoded.
    static func unstructured(_ text: String) -> String {
        let flat = String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : $0
        }))
        let plain = flat.utf8.allSatisfy { (0x20...0x7E).contains($0) } && flat.utf8.count <= 900
            && !flat.contains("=?")
        return plain ? flat : encodedWords(flat)
    }

    /// Encoded words of at most 64 characters each (RFC 2047 §2 allows 75), cut on character
    /// boundaries, folded onto continuation lines, so that even the first line with its
    /// header name stays within RFC 5322's 78 characters.
    static func encodedWords(_ text: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        // 39 bytes of UTF-8 → 52 base64 characters + 12 of `=?UTF-8?B?` `?=` = 64.
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 39, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk.removeAll()
            }
            chunk += bytes.prefix(39)
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }
}
