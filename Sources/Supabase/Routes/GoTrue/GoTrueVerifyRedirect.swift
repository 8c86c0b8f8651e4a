import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// `GET /auth/v1/verify?token=…&type=…&redirect_to=…`: the link in a mail, opened by a
/// browser. Answers 303 to the allow-listed `redirect_to` (else the first allowed target)
/// the way GoTrue's verifyGet does:
/// - a session in the fragment: `#access_token=…&expires_at=…&expires_in=…&refresh_token=…&sb=&token_type=bearer&type=…`;
/// - for a PKCE link (`pkce_…` token), `?code=…` for the app to exchange with its verifier;
/// - an error in the fragment (`error`, `error_code`, `error_description`, `sb`), and for a
///   PKCE link in the query as well.
/// `Referrer-Policy: no-referrer` keeps the token out of the next page's Referer, and
/// `Cache-Control: no-store` keeps the answer out of caches.
///
/// GET spends the link on sight, as GoTrue does: that is what supabase clients and apps
/// ported from Supabase expect of the mail's link (a confirm page would change every app's
/// flow). A scanner that opens it spends it (and the mail's code: both are one row) but
/// gets nothing usable from a PKCE link, whose code is worth nothing without the app's
/// verifier; the owner asks for a new mail. HEAD never spends it (`probe`).
/// docs/app-developers/email-auth.md has the reasoning and the confirm-page alternative.
///
/// Except where no app waits: an invitation, recovery or address-change link whose target is
/// the server itself (the default, PUBLIC_URL) goes, unspent, to the server's account pages
/// (`EmailAuthSettings.accountPagesPath`), where a person on a computer chooses a password or
/// confirms the address, and the page's POST spends the link.
enum GoTrueVerifyRedirect {
    static func respond(_ request: HTTPRequest, _ context: RequestContext, _ auth: AuthService) -> HTTPResponse {
        let target = auth.emailSettings.redirects.resolve(context.query["redirect_to"])
        let token = context.query["token"] ?? ""
        let type = context.query["type"] ?? ""
        let pkce = token.hasPrefix("pkce_")
        if let pages = auth.emailSettings.accountPagesPath, !pkce, !token.isEmpty,
           AuthService.AccountLink(rawValue: type) != nil, auth.emailSettings.redirects.isServerItself(target) {
            // No app to hand a session to: the account page, which spends the link only on its POST.
            return redirect(to: auth.emailSettings.redirects.publicURL + pages + "?"
                + FormEncoding.encode([("token", token), ("type", type)]))
        }
        do {
            guard !token.isEmpty, let purposes = EmailTokenPurpose.accepted(byType: type) else {
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue, message: "Verify requires a token and a supported type")
            }
            switch try auth.verifyEmail(.link(token: token), purposes: purposes, forBrowser: true, client: ClientInfo(request, context)) {
            case .pkceCode(let code, _):
                return redirect(to: withQuery(target, [("code", code)]))
            case .emailChanged:
                // No session: GoTrue's `message` fragment, which supabase-js does not take for a sign-in.
                return redirect(to: stripFragment(target) + "#" + FormEncoding.encode([
                    ("message", "The e-mail address is changed; sign in with it."), ("sb", ""), ("type", type),
                ]))
            case .session(let signedIn, _):
                let issued = try auth.issueAccessToken(user: signedIn.user, sessionID: signedIn.sessionID)
                // One fragment: the session replaces whatever fragment the target had, as the
                // error answer's does, since a URL has one and supabase-js reads it whole.
                return redirect(to: stripFragment(target) + "#" + FormEncoding.encode([
                    ("access_token", issued.token), ("expires_at", String(issued.expiresAt)),
                    ("expires_in", String(issued.lifetime)), ("refresh_token", signedIn.refreshToken), ("sb", ""),
                    ("token_type", "bearer"), ("type", type),
                ]))
            }
        } catch {
            // A failure is a redirect with the error in its fragment, not an error response:
            // logged as the renderer would, then shaped as GoTrue's.
            APIErrorRenderer.log(error, logger: context.logger)
            let answer = GoTrueErrorRenderer.httpError(for: error, context: context)
            var pairs = [("error_code", answer.code), ("error_description", answer.message)]
            if let name = oauthError[answer.status.code] { pairs.insert(("error", name), at: 0) }
            let query = pkce ? withQuery(target, pairs) : target
            return redirect(to: stripFragment(query) + "#" + FormEncoding.encode(pairs + [("sb", "")]))
        }
    }

    /// What HEAD answers: 200, nothing spent, nothing cached. Link checkers and mail scanners
    /// probe with HEAD; they learn that the URL answers, never the link's outcome.
    static func probe() -> HTTPResponse {
        var response = HTTPResponse(status: .ok)
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    /// GoTrue's oauthErrorMap: the OAuth `error` of a status.
    static let oauthError: [Int: String] = [
        400: "invalid_request", 401: "unauthorized_client", 403: "access_denied",
        500: "server_error", 503: "temporarily_unavailable",
    ]

    static func redirect(to location: String) -> HTTPResponse {
        var response = HTTPResponse(status: .seeOther)
        response.headers.set(name: "Location", value: location)
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }

    /// `url` with `pairs` added to its query (before any fragment).
    static func withQuery(_ url: String, _ pairs: [(String, String)]) -> String {
        let fragmentStart = url.firstIndex(of: "#") ?? url.endIndex
        let base = url[..<fragmentStart]
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + FormEncoding.encode(pairs) + url[fragmentStart...]
    }

    static func stripFragment(_ url: String) -> String {
        String(url[..<(url.firstIndex(of: "#") ?? url.endIndex)])
    }
}
