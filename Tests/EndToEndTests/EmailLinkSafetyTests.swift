import Foundation
import Postgres
import Testing

/// What a mail's code and link are exposed to besides their owner: the outbox (and every
/// backup of it) while the relay is down, link scanners that probe with HEAD, and a
/// `redirect_to` that already has a fragment.
@Suite struct EmailLinkSafetyTests {
    static let owner = "198.51.100.7"

    static func realtor(_ server: MailAuthServer) throws -> String {
        let admin = try server.app.login()
        let email = "rita@example.com"
        _ = try server.app.createRealtor(email, adminToken: admin.access)
        return email
    }

    @Test func theOutboxHoldsNoCodeWhileTheRelayIsDown() throws {
        let server = try MailAuthServer()
        let email = try Self.realtor(server)
        server.smtp.stop()
        #expect(try server.gotrue("POST", "/auth/v1/recover", json: ["email": email], from: Self.owner).status == 200)
        // What a backup taken now would hold.
        let rows = try server.app.database.pool.query("SELECT message FROM mail_outbox WHERE recipient = \(email)")
        let stored = try #require(try rows.first?.decode("message", as: String?.self))
        try server.smtp.start()
        let mail = try server.mail(to: email)
        let readable = stored + "\n" + MailAuthServer.decodedBodies(stored)
        #expect(!readable.contains(mail.code), "the stored message holds the code in clear")
        #expect(!readable.contains(mail.token), "the stored message holds the link's token in clear")
        #expect(!stored.contains(email), "the stored message is readable")
        let signedIn = try server.gotrue("POST", "/auth/v1/verify", json: ["type": "recovery", "email": email, "token": mail.code],
                                         from: Self.owner)
        #expect(signedIn.status == 200)
    }

    @Test func headOnAVerifyLinkDoesNotSpendIt() throws {
        let server = try MailAuthServer()
        let email = try Self.realtor(server)
        #expect(try server.gotrue("POST", "/auth/v1/otp", json: ["email": email, "create_user": false], from: Self.owner).status == 200)
        let mail = try server.mail(to: email)
        let path = "/auth/v1/verify?token=\(mail.token)&type=\(mail.type)"
        // A scanner probes the link (no apikey, as a mail client's scanner would send).
        _ = try server.app.client.perform(method: "HEAD", path: path)
        let opened = try server.app.client.perform(method: "GET", path: path)
        #expect(opened.status == 303)
        #expect(opened.header("Location")?.contains("#access_token=") == true, "\(opened.header("Location") ?? "no Location")")
    }

    @Test func aRedirectWithAFragmentGetsOneFragment() throws {
        let server = try MailAuthServer()
        let email = try Self.realtor(server)
        #expect(try server.gotrue("POST", "/auth/v1/otp", json: ["email": email, "create_user": false], from: Self.owner).status == 200)
        let mail = try server.mail(to: email)
        let target = MailAuthServer.redirectTarget + "#/inbox"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let opened = try server.app.client.perform(method: "GET", path: "/auth/v1/verify?token=\(mail.token)&type=\(mail.type)&redirect_to=\(encoded)")
        #expect(opened.status == 303)
        let location = try #require(opened.header("Location"))
        #expect(location.filter { $0 == "#" }.count == 1, "\(location)")
        #expect(location.hasPrefix(MailAuthServer.redirectTarget + "#access_token="), "\(location)")
    }
}
