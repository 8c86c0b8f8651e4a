/// The codes the HTTP server answers with on its own — routing, transport limits, shutdown —
/// named once, like the application's `ErrorCode` (Domain, which this module sits below).
/// Where both layers answer the same condition (`not_found`, `internal_error`,
/// `shutting_down`) the text is the same, so clients see one vocabulary.
public enum ServerErrorCode {
    public static let badRequest = "bad_request"
    public static let notFound = "not_found"
    public static let methodNotAllowed = "method_not_allowed"
    public static let invalidPath = "invalid_path"
    public static let missingPathParameter = "missing_path_parameter"
    public static let requestTimeout = "request_timeout"
    public static let tooManyConnections = "too_many_connections"
    public static let shuttingDown = "shutting_down"
    public static let internalError = "internal_error"
    /// A WebSocket upgrade request the server cannot accept (RFC 6455 §4.2.1).
    public static let webSocketHandshakeInvalid = "websocket_handshake_invalid"
    public static let webSocketVersionUnsupported = "websocket_version_unsupported"
}
