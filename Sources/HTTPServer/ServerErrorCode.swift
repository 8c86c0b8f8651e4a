/// The codes the HTTP server answers with on its own — routing, transport limits, shutdown —
/// named once, like the application's `ErrorCode` (Domain, which this module sits below).
/// Where both layers answer the same condition (`not_found`, `internal_error`,
/// `shutting_down`) the text is the same, so clients see one vocabulary. An enum so the codes
/// can be enumerated (the client-shape tests render each in every family's shape).
public enum ServerErrorCode: String, Sendable, CaseIterable {
    case badRequest = "bad_request"
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case invalidPath = "invalid_path"
    case missingPathParameter = "missing_path_parameter"
    case requestTimeout = "request_timeout"
    case tooManyConnections = "too_many_connections"
    case shuttingDown = "shutting_down"
    case internalError = "internal_error"
    /// A WebSocket upgrade request the server cannot accept (RFC 6455 §4.2.1).
    case webSocketHandshakeInvalid = "websocket_handshake_invalid"
    case webSocketVersionUnsupported = "websocket_version_unsupported"
}
