import Foundation
import Store
import Testing

/// Where the server cannot tell sources apart (one office NAT, a proxy without
/// TRUSTED_PROXIES), every request below comes from 127.0.0.1: attacker and owner alike. The
/// owner's device is recognised by the `dispatch_device` cookie a successful sign-in sets, so
/// an attacker's wrong passwords never make the owner's right one answer 429 there, while the
/// attacker stays throttled and guessing per account stays bounded.
@Suite struct AuthDeviceThrottleTests {
    static let wrong = "wrong password!"

    /// `dispatch_device=<token>` from a response's Set-Cookie, ready for a Cookie header.
    static func deviceCookie(_ response: TestHTTPClient.Response) -> String? {
        response.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
            .first { $0.hasPrefix("dispatch_device=") }
            .flatMap { $0.split(separator: ";").first.map(String.init) }
    }

    static func login(_ app: AuthTestServer, _ password: String, email: String = AuthTestServer.adminEmail,
                      cookie: String? = nil) throws -> TestHTTPClient.Response {
        try app.request("POST", "/v1/auth/login", json: ["email": email, "password": password],
                        headers: cookie.map { ["Cookie": $0] } ?? [:])
    }

    static func goTrueLogin(_ app: AuthTestServer, _ password: String, cookie: String? = nil) throws -> TestHTTPClient.Response {
        var headers = ["Apikey": AuthTestServer.publishableKey, "Authorization": "Bearer \(AuthTestServer.publishableKey)"]
        if let cookie { headers["Cookie"] = cookie }
        return try app.request("POST", "/auth/v1/token?grant_type=password",
                               json: ["email": AuthTestServer.adminEmail, "password": password], headers: headers)
    }

    @Test func anAttackersWrongPasswordsFromTheSameAddressNeverLockTheOwnersKnownDevice() throws {
        let app = try AuthTestServer()
        let first = try Self.login(app, AuthTestServer.password)
        #expect(first.status == 200)
        let device = Self.deviceCookie(first)
        #expect(device != nil, "a successful sign-in sets the device cookie")
        for _ in 0..<5 {
            #expect(try Self.login(app, Self.wrong).status == 401)
        }
        // The attacker (no device cookie) is throttled, the right password included.
        #expect(try Self.login(app, AuthTestServer.password).status == 429)
        // The owner's device keeps its own budget: /v1, /auth/v1 and again and again.
        for _ in 0..<3 {
            let owner = try Self.login(app, AuthTestServer.password, cookie: device)
            #expect(owner.status == 200, "owner answered \(owner.status): \(String(decoding: owner.body, as: UTF8.self))")
        }
        #expect(try Self.goTrueLogin(app, AuthTestServer.password, cookie: device).status == 200)
        // Repeating the attack every window changes nothing for the owner.
        for _ in 0..<10 { _ = try Self.login(app, Self.wrong) }
        #expect(try Self.login(app, AuthTestServer.password, cookie: device).status == 200)
        #expect(try Self.login(app, AuthTestServer.password).status == 429)
    }

    /// The console's browser: its sign-in sets the device cookie too, and a colleague's wrong
    /// passwords from the same address leave that browser's next sign-in alone.
    @Test func theConsoleBrowserIsAKnownDeviceToo() throws {
        let app = try AuthTestServer(withConsole: true)
        let browser = ConsoleSession(app)
        #expect(try browser.signIn().status == 303)
        #expect(browser.cookies["dispatch_device"] != nil)
        for _ in 0..<6 { _ = try Self.login(app, Self.wrong) }
        // The same browser later (its console session gone, its device cookie kept).
        let later = ConsoleSession(app)
        later.cookies["dispatch_device"] = browser.cookies["dispatch_device"]
        let again = try later.signIn()
        #expect(again.status == 303, "console sign-in answered \(again.status)")
        // A browser without the cookie, at the same address, waits.
        #expect(try ConsoleSession(app).signIn().status == 429)
    }

