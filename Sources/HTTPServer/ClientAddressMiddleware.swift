import HTTP1

/// Sets `RequestContext.clientAddress` from `X-Forwarded-For` when the peer is a trusted
/// proxy (see `TrustedProxies` for the rule). Runs before logging so the log line, the
/// metrics and every handler see the same client.
public struct ClientAddressMiddleware: Middleware {
    let trustedProxies: TrustedProxies

    public init(trustedProxies: TrustedProxies) {
        self.trustedProxies = trustedProxies
    }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        guard !trustedProxies.isEmpty else { return try next(request, context) }
        var context = context
        context.clientAddress = trustedProxies.clientAddress(peer: context.remoteAddress,
                                                             forwardedFor: request.headers.values(for: "X-Forwarded-For"))
        return try next(request, context)
    }
}
