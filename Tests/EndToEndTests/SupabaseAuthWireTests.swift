import Foundation
import Testing

/// `/auth/v1` and the publishable key on the wire, as supabase-swift and supabase-py send them.
@Suite struct SupabaseAuthWireTests {
    @Test func passwordGrantWithSwiftHeaderCasingAnswersAGoTrueSession() throws {
        let app = try AuthTestServer()
        let before = Date().timeIntervalSince1970
        let session = try SupabaseAuthClient(app: app).signIn()
        let json = session.json
        #expect(json["token_type"] as? String == "bearer")
        #expect(json["expires_in"] as? Int == 900)
        let expiresAt = try #require(json["expires_at"] as? Double)
        #expect(expiresAt >= before.rounded(.down) + 900 && expiresAt <= Date().timeIntervalSince1970 + 901)
        let user = try #require(json["user"] as? [String: Any])
        #expect(user["id"] as? String == app.admin.id.uuidString.lowercased())
        #expect(user["aud"] as? String == "authenticated")
        #expect(user["role"] as? String == "authenticated")
        #expect(user["email"] as? String == AuthTestServer.adminEmail)
        #expect(user["is_anonymous"] as? Bool == false)
        #expect((user["created_at"] as? String)?.hasSuffix("Z") == true)
        #expect((user["app_metadata"] as? [String: Any])?["user_type"] as? String == "admin")
        #expect((user["user_metadata"] as? [String: Any])?["name"] as? String == "Ada Admin")
        // GoTrue's claims ride in the token too.
        let payload = try #require(session.access.split(separator: ".").dropFirst().first)
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let payloadData = try #require(Data(base64Encoded: base64))
        let claims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
        #expect(claims["aud"] as? String == "authenticated")
        #expect(claims["email"] as? String == AuthTestServer.adminEmail)
        #expect(claims["session_id"] as? String == claims["sid"] as? String)
        #expect(claims["sub"] as? String == app.admin.id.uuidString.lowercased())
    }

    @Test func missingOrWrongAPIKeyIs401OnEverySupabaseFamily() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let token = try client.signIn().access
        let paths = ["/auth/v1/token?grant_type=password", "/auth/v1/user", "/auth/v1/unknown", "/rest/v1/tasks",
                     "/storage/v1/object/avatars/a.png", "/realtime/v1/websocket", "/auth/v1"]
        for path in paths {
            for method in ["GET", "POST"] {
                let body: [String: Any]? = method == "POST" ? [:] : nil
                let missing = try client.call(method, path, token: token, json: body, apikey: nil)
                #expect(missing.status == 401, "\(method) \(path)")
                let wrong = try client.call(method, path, token: token, json: body, apikey: AuthTestServer.publishableKey + "x")
                #expect(wrong.status == 401, "\(method) \(path)")
                if path.hasPrefix("/realtime/v1") {
                    // Realtime answers a refused socket with its message only (RealtimeHandshakeRefusalTests).
                    #expect(missing.json?["error"] as? String == "No API key found in request.", "\(method) \(path)")
                    #expect(wrong.json?["error"] as? String == "Invalid API key.", "\(method) \(path)")
                    continue
                }
                // Storage answers in its own shape (`error`, not `code`).
                let codeKey = path.hasPrefix("/storage/v1") ? "error" : "code"
                #expect(missing.json?[codeKey] as? String == "no_api_key", "\(method) \(path)")
                #expect(wrong.json?[codeKey] as? String == "invalid_api_key", "\(method) \(path)")
                if path.hasPrefix("/auth/v1") { #expect(wrong.goTrueCode == "invalid_api_key") }
            }
        }
        // Any capitalisation of the header name; the query parameter realtime clients use.
        let lower = try app.request("GET", "/auth/v1/user", token: token, headers: ["apikey": AuthTestServer.publishableKey])
        #expect(lower.status == 200)
        let query = try app.request("GET", "/auth/v1/user?apikey=\(AuthTestServer.publishableKey)", token: token)
        #expect(query.status == 200)
        // /v1 needs no apikey; CORS preflights carry none.
        #expect(try app.request("GET", "/v1/me", token: token).status == 200)
        #expect(try app.request("OPTIONS", "/auth/v1/user").status != 401)
    }

    @Test func errorsHaveGoTrueShapeCodesAndVersionHeader() throws {
        let app = try AuthTestServer()
        let client = SupabaseAuthClient(app: app)
        let wrong = try client.call("POST", "/auth/v1/token?grant_type=password",
                                    json: ["email": AuthTestServer.adminEmail, "password": "wrong password"])
        #expect(wrong.status == 400)
        #expect(wrong.goTrueCode == "invalid_credentials")
        #expect(Set(wrong.json?.keys.map { $0 } ?? []) == ["code", "message"])

        let noGrant = try client.call("POST", "/auth/v1/token", json: ["email": "a@b.co", "password": "x"])
        #expect(noGrant.status == 400)
        #expect(noGrant.goTrueCode == "validation_failed")
        let notJSON = try app.request("POST", "/auth/v1/token?grant_type=password", body: Array("{".utf8),
                                      headers: ["Apikey": AuthTestServer.publishableKey, "Content-Type": "application/json"])
        #expect(notJSON.status == 400)
        #expect(notJSON.goTrueCode == "bad_json")
        // Extra fields clients send (supabase-py: data, gotrue_meta_security) are ignored.
        let extras = try client.call("POST", "/auth/v1/token?grant_type=password",
                                     json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password,
                                            "data": [:], "gotrue_meta_security": ["captcha_token": NSNull()]])
        #expect(extras.status == 200)

        // The publishable key as Bearer is anonymous: /user needs a user.
        let anonymous = try client.call("GET", "/auth/v1/user")
        #expect(anonymous.status == 401)
        #expect(anonymous.goTrueCode == "no_authorization")
        let garbage = try client.call("GET", "/auth/v1/user", token: "not.a.jwt")
        #expect(garbage.status == 403)
        #expect(garbage.goTrueCode == "bad_jwt")
    }

    @Test func throttledSignInIs429OverRequestRateLimitWithRetryAfter() throws {
        let app = try AuthTestServer(throttleLimits: .init(failuresPerAccountAndAddress: 2))
        let client = SupabaseAuthClient(app: app)
        for _ in 0..<2 {
            let failed = try client.call("POST", "/auth/v1/token?grant_type=password",
                                         json: ["email": AuthTestServer.adminEmail, "password": "wrong password"])
            #expect(failed.goTrueCode == "invalid_credentials")
        }
        // Throttled even with the right password, exactly as /v1/auth/login.
        let limited = try client.call("POST", "/auth/v1/token?grant_type=password",
                                      json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password])
        #expect(limited.status == 429)
        #expect(limited.goTrueCode == "over_request_rate_limit")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        #expect(try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail,
                                                                 "password": AuthTestServer.password]).status == 429)
    }
}
