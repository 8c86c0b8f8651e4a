import Foundation
import Testing

/// `/auth/v1` answers over HTTP decoded as supabase-swift 2.55.1's Auth client decodes them
/// (`AuthMirrors`, snake_case keys, its date strategy): `Session` from both grants, `User` from
/// GET and PUT /user, and each refusal the routes give as `_RawAPIErrorResponse` with its
/// GoTrue code (the client acts on `session_not_found`, `refresh_token_*` and `weak_password`).
@Suite struct ClientShapeAuthTests {
    static let decoder = SupabaseSwiftDecoding.auth()

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestHTTPClient.Response, _ label: String) throws -> T {
        try SupabaseSwiftDecoding.decode(type, response, label, with: decoder)
    }

    @Test func sessionsUsersAndRefusalsDecodeAsTheClientDecodesThem() throws {
        // No reuse grace: a second use of a refresh token is the client-visible refusal at once.
        let app = try AuthTestServer(refreshReuseGrace: .zero)
        let client = SupabaseAuthClient(app: app)
        let signIn = try client.call("POST", "/auth/v1/token?grant_type=password",
                                     json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password])
        let session = try Self.decode(AuthMirrors.Session.self, signIn, "password grant")
        #expect(session.tokenType == "bearer" && session.expiresIn > 0 && session.expiresAt > Date().timeIntervalSince1970)
        #expect(SupabaseSwiftDecoding.sameUUID(session.user.id.uuidString, app.admin.id.uuidString))
        #expect(session.user.email == AuthTestServer.adminEmail && !session.user.isAnonymous)

        let refreshed = try Self.decode(AuthMirrors.Session.self, try client.refresh(session.refreshToken), "refresh grant")
        let user = try Self.decode(AuthMirrors.User.self, try client.call("GET", "/auth/v1/user", token: refreshed.accessToken), "GET user")
        #expect(user.id == session.user.id && user.updatedAt >= user.createdAt)
        let renamed = try Self.decode(AuthMirrors.User.self,
                                      try client.call("PUT", "/auth/v1/user", token: refreshed.accessToken, json: ["data": ["name": "Ada L"]]),
                                      "PUT user")
        #expect(renamed.userMetadata["name"] == .string("Ada L"))

        let refusals: [(String, TestHTTPClient.Response, Int, String)] = [
            ("wrong password", try client.call("POST", "/auth/v1/token?grant_type=password",
                                               json: ["email": AuthTestServer.adminEmail, "password": "wrong"]), 400, "invalid_credentials"),
            ("unknown refresh", try client.refresh("nope"), 400, "refresh_token_not_found"),
            ("grant", try client.call("POST", "/auth/v1/token?grant_type=magic", json: [:]), 400, "validation_failed"),
            ("no session", try client.call("GET", "/auth/v1/user"), 401, "no_authorization"),
            ("bad jwt", try client.call("GET", "/auth/v1/user", token: "not.a.jwt"), 403, "bad_jwt"),
            ("weak password", try client.call("PUT", "/auth/v1/user", token: refreshed.accessToken,
                                              json: ["password": "short", "current_password": AuthTestServer.password]), 422, "weak_password"),
            ("bad json", try client.call("PUT", "/auth/v1/user", token: refreshed.accessToken, json: ["data": ["favourite": "blue"]]),
             422, "validation_failed"),
            ("bad key", try client.call("GET", "/auth/v1/user", apikey: "sb_publishable_wrong"), 401, "invalid_api_key"),
        ]
        for (label, response, status, code) in refusals {
            let error = try Self.decode(AuthMirrors.RawAPIErrorResponse.self, response, label)
            #expect(response.status == status && error.code == code, "\(label): \(response.status) \(error)")
            #expect(response.header("X-Supabase-Api-Version") == "2024-01-01", "\(label)")
            if code == "weak_password" { #expect(error.weakPassword?.reasons?.isEmpty == false) }
        }

        let logout = try client.call("POST", "/auth/v1/logout?scope=local", token: refreshed.accessToken)
        #expect(logout.status == 204 && logout.body.isEmpty)
        // The ended session: the client clears its stored session on this code.
        let ended = try Self.decode(AuthMirrors.RawAPIErrorResponse.self,
                                    try client.call("GET", "/auth/v1/user", token: refreshed.accessToken), "after logout")
        #expect(ended.code == "session_not_found")
        // A refresh token used twice (after the grace window, here none): the family ends.
        let second = try client.signIn()
        _ = try client.refresh(second.refresh)
        let reused = try Self.decode(AuthMirrors.RawAPIErrorResponse.self, try client.refresh(second.refresh), "reused refresh")
        #expect(reused.code == "refresh_token_already_used")
    }
}
