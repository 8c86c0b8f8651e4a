import HTTP1
import Logging
import Synchronization

/// Warns once per process, in the log, about a deployment that cannot see its clients:
/// - `X-Forwarded-For` from a peer TRUSTED_PROXIES does not list: the header is ignored, so
///   every client behind that proxy has the proxy's address (and shares its sign-in limits);
/// - `X-Forwarded-Proto: https` while PUBLIC_URL is unset: the server is reached over https
///   but does not know it, so the console's cookies are never `Secure`.
/// Once each, so a busy server logs two lines at most, whoever sends the headers.
public struct ForwardedHeaderWarnings: Middleware {
    let trustedProxies: TrustedProxies
    let publicURLIsSet: Bool
    private let warned: Flags

    final class Flags: Sendable {
        let untrustedForwardedFor = Atomic<Bool>(false)
        let httpsWithoutPublicURL = Atomic<Bool>(false)
    }

    public init(trustedProxies: TrustedProxies, publicURLIsSet: Bool) {
        self.trustedProxies = trustedProxies
        self.publicURLIsSet = publicURLIsSet
        warned = Flags()
    }

    public func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        if !warned.untrustedForwardedFor.load(ordering: .relaxed), request.headers["X-Forwarded-For"] != nil,
           !(IPAddress(peer: context.remoteAddress).map(trustedProxies.trusts) ?? false),
           !warned.untrustedForwardedFor.exchange(true, ordering: .relaxed) {
            context.logger.warning("""
                a request carries X-Forwarded-For from a peer TRUSTED_PROXIES does not list: the header is ignored, \
                so every client behind that proxy looks like the proxy and shares its sign-in limits; \
                set TRUSTED_PROXIES to the proxy's address (logged once)
                """, metadata: ["peer": .string(context.remoteAddress)])
        }
        if !publicURLIsSet, !warned.httpsWithoutPublicURL.load(ordering: .relaxed),
           request.headers["X-Forwarded-Proto"]?.lowercased() == "https",
           !warned.httpsWithoutPublicURL.exchange(true, ordering: .relaxed) {
            context.logger.warning("""
                a request arrived through a proxy with X-Forwarded-Proto: https but PUBLIC_URL is unset: \
                console cookies are not Secure and mail links point at the listener; \
                set PUBLIC_URL to the https address (logged once)
                """)
        }
        return try next(request, context)
    }
}
