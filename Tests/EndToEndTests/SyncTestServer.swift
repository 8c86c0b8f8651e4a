import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Credentials
import Foundation
import HTTP1
import HTTPServer
import Logging
import Postgres
import Store
import TestSupport

/// One database with one or more server instances on it (each with its own pool, auth
/// service, sync service and LISTEN connection, as separate replicas would have), plus SQL
/// helpers that write rows directly (the resource routes are not needed to test the feed).
final class SyncTestServer: Sendable {
    struct Instance: Sendable {
        let pool: PostgresPool
        let auth: AuthService
        let sync: SyncService
        let server: HTTPServer
        var client: TestHTTPClient { TestHTTPClient(port: server.boundPort, timeoutSeconds: 90) }
    }

    struct Member: Sendable {
        let id: UUID
        let token: String
        var key: String { id.uuidString.lowercased() }
    }

    static let secret = String(repeating: "s", count: 32)
    let database: TestDatabase
    let instances: [Instance]
    private let extraPools: [PostgresPool]

    init(instances count: Int = 1, maxPageBytes: Int = SyncFeed.defaultMaxPageBytes,
         deviceFlushInterval: Duration = DeviceActivity.defaultInterval) throws {
        let database = try TestDatabase.create(poolSize: 8)
        // Later instances get their own pools, as separate replicas would.
        let pools = [database.pool] + (1..<max(count, 1)).map { _ in database.makePool(size: 8) }
        self.database = database
        extraPools = Array(pools.dropFirst())
        instances = try pools.map { try Self.makeInstance(pool: $0, maxPageBytes: maxPageBytes, deviceFlushInterval: deviceFlushInterval) }
    }

    deinit {
        for instance in instances {
            instance.server.shutdown(deadline: .seconds(2))
            instance.server.waitUntilStopped()
            instance.sync.stop()
            instance.auth.stop()
        }
        extraPools.forEach { $0.close() }
    }

