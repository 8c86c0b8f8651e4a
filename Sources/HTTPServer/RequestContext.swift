import HTTP1
import Logging

/// Per-request information that travels alongside the request through middleware to the
/// handler. A value: middleware that adds something (e.g. the principal) passes a modified copy
/// to `next`.
public struct RequestContext: Sendable {
    /// The request id echoed in `X-Request-Id` (the client's, when it sent a sane one).
    public let requestID: String
    /// The request's route, matched once before the middleware runs (nil when the responder
    /// is not a router). Logging, metrics and authentication read it; the router dispatches from it.
    public var route: ResolvedRoute?
    /// `{name}` segments of the matched route, percent-decoded. Set by the router.
    public var pathParameters: [String: String] = [:]
    /// The decoded query string.
    public var query: QueryParameters
    /// Carries `request_id` metadata.
    public var logger: Logger
    /// The peer as `ip:port`.
    public let remoteAddress: String
    /// The client's IP without port: the peer's, or the one a trusted proxy reported
    /// (`ClientAddressMiddleware`). What per-client limits and logs should use.
    public var clientAddress: String
    /// Set by the authentication layer; nil for anonymous requests.
    public var principal: (any Sendable)?
    /// Free-form storage for middleware that needs to pass something along.
    public var storage: [String: any Sendable] = [:]
    /// Fields for the request's log line, shared by every copy of this context (see
    /// `RequestLogFields`): inner layers add to it, `LoggingMiddleware` writes it out.
    public let logFields = RequestLogFields()

    /// `peerAddress`: `remoteAddress` without its port, when the caller has it already
    /// (`peerAddress(_:)`, once per connection); computed here otherwise.
    public init(requestID: String, query: QueryParameters = QueryParameters(), logger: Logger,
                remoteAddress: String, peerAddress: String? = nil) {
        self.requestID = requestID
        self.query = query
        self.logger = logger
        self.remoteAddress = remoteAddress
        self.clientAddress = peerAddress ?? Self.peerAddress(remoteAddress)
        self.logger[metadataKey: "request_id"] = .string(requestID)
    }

    /// `error` as the response this request's route group answers with: the renderer the
    /// application registered for the group's error style (`ErrorRenderers`), the server's own
    /// without one. For work that answers later (a deferred reply), whose failures no
    /// middleware sees, so they take the same path as a throw.
    public func renderError(_ error: any Error) -> HTTPResponse {
        let style = route?.errorStyle ?? .contract
        return (ErrorRenderers.renderer(for: style) ?? HTTPErrorRendering()).response(for: error, context: self)
    }

    /// The IP of a peer given as `ip:port` (canonical form), or the text itself when it is not one.
    public static func peerAddress(_ remoteAddress: String) -> String {
        IPAddress(peer: remoteAddress)?.description ?? remoteAddress
    }

    /// The path parameter `name`; throws a 400 when missing (a route/handler mismatch).
    public func pathParameter(_ name: String) throws -> String {
        guard let value = pathParameters[name] else {
            throw HTTPError.badRequest(code: ServerErrorCode.missingPathParameter.rawValue, "Missing path parameter '\(name)'.")
        }
        return value
    }
}
