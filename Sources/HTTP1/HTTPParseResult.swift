/// What one call to `HTTPRequestParser.parse(_:)` found.
///
/// The caller keeps a buffer of received bytes, hands the unconsumed part to `parse`, drops
/// `consumed` bytes from its front, and calls again when more bytes arrive. The parser is
/// incremental: it keeps its position, so bytes it consumed are never rescanned.
public enum HTTPParseResult: Sendable, Equatable {
    /// Everything usable was consumed; read more bytes and call again.
    case needMore(consumed: Int)
    /// The header section is complete and a body follows (reported once per request, before
    /// the body is read, so the server can answer `Expect: 100-continue` or reject early).
    /// Keep calling `parse` to read the body.
    case headComplete(HTTPRequestHead, consumed: Int)
    /// A whole request was read; the parser is ready for the next one (pipelining).
    case complete(HTTPRequest, consumed: Int)
    /// The request is malformed; answer `error.status` and close the connection.
    case failure(HTTPParseError)
}
