import Domain
import Foundation
import Postgres

/// SQL shared by notes and subtasks: the state of a parent as the caller sees it, and
/// per-row expressions about a child's parent. Visibility itself comes from `Visibility`.
enum ChildSQL {
    struct ParentState {
        var deleted: Bool
        var mayUpdate: Bool
    }

    /// The parent as `viewer` sees it; nil when it does not exist or is invisible (callers
    /// answer both the same way). `FOR SHARE` holds off a concurrent delete of the parent
    /// until the child written in this transaction is committed.
    static func parentState(_ type: ParentType, id: UUID, viewer: Viewer, lock: Bool,
                            on connection: PostgresConnection) throws -> ParentState? {
        let visible = type == .listing ? Visibility.listing("p", viewer) : Visibility.workItem("p", viewer)
        let mayUpdate = type == .listing ? Visibility.mayUpdateListing("p", viewer) : Visibility.mayUpdateWorkItem("p", viewer)
        let rows = try connection.query("""
            SELECT (p.status = 'deleted' OR p.deleted_at IS NOT NULL) AS deleted, \(mayUpdate) AS may_update
            FROM \(unsafeSQL: type.table) p
            WHERE p.id = \(id) AND \(visible)
            \(unsafeSQL: lock ? "FOR SHARE OF p" : "")
            """)
        guard let row = rows.first else { return nil }
        return ParentState(deleted: try row.decode("deleted"), mayUpdate: try row.decode("may_update"))
    }

    /// Whether the parent of the child row `alias` is deleted (a missing parent counts as deleted).
    static func parentDeleted(_ alias: String) -> PostgresQuery {
        """
        coalesce(CASE \(unsafeSQL: alias).parent_type
            WHEN 'task' THEN (SELECT pt.status = 'deleted' OR pt.deleted_at IS NOT NULL
                              FROM tasks pt WHERE pt.id = \(unsafeSQL: alias).parent_id)
            WHEN 'activity' THEN (SELECT pa.status = 'deleted' OR pa.deleted_at IS NOT NULL
                                  FROM activities pa WHERE pa.id = \(unsafeSQL: alias).parent_id)
            ELSE (SELECT pl.status = 'deleted' OR pl.deleted_at IS NOT NULL
                  FROM listings pl WHERE pl.id = \(unsafeSQL: alias).parent_id)
        END, true)
        """
    }

    /// Whether `viewer` may update the work item that is the parent of subtask `alias`.
    static func mayUpdateParent(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        """
        (CASE \(unsafeSQL: alias).parent_type
            WHEN 'task' THEN EXISTS (SELECT 1 FROM tasks ut WHERE ut.id = \(unsafeSQL: alias).parent_id
                                     AND \(Visibility.mayUpdateWorkItem("ut", viewer)))
            ELSE EXISTS (SELECT 1 FROM activities ua WHERE ua.id = \(unsafeSQL: alias).parent_id
                         AND \(Visibility.mayUpdateWorkItem("ua", viewer)))
        END)
        """
    }

    /// The visibility of child row `alias` through its parent.
    static func visible(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        Visibility.child(typeColumn: "\(alias).parent_type", idColumn: "\(alias).parent_id", viewer)
    }

    /// Marks a locked, not yet deleted note or subtask deleted (the tombstone syncing clients
    /// receive). `table` is "notes" or "subtasks" (fixed in code).
    static func softDelete(table: String, id: UUID, on connection: PostgresConnection) throws -> ResourceRow {
        let rows = try connection.query("""
            UPDATE \(unsafeSQL: table) c SET deleted_at = now() WHERE c.id = \(id)
            RETURNING dispatch_json(c)::text AS json, c.version
            """)
        guard let row = rows.first else { throw DomainError.notFound(String(table.dropLast())) }
        return try ResourceSQL.decodeRow(row)
    }

    /// The rows `ByteBudgetPage` kept, and the last one's keyset as the next position when more follow.
    static func page(_ rows: PostgresRows) throws -> ResourcePage {
        let page = try ByteBudgetPage.decode(rows)
        return ResourcePage(rows: page.rows.map(\.json), next: page.next)
    }
}
