import Foundation
import Logging
import Postgres
import Testing
import TestSupport
@testable import Webhooks

/// Senders share one database: a `dispatchd serve` killed with `kill -9` while a request is in
/// flight, another `serve` and an in-process sender. Every event is still delivered, and each
/// `webhook-id` is accepted (200) exactly once by the receiver.
@Suite struct WebhookSenderCrashTests {
    static let secret = String(repeating: "w", count: 40)

    @Test func aKilledSenderLosesNothingAndTwoInstancesDeliverEachEventOnce() throws {
        let database = try TestDatabase.create(poolSize: 4)
        let receiver = try WebhookReceiver()
        let user: UUID = try #require(try database.pool.query("""
            INSERT INTO users (name, email, user_type) VALUES ('Ada', 'ada@example.com', 'admin') RETURNING id
            """).first?.decode("id"))
        let service = WebhookService(pool: database.pool, serverSecret: Self.secret)
        // The first request hangs past the moment the instance is killed; every later one answers 200.
        let (_, secret) = try service.create(url: receiver.url("slow-30,200"), events: ["task.created"], description: "", by: user)
        try receiver.trust([secret.text])
        try database.pool.execute("INSERT INTO tasks (title, declared_by) VALUES ('first', \(user))")
        let environment = ["DATABASE_URL": try CommandLineDatabaseTests.url(for: database), "JWT_SECRET": Self.secret,
                           "PUBLISHABLE_KEY": "sb_publishable_test-key-0123456789", "HOST": "127.0.0.1", "PORT": "0",
                           "LOG_LEVEL": "warning", "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "WEBHOOK_TIMEOUT": "2"]
        let doomed = try ServedDispatchd(environment: environment)
        let deadline = ContinuousClock.now + .seconds(30)
        while try receiver.requests().isEmpty, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(try receiver.requests().count == 1)
        doomed.kill()
        // The killed instance's claim holds the delivery until its lease (2 × 2 s + 10 s) ends.
        #expect(try database.pool.query("SELECT 1 FROM webhook_deliveries WHERE claim IS NOT NULL AND sent_at IS NULL").count == 1)

        let survivor = try ServedDispatchd(environment: environment)
        defer { _ = try? survivor.stop() }
        var policy = WebhookSender.Policy()
        policy.pollInterval = .milliseconds(50)
        let inProcess = WebhookSender(service: service,
                                      client: WebhookHTTPClient(policy: try WebhookTargetPolicy(parsing: "127.0.0.1"), timeout: .seconds(2)),
                                      policy: policy, logger: .init(label: "crash-test", factory: { _ in SwiftLogNoOpLogHandler() }))
        inProcess.start()
        defer { inProcess.stop() }
        for index in 0..<20 {
            try database.pool.execute("INSERT INTO tasks (title, declared_by) VALUES (\("task \(index)"), \(user))")
        }
        let ids = try database.pool.query("SELECT DISTINCT event_id FROM webhook_deliveries").map { try $0.decode("event_id", as: String.self) }
        #expect(ids.count == 21)
        let end = ContinuousClock.now + .seconds(60)
        func accepted() throws -> [String: Int] {
            try receiver.requests().filter { $0.answer == "200" }.reduce(into: [:]) { counts, request in
                counts[request.webhookID ?? "", default: 0] += 1
            }
        }
        while try Set(accepted().keys) != Set(ids), ContinuousClock.now < end { usleep(50_000) }
        let counts = try accepted()
        #expect(Set(counts.keys) == Set(ids), "missing: \(Set(ids).subtracting(counts.keys))")
        #expect(counts.values.allSatisfy { $0 == 1 }, "accepted more than once: \(counts.filter { $0.value > 1 })")
        #expect(try receiver.requests().allSatisfy { $0.verified == [0] })
        #expect(try database.pool.query("SELECT 1 FROM webhook_deliveries WHERE sent_at IS NULL").isEmpty)
    }
}
