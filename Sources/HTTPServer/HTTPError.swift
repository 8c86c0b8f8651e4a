import HTTP1
import JSON

/// An error a handler throws to answer with a specific status and the JSON error shape
/// `{"code", "message", "details", "hint"}` (contract §4). Anything else a handler throws becomes
/// a 500 `internal_error` whose message reveals nothing.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    /// Stable snake_case identifier clients branch on.
    public var code: String
    /// For people; must never contain SQL, stack traces or other internals.
    public var message: String
    public var details: JSONValue?
    public var hint: String?
    /// Added to the response, e.g. `Allow`, `Retry-After`, `WWW-Authenticate`.
    public var extraHeaders: HTTPHeaders

    public init(status: HTTPStatus, code: String, message: String, details: JSONValue? = nil,
                hint: String? = nil, extraHeaders: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
        self.extraHeaders = extraHeaders
    }

    public static func notFound(_ message: String = "No such resource.") -> HTTPError {
        HTTPError(status: .notFound, code: ServerErrorCode.notFound.rawValue, message: message)
    }

    public static func badRequest(code: String = ServerErrorCode.badRequest.rawValue, _ message: String) -> HTTPError {
        HTTPError(status: .badRequest, code: code, message: message)
    }

    public static let internalError = HTTPError(status: .internalServerError, code: ServerErrorCode.internalError.rawValue,
                                         message: "An unexpected error occurred.")

    /// The response this error is rendered as.
    public var response: HTTPResponse {
        var response = HTTPResponse.jsonError(status: status, code: code, message: message,
                                              details: details, hint: hint)
        for field in extraHeaders { response.headers.add(name: field.name, value: field.value) }
        return response
    }
}
