import Foundation
import Postgres
import Store
import Testing
import TestSupport

/// `dispatchd serve` whose every database connection goes through a `FaultProxy` on
/// 127.0.0.1, so the network between the server and PostgreSQL can be cut the ways real ones
/// are: a blackhole, a reset right after a commit, a failing wake-up. Whatever happens, the
/// server answers, and never answers a committed write as if nothing happened.
@Suite(.serialized) struct DatabaseFaultTests {
    /// The server under test: DB_STATEMENT_TIMEOUT 3 s, so a statement waiting on a peer that
    /// holds the socket and never answers ends after 3 + 2 s (docs/operators/configuration.md).
    struct World {
        let database: TestDatabase
        let proxy: FaultProxy
        let server: ServedDispatchd
        let token: String

        init(prepare: (TestDatabase) throws -> Void = { _ in }) throws {
            database = try TestDatabase.create()
            try prepare(database)
            proxy = try FaultProxy(cluster: database.cluster)
            server = try ServedDispatchd(environment: [
                "DATABASE_URL": proxy.url(database: database.name), "JWT_SECRET": String(repeating: "f", count: 40),
                "PUBLISHABLE_KEY": "sb_publishable_fault-test-key-0123456789", "HOST": "127.0.0.1", "PORT": "0",
                "DB_POOL_SIZE": "4", "DB_POOL_TIMEOUT": "3",
                "DB_STATEMENT_TIMEOUT": "3", "LOG_LEVEL": "warning",
            ])
            let email = "fault-\(UUID().uuidString.prefix(8))@example.com".lowercased()
            _ = try UserStore(pool: database.pool).create(email: email, name: "Fault", userType: .realtor,
                                                          passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
            token = try SyncPushCrashTests.login(email, port: server.port)
        }

        /// `timeout`: the client's safety net, which is the bound the test asserts.
        func call(_ method: String, _ path: String, body: [String: Any]? = nil, timeout: Int = 20) throws -> TestHTTPClient.Response {
            let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
            return try TestHTTPClient(port: server.port, timeoutSeconds: timeout).perform(
                method: method, path: path,
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: bytes)
        }

        func metric(_ name: String) throws -> Double? {
            MetricsTests.sampleValue(String(decoding: try call("GET", "/metrics").body, as: UTF8.self), name)
        }

        func stop() -> String {
            proxy.heal()
            let log = (try? server.stop()) ?? ""
            proxy.stop()
            return log
        }
    }

    @Test func aCreateWhoseConnectionResetsAfterCommitIsNeverAnsweredAsIfNothingHappened() throws {
        let world = try World()
        defer { _ = world.stop() }
        #expect(try world.call("GET", "/v1/tasks").status == 200)

        let title = "committed-then-cut-\(UUID().uuidString)"
        world.proxy.resetAfterCommit(marker: title)
        let answer = try world.call("POST", "/v1/tasks", body: ["title": title])
        #expect(world.proxy.resetsAfterCommit == 1, "the proxy never saw the create commit")
        let stored = try world.database.pool.query("SELECT count(*) AS n FROM tasks WHERE title = \(title)")
        #expect(try stored.first?.decode("n", as: Int.self) == 1, "the create did not commit")
        // Either the server found out (201) or it says it cannot know; never "nothing happened".
        let code = answer.json?["code"] as? String
        #expect(answer.status == 201 || (answer.status == 503 && code == "outcome_unknown"),
                "\(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        if answer.status == 503 { #expect(answer.header("Retry-After") != nil) }

        // The server carries on with fresh connections.
        #expect(try world.call("GET", "/v1/tasks").status == 200)
    }

    @Test func aPartitionFailsRequestsWithinTheBoundAndReadyzSaysNotReady() throws {
        let world = try World()
        defer { _ = world.stop() }
        #expect(try world.call("GET", "/v1/tasks").status == 200)
        #expect(try world.call("GET", "/readyz").status == 200)

        world.proxy.partition()
        // Each answer must come within its client timeout while the partition lasts (the
        // test heals it only at the end): a hang fails here with a read timeout.
        let read = try world.call("GET", "/v1/tasks", timeout: 20)
        #expect(read.status == 503, "\(read.status) \(String(decoding: read.body, as: UTF8.self))")
        #expect(read.header("Retry-After") != nil)
        let write = try world.call("POST", "/v1/tasks", body: ["title": "during the partition"], timeout: 20)
        #expect(write.status == 503, "\(write.status) \(String(decoding: write.body, as: UTF8.self))")
        #expect(write.header("Retry-After") != nil)
        // /readyz promises an answer within 1 s whatever the database does; 5 s is the net
        // (a hang lasts until the heal).
        for _ in 0..<3 {
            let ready = try world.call("GET", "/readyz", timeout: 5)
            #expect(ready.status == 503)
            #expect(ready.header("Retry-After") != nil)
        }

        world.proxy.heal()
        var healed = try world.call("GET", "/v1/tasks")
        for _ in 0..<100 where healed.status != 200 {
            Thread.sleep(forTimeInterval: 0.1)
            healed = try world.call("GET", "/v1/tasks")
        }
        #expect(healed.status == 200)
    }

    @Test func aCommittedWriteWhoseWakeUpFailsIsAnsweredCommittedAndCounted() throws {
        // A pg_notify that fails: the server's sessions find this one first on their path.
        let world = try World { database in
            try database.pool.execute("ALTER DATABASE \(unsafeSQL: database.name) SET search_path = public, pg_catalog")
            try database.pool.execute("""
                CREATE FUNCTION public.pg_notify(text, text) RETURNS void LANGUAGE plpgsql
                AS $$ BEGIN RAISE EXCEPTION 'notification refused by the fault test'; END $$
                """)
        }
        defer { _ = world.stop() }
        #expect(try world.metric("db_after_commit_notify_failures_total") == 0)

        let title = "committed-without-wake-up-\(UUID().uuidString)"
        let created = try world.call("POST", "/v1/tasks", body: ["title": title])
        #expect(created.status == 201, "\(created.status) \(String(decoding: created.body, as: UTF8.self))")
        let stored = try world.database.pool.query("SELECT count(*) AS n FROM tasks WHERE title = \(title)")
        #expect(try stored.first?.decode("n", as: Int.self) == 1)
        #expect(try world.metric("db_after_commit_notify_failures_total") ?? 0 >= 1)
    }
}
