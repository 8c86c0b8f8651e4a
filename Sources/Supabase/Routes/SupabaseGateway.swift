import Foundation
import Credentials
import HTTP1
import HTTPServer

/// The Supabase-compatible path families (`/auth/v1`, `/rest/v1`, `/storage/v1`,
/// `/realtime/v1`) and what they share at the door, like Supabase's own API gateway:
///
/// - Every request must carry the project's publishable key (`PUBLISHABLE_KEY`) in an `apikey`
///   header (any capitalisation; supabase-swift sends `Apikey`) or an `apikey` query parameter
///   (what realtime clients put in the WebSocket URL). Missing → 401 `no_api_key`, wrong → 401
///   `invalid_api_key`, compared in constant time. OPTIONS (CORS preflights) is exempt.
/// - `Authorization: Bearer <publishable key>` means "anonymous": the header is dropped before
///   authentication, so a route that needs a user answers as for a request without one.
/// - Its refusals are thrown like any handler's: the family's routes are registered with the
///   family's error style, so `APIErrorRenderer` answers in the family's wire shape, for paths
///   no route answers too (the router gives those their namespace's style).
/// - Except: `GET /auth/v1/verify`, the link in a mail, which a browser opens without headers.
/// - Except: `GET`/`HEAD` of public Storage objects (`/storage/v1/object/public/…`) need no key.
///   Clients build those URLs for `<img>` tags and plain downloads, which cannot add headers;
///   Supabase's own gateway leaves them open too. Everything else under `/storage/v1` needs it.
///
/// This is by path family rather than by route group on purpose: the key guards the whole
/// family, including paths no route answers, exactly as Supabase's gateway does. Routes added
/// under these prefixes (e.g. `/rest/v1/…`) are covered without registering anything here;
/// whether they need a signed-in user is still declared by their route group.
package struct SupabaseGateway: Middleware {
    /// nil: no key configured (only in tests that do not serve these families) — every
    /// request under them is refused, failing closed.
    let publishableKey: [UInt8]?

    package init(publishableKey: String?) {
        self.publishableKey = publishableKey.map { Array($0.utf8) }
    }

    package func handle(_ request: HTTPRequest, _ context: RequestContext,
                       next: (HTTPRequest, RequestContext) throws -> HandlerReply) throws -> HandlerReply {
        guard request.method != .options, SupabaseFamily(path: request.path) != nil else {
            return try next(request, context)
        }
        if !Self.isPublicObjectRead(request), !Self.isVerifyLink(request) { try checkAPIKey(request, context) }
        var request = request
        if bearerIsPublishableKey(request) { request.head.headers.remove(name: "Authorization") }
        return try next(request, context)
    }

    func checkAPIKey(_ request: HTTPRequest, _ context: RequestContext) throws {
        guard let presented = request.headers["apikey"] ?? context.query["apikey"] else {
            throw HTTPError(status: .unauthorized, code: SupabaseGatewayCode.noAPIKey.rawValue, message: "No API key found in request.",
                            hint: "Send the server's publishable key (PUBLISHABLE_KEY) in the apikey header.")
        }
        guard let publishableKey, ConstantTime.equals(Array(presented.utf8), publishableKey) else {
            throw HTTPError(status: .unauthorized, code: SupabaseGatewayCode.invalidAPIKey.rawValue, message: "Invalid API key.",
                            hint: "Use the publishable key the server printed at start (PUBLISHABLE_KEY).")
        }
    }

    static let publicObjectPrefix = SupabaseFamily.storage.prefix + "/object/public/"

    static func isPublicObjectRead(_ request: HTTPRequest) -> Bool {
        (request.method == .get || request.method == .head) && request.path.hasPrefix(publicObjectPrefix)
    }

    static let verifyLinkPath = SupabaseFamily.auth.prefix + "/verify"

    /// The link in a sign-in, recovery or invitation mail: a browser opens it and cannot add
    /// an `apikey` header. GoTrue's gateway leaves it open too; its token is the credential.
    static func isVerifyLink(_ request: HTTPRequest) -> Bool {
        (request.method == .get || request.method == .head) && request.path == verifyLinkPath
    }

    func bearerIsPublishableKey(_ request: HTTPRequest) -> Bool {
        guard let publishableKey, let header = request.headers["Authorization"] else { return false }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        return ConstantTime.equals(Array(parts[1].trimmingCharacters(in: .whitespaces).utf8), publishableKey)
    }
}
