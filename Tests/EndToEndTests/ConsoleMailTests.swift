@testable import Console
@testable import Accounts
import Credentials
import Foundation
import Mail
import Postgres
import Testing

/// The Mail page over a real outbox: counts and the latest deliveries (recipients and errors,
/// never bodies), the relay settings without their password, the test mail queued through the
/// outbox, and "Send a new one" for a dead invitation: a fresh one queued through the API's
/// path, audited, refused without the CSRF token and for a kind that carries no link.
@Suite struct ConsoleMailTests {
    static let relayPassword = "relay-password-\(UUID().uuidString)"

    static func server() throws -> AuthTestServer {
        let links = PublicLinks(baseURL: "http://127.0.0.1:8080", redirectURLs: [])
        let outbox = MailOutbox(templates: try MailTemplates(siteName: "Dispatch", links: links),
                                sender: try MailAddress("no-reply@dispatch.test", name: "Dispatch"),
                                seal: SecretSeal.mailOutbox(serverSecret: AuthTestServer.serverSecret))
        let smtp = try SMTPSettings(host: "127.0.0.1", port: 2525, username: "relay-user", password: relayPassword, tls: .none)
        return try AuthTestServer(withConsole: true,
                                  emailSettings: EmailAuthSettings(outbox: outbox, redirects: RedirectAllowList(links: links),
                                                                   addressInterval: .zero),
                                  consoleMail: ConsoleMailSetup(outbox: outbox, smtp: smtp, fileDirectory: nil, maxAttempts: 3))
    }

    static func kinds(to recipient: String, _ app: AuthTestServer) throws -> [(kind: String, dead: Bool)] {
        try app.database.pool.query("""
            SELECT kind, dead_at IS NOT NULL AS dead FROM mail_outbox WHERE recipient = \(recipient) ORDER BY created_at
            """).map { (try $0.decode("kind"), try $0.decode("dead")) }
    }

    @Test func aDeadInvitationIsShownAndSendANewOneQueuesAFreshOne() throws {
        let app = try Self.server()
        let admin = try app.login()
        let invited = "bounced@example.com"
        #expect(try app.request("POST", "/v1/invitations", token: admin.access, json: ["email": invited]).status == 201)
        guard let dead: UUID = try app.database.pool.query("""
            UPDATE mail_outbox SET dead_at = now(), message = NULL, attempts = 3, last_error = '550 5.1.1 mailbox unavailable'
            WHERE recipient = \(invited) RETURNING id
            """).first?.decode("id") else { Issue.record("no invitation queued"); return }

        let browser = ConsoleSession(app)
        try browser.signIn()
        let page = ConsoleSession.text(try browser.get("/console/mail"))
        #expect(page.contains(invited) && page.contains("550 5.1.1 mailbox unavailable") && page.contains(">dead<"))
        #expect(page.contains("Send a new one") && page.contains("/console/mail/\(dead.uuidString.lowercased())/renew"))
        #expect(page.contains("relay-user") && page.contains("127.0.0.1") && page.contains("no-reply@dispatch.test"))
        #expect(!page.contains(Self.relayPassword), "the SMTP password is never shown")

        let path = "/console/mail/\(dead.uuidString.lowercased())/renew"
        #expect(try browser.post(path, [:], csrf: false).status == 403)
        #expect(try Self.kinds(to: invited, app).count == 1, "nothing queued without the CSRF token")
        let renewed = try browser.post(path, [:])
        #expect(renewed.status == 303, "\(ConsoleSession.text(renewed))")
        let queued = try Self.kinds(to: invited, app)
        #expect(queued.map(\.kind) == ["invite", "invite"] && queued.map(\.dead) == [true, false], "a fresh invitation beside the dead one")
        let audit = try app.database.pool.query("SELECT summary FROM console_audit WHERE action = 'mail.renew'")
        #expect(try audit.first?.decode("summary", as: String.self) == "Sent a new invitation to \(invited) in place of a dead one")
    }

    @Test func aMailWithoutALinkIsNotSentAnewAndTheTestMailGoesThroughTheOutbox() throws {
        let app = try Self.server()
        let browser = ConsoleSession(app)
        try browser.signIn()
        try browser.get("/console/mail")  // the form's CSRF token comes from a page
        guard let notice: UUID = try app.database.pool.query("""
            INSERT INTO mail_outbox (kind, recipient, message, message_id, dead_at, attempts, last_error)
            VALUES ('password_changed', 'someone@example.com', NULL, '<x@dispatch.test>', now(), 3, 'refused') RETURNING id
            """).first?.decode("id") else { Issue.record("no row"); return }
        let refused = try browser.post("/console/mail/\(notice.uuidString.lowercased())/renew", [:])
        #expect(refused.status == 422, "\(refused.status) \(ConsoleSession.text(refused).suffix(600))")
        #expect(try Self.kinds(to: "someone@example.com", app).count == 1)

        #expect(try browser.post("/console/mail/test", [:]).status == 303)
        #expect(try Self.kinds(to: AuthTestServer.adminEmail, app).map(\.kind) == ["test"])
        let page = ConsoleSession.text(try browser.get("/console/mail"))
        #expect(page.contains("Waiting to be sent</dt><dd>1<"), "the test mail waits: no sender runs here")
    }
}
