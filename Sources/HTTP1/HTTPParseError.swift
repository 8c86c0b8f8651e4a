/// Every way a request can be malformed, each with the status it is answered with.
/// After any parse error the connection is closed: once framing is in doubt, the next
/// byte cannot be trusted to start a request (RFC 9112 §11.2, request smuggling).
public enum HTTPParseError: Error, Sendable, Hashable {
    // Request line
    case invalidMethod
    case invalidRequestTarget
    case invalidVersion
    case unsupportedVersion            // well-formed HTTP/x.y other than 1.0/1.1 → 505
    case requestLineTooLong            // → 414
    case bareLineFeed                  // LF without CR anywhere in the head
    case invalidCharacter              // control characters / NUL / non-token bytes

    // Header section
    case invalidHeaderName
    case invalidHeaderValue
    case whitespaceBeforeColon
    case obsoleteLineFolding
    case headerSectionTooLarge         // → 431
    case tooManyHeaders                // → 431
    case missingHost                   // HTTP/1.1 without Host
    case duplicateHost
    case invalidHost

    // Framing
    case invalidContentLength
    case duplicateContentLength
    case contentLengthWithTransferEncoding
    case transferEncodingNotChunked    // chunked present but not last, or HTTP/1.0 with TE
    case unsupportedTransferEncoding   // unknown coding → 501
    case lengthRequired                // reserved for callers that demand a length → 411
    case bodyTooLarge                  // → 413

    // Chunked body
    case invalidChunkSize
    case invalidChunkExtension
    case invalidChunkTerminator
    case invalidTrailer

    /// The status this error is answered with.
    public var status: HTTPStatus {
        switch self {
        case .unsupportedVersion: return .httpVersionNotSupported
        case .requestLineTooLong: return .uriTooLong
        case .headerSectionTooLarge, .tooManyHeaders: return .requestHeaderFieldsTooLarge
        case .unsupportedTransferEncoding: return .notImplemented
        case .lengthRequired: return .lengthRequired
        case .bodyTooLarge: return .contentTooLarge
        default: return .badRequest
        }
    }

    /// A stable snake_case identifier for the JSON error body.
    public var code: String {
        switch self {
        case .invalidMethod: return "invalid_method"
        case .invalidRequestTarget: return "invalid_request_target"
        case .invalidVersion: return "invalid_version"
        case .unsupportedVersion: return "http_version_not_supported"
        case .requestLineTooLong: return "request_line_too_long"
        case .bareLineFeed: return "bare_line_feed"
        case .invalidCharacter: return "invalid_character"
        case .invalidHeaderName: return "invalid_header_name"
        case .invalidHeaderValue: return "invalid_header_value"
        case .whitespaceBeforeColon: return "whitespace_before_colon"
        case .obsoleteLineFolding: return "obsolete_line_folding"
        case .headerSectionTooLarge: return "header_section_too_large"
        case .tooManyHeaders: return "too_many_headers"
        case .missingHost: return "missing_host"
        case .duplicateHost: return "duplicate_host"
        case .invalidHost: return "invalid_host"
        case .invalidContentLength: return "invalid_content_length"
        case .duplicateContentLength: return "duplicate_content_length"
        case .contentLengthWithTransferEncoding: return "content_length_with_transfer_encoding"
        case .transferEncodingNotChunked: return "transfer_encoding_not_chunked"
        case .unsupportedTransferEncoding: return "unsupported_transfer_encoding"
        case .lengthRequired: return "length_required"
        case .bodyTooLarge: return "body_too_large"
        case .invalidChunkSize: return "invalid_chunk_size"
        case .invalidChunkExtension: return "invalid_chunk_extension"
        case .invalidChunkTerminator: return "invalid_chunk_terminator"
        case .invalidTrailer: return "invalid_trailer"
        }
    }

    /// A sentence for people, safe to show to any client.
    public var message: String {
        switch self {
        case .invalidMethod: return "The request method is not a valid token."
        case .invalidRequestTarget: return "The request target is malformed."
        case .invalidVersion: return "The HTTP version is malformed."
        case .unsupportedVersion: return "Only HTTP/1.0 and HTTP/1.1 are supported."
        case .requestLineTooLong: return "The request line is too long."
        case .bareLineFeed: return "Lines must end with CRLF."
        case .invalidCharacter: return "The request contains a forbidden character."
        case .invalidHeaderName: return "A header field name is malformed."
        case .invalidHeaderValue: return "A header field value contains a forbidden character."
        case .whitespaceBeforeColon: return "Whitespace between a header field name and the colon is not allowed."
        case .obsoleteLineFolding: return "Obsolete header line folding is not allowed."
        case .headerSectionTooLarge: return "The header section is too large."
        case .tooManyHeaders: return "The request has too many header fields."
        case .missingHost: return "HTTP/1.1 requests must have a Host header."
        case .duplicateHost: return "The request has more than one Host header."
        case .invalidHost: return "The Host header is malformed."
        case .invalidContentLength: return "The Content-Length header is malformed."
        case .duplicateContentLength: return "The request has more than one Content-Length."
        case .contentLengthWithTransferEncoding: return "Content-Length and Transfer-Encoding must not both be sent."
        case .transferEncodingNotChunked: return "The final transfer coding must be chunked."
        case .unsupportedTransferEncoding: return "The transfer coding is not supported."
        case .lengthRequired: return "A Content-Length is required."
        case .bodyTooLarge: return "The request body is too large."
        case .invalidChunkSize: return "A chunk size is malformed."
        case .invalidChunkExtension: return "A chunk extension is malformed."
        case .invalidChunkTerminator: return "A chunk is not terminated by CRLF."
        case .invalidTrailer: return "A trailer field is malformed."
        }
    }
}
