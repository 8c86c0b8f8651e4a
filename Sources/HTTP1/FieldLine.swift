/// `field-line = field-name ":" OWS field-value OWS` (RFC 9112 §5), parsed from one line
/// without its CRLF. Used for the header section and for chunked trailers.
enum FieldLine {
    static func parse(_ line: [UInt8]) throws(HTTPParseError) -> HTTPHeaders.Field {
        // A line starting with whitespace continues the previous one (obs-fold, RFC 9112 §5.2);
        // folding has been a smuggling vector, so it is rejected rather than unfolded.
        if let first = line.first, ByteClass.isWhitespace(first) { throw .obsoleteLineFolding }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .invalidHeaderName }
        let name = line[..<colon]
        guard let last = name.last else { throw .invalidHeaderName }
        // `Transfer-Encoding : chunked` must not be read as a different field than the one
        // a lenient proxy saw (RFC 9112 §5.1: MUST reject with 400).
        if ByteClass.isWhitespace(last) { throw .whitespaceBeforeColon }
        guard name.allSatisfy(ByteClass.isTokenChar) else { throw .invalidHeaderName }

        var start = colon + 1
        var end = line.count
        while start < end, ByteClass.isWhitespace(line[start]) { start += 1 }
        while end > start, ByteClass.isWhitespace(line[end - 1]) { end -= 1 }
        let value = line[start..<end]
        guard value.allSatisfy(ByteClass.isFieldValueChar) else { throw .invalidHeaderValue }

        // obs-text bytes that are not UTF-8 become U+FFFD: values are validated above, and no
        // header this server interprets is allowed to contain non-ASCII anyway.
        return HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self),
                                 value: String(decoding: value, as: UTF8.self))
    }
}
