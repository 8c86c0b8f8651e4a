import HTTP1

/// Turns any error a handler throws into a response: the one place errors become HTTP.
/// Applications pass their `ErrorRendering` (the API's renders its domain and database errors
/// in the style of the request's route group); the default renders an `HTTPError` as its JSON
/// shape and anything else as 500 `internal_error` with a generic message, logged with its
/// details server-side only. The server applies the default as a last resort, so errors never
/// escape as a dropped connection even without this middleware.
public struct ErrorMiddleware: Middleware {
    let renderer: any ErrorRendering

    public init(renderer: any ErrorRendering = HTTPErrorRendering()) {
        self.renderer = renderer
    }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        do {
            return try next(request, context)
        } catch {
            return .response(renderer.response(for: error, context: context))
        }
    }

    static func render(_ error: any Error, context: RequestContext) -> HTTPResponse {
        HTTPErrorRendering().response(for: error, context: context)
    }
}

/// Renders a thrown error as a response; `context.route?.errorStyle` says which wire shape the
/// request's route group answers in. Also called by handlers that answer later
/// (`HandlerReply.deferred`), whose failures no middleware sees.
public protocol ErrorRendering: Sendable {
    func response(for error: any Error, context: RequestContext) -> HTTPResponse
}

/// The server's own rendering: `HTTPError`s as they are, anything else a logged 500.
public struct HTTPErrorRendering: ErrorRendering {
    public init() {}

    public func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        if let httpError = error as? HTTPError { return httpError.response }
        context.logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
        return HTTPError.internalError.response
    }
}
