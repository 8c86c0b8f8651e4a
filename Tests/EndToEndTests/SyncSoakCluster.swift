import Foundation
import Postgres
import Store
import TestSupport

/// Two (or more) `dispatchd serve` processes on one database, as replicas behind a load
/// balancer: each request goes to a random live instance, and a request that meets a dead
/// one (refused, reset) or a 503 goes to another, as a client behind a balancer would retry.
/// Faults: `killAndRestart` (kill -9, then a fresh process on a new port) and
/// `terminateBackends` (pg_terminate_backend of every server connection).
final class SyncSoakCluster: SyncEndpoint, @unchecked Sendable {
    static let secret = String(repeating: "q", count: 40)
    /// Server connections carry this name, so faults hit them and not the test's own pool.
    static let applicationName = "dispatchd-soak"

    let database: TestDatabase
    private let environment: [String: String]
    private let lock = NSLock()
    private var instances: [ServedDispatchd]

    init(instances count: Int) throws {
        let database = try TestDatabase.create(poolSize: 4)
        let separator = database.url.contains("?") ? "&" : "?"
        environment = ["DATABASE_URL": database.url + separator + "application_name=\(Self.applicationName)",
                       "JWT_SECRET": Self.secret, "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "HOST": "127.0.0.1", "PORT": "0", "ACCESS_TOKEN_TTL": "86400",
                       "LOG_LEVEL": "warning"]
        self.database = database
        instances = []
        for _ in 0..<count { instances.append(try ServedDispatchd(environment: environment)) }
    }

    deinit {
        for instance in instances { _ = try? instance.stop() }
    }

    var pool: PostgresPool { database.pool }

    private func randomPort() -> Int {
        lock.withLock { instances.randomElement()?.port ?? 0 }
    }

    /// kill -9 of instance `index`, then a fresh process in its place.
    func killAndRestart(_ index: Int) throws {
        let victim = lock.withLock { instances[index % instances.count] }
        victim.kill()
        let fresh = try ServedDispatchd(environment: environment)
        lock.withLock { instances[index % instances.count] = fresh }
    }

    /// Terminates every database connection of every instance (their pools must recover).
    @discardableResult
    func terminateBackends() throws -> Int {
        let rows = try pool.query("""
            SELECT count(pg_terminate_backend(pid)) AS terminated FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = \(Self.applicationName)
            """)
        return try rows.first?.decode("terminated", as: Int.self) ?? 0
    }

    /// A user written directly (cheap password hash), signed in over HTTP.
    func member(_ name: String, admin: Bool = false) throws -> SyncTestServer.Member {
        let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com".lowercased()
        let user = try UserStore(pool: pool).create(email: email, name: name, userType: admin ? .admin : .realtor,
                                                    passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
        let id = user.id
        let body = Array(try JSONSerialization.data(withJSONObject: ["email": email, "password": AuthTestServer.password]))
        let response = try perform(method: "POST", path: "/v1/auth/login", headers: ["Content-Type": "application/json"], body: body)
        guard response.status == 200, let token = response.json?["access_token"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return SyncTestServer.Member(id: id, token: token)
    }

    func sync(_ member: SyncTestServer.Member, since: String?, limit: Int?, wait: Int?) throws -> TestHTTPClient.Response {
        var items: [String] = []
        if let since { items.append("since=\(since)") }
        if let limit { items.append("limit=\(limit)") }
        if let wait { items.append("wait=\(wait)") }
        let path = "/v1/sync" + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
        return try perform(method: "GET", path: path, headers: ["Authorization": "Bearer \(member.token)"], body: [])
    }

    /// Up to 40 attempts over about 10 s: long enough for a killed instance's replacement to
    /// start and for pools to reconnect after terminated backends.
    func perform(method: String, path: String, headers: [String: String], body: [UInt8]) throws -> TestHTTPClient.Response {
        var lastError: Error = AuthTestError.unexpected(0, "no attempt")
        for _ in 0..<40 {
            do {
                let response = try TestHTTPClient(port: randomPort(), timeoutSeconds: 30)
                    .perform(method: method, path: path, headers: headers, body: body)
                if response.status != 503 { return response }
                lastError = AuthTestError.unexpected(503, "\(method) \(path): \(String(decoding: response.body, as: UTF8.self))")
            } catch {
                lastError = error
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
        throw lastError
    }
}
