import Foundation
import Postgres

/// The console's audit log (migration 0022): one row per console action, newest first.
public struct ConsoleAuditStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Entry: Sendable, Equatable {
        public var id: Int64
        public var at: Date
        public var actorID: UUID
        public var actorEmail: String
        public var action: String
        public var targetType: String
        public var targetID: String
        public var summary: String
    }

    /// What to list: optionally one actor's or one action's entries, older than `before` (keyset).
    public struct Filter: Sendable {
        public var actorEmail: String?
        public var action: String?
        public var before: Int64?
        public var limit: Int

        public init(actorEmail: String? = nil, action: String? = nil, before: Int64? = nil, limit: Int = 50) {
            self.actorEmail = actorEmail
            self.action = action
            self.before = before
            self.limit = limit
        }
    }

    @discardableResult
    public func record(actorID: UUID, actorEmail: String, action: String, targetType: String, targetID: String,
                       summary: String) throws -> Int64 {
        let rows = try pool.query("""
            INSERT INTO console_audit (actor_id, actor_email, action, target_type, target_id, summary)
            VALUES (\(actorID), \(actorEmail), \(action), \(targetType), \(targetID), \(summary))
            RETURNING id
            """)
        guard let row = rows.first else { return 0 }
        return try row.decode("id")
    }

    /// Up to `filter.limit` entries, newest first, plus whether more follow.
    public func list(_ filter: Filter) throws -> (entries: [Entry], more: Bool) {
        // Only the conditions asked for, so each filter uses its index under generic plans too.
        var conditions: [PostgresQuery] = ["TRUE"]
        if let email = filter.actorEmail { conditions.append("lower(actor_email) = lower(\(email))") }
        if let action = filter.action { conditions.append("action = \(action)") }
        if let before = filter.before { conditions.append("id < \(before)") }
        let rows = try pool.query("""
            SELECT id, at, actor_id, actor_email, action, target_type, target_id, summary FROM console_audit
            WHERE \(PostgresQuery.joined(conditions, separator: " AND "))
            ORDER BY id DESC LIMIT \(filter.limit + 1)
            """)
        let entries = try rows.map { row in
            Entry(id: try row.decode("id"), at: try row.decode("at"), actorID: try row.decode("actor_id"),
                  actorEmail: try row.decode("actor_email"), action: try row.decode("action"),
                  targetType: try row.decode("target_type"), targetID: try row.decode("target_id"),
                  summary: try row.decode("summary"))
        }
        return (Array(entries.prefix(filter.limit)), entries.count > filter.limit)
    }

    /// The distinct actions recorded so far, for the filter's choices.
    public func actions() throws -> [String] {
        try pool.query("SELECT DISTINCT action FROM console_audit ORDER BY action").map { try $0.decode("action") }
    }
}
