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
import TestSupport

/// `AuthTestServer` with the e-mail flows wired as `serve` wires them: the built-in templates,
/// the outbox, and a sender delivering to a real SMTP relay (aiosmtpd, STARTTLS). Clients are
/// told apart by `X-Forwarded-For` from the loopback "proxy" (127.0.0.1 is trusted), so a test
/// can be an attacker and the owner at once. Codes and links are read from the captured mail.
final class MailAuthServer {
    static let secret = String(repeating: "k", count: 32)
    static let redirectTarget = "https://app.example/callback"

    let smtp: SMTPCapture
    let app: AuthTestServer
    let sender: MailSender

    init(addressInterval: Duration = .zero, hourlyLimit: Int = EmailAuthSettings.defaultHourlyLimit) throws {
        smtp = try SMTPCapture()
        let links = PublicLinks(baseURL: "http://127.0.0.1:8080", redirectURLs: [Self.redirectTarget])
        let outbox = MailOutbox(templates: try MailTemplates(siteName: "Dispatch", links: links),
                                sender: try MailAddress("no-reply@dispatch.test", name: "Dispatch"),
                                seal: SecretSeal.mailOutbox(serverSecret: Self.secret))
        let settings = EmailAuthSettings(outbox: outbox, redirects: RedirectAllowList(links: links),
                                         addressInterval: addressInterval, hourlyLimit: hourlyLimit)
        app = try AuthTestServer(trustedProxies: "127.0.0.1", emailSettings: settings)
        var policy = MailSender.Policy()
        policy.pollInterval = .milliseconds(50)
        policy.initialRetry = .milliseconds(100)
        policy.maxRetry = .milliseconds(400)
        policy.maxAttempts = 1000
        let transport = SMTPTransport(settings: try SMTPSettings(host: "127.0.0.1", port: smtp.port, tls: .starttls, caFile: smtp.caFile),
                                      connectTimeout: .seconds(2), timeout: .seconds(10))
        sender = MailSender(queue: MailQueue(pool: app.database.pool, seal: outbox.seal), transport: transport, envelopeSender: "no-reply@dispatch.test",
                            policy: policy, logger: Logger(label: "mail-e2e", factory: { _ in SwiftLogNoOpLogHandler() }))
        sender.start()
    }

    deinit {
        sender.stop()
    }

    /// A GoTrue call (`/auth/v1…`) as a supabase client sends it, from `client` (an IP the
    /// trusted proxy forwards).
    func gotrue(_ method: String, _ path: String, json: [String: Any]? = nil, from client: String,
                token: String? = nil) throws -> TestHTTPClient.Response {
        try SupabaseAuthClient(app: app).call(method, path, token: token, json: json, extraHeaders: ["X-Forwarded-For": client])
    }

    /// A `/v1` call from `client`.
    func api(_ method: String, _ path: String, json: [String: Any]? = nil, from client: String,
             token: String? = nil) throws -> TestHTTPClient.Response {
        try app.request(method, path, token: token, json: json, headers: ["X-Forwarded-For": client])
    }

    /// One delivered mail: its decoded text, the 6-digit code and the link's query.
    struct Mail {
        var text: String
        var code: String
        var token: String
        var type: String
    }

    /// The `count`-th mail to `recipient`, waiting up to 20 s for it to be delivered.
    func mail(to recipient: String, number count: Int = 1) throws -> Mail {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let messages = smtp.messages().filter { $0.rcpt_tos.contains(recipient) }
            if messages.count >= count { return try Self.parse(messages[count - 1].data) }
            usleep(20_000)
        }
        throw TestSupportError("no mail #\(count) to \(recipient) within 20 s")
    }

    /// How many mails reached the relay for `recipient`.
    func delivered(to recipient: String) throws -> Int {
        smtp.messages().filter { $0.rcpt_tos.contains(recipient) }.count
    }

    static func parse(_ data: String) throws -> Mail {
        let text = decodedBodies(data)
        guard let code = text.firstMatch(of: /(?m)^\s*(\d{6})\s*$/)?.1,
              let link = text.firstMatch(of: /\/auth\/v1\/verify\?([^\s"<]+)/)?.1,
              let components = URLComponents(string: "https://x/?" + String(link).replacingOccurrences(of: "&amp;", with: "&")),
              let token = components.queryItems?.first(where: { $0.name == "token" })?.value,
              let type = components.queryItems?.first(where: { $0.name == "type" })?.value
        else { throw TestSupportError("no code or link in the mail:\n\(text)") }
        return Mail(text: text, code: String(code), token: token, type: type)
    }

    /// Every base64 body part of an RFC 5322 message, decoded (the mail's text and HTML).
    static func decodedBodies(_ message: String) -> String {
        var decoded = "", run = ""
        for line in message.components(separatedBy: "\r\n") + [""] {
            if !line.isEmpty, line.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }) {
                run += line
            } else {
                if let data = Data(base64Encoded: run), let text = String(data: data, encoding: .utf8) { decoded += text + "\n" }
                run = ""
            }
        }
        return decoded
    }
}
