import Foundation
import Testing

/// `/auth/v1` sessions are `/v1` sessions: rotation with its grace window, reuse detection,
/// sign-out scopes, deactivation and password changes follow the same rules, and tokens cross.
@Suite struct SupabaseAuthSessionTests {
    @Test func refreshRotatesAndAReplayWithinTheWindowAnswersTheCurrentSession() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let first = try client.signIn()
        let second = try client.session(try client.refresh(first.refresh))
        #expect(second.refresh != first.refresh)
        #expect(second.json["expires_at"] is Double)

        // A retry of the spent token (the response was lost) gets the current session.
        let replay = try client.session(try client.refresh(first.refresh))
        #expect(replay.refresh == second.refresh)
        #expect(try client.call("GET", "/auth/v1/user", token: replay.access).status == 200)
        #expect(try client.refresh(second.refresh).status == 200)
    }

    @Test func reuseAfterTheWindowRevokesTheSessionWithRefreshTokenAlreadyUsed() throws {
        let app = try AuthTestServer(refreshReuseGrace: .milliseconds(300))
        let client = SupabaseAuthClient(app: app)
        let first = try client.signIn()
        let second = try client.session(try client.refresh(first.refresh))
        Thread.sleep(forTimeInterval: 0.6)

        let reused = try client.refresh(first.refresh)
        #expect(reused.status == 400)
        #expect(reused.goTrueCode == "refresh_token_already_used")
        let current = try client.refresh(second.refresh)
        #expect(current.status == 400)
        #expect(current.goTrueCode == "refresh_token_not_found")
        let user = try client.call("GET", "/auth/v1/user", token: second.access)
        #expect(user.status == 403)
        #expect(user.goTrueCode == "session_not_found")
        #expect(try app.request("GET", "/v1/me", token: second.access).json?["code"] as? String == "session_revoked")
    }

    @Test func tokensFromEitherSurfaceWorkOnTheOther() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let supabase = try client.signIn()
        #expect(try app.request("GET", "/v1/me", token: supabase.access).status == 200)
        let v1Refreshed = try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": supabase.refresh])
        #expect(v1Refreshed.status == 200)

        let v1 = try app.login()
        let user = try client.call("GET", "/auth/v1/user", token: v1.access)
        #expect(user.status == 200)
        #expect(user.json?["email"] as? String == AuthTestServer.adminEmail)
        #expect(try client.session(try client.refresh(v1.refresh)).refresh != v1.refresh)
        // /v1 sign-out ends the session for /auth/v1 too.
        let other = try app.login()
        #expect(try app.request("POST", "/v1/auth/logout", token: other.access).status == 204)
        #expect(try client.call("GET", "/auth/v1/user", token: other.access).goTrueCode == "session_not_found")
    }

    @Test func logoutScopesRevokeTheRightSessions() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let a = try client.signIn(), b = try client.signIn(), c = try client.signIn()
        func alive(_ session: SupabaseAuthClient.Session) throws -> Bool {
            try client.call("GET", "/auth/v1/user", token: session.access).status == 200
        }
        #expect(try client.call("POST", "/auth/v1/logout?scope=others", token: a.access).status == 204)
        #expect(try alive(a) && !alive(b) && !alive(c))
        #expect(try client.refresh(b.refresh).goTrueCode == "refresh_token_not_found")
        #expect(try client.call("POST", "/auth/v1/logout?scope=sideways", token: a.access).status == 400)

        let d = try client.signIn()
        #expect(try client.call("POST", "/auth/v1/logout?scope=local", token: a.access).status == 204)
        #expect(try !alive(a) && alive(d))

        let e = try client.signIn()
        let global = try client.call("POST", "/auth/v1/logout?scope=global", token: d.access)
        #expect(global.status == 204)
        #expect(global.body.isEmpty)
        #expect(try !alive(d) && !alive(e))
        #expect(try client.refresh(e.refresh).goTrueCode == "refresh_token_not_found")
        #expect(try app.request("GET", "/v1/me", token: e.access).status == 401)
    }

    @Test func deactivatedUserIsSignedOutAndRefusedAsOnV1() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let admin = try app.login()
        let realtorID = try app.createRealtor("rita@example.com", adminToken: admin.access)
        let realtor = try client.signIn("rita@example.com")
        let other = try client.signIn("rita@example.com")
        #expect(try app.request("PATCH", "/v1/users/\(realtorID)", token: admin.access, json: ["deactivated": true]).status == 200)

        #expect(try client.call("GET", "/auth/v1/user", token: realtor.access).goTrueCode == "session_not_found")
        #expect(try client.refresh(realtor.refresh).goTrueCode == "refresh_token_not_found")
        // Sign-in of a deactivated account reads exactly like a wrong password (as on /v1).
        let signIn = try client.call("POST", "/auth/v1/token?grant_type=password",
                                     json: ["email": "rita@example.com", "password": AuthTestServer.password])
        #expect(signIn.status == 400)
        #expect(signIn.goTrueCode == "invalid_credentials")
        _ = other
    }

    @Test func deactivationSeenBeforeTheSessionRevocationAnswersUserBanned() throws {
        // Another replica deactivated the account; this one has not yet polled the revocation.
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let admin = try app.login()
        let realtorID = try app.createRealtor("rita@example.com", adminToken: admin.access)
        let realtor = try client.signIn("rita@example.com")
        _ = try app.database.pool.query("UPDATE users SET deactivated_at = now() WHERE id = \(try #require(UUID(uuidString: realtorID)))")
        let user = try client.call("GET", "/auth/v1/user", token: realtor.access)
        #expect(user.status == 403)
        #expect(user.goTrueCode == "user_banned")
    }

    @Test func updateUserRenamesAndChangesThePasswordUnderV1Rules() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let session = try client.signIn(), other = try client.signIn()

        let renamed = try client.call("PUT", "/auth/v1/user", token: session.access, json: ["data": ["name": "Ada Lovelace"]])
        #expect(renamed.status == 200)
        #expect((renamed.json?["user_metadata"] as? [String: Any])?["name"] as? String == "Ada Lovelace")
        #expect(try app.request("GET", "/v1/me", token: session.access).json?["name"] as? String == "Ada Lovelace")
        let unknown = try client.call("PUT", "/auth/v1/user", token: session.access, json: ["data": ["favourite": "blue"]])
        #expect(unknown.status == 422)
        #expect(unknown.goTrueCode == "validation_failed")

        let newPassword = "a brand new passphrase"
        let noCurrent = try client.call("PUT", "/auth/v1/user", token: session.access, json: ["password": newPassword])
        #expect(noCurrent.status == 400)
        #expect(noCurrent.goTrueCode == "current_password_required")
        let weak = try client.call("PUT", "/auth/v1/user", token: session.access,
                                   json: ["password": "short", "current_password": AuthTestServer.password])
        #expect(weak.status == 422)
        #expect(weak.goTrueCode == "weak_password")
        let mismatch = try client.call("PUT", "/auth/v1/user", token: session.access,
                                       json: ["password": newPassword, "current_password": "not the password"])
        #expect(mismatch.status == 400)
        #expect(mismatch.goTrueCode == "current_password_mismatch")

        let changed = try client.call("PUT", "/auth/v1/user", token: session.access,
                                      json: ["password": newPassword, "current_password": AuthTestServer.password])
        #expect(changed.status == 200)
        // As on /v1: this device stays signed in, every other session ends.
        #expect(try client.call("GET", "/auth/v1/user", token: session.access).status == 200)
        #expect(try client.call("GET", "/auth/v1/user", token: other.access).goTrueCode == "session_not_found")
        #expect(try client.signIn(AuthTestServer.adminEmail, newPassword).access.isEmpty == false)
    }
}
