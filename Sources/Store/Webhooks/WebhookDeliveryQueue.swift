import Domain
import Foundation
import Postgres

/// The sender's side of `webhook_deliveries`: claim due deliveries under a lease (the outbox
/// machinery the mail outbox uses, `LeasedQueue`) and record each attempt's outcome. Only
/// deliveries of enabled endpoints are due: a disabled endpoint's backlog waits for it.
public struct WebhookDeliveryQueue: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let leased = LeasedQueue(
        table: "webhook_deliveries",
        eligible: "EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = o.endpoint_id AND e.enabled)")

    /// A delivery's `column` (`type` or `payload`), or, for a replay the release before this
    /// one made (it copies only the endpoint and the event id, migrations/0042), the one of
    /// the delivery it copied: the same event.
    static func copiedSQL(_ alias: String, _ column: String) -> String {
        """
        COALESCE(\(alias).\(column), (SELECT c.\(column) FROM webhook_deliveries c
                                 WHERE c.event_id = \(alias).event_id AND c.\(column) IS NOT NULL LIMIT 1))
        """
    }

    /// A delivery a sender holds until `finish`, with what it needs to send it.
    public struct Claimed: Sendable, Equatable {
        public let id: UUID
        public let claim: UUID
        public let eventID: String
        public let payload: String
        public let endpointID: UUID
        public let url: String
        public let sealedSecret: String
        /// Only while it still signs (the rotation's overlap).
        public let sealedPreviousSecret: String?
        /// Attempts so far, this one included.
        public let attempts: Int
    }

    /// What became of one attempt; `status` is the HTTP status when there was an answer.
    public enum Outcome: Sendable, Equatable {
        case sent(status: Int, milliseconds: Int)
        case failed(status: Int?, milliseconds: Int, error: String, retryAfter: Duration)
        case dead(status: Int?, milliseconds: Int, error: String)
    }

    public func claim(limit: Int, lease: Duration) throws -> [Claimed] {
        let (claim, rows) = try Self.leased.claim(limit: limit, lease: lease, returning: """
            o.id, o.event_id, o.endpoint_id, o.attempts, \(Self.copiedSQL("o", "payload")) AS payload, e.url, e.secret,
            CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS previous_secret
            """, joining: ("webhook_endpoints e", "e.id = o.endpoint_id"), on: pool)
        return try rows.map { row in
            Claimed(id: try row.decode("id"), claim: claim, eventID: try row.decode("event_id"), payload: try row.decode("payload"),
                    endpointID: try row.decode("endpoint_id"), url: try row.decode("url"), sealedSecret: try row.decode("secret"),
                    sealedPreviousSecret: try row.decode("previous_secret"), attempts: try row.decode("attempts"))
        }
    }

    /// Records the outcome; false when the claim was lost (the lease ran out and another
    /// sender took the delivery), in which case nothing changed.
    @discardableResult
    public func finish(_ delivery: Claimed, _ outcome: Outcome) throws -> Bool {
        let assignments: PostgresQuery
        switch outcome {
        case .sent(let status, let milliseconds):
            assignments = """
                sent_at = now(), last_attempt_at = now(), last_status = \(status), last_duration_ms = \(milliseconds), last_error = NULL
                """
        case .failed(let status, let milliseconds, let error, let retryAfter):
            assignments = """
                next_attempt_at = now() + make_interval(secs => \(retryAfter.timeInterval)), last_attempt_at = now(),
                last_status = \(status), last_duration_ms = \(milliseconds), last_error = \(Self.clip(error))
                """
        case .dead(let status, let milliseconds, let error):
            assignments = """
                dead_at = now(), last_attempt_at = now(), last_status = \(status), last_duration_ms = \(milliseconds),
                last_error = \(Self.clip(error))
                """
        }
        return try pool.withConnection { try Self.leased.finish(id: delivery.id, claim: delivery.claim, set: assignments, on: $0) }
    }

    /// Undelivered live deliveries and dead ones, across all instances (`/metrics` gauges).
    public func counts() throws -> (pending: Int, dead: Int) {
        try Self.leased.counts(on: pool)
    }

    /// Deletes finished deliveries older than `age` (an event lives in its deliveries).
    @discardableResult
    public func prune(olderThan age: Duration) throws -> Int {
        try Self.leased.prune(olderThan: age, on: pool)
    }

    /// Receivers' answers and curl's messages can be long; the stored error is for a person.
    static func clip(_ error: String) -> String {
        error.count <= 1000 ? error : String(error.prefix(1000))
    }
}
