import Credentials
import Foundation
import Logging
import Postgres
import Push
import Store
import TestSupport

/// One push test's setup: the application on a fresh database with its change stream running,
/// a fake APNs on 127.0.0.1 (TLS, a test CA, ES256 verified with the test key's public half),
/// and a sender built like `serve`'s, trusting only the test CA. Realtors A and B each sign in
/// and register a device; B owns a listing A staffs, and B declared a task on it.
final class PushWorld {
    let app: AuthTestServer
    let fake: APNsFake
    let sender: PushSender
    let admin: String
    let adminID: UUID
    let a: (id: UUID, token: String, device: String)
    let b: (id: UUID, token: String, device: String)
    let listing: String
    let task: String

    static let tokenA = "aaaa0000aaaa0000aaaa0000aaaa0000"
    static let tokenB = "bbbb1111bbbb1111bbbb1111bbbb1111"

    /// `fcm`: also wake Android devices through this fake.
    init(minInterval: Duration = .seconds(3600), fcm: FCMFake? = nil) throws {
        app = try AuthTestServer()
        fake = try APNsFake()
        admin = try app.login().access
        adminID = app.admin.id
        let aID = try app.createRealtor("a@example.com", adminToken: admin)
        let bID = try app.createRealtor("b@example.com", adminToken: admin)
        let aToken = try app.login("a@example.com").access
        let bToken = try app.login("b@example.com").access
        listing = try Self.created(app.request("POST", "/v1/listings", token: admin,
                                               json: ["address": "12 Elm", "owned_by": bID, "assigned_staff": aID]))
        task = try Self.created(app.request("POST", "/v1/tasks", token: bToken, json: ["title": "Showing", "listing_id": listing]))
        let settings = APNsSettings(key: try JWSSigningKey(pem: String(contentsOfFile: fake.keyFile, encoding: .utf8)),
                                    keyID: APNsFake.keyID, teamID: APNsFake.teamID, topic: APNsFake.topic, baseURL: fake.url,
                                    caFile: fake.caFile)
        var policy = PushPolicy()
        policy.minInterval = minInterval
        policy.pollInterval = .milliseconds(50)
        policy.countsInterval = .milliseconds(50)
        var logger = Logger(label: "push-tests")
        logger.logLevel = .critical
        guard let sync = app.sync else { throw AuthTestError.unexpected(0, "no sync service") }
        sync.start()
        let fcmSettings = try fcm.map { fake in
            try FCMSettings(serviceAccountJSON: Data(contentsOf: URL(fileURLWithPath: fake.serviceAccountFile)), tokenURL: fake.tokenURL,
                            baseURL: fake.url, caFile: nil)
        }
        sender = PushSender(service: PushService(pool: app.database.pool), sync: sync, apns: settings, fcm: fcmSettings, policy: policy,
                            logger: logger)
        sender.start()
        a = (try Self.uuid(aID), aToken, try Self.register(app, token: aToken, device: Self.tokenA))
        b = (try Self.uuid(bID), bToken, try Self.register(app, token: bToken, device: Self.tokenB))
        try settle()
        try reset()
    }

    deinit {
        sender.stop()
        app.sync?.stop()
    }

    /// Returns once every commit made before the call has been read by the change stream and
    /// handled by the sender: two reads (asked for here) that both started after the call.
    func settle() throws {
        guard let sync = app.sync else { return }
        let start = sender.changesHandled
        let deadline = ContinuousClock.now + .seconds(30)
        while sender.changesHandled < start + 2 {
            guard ContinuousClock.now < deadline else { throw AuthTestError.unexpected(0, "the change stream did not read") }
            sync.requestChangeRead()
            usleep(20_000)
        }
        // And what it queued has been claimed and answered (or is not due).
        _ = wait { (try? self.scalar("SELECT count(*)::text FROM push_outbox WHERE sent_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()")) == "0" }
    }

    /// Forgets what setup queued and sent: every device as if never pushed to.
    func reset() throws {
        try app.database.pool.execute("DELETE FROM push_outbox")
        try app.database.pool.execute("UPDATE push_devices SET last_push_at = NULL")
    }

    func patchTask(_ title: String, token: String? = nil) throws {
        let response = try app.request("PATCH", "/v1/tasks/\(task)", token: token ?? admin, json: ["title": title])
        guard response.status == 200 else { throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self)) }
    }

    func pushes(to device: String) throws -> Int {
        try fake.requests(to: device).count
    }

    func outboxRows(_ device: String) throws -> Int {
        Int(try scalar("SELECT count(*)::text FROM push_outbox WHERE device_id = '\(device)'") ?? "0") ?? 0
    }

    func scalar(_ sql: String) throws -> String? {
        try app.database.pool.query(PostgresQuery(sql: sql)).first.flatMap { try $0.decode(0, as: String?.self) }
    }

    func wait(timeout: Duration = .seconds(20), until done: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try done() { return true }
            usleep(20_000)
        }
        return try done()
    }

    static func register(_ app: AuthTestServer, token: String, device: String) throws -> String {
        let response = try app.request("POST", "/v1/devices", token: token, json: ["platform": "ios", "token": device, "app_id": APNsFake.topic])
        guard response.status == 200, let id = response.json?["id"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return id
    }

    static func created(_ response: TestHTTPClient.Response) throws -> String {
        guard response.status == 201, let id = response.json?["id"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return id
    }

    static func uuid(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw AuthTestError.unexpected(0, "not a uuid: \(text)") }
        return id
    }
}
