import Foundation
import Postgres
import Store
import Testing

/// `/v1/devices` over real HTTP: registration idempotent on the token, a token moving to its
/// last registrant, owners only, and the paths that remove devices (sign-out, deactivation,
/// off-boarding).
@Suite struct PushDeviceTests {
    static let token = "0123456789abcdef0123456789abcdef"

    func register(_ app: AuthTestServer, _ access: String, token: String = PushDeviceTests.token) throws -> TestHTTPClient.Response {
        try app.request("POST", "/v1/devices", token: access, json: ["platform": "ios", "token": token, "app_id": "com.example.dispatch"])
    }

    func items(_ app: AuthTestServer, _ access: String) throws -> [[String: Any]] {
        try app.request("GET", "/v1/devices", token: access).json?["items"] as? [[String: Any]] ?? []
    }

    @Test func registeringIsIdempotentOnTheTokenAndTheTokenMovesToItsLastRegistrant() throws {
        let app = try AuthTestServer()
        let admin = try app.login().access
        _ = try app.createRealtor("rita@example.com", adminToken: admin)
        let rita = try app.login("rita@example.com").access
        let first = try register(app, admin)
        #expect(first.status == 200)
        let again = try register(app, admin)
        let id = try #require(first.json?["id"] as? String)
        #expect(again.json?["id"] as? String == id && first.json?["platform"] as? String == "ios")
        #expect(try items(app, admin).count == 1)
        // A wake-up owed to the admin's phone survives the admin registering again (every launch)…
        let owed = "SELECT count(*)::text FROM push_outbox WHERE device_id = '\(id)'"
        try app.database.pool.execute(PostgresQuery(sql: "INSERT INTO push_outbox (device_id, reason) VALUES ('\(id)', 'changed')"))
        _ = try register(app, admin)
        #expect(try app.database.pool.query(PostgresQuery(sql: owed)).first?.decode(0, as: String.self) == "1")
        // …but not the phone changing hands: Rita registers the same token.
        let moved = try register(app, rita)
        #expect(try app.database.pool.query(PostgresQuery(sql: owed)).first?.decode(0, as: String.self) == "0")
        #expect(moved.status == 200 && moved.json?["id"] as? String == id)
        #expect(try items(app, admin).isEmpty && items(app, rita).count == 1)
        // Only the owner may remove it: the admin's attempt is "no such device".
        #expect(try app.request("DELETE", "/v1/devices/\(id)", token: admin).status == 404)
        #expect(try app.request("DELETE", "/v1/devices/\(id)", token: rita).status == 204)
        #expect(try items(app, rita).isEmpty)
    }

    @Test func badInputIsRefusedFieldByFieldAndAnAPIKeyMayNotRegister() throws {
        let app = try AuthTestServer()
        let admin = try app.login().access
        let bad = try app.request("POST", "/v1/devices", token: admin, json: ["platform": "windows", "token": "a b", "app_id": ""])
        #expect(bad.status == 422)
        let fields = bad.json?["details"] as? [[String: Any]] ?? []
        #expect(Set(fields.compactMap { $0["field"] as? String }) == ["platform", "token", "app_id"])
        #expect(try app.request("POST", "/v1/devices", token: admin, json: ["platform": "ios", "token": Self.token]).status == 422)
        // The token becomes a URL path segment at APNs: nothing that could leave it.
        for token in ["abcdef12?x=1", "abcdef12#frag", "abcdef12%2F..", "abcdef12\u{7F}"] {
            let refused = try app.request("POST", "/v1/devices", token: admin, json: ["platform": "ios", "token": token, "app_id": "a"])
            #expect(refused.status == 422, "\(token)")
        }
        let key = try #require(try app.request("POST", "/v1/api-keys", token: admin, json: ["name": "ci"]).json?["key"] as? String)
        let refused = try register(app, key)
        #expect(refused.status == 403 && refused.json?["code"] as? String == "session_required")
        #expect(try app.request("DELETE", "/v1/devices/not-a-uuid", token: admin).status == 404)
    }

    @Test func signOutDeactivationAndOffboardingRemoveDevices() throws {
        let app = try AuthTestServer()
        let admin = try app.login().access
        // Sign-out removes the devices of that session only.
        let kept = try app.login().access
        #expect(try register(app, kept, token: "keepkeepkeepkeep").status == 200)
        #expect(try register(app, admin).status == 200)
        #expect(try app.request("POST", "/v1/auth/logout", token: admin).status == 204)
        #expect(try items(app, kept).map { $0["token"] as? String } == ["keepkeepkeepkeep"])
        // Deactivation removes all of a user's devices.
        let ritaID = try app.createRealtor("rita@example.com", adminToken: kept)
        #expect(try register(app, try app.login("rita@example.com").access).status == 200)
        #expect(try app.request("PATCH", "/v1/users/\(ritaID)", token: kept, json: ["deactivated": true]).status == 200)
        #expect(try app.database.pool.query(PostgresQuery(sql: "SELECT 1 FROM push_devices WHERE user_id = '\(ritaID)'")).first == nil)
        // Off-boarding too (before any deactivation).
        let samID = try app.createRealtor("sam@example.com", adminToken: kept)
        #expect(try register(app, try app.login("sam@example.com").access, token: "samsamsamsamsam1").status == 200)
        _ = try Offboarding(pool: app.database.pool).run(Viewer(userID: app.admin.id, isAdmin: true), user: try #require(UUID(uuidString: samID)),
                                                       claimsTo: nil, listingsTo: app.admin.id)
        #expect(try app.database.pool.query(PostgresQuery(sql: "SELECT 1 FROM push_devices WHERE user_id = '\(samID)'")).first == nil)
    }
}
