import Domain
import Foundation
import Postgres

/// Turns the history the write paths already record in their own transactions
/// (`status_changes`: creates, completions, deletions; `claim_events`: claims, releases) into
/// the Slack integration's events, without a trigger and without touching those paths.
///
/// Commit order is not `updated_at` order, so each scan reads back `lookBack` before where
/// the last one stopped: a write transaction lives at most WRITE_TRANSACTION_TIMEOUT, so a
/// history row committed after a scan still falls inside the next scan's window. Rows read
/// twice are queued once (`slack_outbox.event_key`). Nothing older than the integration is
/// read. While it is paused the posts still queue, and go out once it is stored again.
public struct SlackEventScan: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One history row as an event, with what the post shows of its task or activity.
    public struct Event: Sendable, Equatable {
        public var key: String
        public var type: String
        public var entityType: String
        public var entityID: UUID
        public var title: String
        public var priority: String
        public var status: String
        public var dueDate: Date?
        public var listing: String?
        public var actor: String
        public var claimedBy: String?
        public var declaredBy: String
        public var occurredAt: Date
    }

    /// The events of the window, and the time to `advance` to once they are queued.
    public func read(lookBack: Duration, limit: Int = 500) throws -> (events: [Event], through: Date)? {
        let seconds = Double(lookBack.components.seconds)
        let rows = try pool.query("""
            WITH bounds AS (
                SELECT greatest(scanned_through - make_interval(secs => \(seconds)), created_at) AS since, events
                FROM slack_integration
            ), history AS (
                SELECT 'status_changes:' || s.id AS event_key,
                       s.entity_type || CASE WHEN s.old_status IS NULL THEN '.created'
                                             WHEN s.new_status = 'completed' THEN '.completed'
                                             WHEN s.new_status = 'deleted' THEN '.deleted'
                                             ELSE '.status_changed' END AS event_type,
                       s.entity_type, s.entity_id, s.changed_by AS actor_id, s.updated_at AS occurred_at
                FROM status_changes s, bounds b
                WHERE s.entity_type IN ('task', 'activity') AND s.updated_at > b.since
                UNION ALL
                SELECT 'claim_events:' || c.id, c.entity_type || '.' || c.action, c.entity_type, c.entity_id, c.actor_id,
                       c.updated_at
                FROM claim_events c, bounds b
                WHERE c.updated_at > b.since
            ), items AS (
                SELECT 'task' AS entity_type, id, title, priority, status, due_date, listing_id, claimed_by, declared_by FROM tasks
                UNION ALL
                SELECT 'activity', id, title, priority, status, due_date, listing_id, claimed_by, declared_by FROM activities
            )
            SELECT h.event_key, h.event_type, h.entity_type, h.entity_id, h.occurred_at, i.title, i.priority, i.status, i.due_date,
                   l.address AS listing, actor.name AS actor, claimer.name AS claimed_by, declarer.name AS declared_by
            FROM history h
            JOIN bounds b ON h.event_type = ANY (b.events)
            JOIN items i ON i.entity_type = h.entity_type AND i.id = h.entity_id
            JOIN users actor ON actor.id = h.actor_id
            JOIN users declarer ON declarer.id = i.declared_by
            LEFT JOIN users claimer ON claimer.id = i.claimed_by
            LEFT JOIN listings l ON l.id = i.listing_id
            WHERE NOT EXISTS (SELECT 1 FROM slack_outbox o WHERE o.event_key = h.event_key)
            ORDER BY h.occurred_at, h.event_key
            LIMIT \(limit)
            """)
        guard let clock = try pool.query("SELECT now() AS now FROM slack_integration").first else { return nil }
        let events = try rows.map { row in
            Event(key: try row.decode("event_key"), type: try row.decode("event_type"), entityType: try row.decode("entity_type"),
                  entityID: try row.decode("entity_id"), title: try row.decode("title"), priority: try row.decode("priority"),
                  status: try row.decode("status"), dueDate: try row.decode("due_date"), listing: try row.decode("listing"),
                  actor: try row.decode("actor"), claimedBy: try row.decode("claimed_by"), declaredBy: try row.decode("declared_by"),
                  occurredAt: try row.decode("occurred_at"))
        }
        // A full page: the next scan goes on from its last row, not from now.
        let through = events.count == limit ? (events.last?.occurredAt ?? Date()) : try clock.decode("now", as: Date.self)
        return (events, through)
    }

    /// The events up to `through` are queued: the next scan starts there (minus the look-back).
    public func advance(to through: Date) throws {
        try pool.execute("UPDATE slack_integration SET scanned_through = greatest(scanned_through, \(through))")
    }
}
