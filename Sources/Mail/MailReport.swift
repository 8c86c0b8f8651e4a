import Foundation
import Postgres

/// What the console's Mail page shows of `mail_outbox`, across every instance: how many mails
/// wait, are being sent, were sent or died, and the latest deliveries. Recipients and errors
/// only: a message body may carry a sign-in code, and it is never read here.
public struct MailReport: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Counts: Sendable, Equatable {
        /// Waiting for a sender (new, or between attempts).
        public var queued: Int
        /// Held by a sender right now (a lease that has not run out).
        public var sending: Int
        /// Delivered, and dead (given up), in the last 24 hours.
        public var sentLastDay: Int
        public var deadLastDay: Int
    }

    public struct Delivery: Sendable, Equatable {
        public var id: UUID
        public var kind: String
        public var recipient: String
        public var createdAt: Date
        public var attempts: Int
        public var lastError: String?
        public var sentAt: Date?
        public var deadAt: Date?
        public var nextAttemptAt: Date
        public var leased: Bool

        /// queued, sending, sent or dead.
        public var status: String {
            if sentAt != nil { return "sent" }
            if deadAt != nil { return "dead" }
            return leased ? "sending" : "queued"
        }
    }

    public func counts() throws -> Counts {
        let rows = try pool.query("""
            SELECT count(*) FILTER (WHERE sent_at IS NULL AND dead_at IS NULL AND (claim IS NULL OR next_attempt_at <= now()))::int8 AS queued,
                   count(*) FILTER (WHERE sent_at IS NULL AND dead_at IS NULL AND claim IS NOT NULL AND next_attempt_at > now())::int8 AS sending,
                   count(*) FILTER (WHERE sent_at > now() - interval '1 day')::int8 AS sent,
                   count(*) FILTER (WHERE dead_at > now() - interval '1 day')::int8 AS dead
            FROM mail_outbox
            """)
        guard let row = rows.first else { return Counts(queued: 0, sending: 0, sentLastDay: 0, deadLastDay: 0) }
        return Counts(queued: Int(try row.decode("queued", as: Int64.self)), sending: Int(try row.decode("sending", as: Int64.self)),
                      sentLastDay: Int(try row.decode("sent", as: Int64.self)), deadLastDay: Int(try row.decode("dead", as: Int64.self)))
    }

    /// The newest mails, newest first.
    public func recent(limit: Int = 50) throws -> [Delivery] {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM mail_outbox ORDER BY created_at DESC LIMIT \(limit)").map(Self.delivery)
    }

    /// One mail, whatever its state.
    public func find(_ id: UUID) throws -> Delivery? {
        try pool.query("SELECT \(unsafeSQL: Self.columns) FROM mail_outbox WHERE id = \(id)").first.map(Self.delivery)
    }

    private static let columns = "id, kind, recipient, created_at, attempts, last_error, sent_at, dead_at, next_attempt_at, claim IS NOT NULL AND next_attempt_at > now() AS leased"

    private static func delivery(_ row: PostgresRow) throws -> Delivery {
        Delivery(id: try row.decode("id"), kind: try row.decode("kind"), recipient: try row.decode("recipient"),
                 createdAt: try row.decode("created_at"), attempts: Int(try row.decode("attempts", as: Int32.self)),
                 lastError: try row.decode("last_error"), sentAt: try row.decode("sent_at"), deadAt: try row.decode("dead_at"),
                 nextAttemptAt: try row.decode("next_attempt_at"), leased: try row.decode("leased"))
    }
}
