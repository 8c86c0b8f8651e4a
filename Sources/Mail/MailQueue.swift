import Foundation
import Postgres

/// The sender's side of `mail_outbox`: claim due mail, record each attempt's outcome.
///
/// A claim is one short statement (`FOR UPDATE SKIP LOCKED`) that moves the rows'
/// `next_attempt_at` a lease ahead and stamps them with a claim id. Concurrent senders skip
/// each other's locked rows, and once the claim commits the rows are no longer due, so no
/// two senders hold one mail. Sending happens outside any transaction; finishing an attempt
/// checks the claim id, so a sender whose lease ran out (it hung longer than the lease) cannot
/// overwrite what the sender that took the row over recorded. If a sender dies after SMTP
/// accepted a mail and before it recorded that, the mail goes out again when the lease
/// ends: delivery is at least once, never silently lost.
public struct MailQueue: Sendable {
    public let pool: PostgresPool
    /// Opens what `MailOutbox` sealed (the same server secret on every instance).
    public let seal: MailSeal

    public init(pool: PostgresPool, seal: MailSeal) {
        self.pool = pool
        self.seal = seal
    }

    /// A mail a sender holds until `finish`.
    public struct Claimed: Sendable, Equatable {
        public let id: UUID
        public let claim: UUID
        public let kind: String
        public let recipient: String
        public let message: String
        /// Attempts so far, this one included.
        public let attempts: Int
    }

    /// What became of one attempt.
    public enum Outcome: Sendable, Equatable {
        case sent
        /// Try again after `retryAfter`.
        case failed(error: String, retryAfter: Duration)
        /// Give up: the attempts are used up.
        case dead(error: String)
    }

    /// Claims at most `limit` due mails for `lease` (longer than one send can take), their
    /// messages opened. A message that does not open (sealed under another JWT_SECRET, or
    /// altered) can never be sent: it is recorded dead at once.
    public func claim(limit: Int, lease: Duration) throws -> [Claimed] {
        let claim = UUID()
        let rows = try pool.query("""
            UPDATE mail_outbox o SET next_attempt_at = now() + make_interval(secs => \(Self.seconds(lease))),
                   claim = \(claim), attempts = o.attempts + 1
            FROM (SELECT id FROM mail_outbox
                  WHERE sent_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
                  ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED) due
            WHERE o.id = due.id AND o.message IS NOT NULL
            RETURNING o.id, o.kind, o.recipient, o.message, o.attempts
            """)
        var claimed: [Claimed] = []
        for row in rows {
            let stored: String = try row.decode("message")
            let mail = Claimed(id: try row.decode("id"), claim: claim, kind: try row.decode("kind"), recipient: try row.decode("recipient"),
                               message: seal.open(stored) ?? "", attempts: Int(try row.decode("attempts", as: Int32.self)))
            guard !mail.message.isEmpty else {
                try finish(mail, .dead(error: "the stored message does not open: sealed under another JWT_SECRET, or altered"))
                continue
            }
            claimed.append(mail)
        }
        return claimed
    }

    /// Records the outcome; false when the claim was lost (lease ran out, another sender
    /// took the row), in which case nothing is changed. A sent or dead mail's message is
    /// dropped: it may carry a sign-in code, and nobody needs it any more.
    @discardableResult
    public func finish(_ mail: Claimed, _ outcome: Outcome) throws -> Bool {
        let changed: Int
        switch outcome {
        case .sent:
            changed = try pool.execute("""
                UPDATE mail_outbox SET sent_at = now(), message = NULL, claim = NULL, last_error = NULL
                WHERE id = \(mail.id) AND claim = \(mail.claim) AND sent_at IS NULL AND dead_at IS NULL
                """)
        case .failed(let error, let retryAfter):
            changed = try pool.execute("""
                UPDATE mail_outbox SET next_attempt_at = now() + make_interval(secs => \(Self.seconds(retryAfter))),
                       claim = NULL, last_error = \(Self.clip(error))
                WHERE id = \(mail.id) AND claim = \(mail.claim) AND sent_at IS NULL AND dead_at IS NULL
                """)
        case .dead(let error):
            changed = try pool.execute("""
                UPDATE mail_outbox SET dead_at = now(), message = NULL, claim = NULL, last_error = \(Self.clip(error))
                WHERE id = \(mail.id) AND claim = \(mail.claim) AND sent_at IS NULL AND dead_at IS NULL
                """)
        }
        return changed == 1
    }

    /// Undelivered live mails, and dead ones, across all instances (`/metrics` gauges).
    public func counts() throws -> (pending: Int, dead: Int) {
        let rows = try pool.query("""
            SELECT (SELECT count(*) FROM mail_outbox WHERE sent_at IS NULL AND dead_at IS NULL)::bigint AS pending,
                   (SELECT count(*) FROM mail_outbox WHERE dead_at IS NOT NULL)::bigint AS dead
            """)
        guard let row = rows.first else { return (0, 0) }
        return (Int(try row.decode("pending", as: Int64.self)), Int(try row.decode("dead", as: Int64.self)))
    }

    /// Deletes sent and dead mails and address-limit rows older than `age`; their messages
    /// are already gone, the rows only served the operator's questions and the caps.
    @discardableResult
    public func prune(olderThan age: Duration) throws -> Int {
        let seconds = Self.seconds(age)
        let mails = try pool.execute("""
            DELETE FROM mail_outbox WHERE created_at < now() - make_interval(secs => \(seconds))
              AND (sent_at IS NOT NULL OR dead_at IS NOT NULL)
            """)
        try pool.execute("DELETE FROM mail_address_limits WHERE last_request_at < now() - make_interval(secs => \(seconds))")
        // Hourly windows: a row whose hour is over counts nothing any more.
        try pool.execute("DELETE FROM mail_request_counts WHERE window_start < now() - interval '1 hour'")
        return mails
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// SMTP replies can be long; the stored error is for a person reading it.
    private static func clip(_ error: String) -> String {
        error.count <= 1000 ? error : String(error.prefix(1000))
    }
}
