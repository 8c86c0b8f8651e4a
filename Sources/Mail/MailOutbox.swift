import Credentials
import Foundation
import Postgres

/// Writes mail into `mail_outbox` inside the caller's transaction, so a token and the mail
/// that carries it commit (or roll back) together. Nothing here talks to SMTP: a sender
/// (`MailQueue`, API's `MailSender`) delivers committed rows later, so SMTP being down or
/// slow never fails or slows the request.
///
///     try pool.withTransaction { connection in
///         // … store the token's keyed hash …
///         try outbox.enqueue(.recovery(code: code, link: link, validMinutes: 15),
///                            to: MailAddress(user.email, name: user.name), on: connection)
///     }
public struct MailOutbox: Sendable {
    public let templates: MailTemplates
    /// SMTP_SENDER: the From header and the envelope sender.
    public let sender: MailAddress
    /// What the message is stored under: it may carry a sign-in code, and it waits in the
    /// table (and in every backup) while the relay is down.
    public let seal: SecretSeal

    public init(templates: MailTemplates, sender: MailAddress, seal: SecretSeal) {
        self.templates = templates
        self.sender = sender
        self.seal = seal
    }

    /// Renders `content` for `recipient` and queues it on `connection` (call inside the
    /// caller's `withTransaction`). Returns the outbox row's id.
    @discardableResult
    public func enqueue(_ content: MailContent, to recipient: MailAddress, on connection: PostgresConnection) throws -> UUID {
        let message = try MailMessage(from: sender, to: recipient, rendered: templates.render(content, to: recipient))
        let rows = try connection.query("""
            INSERT INTO mail_outbox (kind, recipient, message, message_id)
            VALUES (\(content.kind.rawValue), \(recipient.email), \(try seal.seal(message.text)), \(message.messageID))
            RETURNING id
            """)
        guard let row = rows.first else { throw PostgresError(kind: .protocolViolation, message: "INSERT … RETURNING returned no row") }
        return try row.decode("id")
    }

    /// The per-address mail limit (one per 60 s), shared by every instance: records
    /// a request for `address` and answers nil when it may be sent, or how long to wait when
    /// one was requested less than `interval` ago. Call it for every request, whether the
    /// address has an account or not, so both are answered alike. Case-insensitive.
    public static func reserveAddress(_ address: String, interval: Duration, on connection: PostgresConnection) throws -> Duration? {
        let seconds = interval.timeInterval
        let rows = try connection.query("""
            WITH reserved AS (
                INSERT INTO mail_address_limits AS l (address, last_request_at) VALUES (lower(\(address)), now())
                ON CONFLICT (address) DO UPDATE SET last_request_at = now()
                WHERE l.last_request_at <= now() - make_interval(secs => \(seconds))
                RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM reserved) AS reserved,
                   (SELECT extract(epoch FROM last_request_at + make_interval(secs => \(seconds)) - now())::float8
                    FROM mail_address_limits WHERE address = lower(\(address))) AS wait
            """)
        guard let row = rows.first, !(try row.decode("reserved", as: Bool.self)) else { return nil }
        let wait: Double = try row.decode("wait") ?? seconds
        return .milliseconds(Int64((max(wait, 0.001) * 1000).rounded(.up)))
    }

    /// Mails queued during the last `window` on every instance (for a global hourly cap).
    public static func queuedCount(within window: Duration, on connection: PostgresConnection) throws -> Int {
        let rows = try connection.query("""
            SELECT count(*)::bigint AS n FROM mail_outbox
            WHERE created_at > now() - make_interval(secs => \(window.timeInterval))
            """)
        return Int(try rows.first?.decode("n", as: Int64.self) ?? 0)
    }
}
