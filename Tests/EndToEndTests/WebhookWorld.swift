import Credentials
import Domain
import Foundation
import Logging
import Mail
import Postgres
import TestSupport
@testable import Webhooks

/// One webhook test's setup: the application on a fresh database, a scripted receiver on
/// 127.0.0.1 (`WebhookReceiver`, signatures verified by the PyPI `standardwebhooks` package),
/// the admin's token, and senders built like `serve`'s with short timers and 127.0.0.1 allowed.
final class WebhookWorld {
    let app: AuthTestServer
    let receiver: WebhookReceiver
    let admin: String
    private var secrets: [String] = []

    init() throws {
        app = try AuthTestServer()
        receiver = try WebhookReceiver()
        admin = try app.login().access
    }

    var service: WebhookService {
        get throws {
            guard let webhooks = app.webhooks else { throw AuthTestError.unexpected(0, "no webhook service") }
            return webhooks
        }
    }

    /// A sender with test timers: polls every 50 ms, retries after `waits` (default: 50 ms each,
    /// 4 attempts), a 5 s request timeout (the receiver verifies every signature in Python before
    /// it answers, which a loaded machine can stretch past a second), 127.0.0.1 allowed unless
    /// `allowLoopback` is false.
    func makeSender(waits: [Duration] = [.milliseconds(50), .milliseconds(50), .milliseconds(50)], allowLoopback: Bool = true,
                    pool: PostgresPool? = nil, lease: Duration = .seconds(10), timeout: Duration = .seconds(5)) throws -> WebhookSender {
        var policy = WebhookSender.Policy()
        policy.pollInterval = .milliseconds(50)
        policy.schedule = WebhookRetrySchedule(waits: waits)
        policy.countsInterval = .milliseconds(50)
        policy.lease = lease
        let allowed = allowLoopback ? WebhookTargetPolicy(allowedRanges: [AddressRange(parsing: "127.0.0.1")].compactMap { $0 }) : WebhookTargetPolicy()
        let service = try pool.map { WebhookService(pool: $0, serverSecret: AuthTestServer.serverSecret) } ?? self.service
        var logger = Logger(label: "webhook-tests")
        logger.logLevel = .critical
        let outbox = MailOutbox(templates: try MailTemplates(siteName: "Dispatch Test", siteURL: "https://dispatch.test"),
                                sender: try MailAddress("no-reply@dispatch.test"), seal: SecretSeal.mailOutbox(serverSecret: AuthTestServer.serverSecret))
        return WebhookSender(service: service, client: WebhookHTTPClient(policy: allowed, connectTimeout: .seconds(1), timeout: timeout),
                             policy: policy, notice: WebhookDisabledNotice(outbox: outbox, pool: service.pool), logger: logger)
    }

    /// Registers an endpoint through the API; returns its id and secret (also trusted by the receiver).
    @discardableResult
    func createEndpoint(url: String, events: [String] = ["*"]) throws -> (id: String, secret: String) {
        let response = try app.request("POST", "/v1/webhooks", token: admin, json: ["url": url, "events": events, "description": "test"])
        guard response.status == 201, let id = response.json?["id"] as? String, let secret = response.json?["secret"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        secrets.append(secret)
        try receiver.trust(secrets)
        return (id, secret)
    }

    /// Creates a task through `/v1` as the admin; returns its id.
    @discardableResult
    func createTask(_ title: String = "Order photos") throws -> String {
        let response = try app.request("POST", "/v1/tasks", token: admin, json: ["title": title])
        guard response.status == 201, let id = response.json?["id"] as? String else {
            throw AuthTestError.unexpected(response.status, String(decoding: response.body, as: UTF8.self))
        }
        return id
    }

    /// One value of the database (the first column of the first row) as text.
    func scalar(_ sql: String) throws -> String? {
        try app.database.pool.query(PostgresQuery(sql: sql)).first.flatMap { try $0.decode(0, as: String?.self) }
    }

    /// Waits (at most `timeout`) until `done` holds.
    func wait(timeout: Duration = .seconds(20), until done: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try done() { return true }
            usleep(20_000)
        }
        return try done()
    }
}
