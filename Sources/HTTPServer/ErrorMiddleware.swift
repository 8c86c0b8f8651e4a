import HTTP1

/// Renders thrown errors: an `HTTPError` as its JSON shape; anything else as 500
/// `internal_error` with a generic message, logged with its details server-side only.
/// The server applies the same rule as a last resort, so errors never escape as a dropped
/// connection even without this middleware.
public struct ErrorMiddleware: Middleware {
    public init() {}

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        do {
            return try next(request, context)
        } catch {
            return .response(Self.render(error, context: context))
        }
    }

    static func render(_ error: any Error, context: RequestContext) -> HTTPResponse {
        if let httpError = error as? HTTPError { return httpError.response }
        context.logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
        return HTTPError.internalError.response
    }
}
