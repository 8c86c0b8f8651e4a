import Foundation
import Testing

/// API keys: created once, act as their owner, listed without the secret, revoked immediately.
@Suite struct AuthAPIKeyTests {
    @Test func apiKeyCreateUseListAndRevoke() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let created = try app.request("POST", "/v1/api-keys", token: tokens.access,
                                      json: ["name": "Zapier", "expires_at": "2099-01-01T00:00:00+02:00"])
        #expect(created.status == 201)
        let json = try #require(created.json)
        let key = try #require(json["key"] as? String)
        let id = try #require(json["id"] as? String)
        #expect(key.hasPrefix("dsk_"))
        #expect(json["expires_at"] as? String == "2098-12-31T22:00:00.000Z")

        let me = try app.request("GET", "/v1/me", token: key)
        #expect(me.status == 200)
        #expect(me.json?["id"] as? String == app.admin.id.uuidString.lowercased())

        let listed = try app.request("GET", "/v1/api-keys", token: tokens.access)
        let items = try #require(listed.json?["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["key"] == nil)
        #expect(items.first?["prefix"] as? String == String(key.prefix(12)))
        #expect(items.first?["last_used_at"] is String)
        let stored = try app.database.pool.query("SELECT key_hash FROM api_keys")
        #expect(try stored.first?.decode("key_hash", as: String.self) != key)

        #expect(try app.request("DELETE", "/v1/api-keys/\(id)", token: tokens.access).status == 204)
        #expect(try app.request("GET", "/v1/me", token: key).status == 401)
        #expect(try app.request("DELETE", "/v1/api-keys/\(id)", token: tokens.access).status == 404)
        #expect((try app.request("GET", "/v1/api-keys", token: tokens.access).json?["items"] as? [Any])?.isEmpty == true)
    }

    /// A leaked key must not mint keys that survive its own revocation, nor list
    /// or revoke its siblings; the signed-in session still can.
    @Test func apiKeyCannotCreateListOrRevokeOtherKeys() throws {
        let app = try AuthTestServer()
        let session = try app.login()
        let first = try #require(try app.request("POST", "/v1/api-keys", token: session.access, json: ["name": "leaked"]).json)
        let key = try #require(first["key"] as? String)
        let keyID = try #require(first["id"] as? String)
        let otherID = try #require(try app.request("POST", "/v1/api-keys", token: session.access, json: ["name": "other"]).json?["id"] as? String)

        let minted = try app.request("POST", "/v1/api-keys", token: key, json: ["name": "persistence"])
        #expect(minted.status == 403)
        #expect(minted.json?["code"] as? String == "session_required")
        let listed = try app.request("GET", "/v1/api-keys", token: key)
        #expect(listed.status == 403)
        #expect(listed.json?["code"] as? String == "session_required")
        let revokedOther = try app.request("DELETE", "/v1/api-keys/\(otherID)", token: key)
        #expect(revokedOther.status == 403)
        #expect(revokedOther.json?["code"] as? String == "session_required")
        // Nothing was created by the key; the sibling is still alive.
        let items = try #require(try app.request("GET", "/v1/api-keys", token: session.access).json?["items"] as? [[String: Any]])
        #expect(items.count == 2)
        // The key keeps its owner's power elsewhere, and may revoke itself.
        #expect(try app.request("GET", "/v1/me", token: key).status == 200)
        #expect(try app.request("DELETE", "/v1/api-keys/\(keyID)", token: key).status == 204)
        #expect(try app.request("GET", "/v1/me", token: key).status == 401)
        #expect(try app.request("POST", "/v1/api-keys", token: session.access, json: ["name": "new"]).status == 201)
    }

    @Test func anotherUsersKeyCannotBeRevoked() throws {
        let app = try AuthTestServer()
        let admin = try app.login()
        _ = try app.createRealtor("r@example.com", adminToken: admin.access)
        let realtor = try app.login("r@example.com")
        let id = try #require(try app.request("POST", "/v1/api-keys", token: admin.access, json: ["name": "a"]).json?["id"] as? String)
        #expect(try app.request("DELETE", "/v1/api-keys/\(id)", token: realtor.access).status == 404)
    }

    @Test func apiKeyWithPastExpiryIsRejected() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("POST", "/v1/api-keys", token: tokens.access,
                                       json: ["name": "old", "expires_at": "2001-01-01T00:00:00Z"])
        #expect(response.status == 422)
    }

    /// Found by the contract test: PostgreSQL text cannot hold U+0000, and storing one was a 500.
    @Test func apiKeyNameWithNULIsRejectedAs422() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("POST", "/v1/api-keys", token: tokens.access, json: ["name": "H\u{0}\u{3}"])
        #expect(response.status == 422)
        let details = try #require(response.json?["details"] as? [[String: Any]])
        #expect(details.first?["field"] as? String == "name")
        #expect(details.first?["code"] as? String == "invalid_character")
    }

    @Test func loginWithNULInEmailIsRejectedAs422() throws {
        let app = try AuthTestServer()
        let response = try app.request("POST", "/v1/auth/login", json: ["email": "a\u{0}@example.com", "password": "whatever it is"])
        #expect(response.status == 422)
    }
}
