import HTTP1

/// One link in the chain between the server and the responder. Call `next` to continue
/// (optionally with a modified request or context), or answer directly. Use
/// `HandlerReply.map` to change the response so deferred replies are handled too.
public protocol Middleware: Sendable {
    func handle(_ request: HTTPRequest, _ context: RequestContext,
                next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply
}

/// The middleware list wrapped around a responder; the first middleware runs first.
struct MiddlewareChain: Sendable {
    let middleware: [any Middleware]
    let responder: any HTTPResponder

    /// Runs the chain; `context.route` is resolved here unless the caller (the event loop,
    /// which needs it to pick a thread) already did.
    func run(_ request: HTTPRequest, _ context: RequestContext) throws -> HandlerReply {
        guard context.route == nil else { return try run(from: 0, request, context) }
        var context = context
        context.route = responder.route(for: request)
        return try run(from: 0, request, context)
    }

    private func run(from index: Int, _ request: HTTPRequest, _ context: RequestContext) throws -> HandlerReply {
        guard index < middleware.count else {
            return try responder.respond(to: request, context: context)
        }
        return try middleware[index].handle(request, context) { request, context in
            try run(from: index + 1, request, context)
        }
    }
}
