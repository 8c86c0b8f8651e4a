import Foundation
import Store
import Testing

/// Failed sign-ins are limited per email and per client address (counted in PostgreSQL).
@Suite struct AuthRateLimitTests {
    @Test func repeatedFailuresForOneEmailAnswer429WithRetryAfter() throws {
        let app = try AuthTestServer()
        for _ in 0..<5 {
            let response = try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail, "password": "wrong password!"])
            #expect(response.status == 401)
        }
        // Even the right password is refused while limited: the limit guards the account.
        let limited = try app.request("POST", "/v1/auth/login", json: ["email": AuthTestServer.adminEmail, "password": AuthTestServer.password])
        #expect(limited.status == 429)
        #expect(limited.json?["code"] as? String == "rate_limited")
        let retryAfter = try #require(limited.header("Retry-After").flatMap { Int($0) })
        #expect((1...900).contains(retryAfter))
    }

    @Test func repeatedFailuresFromOneAddressAcrossEmailsAnswer429() throws {
        let app = try AuthTestServer(throttleLimits: LoginThrottle.Limits(failuresPerAccountAndAddress: 100, failuresPerAddress: 3))
        for index in 0..<3 {
            _ = try app.request("POST", "/v1/auth/login", json: ["email": "guess\(index)@example.com", "password": "wrong password!"])
        }
        let limited = try app.request("POST", "/v1/auth/login", json: ["email": "other@example.com", "password": "whatever!!"])
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") != nil)
    }

    /// One person spraying from an office's shared address must not lock out a
    /// colleague who signed in from that address before; an account that never did is still
    /// refused, so the defence against spraying stays.
    @Test func anAddressLimitSparesAccountsThatSignedInFromThatAddress() throws {
        let app = try AuthTestServer(throttleLimits: LoginThrottle.Limits(failuresPerAccountAndAddress: 100, failuresPerAddress: 3))
        let admin = try app.login()
        _ = try app.createRealtor("colleague@example.com", adminToken: admin.access)
        _ = try app.createRealtor("newcomer@example.com", adminToken: admin.access)
        // The colleague signs in from this address (127.0.0.1) once, before the spray.
        _ = try app.login("colleague@example.com")
        for index in 0..<3 {
            let guess = try app.request("POST", "/v1/auth/login", json: ["email": "spray\(index)@example.com", "password": "wrong password!"])
            #expect(guess.status == 401)
        }
        let colleague = try app.request("POST", "/v1/auth/login",
                                        json: ["email": "colleague@example.com", "password": AuthTestServer.password])
        #expect(colleague.status == 200)
        let newcomer = try app.request("POST", "/v1/auth/login",
                                       json: ["email": "newcomer@example.com", "password": AuthTestServer.password])
        #expect(newcomer.status == 429)
        #expect(newcomer.header("Retry-After") != nil)
    }
}
