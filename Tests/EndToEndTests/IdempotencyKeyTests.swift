import Foundation
import Postgres
import Store
import Synchronization
import Testing
import TestSupport

/// `Idempotency-Key` on `/v1` writes over real HTTP: a retry gets the first answer instead of
/// a second row; the key is the caller's own, bound to one request, and safe under concurrency.
@Suite struct IdempotencyKeyTests {
    static func count(_ app: AuthTestServer, title: String) throws -> Int? {
        try app.database.pool.query("SELECT count(*) AS n FROM tasks WHERE title = \(title)").first?.decode("n", as: Int.self)
    }

    @Test func aRetriedCreateWithTheSameKeyIsAnsweredAgainAndMadeOnce() throws {
        let app = try AuthTestServer()
        let token = try app.login().access
        let title = "once-\(UUID().uuidString)"
        let key = UUID().uuidString
        let first = try app.request("POST", "/v1/tasks", token: token, json: ["title": title], headers: ["Idempotency-Key": key])
        #expect(first.status == 201)
        let retry = try app.request("POST", "/v1/tasks", token: token, json: ["title": title], headers: ["Idempotency-Key": key])
        #expect(retry.status == 201)
        #expect(retry.body == first.body)
        #expect(retry.header("Idempotent-Replayed") == "true")
        #expect(retry.header("ETag") == first.header("ETag") && first.header("ETag") != nil)
        #expect(retry.header("Location") == first.header("Location"))
        #expect(try Self.count(app, title: title) == 1)

        // Another request under the same key is refused; another key runs.
        let other = try app.request("POST", "/v1/tasks", token: token, json: ["title": title + "!"], headers: ["Idempotency-Key": key])
        #expect(other.status == 422)
        #expect(other.json?["code"] as? String == "idempotency_key_reused")
        let fresh = try app.request("POST", "/v1/tasks", token: token, json: ["title": title], headers: ["Idempotency-Key": key + "-2"])
        #expect(fresh.status == 201)
        #expect(try Self.count(app, title: title) == 2)

        let invalid = try app.request("POST", "/v1/tasks", token: token, json: ["title": title],
                                      headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
        #expect(invalid.status == 400)
        #expect(invalid.json?["code"] as? String == "invalid_idempotency_key")
    }

    @Test func keysAreScopedPerCallerAndRoute() throws {
        let app = try AuthTestServer()
        let admin = try app.login().access
        let email = "scoped-\(UUID().uuidString.prefix(8))@example.com".lowercased()
        _ = try app.createRealtor(email, adminToken: admin)
        let realtor = try app.login(email).access
        let title = "scoped-\(UUID().uuidString)"
        let key = "shared-key"
        #expect(try app.request("POST", "/v1/tasks", token: admin, json: ["title": title], headers: ["Idempotency-Key": key]).status == 201)
        #expect(try app.request("POST", "/v1/tasks", token: realtor, json: ["title": title], headers: ["Idempotency-Key": key]).status == 201)
        #expect(try Self.count(app, title: title) == 2)
        let listing = try app.request("POST", "/v1/listings", token: admin, json: ["title": title], headers: ["Idempotency-Key": key])
        #expect(listing.json?["code"] as? String != "idempotency_key_reused", "\(listing.status)")
    }

    @Test func concurrentDuplicatesRunOnce() throws {
        let app = try AuthTestServer()
        let token = try app.login().access
        let title = "concurrent-\(UUID().uuidString)"
        let client = app.client
        let body = Array(try JSONSerialization.data(withJSONObject: ["title": title]))
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json", "Idempotency-Key": "concurrent"]
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                let status = (try? client.perform(method: "POST", path: "/v1/tasks", headers: headers, body: body).status) ?? 0
                statuses.withLock { $0.append(status) }
                group.leave()
            }.start()
        }
        group.wait()
        let seen = statuses.withLock { $0 }
        #expect(seen.allSatisfy { $0 == 201 || $0 == 409 }, "\(seen)")
        #expect(seen.contains(201))
        #expect(try Self.count(app, title: title) == 1)
    }

    @Test func answersArePrunedAfter24Hours() throws {
        let app = try AuthTestServer()
        let token = try app.login().access
        let title = "pruned-\(UUID().uuidString)"
        #expect(try app.request("POST", "/v1/tasks", token: token, json: ["title": title], headers: ["Idempotency-Key": "old"]).status == 201)
        try app.database.pool.execute("UPDATE idempotency_keys SET created_at = now() - interval '25 hours'")
        #expect(try IdempotencyKeyStore(pool: app.database.pool).prune() == 1)
        // Past its 24 hours the key runs again.
        #expect(try app.request("POST", "/v1/tasks", token: token, json: ["title": title], headers: ["Idempotency-Key": "old"]).status == 201)
        #expect(try Self.count(app, title: title) == 2)
    }
}
