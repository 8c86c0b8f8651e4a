@testable import API
@testable import Accounts
import Credentials
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Foundation
import Logging
import Mail
import Postgres
import TestSupport

/// One test's mail setup: a fresh database, a real relay (aiosmtpd, STARTTLS), an outbox
/// and senders that deliver to the relay with short timers.
final class MailWorld: @unchecked Sendable {
    let database: TestDatabase
    let smtp: SMTPCapture
    let outbox: MailOutbox
    /// Quiet: the outage test logs a failed attempt per mail and retry.
    let logger: Logger = {
        var logger = Logger(label: "mail-tests")
        logger.logLevel = .critical
        return logger
    }()

    init(smtpArguments: [String] = []) throws {
        database = try TestDatabase.create(poolSize: 8)
        smtp = try SMTPCapture(arguments: smtpArguments)
        let templates = try MailTemplates(siteName: "Dispatch Test", siteURL: "https://dispatch.test")
        outbox = MailOutbox(templates: templates, sender: try MailAddress("no-reply@dispatch.test", name: "Dispatch Test"),
                            seal: SecretSeal.mailOutbox(serverSecret: "mail-tests-server-secret-0123456789"))
    }

    var smtpSettings: SMTPSettings {
        get throws { try SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .starttls, caFile: smtp.caFile) }
    }

    /// A sender on `pool` (default: the database's) with test timers: polls every 50 ms,
    /// retries after 100 ms (doubling, at most 400 ms).
    func makeSender(pool: PostgresPool? = nil, maxAttempts: Int = 50, transport: (any MailTransport)? = nil) throws -> MailSender {
        var policy = MailSender.Policy()
        policy.pollInterval = .milliseconds(50)
        policy.initialRetry = .milliseconds(100)
        policy.maxRetry = .milliseconds(400)
        policy.maxAttempts = maxAttempts
        policy.countsInterval = .milliseconds(50)
        let smtpTransport = SMTPTransport(settings: try smtpSettings, connectTimeout: .seconds(2), timeout: .seconds(10))
        return MailSender(queue: MailQueue(pool: pool ?? database.pool, seal: outbox.seal), transport: transport ?? smtpTransport,
                          envelopeSender: "no-reply@dispatch.test", policy: policy, logger: logger)
    }

    /// Queues a magic-link mail to `email` in its own transaction, as a request would.
    @discardableResult
    func enqueue(to email: String, code: String = "123456") throws -> UUID {
        try database.pool.withTransaction { connection in
            try outbox.enqueue(.magicLink(code: code, link: "https://dispatch.test/auth/v1/verify?token=t&type=magiclink", validMinutes: 15),
                               to: try MailAddress(email), on: connection)
        }
    }

    /// (sent, dead, pending) rows of the outbox, and how many still hold their message.
    func outboxState() throws -> (sent: Int, dead: Int, pending: Int, withMessage: Int) {
        let rows = try database.pool.query("""
            SELECT count(*) FILTER (WHERE sent_at IS NOT NULL)::bigint AS sent, count(*) FILTER (WHERE dead_at IS NOT NULL)::bigint AS dead,
                   count(*) FILTER (WHERE sent_at IS NULL AND dead_at IS NULL)::bigint AS pending,
                   count(message)::bigint AS with_message FROM mail_outbox
            """)
        guard let row = rows.first else { throw TestSupportError("no counts") }
        return (Int(try row.decode("sent", as: Int64.self)), Int(try row.decode("dead", as: Int64.self)),
                Int(try row.decode("pending", as: Int64.self)), Int(try row.decode("with_message", as: Int64.self)))
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

    /// The value of header `name` in a captured message (unfolded), nil when absent.
    static func header(_ name: String, in data: String) -> String? {
        let head = data.components(separatedBy: "\r\n\r\n").first ?? ""
        let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ")
        for line in unfolded.components(separatedBy: "\r\n") where line.lowercased().hasPrefix(name.lowercased() + ":") {
            return String(line.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
