import Credentials
import Foundation
import Logging
import Postgres
import Push
import Sync
import Testing
import TestSupport

/// A `dispatchd serve` killed with `kill -9` while APNs holds its push: the wake-up is neither
/// lost nor sent twice within the interval (APNs may have taken it), and the settings `serve`
/// reads (APNS_*, PUSH_MIN_INTERVAL) drive a real sender.
@Suite struct PushSenderCrashTests {
    static let secret = String(repeating: "p", count: 40)
    static let token = "cccc2222cccc2222cccc2222cccc2222"

    @Test func aSenderKilledMidSendLosesNoWakeUpAndSendsNoneTwiceWithinTheInterval() throws {
        let database = try TestDatabase.create(poolSize: 4)
        let fake = try APNsFake()
        let user: UUID = try #require(try database.pool.query("""
            INSERT INTO users (name, email, user_type) VALUES ('Rita', 'rita@example.com', 'realtor') RETURNING id
            """).first?.decode("id"))
        try database.pool.execute("""
            INSERT INTO push_devices (user_id, platform, token, app_id) VALUES (\(user), 'ios', \(Self.token), 'com.example.dispatch')
            """)
        // APNs takes the push and never answers: the instance dies holding it.
        try fake.script([Self.token: ["hang"]])
        let environment = ["DATABASE_URL": try CommandLineDatabaseTests.url(for: database), "JWT_SECRET": Self.secret,
                           "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "HOST": "127.0.0.1", "PORT": "0",
                           "LOG_LEVEL": "warning", "APNS_KEY_FILE": fake.keyFile, "APNS_KEY_ID": APNsFake.keyID,
                           "APNS_TEAM_ID": APNsFake.teamID, "APNS_TOPIC": APNsFake.topic, "APNS_URL": fake.url,
                           "APNS_CA_FILE": fake.caFile, "PUSH_MIN_INTERVAL": "3600"]
        let doomed = try ServedDispatchd(environment: environment)
        // The stream's first read after start wakes nobody (it has no base): write until one
        // with a base has read a write (its safety read comes within 5 s).
        let deadline = ContinuousClock.now + .seconds(30)
        while try fake.requests(to: Self.token).isEmpty, ContinuousClock.now < deadline {
            try database.pool.execute("INSERT INTO tasks (title, declared_by) VALUES ('Showing', \(user))")
            usleep(500_000)
        }
        #expect(try fake.requests(to: Self.token).count == 1)
        doomed.kill()
        // The dead instance's claim would hold the row for its lease; end the lease now.
        #expect(try database.pool.execute("UPDATE push_outbox SET next_attempt_at = now() WHERE claim IS NOT NULL AND sent_at IS NULL") == 1)

        var policy = PushPolicy()
        policy.minInterval = .seconds(3600)
        policy.pollInterval = .milliseconds(50)
        let settings = APNsSettings(key: try JWSSigningKey(pem: String(contentsOfFile: fake.keyFile, encoding: .utf8)),
                                    keyID: APNsFake.keyID, teamID: APNsFake.teamID, topic: APNsFake.topic, baseURL: fake.url,
                                    caFile: fake.caFile)
        let survivor = PushSender(service: PushService(pool: database.pool), sync: SyncService(pool: database.pool), apns: settings,
                                  policy: policy, logger: Logger(label: "push-crash", factory: { _ in SwiftLogNoOpLogHandler() }))
        survivor.start()
        defer { survivor.stop() }
        let end = ContinuousClock.now + .seconds(20)
        func owed() throws -> String? {
            try database.pool.query(PostgresQuery(sql: """
                SELECT (next_attempt_at > now() + interval '50 minutes')::text FROM push_outbox WHERE sent_at IS NULL AND dead_at IS NULL AND claim IS NULL
                """)).first.flatMap { try $0.decode(0, as: String?.self) }
        }
        while try owed() != "true", ContinuousClock.now < end { usleep(20_000) }
        // Owed again one interval on (not lost), and not sent again now (not twice).
        #expect(try owed() == "true")
        #expect(survivor.counts.interrupted == 1)
        #expect(try fake.requests(to: Self.token).count == 1)
        #expect(try database.pool.query("SELECT 1 FROM push_devices WHERE last_push_at IS NOT NULL").count == 1)
    }
}
