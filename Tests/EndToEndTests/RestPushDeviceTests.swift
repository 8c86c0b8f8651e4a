import Foundation
import Testing

/// `/rest/v1/push_devices` as supabase clients call it: upsert on the token, the caller's own
/// rows only, delete by id, PostgREST's error shapes.
@Suite struct RestPushDeviceTests {
    static let rest = ["apikey": AuthTestServer.publishableKey, "Prefer": "return=representation,resolution=merge-duplicates"]

    static func rows(_ response: TestHTTPClient.Response) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]] ?? []
    }

    @Test func upsertOnTheTokenSelectAndDeleteOnlyOnesOwnRows() throws {
        let app = try AuthTestServer()
        let admin = try app.login().access
        _ = try app.createRealtor("rita@example.com", adminToken: admin)
        let rita = try app.login("rita@example.com").access
        let row: [String: Any] = ["platform": "ios", "token": "abcdef0123456789abcdef", "app_id": "com.example.dispatch"]
        let created = try app.request("POST", "/rest/v1/push_devices?on_conflict=token", token: admin, json: row, headers: Self.rest)
        #expect(created.status == 201)
        let id = try #require(Self.rows(created).first?["id"] as? String)
        // Again: the same row; then Rita takes the token over.
        #expect(Self.rows(try app.request("POST", "/rest/v1/push_devices?on_conflict=token", token: admin, json: row,
                                          headers: Self.rest)).first?["id"] as? String == id)
        let moved = try app.request("POST", "/rest/v1/push_devices?on_conflict=token", token: rita, json: row, headers: Self.rest)
        #expect(Self.rows(moved).first?["id"] as? String == id)
        let adminRows = try app.request("GET", "/rest/v1/push_devices?select=*", token: admin, headers: ["apikey": AuthTestServer.publishableKey])
        #expect(adminRows.status == 200 && Self.rows(adminRows).isEmpty)
        let ritaRows = try app.request("GET", "/rest/v1/push_devices?id=eq.\(id)", token: rita, headers: ["apikey": AuthTestServer.publishableKey])
        #expect(Self.rows(ritaRows).map { $0["token"] as? String } == ["abcdef0123456789abcdef"])
        // The admin cannot delete Rita's device; Rita can; a DELETE without a filter is refused.
        let notMine = try app.request("DELETE", "/rest/v1/push_devices?id=eq.\(id)", token: admin, headers: Self.rest)
        #expect(notMine.status == 200 && Self.rows(notMine).isEmpty)
        #expect(try app.request("DELETE", "/rest/v1/push_devices", token: rita, headers: Self.rest).json?["code"] as? String == "21000")
        let deleted = try app.request("DELETE", "/rest/v1/push_devices?id=eq.\(id)", token: rita, headers: ["apikey": AuthTestServer.publishableKey])
        #expect(deleted.status == 204)
        #expect(Self.rows(try app.request("GET", "/rest/v1/push_devices", token: rita, headers: ["apikey": AuthTestServer.publishableKey])).isEmpty)
    }

    @Test func badRowsAndFiltersAnswerInPostgRESTsShape() throws {
        let app = try AuthTestServer()
        let admin = try app.login().access
        let unknown = try app.request("POST", "/rest/v1/push_devices", token: admin,
                                      json: ["platform": "ios", "token": "abcdef0123456789", "app_id": "a", "user_id": "x"], headers: Self.rest)
        #expect(unknown.status == 400 && unknown.json?["code"] as? String == "PGRST204")
        let invalid = try app.request("POST", "/rest/v1/push_devices", token: admin,
                                      json: ["platform": "windows", "token": "a b"], headers: Self.rest)
        #expect(invalid.status == 422)
        let filter = try app.request("GET", "/rest/v1/push_devices?token=eq.x", token: admin, headers: ["apikey": AuthTestServer.publishableKey])
        #expect(filter.status == 400 && filter.json?["code"] as? String == "PGRST100")
        #expect(try app.request("GET", "/rest/v1/push_devices", token: admin).status == 401)
    }
}
