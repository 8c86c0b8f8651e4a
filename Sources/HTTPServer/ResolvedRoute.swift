import HTTP1

/// What the router found for one request. The server matches each request once, before the
/// middleware runs, and carries this in `RequestContext.route`: logging and metrics name the
/// route from it, authentication reads its requirement, and the router dispatches to its
/// handler without matching again.
public struct ResolvedRoute: Sendable {
    public enum Outcome: Sendable {
        /// A route answers: its handler, with the `{name}` segments in `parameters`.
        case found(RequestHandler)
        /// The path is known but not for this method (405 with `Allow`, or 204 for OPTIONS).
        case methodNotAllowed(allow: [String])
        /// No route has this path (404).
        case notFound
        /// The path cannot be decoded (400 `invalid_path`).
        case invalidPath(HTTPError)
    }

    /// The `route` label of requests no route answers (404, 405, bad paths), in logs and metrics.
    public static let unmatchedLabel = "unmatched"

    /// The method and raw path this was resolved for: a request that differs (a middleware
    /// rewrote it, or a handler dispatches a new one) is matched afresh.
    public let method: HTTPMethod
    public let path: Substring
    public let outcome: Outcome
    /// The registered pattern (`/v1/users/{id}`); nil unless a route answers.
    public let pattern: String?
    /// `{name}` segments, percent-decoded.
    public let parameters: [String: String]
    /// From the route's group; for unmatched requests see `Router.resolve(_:)`.
    public let authentication: RouteAuthentication
    /// From the route's group: the wire shape its errors are rendered in (`ErrorRendering`).
    public let errorStyle: ErrorStyle
    /// The route never blocks, so the event loop may run it (`Router.on(_:_:runsOnEventLoop:handler:)`).
    public let runsOnEventLoop: Bool

    /// The pattern, or `unmatchedLabel`: a bounded set of values, safe as a metric label.
    public var label: String { pattern ?? Self.unmatchedLabel }

    func resolves(_ request: HTTPRequest) -> Bool {
        method == request.method && path == request.path
    }
}
