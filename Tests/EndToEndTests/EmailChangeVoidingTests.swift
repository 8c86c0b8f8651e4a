import Foundation
import Testing

/// What ends a pending address change before it completes: its expiry (no resend revives
/// it), a new password, signing out everywhere, and the cancel link mailed to the old
/// address. And a completed recovery revokes the account's API keys, as its mails say.
/// Over real HTTP, with mail delivered through a real SMTP relay.
@Suite struct EmailChangeVoidingTests {
    static let victim = "owner@example.com"
    static let password = AuthTestServer.password

    /// A world with the owner signed in and a change to `newEmail` requested; its code.
    static func pendingChange(to newEmail: String) throws -> (EmailChangeWorld, AuthTestServer.Tokens, String) {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(victim, adminToken: admin.access)
        let session = try world.app.login(victim)
        let asked = try world.app.request("PUT", "/auth/v1/user", json: ["email": newEmail, "current_password": password],
                                          headers: world.gotrueHeaders(session.access))
        #expect(asked.status == 200, "\(String(decoding: asked.body, as: UTF8.self))")
        let code = try #require(try world.mail(to: newEmail).code)
        return (world, session, code)
    }

    static func confirm(_ world: EmailChangeWorld, _ newEmail: String, _ code: String) throws -> Int {
        try world.app.request("POST", "/v1/auth/verify", json: ["type": "email_change", "email": newEmail, "code": code]).status
    }

    /// An expired, never confirmed change came back to life with a resend by anyone who knew
    /// the owner's address.
    @Test func anExpiredChangeCannotBeResent() throws {
        let (world, _, _) = try Self.pendingChange(to: "late@example.com")
        try world.app.database.pool.execute("UPDATE auth_email_tokens SET expires_at = now() - interval '1 second'")
        let resent = try world.app.request("POST", "/auth/v1/resend", json: ["type": "email_change", "email": Self.victim],
                                           headers: world.gotrueHeaders())
        #expect(resent.status == 200)
        #expect(try world.queuedMails(to: "late@example.com", kind: "email_change") == 1)
        #expect(try world.pendingTokens(of: Self.victim) == 0)
    }

