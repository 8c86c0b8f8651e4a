import Credentials
import Foundation
import Postgres

/// The sender's side of `mail_outbox`: claim due mail, record each attempt's outcome, through
/// the outbox claim machinery every outbox shares (`LeasedQueue`: a claim under a lease with
/// `FOR UPDATE SKIP LOCKED`, outcomes checked against the claim id, no transaction open while
/// SMTP talks). If a sender dies after SMTP accepted a mail and before it recorded that, the
/// mail goes out again when the lease ends: delivery is at least once, never silently lost.
public struct MailQueue: Sendable {
    public let pool: PostgresPool
    /// Opens what `MailOutbox` sealed (the same server secret on every instance).
    public let seal: SecretSeal

    public init(pool: PostgresPool, seal: SecretSeal) {
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
        let (claim, rows) = try Self.leased.claim(limit: limit, lease: lease,
                                                  returning: "o.id, o.kind, o.recipient, o.message, o.attempts", on: pool)
        var claimed: [Claimed] = []
        for row in rows {
            let stored: String = try row.decode("message")
            let mail = Claimed(id: try row.decode("id"), claim: claim, kind: try row.decode("kind"), recipient: try row.decode("recipient"),
                               message: seal.openMessage(stored) ?? "", attempts: Int(try row.decode("attempts", as: Int32.self)))
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
        let assignments: PostgresQuery
        switch outcome {
        case .sent:
            assignments = "sent_at = now(), message = NULL, last_error = NULL"
        case .failed(let error, let retryAfter):
            assignments = "next_attempt_at = now() + make_interval(secs => \(retryAfter.timeInterval)), last_error = \(Self.clip(error))"
        case .dead(let error):
            assignments = "dead_at = now(), message = NULL, last_error = \(Self.clip(error))"
        }
        return try pool.withConnection { try Self.leased.finish(id: mail.id, claim: mail.claim, set: assignments, on: $0) }
    }

    /// Undelivered live mails, and dead ones, across all instances (`/metrics` gauges).
    public func counts() throws -> (pending: Int, dead: Int) {
        try Self.leased.counts(on: pool)
    }

    /// Deletes sent and dead mails and address-limit rows older than `age`; their messages
    /// are already gone, the rows only served the operator's questions and the caps.
    @discardableResult
    public func prune(olderThan age: Duration) throws -> Int {
        let seconds = age.timeInterval
        let mails = try Self.leased.prune(olderThan: age, on: pool)
        try pool.execute("DELETE FROM mail_address_limits WHERE last_request_at < now() - make_interval(secs => \(seconds))")
        // Hourly windows: a row whose hour is over counts nothing any more.
        try pool.execute("DELETE FROM mail_request_counts WHERE window_start < now() - interval '1 hour'")
        return mails
    }

    /// A mail whose message was dropped (sent or dead) is never due again.
    static let leased = LeasedQueue(table: "mail_outbox", eligible: "o.message IS NOT NULL")


    /// SMTP replies can be long; the stored error is for a person reading it.
    private static func clip(_ error: String) -> String {
        error.count <= 1000 ? error : String(error.prefix(1000))
    }
}
