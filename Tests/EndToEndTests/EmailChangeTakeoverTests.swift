import Foundation
import Testing

/// An address change moves sign-in and recovery with it, so only the person may start one:
/// a session that proves presence (the current password, or a password sign-in in the last
/// 5 minutes), never an API key or a bare access token. Confirming it opens no session.
/// Over real HTTP, with mail delivered through a real SMTP relay.
@Suite struct EmailChangeTakeoverTests {
    static let victim = "victim@example.com"

    /// A leaked API key asked for the change, confirmed it from the attacker's mailbox and got
    /// a session back (an access token and a 30-day refresh token).
    @Test func aLeakedAPIKeyCannotChangeTheAddress() throws {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(Self.victim, adminToken: admin.access)
        let session = try world.app.login(Self.victim)
        let key = try #require(try world.app.request("POST", "/v1/api-keys", token: session.access,
                                                     json: ["name": "zapier"]).json?["key"] as? String)

        let v1 = try world.app.request("POST", "/v1/me/email", token: key, json: ["email": "x@attacker.example"])
        #expect(v1.status == 403, "\(String(decoding: v1.body, as: UTF8.self))")
        #expect(v1.json?["code"] as? String == "session_required")
        let gotrue = try world.app.request("PUT", "/auth/v1/user", json: ["email": "y@attacker.example"],
                                           headers: world.gotrueHeaders(key))
        #expect(gotrue.status == 403, "\(String(decoding: gotrue.body, as: UTF8.self))")
        #expect(gotrue.json?["code"] as? String == "not_a_session")
        #expect(try world.queuedMails(to: "x@attacker.example") == 0)
        #expect(try world.queuedMails(to: "y@attacker.example") == 0)
        #expect(try world.queuedMails(to: Self.victim, kind: "email_change_notice") == 0)
    }

    /// A stolen access token (here of a session opened by a mailed code, which never proved
    /// the password) is not enough: GoTrue's PUT /user and /v1 both want the current password.
    @Test func aStolenAccessTokenNeedsTheCurrentPassword() throws {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(Self.victim, adminToken: admin.access)
        #expect(try world.app.request("POST", "/auth/v1/otp", json: ["email": Self.victim, "create_user": false],
                                      headers: world.gotrueHeaders()).status == 200)
        let code = try #require(try world.mail(to: Self.victim).code)
        let verified = try world.app.request("POST", "/auth/v1/verify", json: ["type": "email", "email": Self.victim, "token": code],
                                             headers: world.gotrueHeaders())
        let stolen = try #require(verified.json?["access_token"] as? String)

        let bare = try world.app.request("PUT", "/auth/v1/user", json: ["email": "x@attacker.example"], headers: world.gotrueHeaders(stolen))
        #expect(bare.status == 400, "\(String(decoding: bare.body, as: UTF8.self))")
        #expect(bare.json?["code"] as? String == "current_password_required")
        let wrong = try world.app.request("PUT", "/auth/v1/user", json: ["email": "x@attacker.example", "current_password": "guess guess guess"],
                                          headers: world.gotrueHeaders(stolen))
        #expect(wrong.status == 400)
        #expect(wrong.json?["code"] as? String == "current_password_mismatch")
        let v1 = try world.app.request("POST", "/v1/me/email", token: stolen, json: ["email": "x@attacker.example"])
        #expect(v1.status == 422)
        let field = v1.json?["details"] as? [[String: Any]]
        #expect(field?.first?["field"] as? String == "current_password" && field?.first?["code"] as? String == "required")
        #expect(try world.queuedMails(to: "x@attacker.example") == 0)

        let right = try world.app.request("PUT", "/auth/v1/user", json: ["email": "new@example.com", "current_password": AuthTestServer.password],
                                          headers: world.gotrueHeaders(stolen))
        #expect(right.status == 200, "\(String(decoding: right.body, as: UTF8.self))")
        #expect(right.json?["new_email"] as? String == "new@example.com")
        #expect(try world.queuedMails(to: "new@example.com", kind: "email_change") == 1)
    }

    /// A password sign-in in the last 5 minutes stands in for current_password (what a
    /// supabase-swift app, which cannot send it, does); an older one does not.
    @Test func aRecentPasswordSignInIsProofOfPresence() throws {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(Self.victim, adminToken: admin.access)
        let session = try world.app.login(Self.victim)
        let fresh = try world.app.request("POST", "/v1/me/email", token: session.access, json: ["email": "first@example.com"])
        #expect(fresh.status == 202, "\(String(decoding: fresh.body, as: UTF8.self))")

        try world.ageSignIns(of: Self.victim)
        let old = try world.app.request("PUT", "/auth/v1/user", json: ["email": "second@example.com"], headers: world.gotrueHeaders(session.access))
        #expect(old.status == 400)
        #expect(old.json?["code"] as? String == "current_password_required")
        #expect(try world.queuedMails(to: "second@example.com") == 0)

        // A password change in the same request is the proof; it voids the earlier change and
        // the new one is then requested (the order matters: the change must survive).
        let both = try world.app.request("PUT", "/auth/v1/user", json: ["email": "third@example.com", "password": "a new long passphrase",
                                                                        "current_password": AuthTestServer.password],
                                         headers: world.gotrueHeaders(session.access))
        #expect(both.status == 200, "\(String(decoding: both.body, as: UTF8.self))")
        #expect(both.json?["new_email"] as? String == "third@example.com")
        #expect(try world.pendingTokens(of: Self.victim) == 1)
        let code = try #require(try world.mail(to: "third@example.com").code)
        #expect(try world.app.request("POST", "/v1/auth/verify", json: ["type": "email_change", "email": "third@example.com",
                                                                         "code": code]).status == 200)
    }

    /// Confirming the change moves the account and answers no session, by code (/v1 and
    /// GoTrue) and by the link opened in a browser.
    @Test func confirmingTheChangeOpensNoSession() throws {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(Self.victim, adminToken: admin.access)
        var session = try world.app.login(Self.victim)
        let password = AuthTestServer.password

        // /v1, by code: {"user": …}, no tokens.
        #expect(try world.app.request("PUT", "/auth/v1/user", json: ["email": "one@example.com", "current_password": password],
                                      headers: world.gotrueHeaders(session.access)).status == 200)
        let code = try #require(try world.mail(to: "one@example.com").code)
        let v1 = try world.app.request("POST", "/v1/auth/verify", json: ["type": "email_change", "email": "one@example.com", "code": code])
        #expect(v1.status == 200, "\(String(decoding: v1.body, as: UTF8.self))")
        #expect(v1.json?["access_token"] == nil && v1.json?["refresh_token"] == nil)
        #expect((v1.json?["user"] as? [String: Any])?["email"] as? String == "one@example.com")

        // GoTrue, by the link's token_hash: the user (supabase-swift's AuthResponse.user).
        session = try world.app.login("one@example.com")
        #expect(try world.app.request("PUT", "/auth/v1/user", json: ["email": "two@example.com", "current_password": password],
                                      headers: world.gotrueHeaders(session.access)).status == 200)
        let link = try #require(try world.mail(to: "two@example.com").links.first { $0.contains("/auth/v1/verify") })
        let tokenHash = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)
        let gotrue = try world.app.request("POST", "/auth/v1/verify", json: ["type": "email_change", "token_hash": tokenHash],
                                           headers: world.gotrueHeaders())
        #expect(gotrue.status == 200, "\(String(decoding: gotrue.body, as: UTF8.self))")
        #expect(gotrue.json?["access_token"] == nil && gotrue.json?["refresh_token"] == nil)
        #expect(gotrue.json?["email"] as? String == "two@example.com")

        // The link in a browser: a redirect without a session.
        session = try world.app.login("two@example.com")
        #expect(try world.app.request("PUT", "/auth/v1/user", json: ["email": "three@example.com", "current_password": password],
                                      headers: world.gotrueHeaders(session.access)).status == 200)
        let browserLink = try #require(try world.mail(to: "three@example.com").links.first { $0.contains("/auth/v1/verify") })
        let opened = try world.app.request("GET", browserLink)
        #expect(opened.status == 303)
        let location = opened.header("Location") ?? ""
        #expect(!location.contains("access_token") && !location.contains("refresh_token") && !location.contains("code="), "\(location)")
        #expect(location.contains("type=email_change"))
        #expect(try world.app.login("three@example.com").access.isEmpty == false)
    }

    /// A deactivated account's address answers as a free one (202, and the caller's own
    /// mailbox gets the same notice), and nothing is sent to it; an active one is taken (409).
    @Test func anAddressOfAHiddenAccountIsNotRevealed() throws {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(Self.victim, adminToken: admin.access)
        let hiddenID = try world.app.createRealtor("hidden@example.com", adminToken: admin.access)
        _ = try world.app.createRealtor("visible@example.com", adminToken: admin.access)
        #expect(try world.app.request("PATCH", "/v1/users/\(hiddenID)", token: admin.access, json: ["deactivated": true]).status == 200)
        let session = try world.app.login(Self.victim)
        let password = AuthTestServer.password

        func change(to email: String) throws -> TestHTTPClient.Response {
            try world.app.request("PUT", "/auth/v1/user", json: ["email": email, "current_password": password],
                                  headers: world.gotrueHeaders(session.access))
        }
        let free = try change(to: "free@example.com")
        let freeCode = try #require(try world.mail(to: "free@example.com").code)
        let hidden = try change(to: "hidden@example.com")
        #expect(hidden.status == 200, "\(String(decoding: hidden.body, as: UTF8.self))")
        // As any new request does, it ended the previous change: the earlier code tells nothing.
        #expect(try world.app.request("POST", "/v1/auth/verify", json: ["type": "email_change", "email": "free@example.com",
                                                                         "code": freeCode]).status == 403)
        #expect(hidden.status == free.status && Set((hidden.json ?? [:]).keys) == Set((free.json ?? [:]).keys))
        #expect(hidden.json?["new_email"] as? String == "hidden@example.com")
        #expect(try world.queuedMails(to: "hidden@example.com") == 0)
        #expect(try world.queuedMails(to: Self.victim, kind: "email_change_notice") == 2)
        let visible = try change(to: "visible@example.com")
        #expect(visible.status == 422)
        #expect(visible.json?["code"] as? String == "email_exists")
        // /v1 alike: 202 {} for both, 409 email_taken for the active account.
        let v1Hidden = try world.app.request("POST", "/v1/me/email", token: session.access,
                                             json: ["email": "hidden@example.com", "current_password": password])
        let v1Free = try world.app.request("POST", "/v1/me/email", token: session.access,
                                           json: ["email": "free@example.com", "current_password": password])
        #expect(v1Hidden.status == 202 && v1Hidden.status == v1Free.status && v1Hidden.body == v1Free.body)
        let v1Visible = try world.app.request("POST", "/v1/me/email", token: session.access,
                                              json: ["email": "visible@example.com", "current_password": password])
        #expect(v1Visible.status == 409)
        #expect(v1Visible.json?["code"] as? String == "email_taken")
    }
}
