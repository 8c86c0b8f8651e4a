import Domain
import Foundation
import Postgres

/// The server-written history of an entity (contract §1, 2): claim events and status changes,
/// visible exactly when their entity is, oldest first.
public struct HistoryStore: Sendable {
    /// The entities that have history, with their table (a fixed list: safe to splice).
    public enum Entity: String, Sendable, CaseIterable {
        case listing, task, activity

        var table: String {
            switch self {
            case .listing: return "listings"
            case .task: return "tasks"
            case .activity: return "activities"
            }
        }

        func visibility(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
            self == .listing ? Visibility.listing(alias, viewer) : Visibility.workItem(alias, viewer)
        }
    }

    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func claimEvents(_ viewer: Viewer, kind: WorkItemKind, id: UUID, limit: Int, maxBytes: Int,
                            after: KeysetPosition?) throws -> ResourcePage {
        let entity: Entity = kind == .task ? .task : .activity
        return try page(viewer, entity: entity, id: id, table: "claim_events", limit: limit, maxBytes: maxBytes, after: after)
    }

    public func statusChanges(_ viewer: Viewer, entity: Entity, id: UUID, limit: Int, maxBytes: Int,
                              after: KeysetPosition?) throws -> ResourcePage {
        try page(viewer, entity: entity, id: id, table: "status_changes", limit: limit, maxBytes: maxBytes, after: after)
    }

    /// History rows are never updated, so `updated_at` is their creation time and the shared
    /// keyset order (`updated_at`, `id`) is chronological.
    private func page(_ viewer: Viewer, entity: Entity, id: UUID, table: String, limit: Int, maxBytes: Int,
                      after: KeysetPosition?) throws -> ResourcePage {
        try pool.withConnection { connection in
            let visible = try connection.query("""
                SELECT 1 FROM \(unsafeSQL: entity.table) p WHERE p.id = \(id) AND \(entity.visibility("p", viewer))
                """)
            guard !visible.isEmpty else { throw DomainError.notFound(entity.rawValue) }
            var filter = ListFilter()
            filter.includeDeleted = true
            filter.limit = limit
            filter.maxBytes = maxBytes
            filter.after = after
            return try ResourceSQL.page(connection, table: table, alias: "h", visibility: "TRUE", filter: filter,
                                        conditions: ["h.entity_type = \(entity.rawValue) AND h.entity_id = \(id)"])
        }
    }
}
