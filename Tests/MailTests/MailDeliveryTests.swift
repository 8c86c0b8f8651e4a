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
import Mail
import Postgres
import Synchronization
import TestSupport
import Testing

/// The outbox and its senders against a real SMTP relay (aiosmtpd, STARTTLS required).
@Suite struct MailDeliveryTests {
    /// A queued mail goes out over STARTTLS with AUTH, as a well-formed MIME message; the
    /// row keeps no message afterwards. A rolled-back transaction queues nothing.
    @Test func deliversOverSTARTTLSAndDropsTheBody() throws {
        let world = try MailWorld(smtpArguments: ["--auth", "relay-user:relay-secret"])
        let id = try world.enqueue(to: "agent@example.com", code: "482913")
        struct Rollback: Error {}
        #expect(throws: Rollback.self) {
            try world.database.pool.withTransaction { connection in
                try world.outbox.enqueue(.passwordChanged, to: try MailAddress("other@example.com"), on: connection)
                throw Rollback()
            }
        }
        var settings = try world.smtpSettings
        settings = try SMTPSettings(host: settings.host, port: settings.port, username: "relay-user", password: "relay-secret",
                                    tls: .starttls, caFile: settings.caFile)
        let sender = try world.makeSender(transport: SMTPTransport(settings: settings, connectTimeout: .seconds(2)))
        sender.start()
        defer { sender.stop() }

        let messages = world.smtp.waitForMessages(1)
        try #require(messages.count == 1)
        let message = messages[0]
        #expect(message.tls)
        #expect(message.auth_user == "relay-user")
        #expect(message.mail_from == "no-reply@dispatch.test")
        #expect(message.rcpt_tos == ["agent@example.com"])
        let data = message.data
        #expect(MailWorld.header("From", in: data) == "Dispatch Test <no-reply@dispatch.test>")
        #expect(MailWorld.header("To", in: data) == "agent@example.com")
        #expect(MailWorld.header("Subject", in: data) == "Your Dispatch Test sign-in code: 482913")
        #expect(MailWorld.header("MIME-Version", in: data) == "1.0")
        #expect(MailWorld.header("Content-Type", in: data)?.hasPrefix("multipart/alternative; boundary=") == true)
        let messageID = try #require(MailWorld.header("Message-ID", in: data))
        #expect(messageID.hasPrefix("<") && messageID.hasSuffix("@dispatch.test>"))
        let date = try #require(MailWorld.header("Date", in: data))
        #expect(date.range(of: #"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$"#,
                            options: .regularExpression) != nil)
        #expect(data.contains("Content-Type: text/plain; charset=utf-8") && data.contains("Content-Type: text/html; charset=utf-8"))
        #expect(MailMessage.plainText(of: data)?.contains("\n    482913\n") == true)
        // 7-bit, CRLF only, no line over 78 characters.
        #expect(data.utf8.allSatisfy { $0 < 0x80 })
        #expect(!data.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(data.components(separatedBy: "\r\n").allSatisfy { $0.count <= 78 })

        #expect(try world.wait { try world.outboxState().sent == 1 })
        let state = try world.outboxState()
        #expect(state.withMessage == 0 && state.pending == 0)
        let row = try world.database.pool.query("SELECT message_id, attempts FROM mail_outbox WHERE id = \(id)")
        #expect(try row.first?.decode("message_id", as: String.self) == String(messageID.dropFirst().dropLast()))
        #expect(try row.first?.decode("attempts", as: Int32.self) == 1)
        #expect(sender.counts.sent == 1)
    }

    /// The relay is down while requests queue a burst of mail: every request succeeds at once;
    /// once the relay is back, every mail arrives exactly once.
    @Test func relayOutageLosesNothingAndFailsNoRequest() throws {
        let world = try MailWorld()
        let sender = try world.makeSender()
        world.smtp.stop()
        sender.start()
        defer { sender.stop() }

        let count = 24
        let failures = Mutex(0)
        // A request only inserts into the outbox in its own transaction (`enqueue`); it never
        // calls the sender, so no request can wait on SMTP. (A wall-time bound here measured
        // only the database on a possibly loaded machine, never the relay.)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                try world.enqueue(to: "agent\(index)@example.com", code: String(100_000 + index))
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        // Attempts fail while the relay is down, and nothing is lost.
        #expect(world.wait { sender.counts.failedAttempts >= count })
        #expect(try world.outboxState().pending == count)
        #expect(world.smtp.messages().isEmpty)

        try world.smtp.start()
        #expect(try world.wait { try world.outboxState().sent == count })
        let messages = world.smtp.messages()
        let recipients = messages.flatMap(\.rcpt_tos)
        #expect(messages.count == count)
        #expect(Set(recipients) == Set((0..<count).map { "agent\($0)@example.com" }))
        let ids = messages.compactMap { MailWorld.header("Message-ID", in: $0.data) }
        #expect(Set(ids).count == count)
        #expect(try world.outboxState().withMessage == 0)
    }

    /// Two senders on two pools (as two instances) share one outbox: every mail once.
    @Test func twoSendersNeverSendOneMailTwice() throws {
        let world = try MailWorld()
        let count = 40
        for index in 0..<count { try world.enqueue(to: "shared\(index)@example.com") }
        let otherPool = world.database.makePool(size: 2)
        defer { otherPool.close() }
        let first = try world.makeSender()
        let second = try world.makeSender(pool: otherPool)
        first.start()
        second.start()
        defer { first.stop(); second.stop() }

        #expect(try world.wait { try world.outboxState().sent == count })
        let messages = world.smtp.waitForMessages(count)
        #expect(messages.count == count)
        #expect(Set(messages.flatMap(\.rcpt_tos)).count == count)
        #expect(first.counts.sent + second.counts.sent == count)
        // Both took part (each claims batches of 10): the test exercised the sharing.
        #expect(first.counts.sent > 0 && second.counts.sent > 0)
    }

    /// A mail the relay keeps refusing is dead after MAIL_MAX_ATTEMPTS: no message kept,
    /// the reason stored, and counted in /metrics.
    @Test func permanentlyRefusedMailIsDeadAndCounted() throws {
        let world = try MailWorld(smtpArguments: ["--reject", "bounce"])
        let id = try world.enqueue(to: "bounce@example.com")
        try world.enqueue(to: "fine@example.com")
        let sender = try world.makeSender(maxAttempts: 3)
        sender.start()
        defer { sender.stop() }

        #expect(world.wait { sender.counts.dead == 1 && sender.counts.sent == 1 })
        #expect(world.wait { sender.counts.deadStored == 1 })
        let row = try world.database.pool.query("SELECT dead_at IS NOT NULL AS dead, message IS NULL AS dropped, attempts, last_error FROM mail_outbox WHERE id = \(id)")
        #expect(try row.first?.decode("dead", as: Bool.self) == true)
        #expect(try row.first?.decode("dropped", as: Bool.self) == true)
        #expect(try row.first?.decode("attempts", as: Int32.self) == 3)
        #expect(try row.first?.decode("last_error", as: String?.self)?.contains("550") == true)
        #expect(sender.counts.failedAttempts == 2)

        var output = PrometheusText()
        sender.writeMetrics(to: &output)
        #expect(output.text.contains("\nmail_dead_total 1\n"))
        #expect(output.text.contains("\nmail_outbox_dead 1\n"))
        #expect(output.text.contains("\nmail_sent_total 1\n"))
    }
}