    /// A resend of a live change mails the old address a new notice whose link cancels it;
    /// the first notice's link went with the code it was sent with.
    @Test func aResendSendsANewNoticeWithANewCancelLink() throws {
        let (world, _, _) = try Self.pendingChange(to: "moved@example.com")
        let first = try world.mail(to: Self.victim, containing: "moved@example.com")
        let firstToken = try #require(first.links.first { $0.contains("/email-change/cancel") }.flatMap {
            URLComponents(string: $0)?.queryItems?.first { $0.name == "token" }?.value })
        #expect(try world.app.request("POST", "/auth/v1/resend", json: ["type": "email_change", "email": Self.victim],
                                      headers: world.gotrueHeaders()).status == 200)
        let second = try world.mail(to: Self.victim, number: 2, containing: "moved@example.com")
        let secondToken = try #require(second.links.first { $0.contains("/email-change/cancel") }.flatMap {
            URLComponents(string: $0)?.queryItems?.first { $0.name == "token" }?.value })
        #expect(firstToken != secondToken)
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        _ = try world.app.request("POST", "/v1/auth/email-change/cancel", body: Array("token=\(firstToken)".utf8), headers: form)
        #expect(try world.pendingTokens(of: Self.victim) == 1)
        _ = try world.app.request("POST", "/v1/auth/email-change/cancel", body: Array("token=\(secondToken)".utf8), headers: form)
        #expect(try world.pendingTokens(of: Self.victim) == 0)
        let resentCode = try #require(try world.mail(to: "moved@example.com", number: 2).code)
        #expect(try Self.confirm(world, "moved@example.com", resentCode) == 403)
    }

    /// A password change voids the pending change and any recovery mail.
    @Test func aPasswordChangeVoidsThePendingChangeAndRecovery() throws {
        let (world, session, code) = try Self.pendingChange(to: "moved@example.com")
        #expect(try world.app.request("POST", "/v1/auth/recover", json: ["email": Self.victim]).status == 202)
        let recovery = try #require(try world.mail(to: Self.victim, containing: "reset the password").code)
        let changed = try world.app.request("PATCH", "/v1/me", token: session.access,
                                            json: ["password": "another long passphrase", "current_password": Self.password])
        #expect(changed.status == 200)
        #expect(try world.pendingTokens(of: Self.victim) == 0)
        #expect(try Self.confirm(world, "moved@example.com", code) == 403)
        #expect(try world.app.request("POST", "/v1/auth/verify", json: ["type": "recovery", "email": Self.victim, "code": recovery]).status == 403)
        #expect(try world.app.login(Self.victim, "another long passphrase").access.isEmpty == false)
    }

    /// Signing out everywhere (as the console's "revoke sessions" does) voids it too.
    @Test func signingOutEverywhereVoidsThePendingChange() throws {
        let (world, session, code) = try Self.pendingChange(to: "moved@example.com")
        let out = try world.app.request("POST", "/auth/v1/logout?scope=global", headers: world.gotrueHeaders(session.access))
        #expect(out.status == 204)
        #expect(try world.pendingTokens(of: Self.victim) == 0)
        #expect(try Self.confirm(world, "moved@example.com", code) == 403)
    }

    /// The notice to the old address carries a link that cancels the change: opening it
    /// shows a button (mail scanners open links), the button voids the change. After the
    /// change completed, the link changes nothing.
    @Test func theCancelLinkVoidsThePendingChange() throws {
        let (world, _, code) = try Self.pendingChange(to: "moved@example.com")
        let notice = try world.mail(to: Self.victim, containing: "moved@example.com")
        let link = try #require(notice.links.first { $0.contains("/v1/auth/email-change/cancel") }, "\(notice.text)")
        let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)

        let page = try world.app.request("GET", link)
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<form method=\"post\""))
        #expect(try world.pendingTokens(of: Self.victim) == 1)

        let form = Array("token=\(token)".utf8)
        let cancelled = try world.app.request("POST", "/v1/auth/email-change/cancel", body: form,
                                              headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(cancelled.status == 200)
        #expect(try world.pendingTokens(of: Self.victim) == 0)
        #expect(try Self.confirm(world, "moved@example.com", code) == 403)

        // A change that completes first: its cancel link is spent with it.
        let session = try world.app.login(Self.victim)
        #expect(try world.app.request("PUT", "/auth/v1/user", json: ["email": "second@example.com", "current_password": Self.password],
                                      headers: world.gotrueHeaders(session.access)).status == 200)
        let second = try #require(try world.mail(to: "second@example.com").code)
        let secondNotice = try world.mail(to: Self.victim, containing: "second@example.com")
        let secondLink = try #require(secondNotice.links.first { $0.contains("/v1/auth/email-change/cancel") })
        let secondToken = try #require(URLComponents(string: secondLink)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(try Self.confirm(world, "second@example.com", second) == 200)
        let late = try world.app.request("POST", "/v1/auth/email-change/cancel", body: Array("token=\(secondToken)".utf8),
                                         headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(late.status == 200 && late.body == cancelled.body)
        #expect(try world.app.login("second@example.com").access.isEmpty == false)
    }

    /// An intruder's API keys survived the owner's recovery; now they are revoked, and both
    /// the recovery mail and the notice after it say so.
    @Test func aRecoveryRevokesTheAccountsAPIKeys() throws {
        let world = try EmailChangeWorld()
        let admin = try world.app.login()
        _ = try world.app.createRealtor(Self.victim, adminToken: admin.access)
        let intruder = try world.app.login(Self.victim)
        let key = try #require(try world.app.request("POST", "/v1/api-keys", token: intruder.access,
                                                     json: ["name": "backdoor"]).json?["key"] as? String)
        #expect(try world.app.request("GET", "/v1/me", token: key).status == 200)

        #expect(try world.app.request("POST", "/auth/v1/recover", json: ["email": Self.victim], headers: world.gotrueHeaders()).status == 200)
        let mail = try world.mail(to: Self.victim, containing: "reset the password")
        #expect(mail.text.contains("revokes the account's\nAPI keys") || mail.text.contains("revokes the account's API keys"), "\(mail.text)")
        let code = try #require(mail.code)
        let verified = try world.app.request("POST", "/auth/v1/verify", json: ["type": "recovery", "email": Self.victim, "token": code],
                                             headers: world.gotrueHeaders())
        let recovered = try #require(verified.json?["access_token"] as? String)
        let reset = try world.app.request("PUT", "/auth/v1/user", json: ["password": "taken back for good"],
                                          headers: world.gotrueHeaders(recovered))
        #expect(reset.status == 200, "\(String(decoding: reset.body, as: UTF8.self))")

        #expect(try world.app.request("GET", "/v1/me", token: key).status == 401)
        let notice = try world.mail(to: Self.victim, containing: "was just")
        #expect(notice.text.contains("API keys were\nrevoked") || notice.text.contains("API keys were revoked"), "\(notice.text)")
    }
}
