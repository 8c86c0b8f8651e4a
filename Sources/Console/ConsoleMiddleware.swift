import API
import HTTP1
import HTTPServer

extension ErrorStyle {
    /// `/console`: errors are pages (`ConsoleMiddleware`), not JSON.
    package static let console = ErrorStyle("console")
}

/// The innermost middleware for `/console` (routes registered with `ErrorStyle.console`, and
/// unmatched paths under it):
/// - every error a console handler or the router throws becomes a page through
///   `ConsoleSite.errorPage`, the one place (work deferred to the KDF pool calls it itself);
/// - every answer carries the console's security headers: a strict Content-Security-Policy
///   (only the console's own script and style files, nothing inline, no framing), no MIME
///   sniffing, no referrer to other origins.
package struct ConsoleMiddleware: Middleware {
    let site: ConsoleSite

    package init(site: ConsoleSite) {
        self.site = site
    }

    package static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    package func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        guard context.route?.errorStyle == .console else { return try next(request, context) }
        let reply: HandlerReply
        do {
            reply = try next(request, context)
        } catch {
            reply = .response(site.errorPage(for: error, context: context))
        }
        return reply.map(Self.secured)
    }

    static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set(name: "Content-Security-Policy", value: contentSecurityPolicy)
        response.headers.set(name: "X-Frame-Options", value: "DENY")
        response.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.set(name: "Referrer-Policy", value: "same-origin")
        response.headers.set(name: "Cross-Origin-Opener-Policy", value: "same-origin")
        return response
    }
}
