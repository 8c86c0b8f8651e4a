import Credentials
import Foundation
import Testing

/// Sign-in, refresh rotation with reuse detection, sign-out, /v1/me — over real HTTP and PostgreSQL.
@Suite struct AuthSessionTests {
    @Test func loginRefreshRotationReuseAndLogoutFollowTheContract() throws {
        let app = try AuthTestServer()
        let login = try app.request("POST", "/v1/auth/login",
                                    json: ["email": "ADMIN@example.com", "password": AuthTestServer.password])
        #expect(login.status == 200)
        let json = try #require(login.json)
        #expect(json["token_type"] as? String == "bearer")
        #expect(json["expires_in"] as? Int == 900)
        #expect((json["user"] as? [String: Any])?["email"] as? String == AuthTestServer.adminEmail)
        let access = try #require(json["access_token"] as? String)
        let refresh1 = try #require(json["refresh_token"] as? String)

        #expect(try app.request("GET", "/v1/me", token: access).status == 200)

        let rotated = try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": refresh1])
        #expect(rotated.status == 200)
        let refresh2 = try #require(rotated.json?["refresh_token"] as? String)
        let access2 = try #require(rotated.json?["access_token"] as? String)
        #expect(refresh2 != refresh1)
        #expect(try app.request("GET", "/v1/me", token: access2).status == 200)

        // Presenting the spent token again after the retry grace window revokes the session:
        // the current refresh token and every access token of the session stop working.
        try app.database.pool.execute("UPDATE auth_spent_refresh_tokens SET spent_at = now() - interval '11 seconds'")
        let reused = try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": refresh1])
        #expect(reused.status == 401)
        #expect(reused.header("WWW-Authenticate") == "Bearer")
        #expect(try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": refresh2]).status == 401)
        #expect(try app.request("GET", "/v1/me", token: access2).status == 401)
        #expect(try app.request("GET", "/v1/me", token: access).status == 401)

        // A new session, signed out.
        let tokens = try app.login()
        #expect(try app.request("POST", "/v1/auth/logout", token: tokens.access).status == 204)
        let afterLogout = try app.request("GET", "/v1/me", token: tokens.access)
        #expect(afterLogout.status == 401)
        #expect(afterLogout.json?["code"] as? String == "session_revoked")
        #expect(try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": tokens.refresh]).status == 401)
    }

    @Test(arguments: [
        ("admin@example.com", "wrong password!!"),
        ("nobody@example.com", AuthTestServer.password),
        ("admin@example.com", ""),
    ])
    func loginWithBadCredentialsAnswers401InvalidCredentials(email: String, password: String) throws {
        let app = try AuthTestServer()
        let response = try app.request("POST", "/v1/auth/login", json: ["email": email, "password": password])
        #expect(response.status == 401)
        #expect(response.json?["code"] as? String == "invalid_credentials")
        #expect(response.json?["message"] as? String == "The email or password is incorrect.")
        #expect(response.header("WWW-Authenticate") == "Bearer")
    }

    enum BadCredential: String, CaseIterable {
        case missing, notBearer, garbage, expired, tampered, algNone, otherSecret, revoked, unknownAPIKey
    }

