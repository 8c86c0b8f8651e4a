/// A header value of the form `value *( ";" name "=" ( token / quoted-string ) )`
/// (RFC 9110 §5.6.6), as `Content-Type: multipart/form-data; boundary=…` and a part's
/// `Content-Disposition: form-data; name="…"; filename="…"` (RFC 7578 §4.2) are written.
///
/// Strict on purpose: a parameter named twice, a missing `=`, an unterminated quoted string or
/// a control character is an error rather than a guess, so two readers of the same bytes
/// cannot disagree about what a part is called. Quoted strings may carry UTF-8 (browsers put
/// file names there raw), which must be valid.
public struct HeaderParameters: Sendable, Equatable {
    /// The leading value, lowercased (`multipart/form-data`, `form-data`).
    public var value: String
    /// Parameters in order; names lowercased, values unquoted.
    public var parameters: [(name: String, value: String)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.value == rhs.value && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    public subscript(name: String) -> String? { parameters.first { $0.name == name }?.value }

    public struct Malformed: Error, Equatable, Sendable {}

    public init(parsing text: String) throws(Malformed) {
        try self.init(bytes: Array(text.utf8))
    }

    public init(bytes: [UInt8]) throws(Malformed) {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        // The leading value is a token or a type/subtype pair of tokens.
        let start = reader.index
        while let byte = reader.peek, ByteClass.isTokenChar(byte) || byte == UInt8(ascii: "/") { reader.index += 1 }
        guard reader.index > start else { throw Malformed() }
        value = String(decoding: bytes[start..<reader.index], as: UTF8.self).lowercasedASCII()
        parameters = []
        reader.skipWhitespace()
        while !reader.atEnd {
            guard reader.peek == UInt8(ascii: ";") else { throw Malformed() }
            reader.index += 1
            reader.skipWhitespace()
            let name = try reader.token().lowercasedASCII()
            guard reader.peek == UInt8(ascii: "=") else { throw Malformed() }
            reader.index += 1
            let parameterValue = reader.peek == UInt8(ascii: "\"") ? try reader.quotedString() : try reader.token()
            guard !parameters.contains(where: { $0.name == name }) else { throw Malformed() }
            parameters.append((name, parameterValue))
            reader.skipWhitespace()
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, ByteClass.isWhitespace(byte) { index += 1 }
        }

        mutating func token() throws(Malformed) -> String {
            let start = index
            while let byte = peek, ByteClass.isTokenChar(byte) { index += 1 }
            guard index > start else { throw Malformed() }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// `"…"` with `\x` quoted pairs (RFC 9110 §5.6.4); the content must be valid UTF-8.
        mutating func quotedString() throws(Malformed) -> String {
            index += 1
            var content: [UInt8] = []
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: content, as: UTF8.self) else { throw Malformed() }
                    return text
                case UInt8(ascii: "\\"):
                    guard let escaped = peek, escaped == ByteClass.htab || !ByteClass.isControl(escaped) else { throw Malformed() }
                    content.append(escaped)
                    index += 1
                default:
                    guard byte == ByteClass.htab || !ByteClass.isControl(byte) else { throw Malformed() }
                    content.append(byte)
                }
            }
            throw Malformed()
        }
    }
}
