import HTTP1

/// Turns a request into a reply. `Router` is the usual one; tests and special servers may
/// supply their own. Runs on a worker thread, so it may block (e.g. on the database).
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) throws -> HandlerReply
}

/// A handler as a closure.
public typealias RequestHandler = @Sendable (HTTPRequest, RequestContext) throws -> HandlerReply