    @Test func theDeviceCookieIsHttpOnlyLongLivedAndKeptAcrossSignIns() throws {
        let app = try AuthTestServer()
        let first = try Self.goTrueLogin(app, AuthTestServer.password)
        #expect(first.status == 200)
        let header = try #require(first.headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("dispatch_device=") }?.value)
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=\(180 * 86_400)"] {
            #expect(header.contains(attribute), "\(header) lacks \(attribute)")
        }
        #expect(!header.contains("Secure"))
        let device = try #require(Self.deviceCookie(first))
        // Signing in again from that device keeps the same token (it stays known).
        #expect(Self.deviceCookie(try Self.login(app, AuthTestServer.password, cookie: device)) == device)
        let stored = try app.database.pool.query("SELECT count(*)::bigint AS n FROM sign_in_devices")
        #expect(try stored.first?.decode("n", as: Int64.self) == 1)
        // The database holds only its hash.
        let raw = String(device.dropFirst("dispatch_device=".count))
        let leaked = try app.database.pool.query("SELECT count(*)::bigint AS n FROM sign_in_devices WHERE token_hash = \(raw)")
        #expect(try leaked.first?.decode("n", as: Int64.self) == 0)
    }

    /// Behind https (PUBLIC_URL), as `serve` wires it, the browser never sends it over plain HTTP.
    @Test func theDeviceCookieIsSecureWhenThePublicURLIsHTTPS() throws {
        let app = try AuthTestServer(secureConsoleCookies: true)
        let signIn = try Self.login(app, AuthTestServer.password)
        let header = try #require(signIn.headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("dispatch_device=") }?.value)
        #expect(header.hasSuffix("; Secure"))
    }

    /// A known device has a budget of its own, not an unlimited one; forged cookies and a
    /// device known for another account count as no device.
    @Test func aKnownDeviceIsThrottledOnItsOwnAndForgedOrForeignCookiesGainNothing() throws {
        let app = try AuthTestServer()
        let admin = try app.login()
        _ = try app.createRealtor("mallory@example.com", adminToken: admin.access)
        let own = try #require(Self.deviceCookie(try Self.login(app, AuthTestServer.password)))
        let mallorys = try #require(Self.deviceCookie(try Self.login(app, AuthTestServer.password, email: "mallory@example.com")))
        for attempt in 0..<5 {
            // Each guess with another forged cookie, or Mallory's own device: all one unknown source.
            let cookie = attempt == 0 ? mallorys : "dispatch_device=forged\(attempt)" + String(repeating: "A", count: 36)
            #expect(try Self.login(app, Self.wrong, cookie: cookie).status == 401)
        }
        #expect(try Self.login(app, AuthTestServer.password, cookie: "dispatch_device=forged9" + String(repeating: "A", count: 36)).status == 429)
        #expect(try Self.login(app, AuthTestServer.password, cookie: mallorys).status == 429)
        // The owner's device: five typos of its own, then it waits too.
        for _ in 0..<5 {
            #expect(try Self.login(app, Self.wrong, cookie: own).status == 401)
        }
        #expect(try Self.login(app, AuthTestServer.password, cookie: own).status == 429)
    }

    /// The bound: per account and window, at most `failuresPerAccount` wrong passwords from
    /// everything that is not one of its devices, whatever addresses they come from (known
    /// ones included), plus `failuresPerAccountAndAddress` per device of the account.
    @Test func guessingPerAccountIsBoundedInTotalAcrossAddresses() throws {
        let app = try AuthTestServer(throttleLimits: LoginThrottle.Limits(failuresPerAccount: 7), trustedProxies: "127.0.0.1")
        func from(_ address: String, _ password: String, cookie: String? = nil) throws -> Int {
            var headers = ["X-Forwarded-For": address]
            if let cookie { headers["Cookie"] = cookie }
            return try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail, "password": password],
                                   headers: headers).status
        }
        let home = "198.51.100.7"
        let first = try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password],
                                    headers: ["X-Forwarded-For": home])
        let device = Self.deviceCookie(first)
        #expect(device != nil)
        var failures = 0
        // One guess per address (a botnet), and from the owner's own known address.
        for bot in 1...20 {
            let status = try from(bot.isMultiple(of: 3) ? home : "192.0.2.\(bot)", Self.wrong)
            if status == 401 { failures += 1 } else { #expect(status == 429) }
        }
        #expect(failures == 7, "wrong passwords that were checked: \(failures)")
        let rows = try app.database.pool.query("SELECT count(*)::bigint AS n FROM login_attempts WHERE NOT succeeded")
        #expect(try rows.first?.decode("n", as: Int64.self) == 7)
        #expect(try from("192.0.2.99", AuthTestServer.password) == 429)
        #expect(try from(home, AuthTestServer.password) == 429)
        // The owner's device still gets in, from anywhere.
        #expect(try from("203.0.113.50", AuthTestServer.password, cookie: device) == 200)
    }
}
