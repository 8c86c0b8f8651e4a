import API
import Accounts
import Credentials
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import Logging
import Mail
import Postgres
import TestSupport

/// The application with the e-mail flows wired as `serve` wires them: an outbox whose mails a
/// `MailSender` delivers over STARTTLS to a real relay (scripts/smtp_capture.py), links to the
/// test server's own URL. Codes and links are read from the captured mail, never from the
/// database. The per-address mail interval is 1 ms, so one test can mail an address repeatedly.
final class EmailChangeWorld {
    let app: AuthTestServer
    let smtp: SMTPCapture
    let sender: MailSender

    init() throws {
        smtp = try SMTPCapture()
        let links = PublicLinks(baseURL: nil, redirectURLs: nil)
        let outbox = MailOutbox(templates: try MailTemplates(siteName: "Dispatch Test", links: links),
                                sender: try MailAddress("no-reply@dispatch.test", name: "Dispatch Test"),
                                seal: SecretSeal.mailOutbox(serverSecret: "email-change-tests-server-secret-0123"))
        let settings = EmailAuthSettings(outbox: outbox, redirects: RedirectAllowList(links: links), addressInterval: .milliseconds(1))
        app = try AuthTestServer(emailSettings: settings)
        links.resolveDefault(listenerURL: "http://127.0.0.1:\(app.server.boundPort)")
        var policy = MailSender.Policy()
        policy.pollInterval = .milliseconds(50)
        policy.initialRetry = .milliseconds(100)
        policy.maxRetry = .milliseconds(400)
        let transport = SMTPTransport(settings: try SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .starttls, caFile: smtp.caFile),
                                      connectTimeout: .seconds(2), timeout: .seconds(10))
        sender = MailSender(queue: MailQueue(pool: app.database.pool, seal: outbox.seal), transport: transport, envelopeSender: "no-reply@dispatch.test",
                            policy: policy, logger: Logger(label: "email-change-e2e", factory: { _ in SwiftLogNoOpLogHandler() }))
        sender.start()
    }

    deinit { sender.stop() }

    /// A captured mail's plain text, with its code and its links (path and query only: the
    /// server the test talks to is the one the links name).
    struct Mail {
        var text: String
        var code: String?
        var links: [String]
    }

    /// The `count`-th mail to `recipient` whose text contains `containing` (waits up to 20 s).
    func mail(to recipient: String, number count: Int = 1, containing: String = "") throws -> Mail {
        let deadline = ContinuousClock.now + .seconds(20)
        var found: [String] = []
        while ContinuousClock.now < deadline {
            found = smtp.messages().filter { $0.rcpt_tos.contains(recipient) }.compactMap { MailMessage.plainText(of: $0.data) }
                .filter { containing.isEmpty || $0.contains(containing) }
            if found.count >= count { break }
            usleep(20_000)
        }
        guard found.count >= count else { throw TestSupportError("no mail #\(count) to \(recipient) (got \(found.count))") }
        let text = found[count - 1]
        let code = text.firstMatch(of: /\n {4}(\d{6})\n/).map { String($0.1) }
        let prefix = "http://127.0.0.1:\(app.server.boundPort)"
        let links = text.matches(of: /https?:\/\/\S+/).map { String($0.0) }.map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
        return Mail(text: text, code: code, links: links)
    }

    /// Mails queued to `recipient` (of `kind` when given), delivered or not: what the server
    /// decided to send, without waiting for the relay.
    func queuedMails(to recipient: String, kind: String? = nil) throws -> Int {
        let rows = try app.database.pool.query("""
            SELECT count(*)::bigint AS n FROM mail_outbox WHERE lower(recipient) = lower(\(recipient))
              AND (\(kind)::text IS NULL OR kind = \(kind))
            """)
        return Int(try rows.first?.decode("n", as: Int64.self) ?? 0)
    }

    /// The Supabase gateway's key, and a bearer token when given.
    func gotrueHeaders(_ token: String? = nil) -> [String: String] {
        var headers = ["apikey": AuthTestServer.publishableKey]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return headers
    }

    /// Live (unused, unexpired) address changes and recoveries of the account.
    func pendingTokens(of email: String) throws -> Int {
        let rows = try app.database.pool.query("""
            SELECT count(*)::bigint AS n FROM auth_email_tokens t JOIN users u ON u.id = t.user_id
            WHERE lower(u.email) = lower(\(email)) AND t.used_at IS NULL AND t.expires_at > now()
              AND t.purpose IN ('email_change', 'recovery')
            """)
        return Int(try rows.first?.decode("n", as: Int64.self) ?? 0)
    }

    /// Makes every session of the user look signed in with the password long ago: what an
    /// access token stolen after its sign-in amounts to.
    func ageSignIns(of email: String) throws {
        try app.database.pool.execute("""
            UPDATE auth_sessions SET password_verified_at = now() - interval '1 hour'
            WHERE user_id = (SELECT id FROM users WHERE lower(email) = lower(\(email)))
            """)
    }
}