    @Test(arguments: BadCredential.allCases)
    func protectedRouteWithBadCredentialAnswers401WithWWWAuthenticate(_ credential: BadCredential) throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let now = Int64(Date().timeIntervalSince1970)
        let claims = AccessTokenClaims(sub: app.admin.id.uuidString.lowercased(), iat: now, exp: now + 600,
                                       sid: UUID().uuidString.lowercased())
        var header: String? = nil
        switch credential {
        case .missing: header = nil
        case .notBearer: header = "Basic YWRtaW46cGFzc3dvcmQ="
        case .garbage: header = "Bearer not-a-token"
        case .expired:
            let expired = AccessTokenClaims(sub: claims.sub, iat: now - 1000, exp: now - 100, sid: claims.sid)
            header = "Bearer " + (try JWTSigner(secret: String(repeating: "k", count: 32)).sign(expired))
        case .tampered:
            let parts = tokens.access.split(separator: ".").map(String.init)
            let forged = try JWTSigner(secret: "x").sign(claims).split(separator: ".").map(String.init)
            header = "Bearer \(parts[0]).\(forged[1]).\(parts[2])"
        case .algNone:
            let head = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URL
            let body = Data(try JSONEncoder().encode(claims)).base64URL
            header = "Bearer \(head).\(body)."
        case .otherSecret:
            header = "Bearer " + (try JWTSigner(secret: String(repeating: "z", count: 32)).sign(claims))
        case .revoked:
            #expect(try app.request("POST", "/v1/auth/logout", token: tokens.access).status == 204)
            header = "Bearer " + tokens.access
        case .unknownAPIKey:
            header = "Bearer dsk_" + String(repeating: "A", count: 43)
        }
        let response = try app.request("GET", "/v1/me", headers: header.map { ["Authorization": $0] } ?? [:])
        #expect(response.status == 401)
        let challenge = response.header("WWW-Authenticate") ?? ""
        #expect(challenge.hasPrefix("Bearer"))
        #expect(challenge.contains("invalid_token") == (credential != .missing))
        let json = try #require(response.json)
        #expect(json["code"] is String)
        #expect(json["message"] is String)
        #expect(json.keys.contains("details") && json.keys.contains("hint"))
    }

    @Test func changingPasswordRevokesOtherSessionsButKeepsTheCurrentOne() throws {
        let app = try AuthTestServer()
        let phone = try app.login()
        let laptop = try app.login()
        let newPassword = "a brand new passphrase"
        let wrong = try app.request("PATCH", "/v1/me", token: laptop.access,
                                    json: ["password": newPassword, "current_password": "not it at all"])
        #expect(wrong.status == 422)
        let changed = try app.request("PATCH", "/v1/me", token: laptop.access,
                                      json: ["password": newPassword, "current_password": AuthTestServer.password, "name": "Ada L."])
        #expect(changed.status == 200)
        #expect(changed.json?["name"] as? String == "Ada L.")
        #expect(try app.request("GET", "/v1/me", token: laptop.access).status == 200)
        #expect(try app.request("GET", "/v1/me", token: phone.access).status == 401)
        #expect(try app.request("POST", "/v1/auth/refresh", json: ["refresh_token": phone.refresh]).status == 401)
        _ = try app.login(AuthTestServer.adminEmail, newPassword)
    }

    @Test(arguments: [
        ("short", "too_short"),
        (String(repeating: " ", count: 12), "blank"),
        (String(repeating: "x", count: 1025), "too_long"),
    ])
    func weakPasswordIsRejectedWith422NamingTheField(password: String, code: String) throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let response = try app.request("PATCH", "/v1/me", token: tokens.access,
                                       json: ["password": password, "current_password": AuthTestServer.password])
        #expect(response.status == 422)
        let details = try #require(response.json?["details"] as? [[String: Any]])
        #expect(details.contains { $0["field"] as? String == "password" && $0["code"] as? String == code })
    }

    @Test func meReturnsProfileWithMillisecondUTCTimestampsAndNoSecrets() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        let me = try app.request("GET", "/v1/me", token: tokens.access)
        let json = try #require(me.json)
        #expect(Set(json.keys) == ["id", "name", "email", "user_type", "avatar_hash", "deactivated_at", "created_at", "updated_at", "version"])
        let created = try #require(json["created_at"] as? String)
        #expect(created.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil)
    }

    @Test func jsonBodyErrorsFollowTheContract() throws {
        let app = try AuthTestServer()
        let badJSON = try app.request("POST", "/v1/auth/login", body: Array("{\"email\":".utf8),
                                      headers: ["Content-Type": "application/json"])
        #expect(badJSON.status == 400)
        #expect(badJSON.json?["code"] as? String == "invalid_json")
        let notJSON = try app.request("POST", "/v1/auth/login", body: Array("email=a".utf8),
                                      headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(notJSON.status == 415)
        #expect(notJSON.json?["code"] as? String == "unsupported_media_type")
        let unknown = try app.request("POST", "/v1/auth/login",
                                      json: ["email": AuthTestServer.adminEmail, "password": "x", "remember_me": true])
        #expect(unknown.status == 422)
        let details = try #require(unknown.json?["details"] as? [[String: Any]])
        #expect(details.contains { $0["field"] as? String == "remember_me" && $0["code"] as? String == "unknown_field" })
        let missing = try app.request("POST", "/v1/auth/login", json: [:])
        #expect(missing.status == 422)
        #expect((missing.json?["details"] as? [[String: Any]])?.count == 2)
        let tokens = try app.login()
        let huge = try app.request("PATCH", "/v1/me", token: tokens.access,
                                   json: ["name": String(repeating: "n", count: 1_100_000)])
        #expect(huge.status == 413)
        #expect(huge.json?["code"] as? String == "body_too_large")
    }
}

extension Data {
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
