import HTTP1

/// Turns a request into a reply. `Router` is the usual one; tests and special servers may
/// supply their own. Runs on a worker thread, so it may block (e.g. on the database).
public protocol HTTPResponder: Sendable {
    /// Matches `request` to a route, once per request: the server calls it before the
    /// middleware and carries the result in `RequestContext.route` (nil: this responder does
    /// not route, and its requests run on a worker). No default, so a router whose method
    /// signature drifts fails to compile instead of silently never resolving.
    func route(for request: HTTPRequest) -> ResolvedRoute?
    func respond(to request: HTTPRequest, context: RequestContext) throws -> HandlerReply
}

/// A handler as a closure.
public typealias RequestHandler = @Sendable (HTTPRequest, RequestContext) throws -> HandlerReply
