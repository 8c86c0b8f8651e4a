import HTTP1

/// gzip for JSON responses (phones on cellular pay for every byte), in one place for every route.
///
/// A response is compressed when the request accepts gzip (`AcceptEncoding`), the body is
/// JSON of at least `minimumBytes` (below that the gzip header and the CPU outweigh the
/// saving), the status carries a body (never 1xx/204/304), it is not already encoded, and
/// it has no `ETag`: a strong validator names one exact representation (RFC 9110 §8.8.1),
/// and clients send our ETags back as `If-Match` versions, so those single-row responses stay
/// identity rather than grow a second tag. Every such response says `Vary: Accept-Encoding`,
/// compressed or not, so caches keep the two representations apart.
///
/// HEAD is compressed like GET (the response encoder omits the body but announces the
/// compressed `Content-Length`), so both carry the same headers.
public struct CompressionMiddleware: Middleware {
    public var minimumBytes: Int
    public var level: Int32

    /// Level 4: JSON shrinks about as much as with the default 6 at less CPU per byte.
    public init(minimumBytes: Int = 1024, level: Int32 = 4) {
        self.minimumBytes = minimumBytes
        self.level = level
    }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        let minimumBytes = minimumBytes, level = level, headers = request.headers  // not the body: replies may be deferred
        // Accept-Encoding is read only for a response that could be compressed: most answers
        // are small, and parsing the header first was 7 % of a `/healthz` request (bench/callgrind).
        return try next(request, context).map { response in
            Self.encode(response, acceptsGzip: AcceptEncoding.acceptsGzip(headers.values(for: "Accept-Encoding")),
                        minimumBytes: minimumBytes, level: level)
        }
    }

    /// `acceptsGzip` is evaluated only once the response qualifies (JSON, large enough, no ETag).
    static func encode(_ response: HTTPResponse, acceptsGzip: @autoclosure () -> Bool, minimumBytes: Int,
                       level: Int32) -> HTTPResponse {
        guard HTTPResponseEncoder.statusAllowsBody(response.status.code), response.body.count >= minimumBytes,
              isJSON(response.headers["Content-Type"]), !response.headers.contains("Content-Encoding"),
              !response.headers.contains("ETag")
        else { return response }
        var response = response
        response.headers.add(name: "Vary", value: "Accept-Encoding")
        guard acceptsGzip(), let compressed = Gzip.compress(response.body, level: level),
              compressed.count < response.body.count
        else { return response }
        response.body = compressed
        response.headers.remove(name: "Content-Length")
        response.headers.set(name: "Content-Encoding", value: "gzip")
        return response
    }

    /// `application/json`, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingASCIIWhitespace().lowercasedASCII() }
        return mediaType == "application/json"
    }
}
