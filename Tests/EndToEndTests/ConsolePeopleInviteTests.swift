import Foundation
import Postgres
import Testing

/// "Add a person" by e-mail invitation, over real sockets as a browser posts it: the same
/// operation as `POST /v1/invitations` (an account without a password, the invite mail queued
/// in `mail_outbox`, the per-address mail interval), CSRF-protected and audited.
@Suite struct ConsolePeopleInviteTests {
    func count(_ app: AuthTestServer, _ sql: PostgresQuery) throws -> Int {
        try app.database.pool.query(sql).first?.decode(0, as: Int.self) ?? -1
    }

    func invites(_ app: AuthTestServer, _ email: String) throws -> Int {
        try count(app, "SELECT count(*)::int FROM mail_outbox WHERE recipient = \(email) AND kind = 'invite'")
    }

    @Test func invitingByEmailQueuesTheInviteMailAndIsAudited() throws {
        let app = try AuthTestServer(withConsole: true)
        let browser = ConsoleSession(app)
        try browser.signIn()
        let page = ConsoleSession.text(try browser.get("/console/people"))
        #expect(page.contains(#"name="how" value="invite" checked"#), "the form offers the invitation, first")
        let email = "ivy@example.com"
        let fields = ["email": email, "name": "Ivy Invited", "role": "realtor", "how": "invite"]

        #expect(try browser.post("/console/people", fields.merging(["csrf": "forged"]) { $1 }, csrf: false).status == 403)
        var withPassword = fields
        withPassword["password"] = "a-password-they-did-not-choose"
        #expect(try browser.post("/console/people", withPassword).status == 422)
        #expect(try browser.post("/console/people", fields.merging(["how": "carrier-pigeon"]) { $1 }).status == 422)
        #expect(try invites(app, email) == 0)
        #expect(try count(app, "SELECT count(*)::int FROM users WHERE email = \(email)") == 0, "refused posts create no one")

        let invited = try browser.post("/console/people", fields)
        #expect(invited.status == 303)
        let location = invited.header("Location") ?? ""
        #expect(location.hasPrefix("/console/people/") && location.hasSuffix("?done=invited"))
        #expect(try invites(app, email) == 1)
        #expect(try count(app, """
            SELECT count(*)::int FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id
            WHERE u.email = \(email) AND u.name = 'Ivy Invited' AND u.user_type = 'realtor' AND p.user_id IS NULL
            """) == 1, "an account without a password, as the API's invitation makes")
        #expect(try count(app, "SELECT count(*)::int FROM console_audit WHERE action = 'person.invite'") == 1)
        #expect(ConsoleSession.text(try browser.get(location)).contains("Invitation e-mailed"))

        // The API's per-address mail interval holds here too: a second invitation at once is refused.
        #expect(try browser.post("/console/people", fields).status == 429)
        #expect(try invites(app, email) == 1)

        // The password way is still there: no mail, an account with a password.
        let created = try browser.post("/console/people", ["email": "pat@example.com", "name": "Pat", "how": "password"])
        #expect(created.status == 200 && ConsoleSession.text(created).contains("Pat can now sign in"))
        #expect(try count(app, "SELECT count(*)::int FROM mail_outbox WHERE recipient = 'pat@example.com'") == 0)
    }
}
