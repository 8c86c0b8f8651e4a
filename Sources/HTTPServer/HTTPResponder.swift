import HTTP1

/// Turns a request into a reply. `Router` is the usual one; tests and special servers may
/// supply their own. Runs on a worker thread, so it may block (e.g. on the database).
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) throws -> HandlerReply
    /// True when answering `request` never blocks, so the event loop may run it itself
    /// instead of handing it to a worker (see `Router.on(_:_:runsOnEventLoop:handler:)`).
    func runsOnEventLoop(_ request: HTTPRequest) -> Bool
}

extension HTTPResponder {
    public func runsOnEventLoop(_ request: HTTPRequest) -> Bool { false }
}

/// A handler as a closure.
public typealias RequestHandler = @Sendable (HTTPRequest, RequestContext) throws -> HandlerReply
