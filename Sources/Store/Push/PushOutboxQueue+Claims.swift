import Domain
import Foundation
import Postgres

/// The sender's side: claim due wake-ups under a lease and record each outcome.
extension PushOutboxQueue {
    /// A wake-up a sender holds until `finish`, with its device.
    public struct Claimed: Sendable, Equatable {
        public let id: UUID
        public let claim: UUID
        public let deviceID: UUID
        public let token: String
        public let platform: PushDevice.Platform
        public let reason: String
        /// When the wake-up became owed (stale ones are dropped, not sent late).
        public let dueAt: Date
        public let attempts: Int
        /// The previous holder's claim was never finished (it died or hung mid-send): APNs may
        /// have accepted that push, so this one must not be sent within the interval.
        public let interrupted: Bool
        /// The claim's snapshot (`pg_snapshot` text): what it shows had committed before the
        /// push left, so the sync the push prompts sees it (`push_devices.covered_by` once sent).
        public let horizon: String
    }

    public enum Outcome: Sendable, Equatable {
        case sent(status: Int)
        case failed(status: Int?, error: String, retryAfter: Duration)
        /// Given up: a token the provider refused, a stale wake-up, attempts used up.
        case dead(status: Int?, error: String)
        /// Not sent because an earlier send's outcome is unknown (`Claimed.interrupted`): counted
        /// as a push, and owed again one interval later, so nothing is lost or sent twice.
        case interrupted
        /// Not attempted (the sender is stopping, or its lease is running out): handed back
        /// as it was, due at once, so whoever claims it next sends it normally.
        case released
    }

    public func claim(limit: Int, lease: Duration) throws -> [Claimed] {
        let (claim, rows) = try Self.leased.claim(limit: limit, lease: lease, returning: """
            o.id, o.device_id, o.reason, o.due_at, o.attempts, d.token, d.platform, prev.claim IS NOT NULL AS interrupted,
            pg_current_snapshot()::text AS horizon
            """, joining: ("push_devices d, push_outbox prev", "d.id = o.device_id AND prev.id = o.id"), on: pool)
        return try rows.map { row in
            let platform: String = try row.decode("platform")
            guard let known = PushDevice.Platform(rawValue: platform) else {
                throw UnknownStoredValue(column: "push_devices.platform", value: platform)
            }
            return Claimed(id: try row.decode("id"), claim: claim, deviceID: try row.decode("device_id"), token: try row.decode("token"),
                           platform: known, reason: try row.decode("reason"), dueAt: try row.decode("due_at"),
                           attempts: try row.decode("attempts"), interrupted: try row.decode("interrupted"),
                           horizon: try row.decode("horizon"))
        }
    }

    /// Records the outcome and the device's last push or failure; false when the claim was
    /// lost. A row that gathered a change while it was being sent (`again`) is not finished
    /// but re-armed: due at once if that change was urgent, else one `minInterval` later.
    @discardableResult
    public func finish(_ push: Claimed, _ outcome: Outcome, minInterval: Duration) throws -> Bool {
        let rearm = Self.rearm(minInterval)
        let assignments: PostgresQuery
        let device: PostgresQuery
        switch outcome {
        case .sent(let status):
            assignments = """
                sent_at = CASE WHEN again THEN NULL ELSE now() END, last_status = \(status), last_error = NULL,
                \(rearm)
                """
            device = """
                UPDATE push_devices SET last_push_at = now(), covered_by = \(push.horizon)::pg_snapshot
                WHERE id = \(push.deviceID)
                """
        case .failed(let status, let error, let retryAfter):
            assignments = """
                next_attempt_at = now() + make_interval(secs => \(retryAfter.timeInterval)), last_status = \(status),
                last_error = \(Self.clip(error))
                """
            device = "UPDATE push_devices SET last_failure_at = now(), last_failure = \(Self.clip(error)) WHERE id = \(push.deviceID)"
        case .interrupted:
            // `prev` in the claim read the row before it was claimed: the old claim is the proof.
            assignments = """
                last_status = NULL, last_error = 'an earlier send was interrupted; owed again after the interval',
                \(rearm)
                """
            device = "UPDATE push_devices SET last_push_at = now() WHERE id = \(push.deviceID)"
        case .released:
            return try pool.withConnection { connection in
                try Self.leased.finish(id: push.id, claim: push.claim,
                                       set: "next_attempt_at = now(), attempts = greatest(attempts - 1, 0)", on: connection)
            }
        case .dead(let status, let error):
            assignments = """
                dead_at = CASE WHEN again THEN NULL ELSE now() END, last_status = \(status), last_error = \(Self.clip(error)),
                \(rearm)
                """
            device = "UPDATE push_devices SET last_failure_at = now(), last_failure = \(Self.clip(error)) WHERE id = \(push.deviceID)"
        }
        return try pool.withTransaction { connection in
            guard try Self.leased.finish(id: push.id, claim: push.claim, set: assignments, on: connection) else { return false }
            try connection.execute(device)
            return true
        }
    }

    /// Records that APNs took every one of `pushes` (one claim's): one statement and one commit
    /// for the batch rather than a transaction per push, the sender's main cost in PostgreSQL.
    /// Answers how many were still held by the claim (the rest were lost, and are unchanged).
    public func finishSent(_ pushes: [Claimed], status: Int, minInterval: Duration) throws -> Int {
        guard let claim = pushes.first?.claim, let horizon = pushes.first?.horizon else { return 0 }
        let ids = pushes.map(\.id)
        return try pool.execute("""
            WITH done AS (
                UPDATE push_outbox SET sent_at = CASE WHEN again THEN NULL ELSE now() END, last_status = \(status), last_error = NULL,
                    \(Self.rearm(minInterval)), claim = NULL
                WHERE id = ANY(\(ids)::uuid[]) AND claim = \(claim) AND sent_at IS NULL AND dead_at IS NULL
                RETURNING device_id)
            UPDATE push_devices SET last_push_at = now(), covered_by = \(horizon)::pg_snapshot
            WHERE id IN (SELECT device_id FROM done)
            """)
    }

    /// A row that gathered a change while it was being sent (`again`) is re-armed rather than
    /// finished: due at once if that change was urgent, else one `minInterval` later.
    private static func rearm(_ minInterval: Duration) -> PostgresQuery {
        """
        reason = CASE WHEN again_urgent THEN 'urgent' ELSE 'changed' END,
        next_attempt_at = CASE WHEN again_urgent THEN now() ELSE now() + make_interval(secs => \(minInterval.timeInterval)) END,
        due_at = CASE WHEN again_urgent THEN now() ELSE now() + make_interval(secs => \(minInterval.timeInterval)) END,
        attempts = 0, again = false, again_urgent = false
        """
    }

    /// Undelivered live wake-ups and dead ones, across all instances (`/metrics` gauges).
    public func counts() throws -> (pending: Int, dead: Int) {
        try Self.leased.counts(on: pool)
    }

    @discardableResult
    public func prune(olderThan age: Duration) throws -> Int {
        try Self.leased.prune(olderThan: age, on: pool)
    }

    static func clip(_ error: String) -> String {
        error.count <= 500 ? error : String(error.prefix(500))
    }
}