    private static func makeInstance(pool: PostgresPool, maxPageBytes: Int, deviceFlushInterval: Duration) throws -> Instance {
        let quiet = Logger(label: "sync-e2e", factory: { _ in SwiftLogNoOpLogHandler() })
        let auth = try AuthService(pool: pool, jwtSecret: secret, hasher: AuthTestServer.cheapHasher,
                                   throttleLimits: .init(failuresPerAccountAndAddress: 1000, failuresPerAddress: 1000, failuresPerAccount: 1000),
                                   logger: quiet)
        try auth.start()
        let sync = SyncService(pool: pool, maxPageBytes: maxPageBytes, deviceFlushInterval: deviceFlushInterval, logger: quiet)
        let application = APIApplication(
            readiness: DatabaseReadinessCheck(pool: pool, migrator: Migrator(directoryPath: ProjectPaths.migrations)),
            auth: auth, sync: sync)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0,
                                                   limits: HTTPParserLimits(maxBodyBytes: APIApplication.maxRequestBodyBytes),
                                                   workerCount: 4),
            responder: application.makeRouter(), middleware: application.middleware, logger: quiet)
        try server.start()
        return Instance(pool: pool, auth: auth, sync: sync, server: server)
    }

    var pool: PostgresPool { database.pool }
    var client: TestHTTPClient { instances[0].client }

    /// A user created directly, signed in over HTTP.
    func member(_ name: String, admin: Bool = false) throws -> Member {
        let email = "\(name)-\(UUID().uuidString.prefix(8))@example.com".lowercased()
        let user = try instances[0].auth.users.create(email: email, name: name, userType: admin ? .admin : .realtor,
                                                      passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
        let body = Array(try JSONSerialization.data(withJSONObject: ["email": email, "password": AuthTestServer.password]))
        let response = try client.perform(method: "POST", path: "/v1/auth/login",
                                          headers: ["Content-Type": "application/json"], body: body)
        guard response.status == 200, let token = response.json?["access_token"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return Member(id: user.id, token: token)
    }

    /// `GET /v1/sync` on instance `instance`.
    func sync(_ member: Member, since: String? = nil, limit: Int? = nil, wait: Int? = nil,
              instance: Int = 0) throws -> TestHTTPClient.Response {
        var items: [String] = []
        if let since { items.append("since=\(since)") }
        if let limit { items.append("limit=\(limit)") }
        if let wait { items.append("wait=\(wait)") }
        let path = "/v1/sync" + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
        return try instances[instance].client.perform(method: "GET", path: path,
                                                      headers: ["Authorization": "Bearer \(member.token)"])
    }

    // MARK: SQL writes

    @discardableResult
    func insert(_ sql: PostgresQuery) throws -> UUID {
        let rows = try pool.query(sql)
        return try rows[0].decode("id", as: UUID.self)
    }

    func listing(owner: Member, staff: Member? = nil) throws -> UUID {
        try insert("INSERT INTO listings (address, owned_by, assigned_staff) VALUES ('1 Main St', \(owner.id), \(staff?.id)) RETURNING id")
    }

    func task(by declarer: Member, on listing: UUID? = nil, claimedBy claimer: Member? = nil, table: String = "tasks") throws -> UUID {
        try insert("""
            INSERT INTO \(unsafeSQL: table) (title, declared_by, listing_id, claimed_by, claimed_at)
            VALUES ('a task', \(declarer.id), \(listing), \(claimer?.id), CASE WHEN \(claimer?.id) IS NULL THEN NULL ELSE now() END)
            RETURNING id
            """)
    }

    func note(on parentType: String, _ parent: UUID, by author: Member) throws -> UUID {
        try insert("INSERT INTO notes (content, created_by, parent_type, parent_id) VALUES ('hi', \(author.id), \(parentType), \(parent)) RETURNING id")
    }

    func subtask(on parentType: String, _ parent: UUID) throws -> UUID {
        try insert("INSERT INTO subtasks (title, parent_type, parent_id) VALUES ('step', \(parentType), \(parent)) RETURNING id")
    }

    func execute(_ sql: PostgresQuery) throws {
        try pool.execute(sql)
    }

    /// What `viewer` may see now, per response key, as id → version (contract §2 via Store.Visibility).
    func expectedState(for member: Member, admin: Bool = false) throws -> [String: [String: Int]] {
        try Self.expectedState(in: pool, for: member, admin: admin)
    }

    static func expectedState(in pool: PostgresPool, for member: Member, admin: Bool) throws -> [String: [String: Int]] {
        let viewer = Viewer(userID: member.id, isAdmin: admin)
        var state: [String: [String: Int]] = [:]
        let queries: [(String, PostgresQuery)] = [
            ("users", admin ? "SELECT id::text, version FROM users r" : "SELECT id::text, version FROM users r WHERE deactivated_at IS NULL"),
            ("listings", "SELECT id::text, version FROM listings r WHERE \(Visibility.listing("r", viewer))"),
            ("tasks", "SELECT id::text, version FROM tasks r WHERE \(Visibility.workItem("r", viewer))"),
            ("activities", "SELECT id::text, version FROM activities r WHERE \(Visibility.workItem("r", viewer))"),
            ("notes", "SELECT id::text, version FROM notes r WHERE \(Visibility.child(typeColumn: "r.parent_type", idColumn: "r.parent_id", viewer))"),
            ("subtasks", "SELECT id::text, version FROM subtasks r WHERE \(Visibility.child(typeColumn: "r.parent_type", idColumn: "r.parent_id", viewer))"),
            ("claim_events", "SELECT id::text, version FROM claim_events r WHERE \(Visibility.child(typeColumn: "r.entity_type", idColumn: "r.entity_id", viewer))"),
            ("status_changes", "SELECT id::text, version FROM status_changes r WHERE \(Visibility.child(typeColumn: "r.entity_type", idColumn: "r.entity_id", viewer))"),
        ]
        for (key, query) in queries {
            var rows: [String: Int] = [:]
            for row in try pool.query(query) { rows[try row.decode("id")] = try row.decode("version", as: Int.self) }
            state[key] = rows
        }
        return state
    }
}
