import Foundation
import Testing

/// The console's security rules over real sockets: no page without a session, CSRF refused
/// without a token (and nothing changes), realtors refused, strict CSP, cookie flags.
@Suite struct ConsoleSecurityTests {
    @Test func pagesNeedASessionAndAdminsGetIn() throws {
        let app = try AuthTestServer(withConsole: true)
        let browser = ConsoleSession(app)
        for path in ["/console/people", "/console/server", "/console/audit", "/console/people/\(app.admin.id)"] {
            let response = try browser.get(path)
            #expect(response.status == 303, "\(path)")
            #expect(response.header("Location") == "/console/sign-in")
        }
        // A forged cookie is no session either.
        browser.cookies["dispatch_console"] = "forged"
        #expect(try browser.get("/console/people").status == 303)

        let signIn = try browser.signIn()
        #expect(signIn.status == 303)
        #expect(signIn.header("Location") == "/console", "a sign-in lands on the overview")
        let cookie = try #require(signIn.headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("dispatch_console=") })
        #expect(cookie.value.contains("HttpOnly") && cookie.value.contains("SameSite=Strict"))
        #expect(!cookie.value.contains("Secure"), "plain-HTTP public URL: no Secure flag")
        let page = try browser.get("/console/people")
        #expect(page.status == 200)
        #expect(ConsoleSession.text(page).contains("Ada Admin"))
        let csp = try #require(page.header("Content-Security-Policy"))
        #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"))
        #expect(page.header("X-Frame-Options") == "DENY")
        #expect(page.header("Cache-Control") == "no-store")
    }

    @Test func secureCookiesWhenThePublicURLIsHTTPS() throws {
        let app = try AuthTestServer(withConsole: true, secureConsoleCookies: true)
        let signIn = try ConsoleSession(app).signIn()
        let cookie = try #require(signIn.headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("dispatch_console=") })
        #expect(cookie.value.hasSuffix("; Secure"))
    }

    @Test func formsWithoutTheSessionsTokenAreRefusedAndChangeNothing() throws {
        let app = try AuthTestServer(withConsole: true)
        let admin = try app.login()
        let realtorID = try app.createRealtor("rita@example.com", adminToken: admin.access)
        let browser = ConsoleSession(app)
        try browser.signIn()
        try browser.get("/console/people/\(realtorID)")
        let token = browser.csrf
        #expect(!token.isEmpty)

        for (fields, send) in [([String: String](), false), (["csrf": "wrong"], false), (["csrf": ""], false)] {
            let response = try browser.post("/console/people/\(realtorID)/deactivate", fields, csrf: send)
            #expect(response.status == 403)
            #expect(ConsoleSession.text(response).contains("nothing was changed"))
        }
        let created = try browser.post("/console/people", ["email": "new@example.com", "name": "New", "csrf": "x"], csrf: false)
        #expect(created.status == 403)
        let users = try app.request("GET", "/v1/users", token: admin.access).json?["items"] as? [[String: Any]] ?? []
        #expect(users.count == 2, "no one was created")
        #expect(users.allSatisfy { $0["deactivated_at"] is NSNull }, "no one was deactivated")

        // The sign-in form has its own token (double-submit cookie): a foreign page cannot sign a browser in.
        let stranger = ConsoleSession(app)
        try stranger.get("/console/sign-in")
        let forged = try stranger.post("/console/sign-in", ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password,
                                                             "csrf": "not-the-cookie"], csrf: false)
        #expect(forged.status == 403)

        // With the page's token the same action works, and is audited.
        browser.csrf = token
        let done = try browser.post("/console/people/\(realtorID)/deactivate", [:])
        #expect(done.status == 303)
        let audit = ConsoleSession.text(try browser.get("/console/audit"))
        #expect(audit.contains("person.deactivate") && audit.contains("Deactivated rita@example.com"))
        #expect(audit.contains("console.sign-in"))
    }

    @Test func realtorsAreRefusedAndTheirSessionEnded() throws {
        let app = try AuthTestServer(withConsole: true)
        let admin = try app.login()
        _ = try app.createRealtor("rita@example.com", adminToken: admin.access)
        let browser = ConsoleSession(app)
        let refused = try browser.signIn("rita@example.com")
        #expect(refused.status == 403)
        #expect(ConsoleSession.text(refused).contains("the console is for administrators"))
        #expect(browser.cookies["dispatch_console"] == nil)
        #expect(try browser.get("/console/people").status == 303)
        let auditor = ConsoleSession(app)
        try auditor.signIn()
        #expect(ConsoleSession.text(try auditor.get("/console/audit?action=console.refused")).contains("A realtor was refused the console"))

        // An admin demoted mid-session is refused on the next page and signed out of the console.
        let adminBrowser = ConsoleSession(app)
        let otherAdmin = try app.createRealtor("ann@example.com", adminToken: admin.access, type: "admin")
        try adminBrowser.signIn("ann@example.com")
        #expect(try adminBrowser.get("/console/people").status == 200)
        _ = try app.request("PATCH", "/v1/users/\(otherAdmin)", token: admin.access, json: ["user_type": "realtor"])
        #expect(try adminBrowser.get("/console/people").status == 403)
        #expect(try adminBrowser.get("/console/people").status == 303)
    }

    @Test func wrongPasswordsGoThroughTheAPIsThrottle() throws {
        let app = try AuthTestServer(throttleLimits: .init(failuresPerAccountAndAddress: 2), withConsole: true)
        let browser = ConsoleSession(app)
        for _ in 0..<2 {
            let response = try browser.signIn(AuthTestServer.adminEmail, "wrong password")
            #expect(response.status == 401)
            #expect(ConsoleSession.text(response).contains("The email or password is incorrect."))
        }
        let limited = try browser.signIn()
        #expect(limited.status == 429)
        #expect(ConsoleSession.text(limited).contains("Too many failed sign-in attempts."))
        // The API sees the same counts: the console is no way around the limit.
        #expect(try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail,
                                                                 "password": AuthTestServer.password]).status == 429)
    }
}
