import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// The caller's API keys (contract §5). A key is `dsk_` + 256 random bits in base64url, shown once
/// at creation and stored as SHA-256 hex; `prefix` (its first 12 characters) tells keys apart.
///
/// A key acts with its owner's power everywhere except here: creating and listing keys needs a
/// signed-in session, so a leaked key cannot mint keys that outlive its own revocation, nor
/// enumerate its siblings. A key may delete only itself (a leak detector can self-revoke);
/// deleting another key needs a session, so a leaked key cannot cut the owner's integrations.
enum APIKeyRoutes {
    static let prefixLength = 12

    static func register(on router: inout Router, auth: AuthService) {
        router.post("/v1/api-keys") { request, context in
            try requireSession(context, "Creating an API key needs a signed-in session, not an API key.")
            let user = try auth.currentUser(context)
            var body = try JSONRequestBody(request, allowed: ["name", "expires_at"])
            var errors: [FieldError] = []
            let name = body.string("name", required: true).flatMap { UserRules.checkName($0, errors: &errors) }
            let expiresAt = body.timestamp("expires_at")
            if let expiresAt, expiresAt <= Date() {
                errors.append(FieldError(field: "expires_at", code: .inPast, message: "Must be in the future."))
            }
            errors.forEach { body.add($0) }
            try body.finish()
            guard let name else { throw JSONRequestBody.validationFailed(body.errors) }
            let key = AuthService.apiKeyPrefix + (try SecureRandom.token())
            let stored = try auth.apiKeys.create(userID: user.id, name: name, keyHash: SHA256.hex(key),
                                                 prefix: String(key.prefix(prefixLength)), expiresAt: expiresAt)
            var json: [String: JSONValue] = [
                "id": .string(stored.id.uuidString.lowercased()), "name": .string(stored.name), "key": .string(key),
                "prefix": .string(stored.prefix),
                "created_at": JSONOutput.timestamp(stored.createdAt), "expires_at": JSONOutput.timestamp(stored.expiresAt),
            ]
            json["last_used_at"] = .null
            let location = "/v1/api-keys/\(stored.id.uuidString.lowercased())"
            return .response(try .json(JSONValue.object(json), status: .created, headers: ["Location": location]))
        }
        router.get("/v1/api-keys") { _, context in
            try requireSession(context, "Listing API keys needs a signed-in session, not an API key.")
            let user = try auth.currentUser(context)
            let keys = try auth.apiKeys.list(userID: user.id)
            return .response(try .json(["items": JSONValue.array(keys.map(JSONOutput.apiKey))]))
        }
        router.delete("/v1/api-keys/{id}") { _, context in
            let user = try auth.currentUser(context)
            guard let id = UUID(uuidString: try context.pathParameter("id")) else { throw DomainError.notFound("API key") }
            if let keyID = try AuthService.principal(context).apiKeyID, keyID != id {
                throw AuthService.sessionRequired("An API key may revoke only itself; revoking another key needs a signed-in session.")
            }
            guard try auth.apiKeys.revoke(id: id, userID: user.id) else { throw DomainError.notFound("API key") }
            return .response(HTTPResponse(status: .noContent))
        }
    }

    /// 403 `session_required` when the caller authenticated with an API key.
    static func requireSession(_ context: RequestContext, _ message: String) throws {
        if try AuthService.principal(context).apiKeyID != nil { throw AuthService.sessionRequired(message) }
    }
}
