/// `chunk-size [ chunk-ext ] CRLF` (RFC 9112 §7.1), parsed from one line without its CRLF.
/// Extensions are validated and discarded: nothing here gives them meaning, but a malformed
/// one is where parsers disagree about where a chunk starts.
enum ChunkSizeLine {
    /// More hex digits than fit in 64 bits is an overflow attempt, not a real size.
    static let maxSizeDigits = 16

    static func parse(_ line: [UInt8]) throws(HTTPParseError) -> UInt64 {
        var index = 0
        var size: UInt64 = 0
        while index < line.count, let digit = ByteClass.hexValue(line[index]) {
            guard index < maxSizeDigits else { throw .invalidChunkSize }
            size = size << 4 | UInt64(digit)
            index += 1
        }
        guard index > 0 else { throw .invalidChunkSize }
        guard index < line.count else { return size }

        // After the digits only `BWS ";"` may follow; anything else (`0x`, `1 0`, trailing
        // spaces) is a malformed size.
        var cursor = index
        skipWhitespace(line, &cursor)
        guard cursor < line.count, line[cursor] == UInt8(ascii: ";") else { throw .invalidChunkSize }
        try parseExtensions(line, from: cursor)
        return size
    }

    /// `*( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )`
    private static func parseExtensions(_ line: [UInt8], from start: Int) throws(HTTPParseError) {
        var i = start
        while i < line.count {
            skipWhitespace(line, &i)
            guard i < line.count, line[i] == UInt8(ascii: ";") else { throw .invalidChunkExtension }
            i += 1
            skipWhitespace(line, &i)
            guard skipToken(line, &i) else { throw .invalidChunkExtension }
            skipWhitespace(line, &i)
            guard i < line.count, line[i] == UInt8(ascii: "=") else { continue }
            i += 1
            skipWhitespace(line, &i)
            guard i < line.count else { throw .invalidChunkExtension }
            if line[i] == UInt8(ascii: "\"") {
                try skipQuotedString(line, &i)
            } else if !skipToken(line, &i) {
                throw .invalidChunkExtension
            }
        }
    }

    private static func skipWhitespace(_ line: [UInt8], _ i: inout Int) {
        while i < line.count, ByteClass.isWhitespace(line[i]) { i += 1 }
    }

    /// Advances over a non-empty token; false when there is none.
    private static func skipToken(_ line: [UInt8], _ i: inout Int) -> Bool {
        let start = i
        while i < line.count, ByteClass.isTokenChar(line[i]) { i += 1 }
        return i > start
    }

    private static func skipQuotedString(_ line: [UInt8], _ i: inout Int) throws(HTTPParseError) {
        i += 1 // opening DQUOTE
        while i < line.count {
            let b = line[i]
            if b == UInt8(ascii: "\"") { i += 1; return }
            if b == UInt8(ascii: "\\") {
                guard i + 1 < line.count, ByteClass.isQuotedPairChar(line[i + 1]) else { throw .invalidChunkExtension }
                i += 2
            } else {
                guard ByteClass.isQuotedTextChar(b) else { throw .invalidChunkExtension }
                i += 1
            }
        }
        throw .invalidChunkExtension // unterminated
    }
}
