import HTTP1

/// What a handler (or middleware) answers with.
///
/// - `response`: the usual case; the worker thread hands it straight back to the event loop.
/// - `deferred`: the handler has parked the request (long-polling). It created a
///   `ResponseCompletion`, stored it wherever the event will come from, and returned at once,
///   freeing its worker thread. Later, any thread calls `completion.complete(with:)` exactly
///   once and the response is written. Until then the connection holds no thread, only its
///   socket. If the client disconnects (or the server shuts down) first, the completion is
///   cancelled: `complete(with:)` becomes a no-op and its `onCancel` callbacks run.
public enum HandlerReply: Sendable {
    case response(HTTPResponse)
    case deferred(ResponseCompletion)
    /// A body produced while it is sent, for results too large to hold (`ResponseBodyStream`).
    case streamed(ResponseBodyStream)
    /// Accept a WebSocket upgrade (RFC 6455): the server checks the handshake (400, or 426 for
    /// a version other than 13, when it is not a valid one), answers 101 and from then on the
    /// connection carries `handler`'s messages (`WebSocketHandler`). The route has already
    /// checked authentication; the upgrade request's own middleware sees no response.
    case webSocket(any WebSocketHandler)

    /// Applies `transform` to the response whenever it exists — now for `.response`, at
    /// completion time for `.deferred`. Middleware uses this to decorate both kinds alike.
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HandlerReply {
        switch self {
        case .response(let response):
            return .response(transform(response))
        case .deferred(let completion):
            completion.addTransform(transform)
            return .deferred(completion)
        case .streamed(let stream):
            stream.addTransform(transform)
            return .streamed(stream)
        case .webSocket:
            return self // no HTTP response to decorate: the 101 is the transport's
        }
    }
}
