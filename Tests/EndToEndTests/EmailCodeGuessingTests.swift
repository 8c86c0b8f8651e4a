import Foundation
import Testing

/// Wrong e-mail codes are counted per code and per source, and in total per account: nobody
/// can void someone else's codes or links by guessing, and live codes side by side do not
/// multiply the guessing rate. docs/app-developers/email-auth.md states the bounds.
@Suite struct EmailCodeGuessingTests {
    static let owner = "198.51.100.7"

    /// A 6-digit code that is none of `codes`.
    static func wrong(_ index: Int, avoiding codes: [String]) -> String {
        var value = (index * 7919 + 13) % 1_000_000
        while codes.contains(String(format: "%06d", value)) { value = (value + 1) % 1_000_000 }
        return String(format: "%06d", value)
    }

    static func verify(_ server: MailAuthServer, _ email: String, _ code: String, type: String = "email",
                       from client: String) throws -> (status: Int, body: String) {
        let answer = try server.gotrue("POST", "/auth/v1/verify", json: ["type": type, "email": email, "token": code], from: client)
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    @Test func wrongCodesFromElsewhereNeverVoidTheInvitation() throws {
        let server = try MailAuthServer()
        let admin = try server.app.login()
        let newHire = "new.hire@example.com"
        let invited = try server.api("POST", "/v1/invitations", json: ["email": newHire, "name": "New Hire"], from: "192.0.2.1",
                                     token: admin.access)
        #expect(invited.status == 201)
        let mail = try server.mail(to: newHire)
        // One source guesses until it is stopped; two more try once each.
        var statuses: [Int] = []
        for index in 0..<7 {
            statuses.append(try Self.verify(server, newHire, Self.wrong(index, avoiding: [mail.code]), from: "203.0.113.5").status)
        }
        for attacker in ["203.0.113.6", "203.0.113.7"] {
            statuses.append(try Self.verify(server, newHire, Self.wrong(statuses.count, avoiding: [mail.code]), from: attacker).status)
        }
        #expect(!statuses.contains(200))
        let taken = try Self.verify(server, newHire, mail.code, type: "invite", from: Self.owner)
        #expect(taken.status == 200, "the invitee's real code after others' wrong guesses: \(taken.status) \(taken.body)")
    }

    @Test func guessingIsBoundedPerAccountAcrossCodesAndSources() throws {
        let server = try MailAuthServer()
        let admin = try server.app.login()
        let email = "rita@example.com"
        _ = try server.app.createRealtor(email, adminToken: admin.access)
        #expect(try server.gotrue("POST", "/auth/v1/otp", json: ["email": email, "create_user": false], from: Self.owner).status == 200)
        let signIn = try server.mail(to: email)
        #expect(try server.gotrue("POST", "/auth/v1/recover", json: ["email": email], from: Self.owner).status == 200)
        let recovery = try server.mail(to: email, number: 2)
        // Twenty sources, one guess each, tried against both live codes ("email" takes either).
        var statuses: [Int] = []
        for index in 1...20 {
            let guess = Self.wrong(index, avoiding: [signIn.code, recovery.code])
            statuses.append(try Self.verify(server, email, guess, from: "203.0.113.\(index)").status)
        }
        // Refused and wrong codes answer alike (403), so guessing tells nothing about accounts.
        #expect(statuses == Array(repeating: 403, count: 20), "\(statuses)")
        // Each guess was two tests (two live codes): the account's budget of 10 was spent after
        // five guesses, so neither code is tried any more, even the right one from a new source.
        #expect(try Self.verify(server, email, signIn.code, from: "203.0.113.99").status == 403)
        #expect(try Self.verify(server, email, recovery.code, from: Self.owner).status == 403)
        // The link is never spent by guessing: the owner signs in with it.
        let link = try server.gotrue("GET", "/auth/v1/verify?token=\(recovery.token)&type=\(recovery.type)", from: Self.owner)
        #expect(link.status == 303)
        #expect(link.header("Location")?.contains("#access_token=") == true, "\(link.header("Location") ?? "no Location")")
        // A fresh code has a budget of its own.
        #expect(try server.gotrue("POST", "/auth/v1/otp", json: ["email": email, "create_user": false], from: Self.owner).status == 200)
        let fresh = try server.mail(to: email, number: 3)
        let signedIn = try Self.verify(server, email, fresh.code, type: "magiclink", from: Self.owner)
        #expect(signedIn.status == 200, "\(signedIn.body)")
        // What was tested in all: ten wrong tests, across two codes and twenty sources.
        let tested = try server.app.database.pool.query("SELECT count(*)::bigint AS n FROM auth_email_code_failures WHERE token_id IS NOT NULL")
        #expect(try tested.first?.decode("n", as: Int64.self) == 10)
    }

    @Test func oneSourceSprayingAddressesIsStoppedAndOnlyIt() throws {
        let server = try MailAuthServer()
        var statuses: [Int] = []
        for index in 0..<21 {
            statuses.append(try Self.verify(server, "nobody\(index)@example.com", "123456", from: "203.0.113.5").status)
        }
        #expect(statuses == Array(repeating: 403, count: 20) + [429])
        #expect(try Self.verify(server, "nobody0@example.com", "123456", from: "203.0.113.6").status == 403)
        let recorded = try server.app.database.pool.query("SELECT count(DISTINCT guess_id)::bigint AS n FROM auth_email_code_failures")
        #expect(try recorded.first?.decode("n", as: Int64.self) == 21)
    }
}
