import Domain
import Foundation
import Postgres

/// `slack_outbox`: posts to the incoming webhook and follow-ups to `response_url`, claimed
/// through `LeasedQueue` as mail and webhook deliveries are (one short statement, `FOR UPDATE
/// SKIP LOCKED`, a lease moving `next_attempt_at` ahead, a claim id every outcome checks), so several instances never send
/// one message twice at once and a sender that dies leaves its message to the next after the
/// lease. Posts are also gated by the integration's `next_post_at`: the claim pushes it a
/// lease ahead (one post in flight per webhook, across instances) and finishing sets it a
/// pace (1 s) or Slack's Retry-After past the answer.
public struct SlackOutboxStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Claimed: Sendable, Equatable {
        public let id: UUID
        public let claim: UUID
        public let kind: String
        /// A response's sealed target; nil for a post (it goes to the integration's webhook).
        public let target: String?
        public let body: String
        public let attempts: Int
    }

    public enum Outcome: Sendable, Equatable {
        case sent(status: Int)
        /// Try again after `retryAfter`; for a post, the webhook also rests that long.
        case failed(status: Int?, error: String, retryAfter: Duration)
        case dead(status: Int?, error: String)
        /// The webhook is gone: the integration is paused and the post waits for it.
        case paused(status: Int, reason: String)
    }

    /// Queues a follow-up to a Slack request's `response_url` on the caller's transaction.
    public func enqueueResponse(target sealedURL: String, body: String, on connection: PostgresConnection) throws {
        try connection.execute("INSERT INTO slack_outbox (kind, target, body) VALUES ('response', \(sealedURL), \(body))")
    }

    /// Queues a post made from a history row; nothing when that row was queued before.
    @discardableResult
    public func enqueuePost(eventKey: String, eventType: String, body: String) throws -> Bool {
        try pool.execute("""
            INSERT INTO slack_outbox (kind, event_key, event_type, body) VALUES ('post', \(eventKey), \(eventType), \(body))
            ON CONFLICT (event_key) DO NOTHING
            """) == 1
    }

    static let posts = LeasedQueue(table: "slack_outbox", eligible: "o.kind = 'post' AND EXISTS (SELECT 1 FROM gate)")
    static let responses = LeasedQueue(table: "slack_outbox", eligible: "o.kind = 'response'")
    static let returning = "o.id, o.kind, o.target, o.body, o.attempts"

    /// The next due post, when the integration is live and its webhook is not resting. The
    /// gate and the claim are one statement, so two instances never both pass the gate.
    public func claimPost(lease: Duration) throws -> Claimed? {
        let seconds = lease.timeInterval
        let (claim, rows) = try Self.posts.claim(limit: 1, lease: lease, returning: Self.returning, order: "o.created_at, o.id", prelude: """
            WITH gate AS (
                UPDATE slack_integration SET next_post_at = now() + make_interval(secs => \(seconds))
                WHERE paused_at IS NULL AND next_post_at <= now()
                  AND EXISTS (SELECT 1 FROM slack_outbox WHERE kind = 'post' AND sent_at IS NULL AND dead_at IS NULL
                              AND next_attempt_at <= now())
                RETURNING 1
            )
            """, on: pool)
        guard let row = rows.first else {
            // The gate may have moved without a post to send (another instance took it): open it again.
            try pool.execute("""
                UPDATE slack_integration SET next_post_at = now()
                WHERE next_post_at > now() + make_interval(secs => \(seconds - 1))
                  AND NOT EXISTS (SELECT 1 FROM slack_outbox WHERE kind = 'post' AND claim IS NOT NULL
                                  AND sent_at IS NULL AND dead_at IS NULL)
                """)
            return nil
        }
        return try Self.decode(row, claim: claim)
    }

    /// Due follow-ups to `response_url` (no pacing: each goes to its own URL).
    public func claimResponses(limit: Int, lease: Duration) throws -> [Claimed] {
        let (claim, rows) = try Self.responses.claim(limit: limit, lease: lease, returning: Self.returning, on: pool)
        return try rows.map { try Self.decode($0, claim: claim) }
    }

    /// Records the outcome (false: the claim was lost, nothing changed) and, for a post, when
    /// the webhook may take the next one.
    @discardableResult
    public func finish(_ message: Claimed, _ outcome: Outcome, pace: Duration) throws -> Bool {
        try pool.withTransaction { connection in
            var rest = pace
            let changed: Bool
            // A finished follow-up forgets its sealed response_url (Slack's expire anyway).
            let forgetTarget = "target = CASE WHEN kind = 'response' THEN '' ELSE NULL END" as PostgresQuery
            switch outcome {
            case .sent(let status):
                changed = try Self.posts.finish(id: message.id, claim: message.claim, set: """
                    sent_at = now(), last_status = \(status), last_error = NULL, \(forgetTarget)
                    """, on: connection)
            case .failed(let status, let error, let retryAfter):
                rest = max(pace, retryAfter)
                changed = try Self.posts.finish(id: message.id, claim: message.claim, set: """
                    next_attempt_at = now() + make_interval(secs => \(retryAfter.timeInterval)),
                    last_status = \(status), last_error = \(Self.clip(error))
                    """, on: connection)
            case .dead(let status, let error):
                changed = try Self.posts.finish(id: message.id, claim: message.claim, set: """
                    dead_at = now(), last_status = \(status), last_error = \(Self.clip(error)), \(forgetTarget)
                    """, on: connection)
            case .paused(let status, let reason):
                changed = try Self.posts.finish(id: message.id, claim: message.claim, set: """
                    next_attempt_at = now(), last_status = \(status), last_error = \(Self.clip(reason))
                    """, on: connection)
                try connection.execute("""
                    UPDATE slack_integration SET paused_at = now(), pause_reason = \(Self.clip(reason)), updated_at = now()
                    WHERE paused_at IS NULL
                    """)
            }
            if message.kind == "post" {
                try connection.execute("UPDATE slack_integration SET next_post_at = now() + make_interval(secs => \(rest.timeInterval))")
            }
            return changed
        }
    }

    /// Pending and dead messages across instances (`/metrics`).
    public func counts() throws -> (pending: Int, dead: Int) {
        try Self.responses.counts(on: pool)
    }

    /// Sent and dead messages, and receipts, older than `age`.
    public func prune(olderThan age: Duration) throws {
        try Self.responses.prune(olderThan: age, on: pool)
        try pool.execute("DELETE FROM slack_receipts WHERE created_at < now() - make_interval(secs => \(age.timeInterval))")
    }

    static func decode(_ row: PostgresRow, claim: UUID) throws -> Claimed {
        Claimed(id: try row.decode("id"), claim: claim, kind: try row.decode("kind"), target: try row.decode("target"),
                body: try row.decode("body"), attempts: Int(try row.decode("attempts", as: Int32.self)))
    }

    static func clip(_ text: String) -> String {
        text.count <= 1000 ? text : String(text.prefix(1000))
    }
}
