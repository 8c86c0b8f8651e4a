import Foundation
import Postgres
import Store
import Synchronization
import Testing
import TestSupport

/// A rolling upgrade under load (docs/operators/upgrades.md): two `serve` processes of
/// version N (the repository's migrations) serve three phones that push and sync without a
/// pause. Instance one gets SIGTERM (it drains), and version N+1 (the same migrations plus
/// one additive migration, a new column on `tasks`) starts in its place and migrates while
/// instance two, still N, keeps serving; then instance two likewise. The phones reach the
/// instances as a load balancer would: a refused connection goes to the other instance; the
/// instance still on N answers /readyz 200 against the newer schema. They
/// may see nothing but 200s and retryable 503s with Retry-After, every push applies exactly
/// once, and every phone's sync chain delivers every task it pushed.
@Suite(.serialized) struct RollingUpgradeTests {
    final class Fleet: @unchecked Sendable {
        let live = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let turn = Atomic<Int>(0)

        /// One request to some live instance, retried as a load balancer and a client would:
        /// a refused or reset connection on another instance, a 503 after its Retry-After.
        func send(_ method: String, _ path: String, token: String, body: Any? = nil) -> TestHTTPClient.Response? {
            let bytes = body.flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map { Array($0) } ?? []
            for _ in 0..<200 {
                let ports = live.withLock { $0 }
                guard !ports.isEmpty else { Thread.sleep(forTimeInterval: 0.02); continue }
                let port = ports[turn.add(1, ordering: .relaxed).newValue % ports.count]
                let response: TestHTTPClient.Response
                do {
                    response = try TestHTTPClient(port: port, timeoutSeconds: 30).perform(
                        method: method, path: path, headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                        body: bytes)
                } catch TestHTTPClient.ClientError.socket(let reason) where reason.hasPrefix("connect:") {
                    continue  // nobody listens there (any more): what a load balancer retries elsewhere
                } catch {
                    // Accepted, then dropped: a failed request, which draining must never cause.
                    failures.withLock { $0.append("\(method) \(path) on \(port): \(error)") }
                    return nil
                }
                if response.status == 503 {
                    guard let wait = response.header("Retry-After").flatMap(Double.init) else {
                        failures.withLock { $0.append("503 without Retry-After on \(path)") }
                        return nil
                    }
                    Thread.sleep(forTimeInterval: min(wait, 0.2))
                    continue
                }
                guard response.status == 200 else {
                    failures.withLock { $0.append("\(method) \(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
                    return nil
                }
                return response
            }
            failures.withLock { $0.append("\(method) \(path): no instance answered") }
            return nil
        }
    }

    /// The repository's migrations plus one additive migration: the N+1 build's directory.
    static func nextMigrations() throws -> String {
        let source = try #require(TestDatabase.repositoryMigrationsDirectory)
        let directory = NSTemporaryDirectory() + "dispatch-upgrade-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let files = try FileManager.default.contentsOfDirectory(atPath: source.path).filter { $0.hasSuffix(".sql") }.sorted()
        for file in files {
            try FileManager.default.copyItem(atPath: source.path + "/" + file, toPath: directory + "/" + file)
        }
        try "ALTER TABLE tasks ADD COLUMN upgrade_probe text;\n"
            .write(toFile: directory + "/" + String(format: "%04d", files.count + 1) + "_upgrade_probe.sql", atomically: true, encoding: .utf8)
        return directory
    }

    @Test func twoInstancesUpgradeOneAtATimeWhilePhonesPushAndSync() throws {
        let database = try TestDatabase.create(poolSize: 2)
        let next = try Self.nextMigrations()
        defer { try? FileManager.default.removeItem(atPath: next) }
        let base = ["DATABASE_URL": database.url, "JWT_SECRET": String(repeating: "u", count: 40),
                    "PUBLISHABLE_KEY": "sb_publishable_upgrade-test-key-0123456789", "HOST": "127.0.0.1", "PORT": "0",
                    "ACCESS_TOKEN_TTL": "3600", "LOG_LEVEL": "critical", "SHUTDOWN_TIMEOUT": "10"]
        let versionN = base.merging(["MIGRATIONS_DIR": try #require(TestDatabase.repositoryMigrationsDirectory).path]) { $1 }
        let versionNext = base.merging(["MIGRATIONS_DIR": next]) { $1 }
        var servers = [try ServedDispatchd(environment: versionN), try ServedDispatchd(environment: versionN)]
        let fleet = Fleet()
        fleet.live.withLock { $0 = servers.map(\.port) }

        let phones = try (0..<3).map { index -> String in
            let email = "upgrade-\(index)-\(UUID().uuidString.prefix(6))@example.com".lowercased()
            _ = try UserStore(pool: database.pool).create(email: email, name: "Phone \(index)", userType: .realtor,
                                                          passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
            return try SyncPushCrashTests.login(email, port: servers[0].port)
        }
        let running = Atomic<Bool>(true)
        let pushed = Mutex<[Int: [String]]>([:]), synced = Mutex<[Int: Set<String>]>([:])
        let load = DispatchGroup()
        for (index, token) in phones.enumerated() {
            load.enter()
            Thread {
                var since: String?
                func sync() {
                    let path = "/v1/sync" + (since.map { "?since=\($0)" } ?? "")
                    guard let page = fleet.send("GET", path, token: token)?.json else { return }
                    since = page["next_since"] as? String ?? since
                    let ids = (page["tasks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    synced.withLock { $0[index, default: []].formUnion(ids) }
                }
                while running.load(ordering: .relaxed) {
                    let id = UUID().uuidString.lowercased()
                    let mutation: [String: Any] = ["mutation_id": UUID().uuidString, "op": "upsert", "type": "task", "id": id,
                                                   "record": ["title": "phone \(index)"]]
                    if let results = fleet.send("POST", "/v1/sync/push", token: token, body: ["mutations": [mutation]])?
                        .json?["results"] as? [[String: Any]], results.first?["status"] as? String == "applied" {
                        pushed.withLock { $0[index, default: []].append(id) }
                    }
                    sync()
                }
                var before = -1
                while synced.withLock({ $0[index]?.count ?? 0 }) != before {  // drain the chain
                    before = synced.withLock { $0[index]?.count ?? 0 }
                    sync()
                }
                load.leave()
            }.start()
        }

        for slot in 0..<2 {
            Thread.sleep(forTimeInterval: 1)
            let old = servers[slot].port
            _ = try servers[slot].stop()  // SIGTERM: drains in-flight requests, then exits
            fleet.live.withLock { $0.removeAll { $0 == old } }
            servers[slot] = try ServedDispatchd(environment: versionNext)
            let port = servers[slot].port
            fleet.live.withLock { $0.append(port) }
            // The schema is now ahead of the instance still on N, which must stay in rotation.
            // A load balancer drops an instance after several failed probes, not one: a probe
            // answered past its 800 ms limit on a loaded machine is not leaving rotation.
            let other = servers[1 - slot].port
            let ready = (0..<20).contains { _ in
                if (try? TestHTTPClient(port: other).get("/readyz").status) == 200 { return true }
                Thread.sleep(forTimeInterval: 0.5)
                return false
            }
            #expect(ready, "slot \(slot): the other instance left rotation")
        }
        Thread.sleep(forTimeInterval: 1)
        running.store(false, ordering: .relaxed)
        load.wait()
        defer { servers.forEach { _ = try? $0.stop() } }

        #expect(fleet.failures.withLock { $0 }.isEmpty, "\(fleet.failures.withLock { $0 })")
        let all = pushed.withLock { $0.values.flatMap { $0 } }
        #expect(all.count > 20, "too little load to prove anything: \(all.count) pushes")
        let rows = try database.pool.query("""
            SELECT count(*) AS n, count(*) FILTER (WHERE version = 1) AS once FROM tasks
            """)
        #expect(try rows.first?.decode("n", as: Int.self) == all.count)
        #expect(try rows.first?.decode("once", as: Int.self) == all.count)
        for index in phones.indices {
            let mine = Set(pushed.withLock { $0[index] ?? [] })
            #expect(mine.isSubset(of: synced.withLock { $0[index] ?? [] }), "phone \(index)'s sync chain missed its own tasks")
        }
        let column = try database.pool.query("SELECT count(*) AS n FROM information_schema.columns WHERE column_name = 'upgrade_probe'")
        #expect(try column.first?.decode("n", as: Int.self) == 1)
    }
}
