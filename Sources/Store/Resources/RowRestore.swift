import Domain
import Foundation
import Postgres

/// Undoing a soft delete: the console's "restore", for administrators only.
///
/// Decision: through `/v1` a deleted row stays deleted (`StatusRules`: deletion is terminal,
/// so a client's stale write cannot resurrect it). An administrator may still restore a row
/// deleted by mistake. The row returns to the status it had before its deletion (the latest
/// `status_changes` row into `deleted`; `open` / `draft` if none was recorded), `deleted_at`
/// is cleared, the change is recorded in `status_changes` like any other, and the row's new
/// version reaches every syncing client as an ordinary update (clients upsert by id).
enum RowRestore {
    /// The status before the latest deletion, from the history.
    static func previousStatus(entityType: String, id: UUID, fallback: String,
                               on connection: PostgresConnection) throws -> String {
        let rows = try connection.query("""
            SELECT old_status FROM status_changes
            WHERE entity_type = \(entityType) AND entity_id = \(id) AND new_status = 'deleted' AND old_status <> 'deleted'
            ORDER BY created_at DESC, id DESC LIMIT 1
            """)
        return try rows.first?.decode("old_status", as: String?.self) ?? fallback
    }

    static func requireAdmin(_ viewer: Viewer) throws {
        guard viewer.isAdmin else { throw DomainError.forbidden("Only administrators may restore a deleted row.") }
    }
}

extension WorkItemStore {
    /// Restores a deleted task or activity (see `RowRestore`); a row that is not deleted is
    /// returned unchanged.
    public func restore(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> ResourceRow {
        try RowRestore.requireAdmin(viewer)
        let current = try lock(connection, viewer, id: id)
        guard current.status == .deleted else { return try get(connection, id) }
        let text = try RowRestore.previousStatus(entityType: kind.rawValue, id: id, fallback: "open", on: connection)
        let status = WorkItemStatus(rawValue: text) ?? .open
        let completedAt = StatusRules.hasCompletedAt(status) ? "now()" : "NULL"
        let rows = try connection.query("""
            UPDATE \(unsafeSQL: table) t SET status = \(status.rawValue), deleted_at = NULL, completed_at = \(unsafeSQL: completedAt)
            WHERE t.id = \(id) RETURNING \(jsonAndVersion)
            """)
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        try ResourceSQL.recordStatusChange(entityType: kind.rawValue, id: id, old: "deleted", new: status.rawValue,
                                           by: viewer.userID, on: connection)
        return try ResourceSQL.decodeRow(row)
    }
}

extension ListingStore {
    /// Restores a deleted listing (see `RowRestore`); one that is not deleted is returned unchanged.
    public func restore(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> ResourceRow {
        try RowRestore.requireAdmin(viewer)
        let current = try lock(connection, viewer, id: id)
        guard current.status == .deleted else { return try get(connection, id) }
        let text = try RowRestore.previousStatus(entityType: "listing", id: id, fallback: "draft", on: connection)
        let status = ListingStatus(rawValue: text) ?? .draft
        let rows = try connection.query("""
            UPDATE listings l SET status = \(status.rawValue), deleted_at = NULL
            WHERE l.id = \(id) RETURNING dispatch_json(l)::text AS json, l.version
            """)
        guard let row = rows.first else { throw DomainError.notFound("listing") }
        try ResourceSQL.recordStatusChange(entityType: "listing", id: id, old: "deleted", new: status.rawValue,
                                           by: viewer.userID, on: connection)
        return try ResourceSQL.decodeRow(row)
    }
}
