import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Logging
import Postgres
import RouteKit

/// Authenticates every request whose route requires it (declared per route group in
/// `APIApplication.makeRouter`, read from the request's resolved route), and puts a
/// `Principal` on the context. A request that matches no route needs credentials when its
/// first path segment's routes do (`Router.resolve`), so anonymous callers cannot probe /v1.
///
/// - JWT access tokens are verified with the signing secret (once per distinct token:
///   `VerifiedTokenCache`) and the in-memory `RevokedSessions` set: no database round trip.
/// - API keys (`dsk_…`) are looked up by their SHA-256 on every request, so deleting a key
///   takes effect immediately.
/// Failures answer 401 with `WWW-Authenticate: Bearer` (RFC 6750), plus
/// `error="invalid_token"` when a credential was presented.
package struct AuthMiddleware: Middleware {
    let auth: AuthService
    /// Told of every authenticated request (device activity, kept in memory by Sync).
    let onAuthenticated: (@Sendable (Principal) -> Void)?

    package init(auth: AuthService, onAuthenticated: (@Sendable (Principal) -> Void)? = nil) {
        self.auth = auth
        self.onAuthenticated = onAuthenticated
    }

    package func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        // No resolved route (a responder that does not route): fail closed.
        guard (context.route?.authentication ?? .required) == .required else {
            return try next(request, context)
        }
        var context = context
        let principal = try authenticate(request)
        context.principal = principal
        onAuthenticated?(principal)
        // The id only (never the credential): on the request's log line and on every line
        // the handler logs.
        let userID = Logger.MetadataValue.string(UUIDText.lowercase(principal.userID))
        context.logFields["user_id"] = userID
        context.logger[metadataKey: "user_id"] = userID
        return try next(request, context)
    }

    func authenticate(_ request: HTTPRequest) throws -> Principal {
        guard let header = request.headers["Authorization"] else {
            throw AuthService.unauthorized(tokenGiven: false, "Authentication is required: send Authorization: Bearer <token>.")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw AuthService.unauthorized(tokenGiven: true, "The Authorization header must be: Bearer <token>.")
        }
        let token = Self.trimmingBlanks(parts[1])
        if token.hasPrefix(AuthService.apiKeyPrefix) {
            guard let (keyID, userID) = try auth.apiKeys.authenticate(keyHash: SHA256.hex(token)) else {
                throw AuthService.unauthorized(tokenGiven: true, "The API key is invalid, expired or revoked.")
            }
            return Principal(userID: userID, sessionID: nil, apiKeyID: keyID)
        }
        do {
            let verified = try auth.verifyAccessToken(token)
            return Principal(userID: verified.userID, sessionID: verified.sessionID, apiKeyID: nil)
        } catch .expired {
            throw AuthService.unauthorized(tokenGiven: true, code: .tokenExpired, "The access token has expired; refresh it.")
        } catch .revoked {
            throw AuthService.unauthorized(tokenGiven: true, code: .sessionRevoked, "The session has been signed out.")
        } catch {
            throw AuthService.unauthorized(tokenGiven: true, "The access token is invalid.")
        }
    }

    /// The text without leading and trailing spaces and tabs. (Foundation's
    /// `trimmingCharacters` bridges through NSString and was 4 % of a `GET /v1/tasks/{id}`'s
    /// CPU in perf; a token is ASCII, so no other blank can be part of a valid one.)
    static func trimmingBlanks(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(text[first...last])
    }
}