extension MailDeliveryTests {
    /// While one sender holds rows mid-claim, another's claim skips them at once instead of
    /// waiting or taking them too; once released (and claimed), they are not claimed again.
    @Test func claimSkipsRowsAnotherSenderHolds() throws {
        let world = try MailWorld()
        for index in 0..<6 { try world.enqueue(to: "skip\(index)@example.com") }
        let holder = try world.database.connect()
        try holder.execute("BEGIN")
        let held: [UUID] = try holder.query("SELECT id FROM mail_outbox ORDER BY created_at LIMIT 2 FOR UPDATE").map { try $0.decode("id") }
        let queue = MailQueue(pool: world.database.pool, seal: world.outbox.seal)
        let claimed = Mutex<[MailQueue.Claimed]?>(nil)
        let thread = Thread { claimed.withLock { $0 = try? queue.claim(limit: 10, lease: .seconds(60)) } }
        thread.start()
        let answered = world.wait(timeout: .seconds(3)) { claimed.withLock { $0 } != nil }
        try holder.execute("COMMIT")
        #expect(answered, "claim waited for rows another sender holds")
        #expect(world.wait { claimed.withLock { $0 } != nil })
        let first = claimed.withLock { $0 } ?? []
        #expect(first.count == 4)
        #expect(Set(first.map(\.id)).isDisjoint(with: held))
        let second = try queue.claim(limit: 10, lease: .seconds(60))
        #expect(Set(second.map(\.id)) == Set(held))
        #expect(try queue.claim(limit: 10, lease: .seconds(60)).isEmpty)
    }

    /// A queued message is sealed under JWT_SECRET's key. After the secret changes it cannot be
    /// opened: it is recorded dead with a reason, never sent as ciphertext, and its body dropped.
    @Test func mailSealedUnderAnotherSecretIsDeadNotSent() throws {
        let world = try MailWorld()
        try world.enqueue(to: "rotated@example.com", code: "424242")
        let stored = try world.database.pool.query("SELECT message FROM mail_outbox")
        #expect(try stored.first?.decode("message", as: String.self).hasPrefix("sealed:v1:") == true)
        let rotated = MailQueue(pool: world.database.pool, seal: SecretSeal.mailOutbox(serverSecret: "another-server-secret-0123456789"))
        #expect(try rotated.claim(limit: 10, lease: .seconds(60)).isEmpty)
        let row = try world.database.pool.query("SELECT dead_at IS NOT NULL AS dead, message IS NULL AS dropped, last_error FROM mail_outbox")
        #expect(try row.first?.decode("dead", as: Bool.self) == true)
        #expect(try row.first?.decode("dropped", as: Bool.self) == true)
        #expect(try row.first?.decode("last_error", as: String?.self)?.contains("JWT_SECRET") == true)
    }
}
