/// The request line and header section of a request.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request-target exactly as sent: origin-form `/path?query`, absolute-form
    /// `http://host/path?query`, or `*` for OPTIONS.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    public init(method: HTTPMethod, target: String, version: HTTPVersion, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The path part of the target (before `?`), still percent-encoded. For absolute-form the
    /// scheme and authority are dropped, and an empty path is `/` (RFC 9112 §3.2.2, RFC 9110
    /// §4.2.3), so such a request routes like its origin-form equivalent.
    ///
    /// Searched byte-wise in the UTF-8 view: every layer reads the path, and `firstIndex(of:)`
    /// on the Character view (grapheme breaking) made this 9 % of a `/healthz` request's
    /// instructions (bench/callgrind). The delimiters are ASCII, so a UTF-8 index of one is a
    /// valid String index.
    public var path: Substring {
        let bytes = target.utf8
        let beforeQuery = bytes.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        guard let first = beforeQuery.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") else {
            return beforeQuery
        }
        // The parser accepted absolute-form only: `scheme "://" authority [path]`, and the
        // authority contains neither `/` nor `?`.
        guard let colon = beforeQuery.utf8.firstIndex(of: UInt8(ascii: ":")) else { return beforeQuery }
        let authority = beforeQuery[colon...].dropFirst(3)
        guard let slash = authority.utf8.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
        return beforeQuery[slash...]
    }

    /// The query part of the target (after `?`), or nil.
    public var query: Substring? {
        let bytes = target.utf8
        guard let q = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[bytes.index(after: q)...]
    }

    /// Whether the client wants the connection kept open after this request
    /// (HTTP/1.1 default unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`).
    public var wantsKeepAlive: Bool {
        switch version {
        case .http11: return !headers.containsToken("close", in: "Connection")
        case .http10: return headers.containsToken("keep-alive", in: "Connection")
        }
    }

    /// Whether the client sent `Expect: 100-continue` (and so waits for an interim response).
    public var expectsContinue: Bool {
        headers["Expect"]?.lowercasedASCII() == "100-continue"
    }
}

/// A complete request: head plus the fully read (de-chunked) body.
public struct HTTPRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// Trailer fields of a chunked body (empty otherwise).
    public var trailers: HTTPHeaders

    public init(head: HTTPRequestHead, body: [UInt8] = [], trailers: HTTPHeaders = HTTPHeaders()) {
        self.head = head
        self.body = body
        self.trailers = trailers
    }

    public var method: HTTPMethod { head.method }
    public var headers: HTTPHeaders { head.headers }
    public var path: Substring { head.path }
    public var query: Substring? { head.query }
}
