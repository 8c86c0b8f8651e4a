import Foundation
import Postgres
import Store
import Synchronization
import Testing
import TestSupport

/// `dispatchd serve` behind Debian's PgBouncer in transaction mode (docs/operators/pooling.md):
/// DATABASE_URL names the pooler (two server sessions shared by every pooled connection),
/// DATABASE_DIRECT_URL the cluster, which migrations (session advisory lock) and LISTEN use.
/// The database starts empty, so the migrations themselves run through the direct URL. Then
/// the flows phones use: a parked long-poll woken by a push, realtime postgres_changes,
/// concurrent pushes applied exactly once, claims, and /rest/v1 reads and writes.
@Suite(.serialized) struct PoolerServeTests {
    static let publishableKey = "sb_publishable_pooler-test-key-0123456789"

    struct Client {
        let port: Int
        let token: String

        func call(_ method: String, _ path: String, body: Any? = nil, supabase: Bool = false,
                  timeout: Int = 10) throws -> TestHTTPClient.Response {
            var headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
            if supabase { headers["apikey"] = PoolerServeTests.publishableKey }
            let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
            return try TestHTTPClient(port: port, timeoutSeconds: timeout).perform(method: method, path: path, headers: headers, body: bytes)
        }

        func push(_ mutations: [[String: Any]]) throws -> [String] {
            let response = try call("POST", "/v1/sync/push", body: ["mutations": mutations], timeout: 30)
            guard response.status == 200 else { return ["HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))"] }
            return (response.json?["results"] as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "?" }
        }
    }

    static func upsert(_ id: String, _ title: String) -> [String: Any] {
        ["mutation_id": UUID().uuidString, "op": "upsert", "type": "task", "id": id, "record": ["title": title]]
    }

    @Test func phonesFlowsWorkThroughATransactionPooler() throws {
        let database = try TestDatabase.create(migrations: nil, poolSize: 1)
        let bouncer = try TestPgBouncer(cluster: database.cluster, serverConnections: 2)
        // What docs/operators/pooling.md asks of operators: statements outside a transaction
        // get DB_STATEMENT_TIMEOUT from the database's defaults (serve warns otherwise).
        try database.pool.execute("ALTER DATABASE \(unsafeSQL: database.name) SET statement_timeout = '30s'")
        let server = try ServedDispatchd(environment: [
            "DATABASE_URL": bouncer.url(database: database.name), "DATABASE_DIRECT_URL": database.url,
            "JWT_SECRET": String(repeating: "p", count: 40), "PUBLISHABLE_KEY": Self.publishableKey,
            "HOST": "127.0.0.1", "PORT": "0", "DB_POOL_SIZE": "6", "LOG_LEVEL": "warning",
        ])
        var log = ""
        defer {
            log = (try? server.stop()) ?? ""
            // Nothing may be warned about but the development mailer's notice (no SMTP_HOST here).
            let unexpected = log.split(separator: "\n").filter {
                ($0.contains("warning") || $0.contains("error")) && !$0.contains("no SMTP_HOST")
            }
            #expect(unexpected.isEmpty, "server log: \(log)")
        }
        let email = "pooled-\(UUID().uuidString.prefix(8))@example.com".lowercased()
        _ = try UserStore(pool: database.pool).create(email: email, name: "Pooled", userType: .realtor,
                                                      passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
        let client = Client(port: server.port, token: try SyncPushCrashTests.login(email, port: server.port))

        // Realtime first, so the insert below is a change it must deliver.
        let socket = try RealtimeSocket(port: server.port, apikey: Self.publishableKey)
        let ref = socket.nextRef()
        try socket.push(joinRef: ref, ref: ref, topic: "realtime:work", event: "phx_join", payload: [
            "config": ["postgres_changes": [["event": "*", "schema": "public", "table": "tasks"]]], "access_token": client.token,
        ])
        let joined = try socket.nextText { $0[1] as? String == ref }
        #expect((joined[4] as? [String: Any])?["status"] as? String == "ok", "\(joined)")

        // A long-poll parked on an empty delta, woken by a push on another connection.
        let first = try client.call("GET", "/v1/sync")
        let since = try #require(first.json?["next_since"] as? String, "\(first.status)")
        let woken = Mutex<TestHTTPClient.Response?>(nil)
        let parked = Thread {
            let response = try? client.call("GET", "/v1/sync?since=\(since)&wait=20", timeout: 30)
            woken.withLock { $0 = response }
        }
        parked.start()
        Thread.sleep(forTimeInterval: 0.5)
        let task = UUID().uuidString.lowercased()
        let started = Date()
        #expect(try client.push([Self.upsert(task, "through the pooler")]) == ["applied"])
        while woken.withLock({ $0 == nil }), Date().timeIntervalSince(started) < 25 { Thread.sleep(forTimeInterval: 0.02) }
        let delta = try #require(woken.withLock { $0 })
        #expect(Date().timeIntervalSince(started) < 10, "the long-poll waited for its deadline, not the push")
        #expect((delta.json?["tasks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [task])

        let change = try socket.nextText { $0[3] as? String == "postgres_changes" }
        let record = ((change[4] as? [String: Any])?["data"] as? [String: Any])?["record"] as? [String: Any]
        #expect(record?["id"] as? String == task)

        // Concurrent pushes share the pooler's two server sessions; each applies exactly once.
        let tasks = (0..<4).map { _ in (0..<5).map { _ in UUID().uuidString.lowercased() } }
        let results = Mutex<[String]>([])
        let pushing = DispatchGroup()
        for batch in tasks {
            pushing.enter()
            Thread {
                for id in batch {
                    let statuses = (try? client.push([Self.upsert(id, "one"), Self.upsert(id, "two")])) ?? ["failed"]
                    results.withLock { $0 += statuses }
                }
                pushing.leave()
            }.start()
        }
        pushing.wait()
        #expect(results.withLock { $0 } == Array(repeating: "applied", count: 40))
        let versions = try database.pool.query("SELECT count(*) FILTER (WHERE version = 2 AND title = 'two') AS n FROM tasks")
        #expect(try versions.first?.decode("n", as: Int.self) == 20)

        // Claims.
        #expect(try client.call("POST", "/v1/tasks/\(task)/claim").status == 200)
        #expect(try client.call("DELETE", "/v1/tasks/\(task)/claim").status == 200)

        // /rest/v1: a write, an update and reads.
        let created = try client.call("POST", "/rest/v1/tasks", body: ["title": "rest through the pooler"], supabase: true)
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let patched = try client.call("PATCH", "/rest/v1/tasks?id=eq.\(task)", body: ["title": "patched"], supabase: true)
        #expect(patched.status == 204 || patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
        let read = try client.call("GET", "/rest/v1/tasks?select=id,title&order=title", supabase: true)
        let titles = RestWorld.array(read).compactMap { $0["title"] as? String }
        #expect(read.status == 200 && titles.count == 22 && titles.contains("patched") && titles.contains("rest through the pooler"),
                "\(read.status) \(titles)")

        // The schema came through the direct URL, and the pooler kept its two server sessions.
        let migrated = try database.pool.query("SELECT count(*) AS n FROM schema_migrations")
        #expect(try migrated.first?.decode("n", as: Int.self) ?? 0 > 0)
    }
}
