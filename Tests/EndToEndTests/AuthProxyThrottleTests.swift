import Foundation
import Store
import Testing

/// Behind a reverse proxy, sign-in limits hit the guessing client, not everyone.
/// The "proxy" is the test client on loopback sending `X-Forwarded-For`, with 127.0.0.1 in
/// TRUSTED_PROXIES; other tests show the header is ignored from an untrusted peer.
@Suite struct AuthProxyThrottleTests {
    static let attacker = "203.0.113.5"
    static let owner = "198.51.100.7"

    static func signIn(_ app: AuthTestServer, from client: String?, email: String = AuthTestServer.adminEmail,
                       password: String) throws -> TestHTTPClient.Response {
        var headers: [String: String] = [:]
        // What a proxy sends: whatever the client claimed, then the address it saw.
        if let client { headers["X-Forwarded-For"] = "10.9.9.9, \(client)" }
        return try app.request("POST", "/v1/auth/login", json: ["email": email, "password": password], headers: headers)
    }

    @Test func guessingOneAccountFromOneClientDoesNotLockItsOwnerElsewhere() throws {
        let app = try AuthTestServer(trustedProxies: "127.0.0.1")
        for _ in 0..<5 {
            #expect(try Self.signIn(app, from: Self.attacker, password: "wrong password!").status == 401)
        }
        let limited = try Self.signIn(app, from: Self.attacker, password: AuthTestServer.password)
        #expect(limited.status == 429)
        #expect(limited.json?["code"] as? String == "rate_limited")
        #expect(limited.header("Retry-After").flatMap(Int.init) != nil)
        // The owner, behind the same proxy but from another client, signs in.
        #expect(try Self.signIn(app, from: Self.owner, password: AuthTestServer.password).status == 200)
        let logged = try app.database.pool.query("SELECT DISTINCT client_address FROM login_attempts ORDER BY 1")
        #expect(try logged.map { try $0.decode("client_address", as: String.self) } == [Self.owner, Self.attacker])
    }

    @Test func sprayingFromOneClientDoesNotLockOtherClientsBehindTheProxy() throws {
        let app = try AuthTestServer(throttleLimits: LoginThrottle.Limits(failuresPerAccountAndAddress: 100, failuresPerAddress: 3),
                                     trustedProxies: "127.0.0.0/8, 10.0.0.0/8")
        for index in 0..<3 {
            _ = try Self.signIn(app, from: Self.attacker, email: "guess\(index)@example.com", password: "wrong password!")
        }
        #expect(try Self.signIn(app, from: Self.attacker, email: "other@example.com", password: "whatever!!").status == 429)
        #expect(try Self.signIn(app, from: Self.owner, password: AuthTestServer.password).status == 200)
    }

    /// A botnet: one guess per address still meets the account-wide cap, from the owner's
    /// usual address too; the owner's device (its cookie) still gets in.
    @Test func distributedGuessingMeetsTheAccountLimitButNotTheOwnersDevice() throws {
        let app = try AuthTestServer(throttleLimits: LoginThrottle.Limits(failuresPerAccount: 4), trustedProxies: "127.0.0.1")
        let first = try Self.signIn(app, from: Self.owner, password: AuthTestServer.password)
        #expect(first.status == 200)
        let device = try #require(AuthDeviceThrottleTests.deviceCookie(first))
        for bot in 1...4 {
            #expect(try Self.signIn(app, from: "192.0.2.\(bot)", password: "wrong password!").status == 401)
        }
        #expect(try Self.signIn(app, from: "192.0.2.99", password: "another guess!").status == 429)
        #expect(try Self.signIn(app, from: "192.0.2.99", password: AuthTestServer.password).status == 429)
        #expect(try Self.signIn(app, from: Self.owner, password: AuthTestServer.password).status == 429)
        let owner = try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password],
                                    headers: ["X-Forwarded-For": Self.owner, "Cookie": device])
        #expect(owner.status == 200)
    }

    @Test func forwardedForIsIgnoredFromAnUntrustedPeer() throws {
        for trusted in ["", "192.0.2.1"] {
            let app = try AuthTestServer(trustedProxies: trusted)
            // Each guess claims a new address; none is believed, so the pair limit still bites.
            for guess in 0..<5 {
                #expect(try Self.signIn(app, from: "203.0.113.\(guess)", password: "wrong password!").status == 401)
            }
            #expect(try Self.signIn(app, from: "203.0.113.77", password: AuthTestServer.password).status == 429)
            let logged = try app.database.pool.query("SELECT DISTINCT client_address FROM login_attempts")
            #expect(try logged.map { try $0.decode("client_address", as: String.self) } == ["127.0.0.1"])
        }
    }
}
