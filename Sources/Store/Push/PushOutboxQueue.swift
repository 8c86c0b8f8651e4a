import Domain
import Foundation
import Postgres

/// `push_outbox`: the wake-ups owed to devices, one pending row per device at most, claimed by
/// the senders under a lease (`LeasedQueue`, the mail and webhook outboxes' machinery).
public struct PushOutboxQueue: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    static let leased = LeasedQueue(table: "push_outbox")

    /// Who a change reaches and how: `users` from the change stream (or `everyone`; the stream
    /// leaves out administrators, who see every change, so their devices are added), `urgent`
    /// ones at once, `actors` (only their own claim changed) not at all, and no device whose
    /// session already holds a live long-poll or Realtime channel (`liveSessions`).
    public struct Wake: Sendable, Equatable {
        public var users: Set<UUID>
        public var everyone: Bool
        public var urgent: Set<UUID>
        public var actors: Set<UUID>
        public var liveSessions: Set<UUID>
        /// Platforms a provider is configured for (`ios`, `android`): other devices are skipped.
        public var platforms: [String]
        /// The change's snapshot (`pg_snapshot` text): a device whose last push was claimed
        /// under a snapshot that covers it (`covered_by`) is owed nothing.
        public var snapshot: String

        public init(users: Set<UUID>, everyone: Bool, urgent: Set<UUID>, actors: Set<UUID>, liveSessions: Set<UUID>,
                    platforms: [String], snapshot: String) {
            self.users = users
            self.everyone = everyone
            self.urgent = urgent
            self.actors = actors
            self.liveSessions = liveSessions
            self.platforms = platforms
            self.snapshot = snapshot
        }
    }

    /// The urgent users and the claim actors of what committed after `since` and is visible
    /// in `upto` (`dispatch_push_reasons`, migrations/0036).
    public func reasons(since: SyncSnapshot, upto: SyncSnapshot) throws -> (urgent: Set<UUID>, actors: Set<UUID>) {
        var urgent = Set<UUID>(), actors = Set<UUID>()
        for row in try pool.query("""
            SELECT user_id, urgent FROM dispatch_push_reasons(\(since.text)::pg_snapshot, \(upto.text)::pg_snapshot)
            """) {
            let user: UUID = try row.decode("user_id")
            if try row.decode("urgent", as: Bool.self) { urgent.insert(user) } else { actors.insert(user) }
        }
        return (urgent, actors)
    }

    /// Queues the wake-ups of one change; answers how many rows were new and how many changes
    /// were folded into a row already pending (coalesced). A non-urgent wake-up is due one
    /// `minInterval` after the device's last push; an urgent one at once.
    ///
    /// A device whose pending wake-up, not being sent, is already as urgent and as early as
    /// this change would make it is only counted: folding the change in would rewrite the row
    /// (a locked tuple, a new version and its WAL per device, per change read) to change
    /// nothing but its `coalesced` column, which therefore counts the changes that moved a
    /// pending row. With many devices pending between pushes (`PUSH_MIN_INTERVAL`), that
    /// rewrite was most of what a change cost the push outbox.
    public func enqueue(_ wake: Wake, minInterval: Duration) throws -> (queued: Int, coalesced: Int) {
        let users = Array(wake.users), urgent = Array(wake.urgent), actors = Array(wake.actors.subtracting(wake.urgent))
        let live = Array(wake.liveSessions)
        // One array of users, so the user index finds their devices (an OR of conditions read
        // every device); administrators see every change, so theirs are always among them.
        let audience: PostgresQuery = wake.everyone ? "true" : """
            d.user_id = ANY(\(users + urgent)::uuid[] || ARRAY(SELECT u.id FROM users u WHERE u.user_type = 'admin'))
            """
        let rows = try pool.query("""
            WITH candidates AS (
                SELECT d.id, d.user_id = ANY(\(urgent)::uuid[]) AS urgent,
                       CASE WHEN d.user_id = ANY(\(urgent)::uuid[]) OR d.last_push_at IS NULL THEN now()
                            ELSE greatest(now(), d.last_push_at + make_interval(secs => \(minInterval.timeInterval))) END AS due
                FROM push_devices d
                WHERE \(audience)
                  AND NOT d.user_id = ANY(\(actors)::uuid[]) AND d.platform = ANY(\(wake.platforms)::text[])
                  AND (d.session_id IS NULL OR NOT d.session_id = ANY(\(live)::uuid[]))
                  AND (d.covered_by IS NULL OR NOT dispatch_snapshot_covers(d.covered_by, \(wake.snapshot)::pg_snapshot))),
            targets AS (
                SELECT c.* FROM candidates c
                WHERE NOT EXISTS (SELECT 1 FROM push_outbox p
                                  WHERE p.device_id = c.id AND p.sent_at IS NULL AND p.dead_at IS NULL AND p.claim IS NULL
                                    AND (p.reason = 'urgent' OR NOT c.urgent) AND p.next_attempt_at <= c.due AND p.due_at <= c.due)),
            written AS (
                INSERT INTO push_outbox AS o (device_id, reason, due_at, next_attempt_at)
                SELECT id, CASE WHEN urgent THEN 'urgent' ELSE 'changed' END, due, due FROM targets
                ON CONFLICT (device_id) WHERE sent_at IS NULL AND dead_at IS NULL DO UPDATE SET
                    coalesced = o.coalesced + 1,
                    again = o.again OR o.claim IS NOT NULL,
                    again_urgent = o.again_urgent OR (o.claim IS NOT NULL AND EXCLUDED.reason = 'urgent'),
                    reason = CASE WHEN o.claim IS NULL AND EXCLUDED.reason = 'urgent' THEN 'urgent' ELSE o.reason END,
                    next_attempt_at = CASE WHEN o.claim IS NULL THEN least(o.next_attempt_at, EXCLUDED.next_attempt_at)
                                           ELSE o.next_attempt_at END,
                    due_at = CASE WHEN o.claim IS NULL THEN least(o.due_at, EXCLUDED.due_at) ELSE o.due_at END
                RETURNING (xmax = 0) AS inserted)
            SELECT (SELECT count(*) FROM candidates)::int AS candidates, (SELECT count(*) FROM written WHERE inserted)::int AS queued
            """)
        guard let row = rows.first else { return (0, 0) }
        let candidates: Int = try row.decode("candidates"), queued: Int = try row.decode("queued")
        return (queued, candidates - queued)
    }
}
