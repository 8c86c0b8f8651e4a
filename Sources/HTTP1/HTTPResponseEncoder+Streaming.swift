extension HTTPResponseEncoder {
    /// The status line and headers of a response whose body follows in pieces: no
    /// `Content-Length` is added (the caller frames the body with chunked encoding, or by
    /// closing the connection for HTTP/1.0 clients).
    public static func encodeHead(_ response: HTTPResponse, into buffer: inout [UInt8]) {
        appendStatusLine(response.status, into: &buffer)
        for field in response.headers where !asciiCaseInsensitiveEquals(field.name, "content-length") {
            appendSanitized(field.name, into: &buffer)
            buffer.append(0x3A); buffer.append(0x20)
            appendSanitized(field.value, into: &buffer)
            buffer.append(0x0D); buffer.append(0x0A)
        }
        buffer.append(0x0D); buffer.append(0x0A)
    }

    /// One chunk of a chunked body (RFC 9112 §7.1): hex size, CRLF, data, CRLF. Empty data
    /// appends nothing (an empty chunk would end the body).
    public static func appendChunk(_ data: [UInt8], into buffer: inout [UInt8]) {
        guard !data.isEmpty else { return }
        buffer.append(contentsOf: String(data.count, radix: 16).utf8)
        buffer.append(0x0D); buffer.append(0x0A)
        buffer.append(contentsOf: data)
        buffer.append(0x0D); buffer.append(0x0A)
    }

    /// The last chunk with no trailers: the end of a chunked body.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}
