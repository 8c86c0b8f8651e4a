import Domain
import Foundation
import Postgres

/// What every resource store has in common, driven by its resource's description: reading one
/// visible row, and running each verb on its own connection or inside a caller's transaction
/// (the sync push). A store adds only its rules: claims and status stamps (listings, tasks,
/// activities), parent checks (notes, subtasks).
public protocol ResourceStore: Sendable {
    var pool: PostgresPool { get }
    /// Whose description (table, visibility rule) the shared steps read.
    var resource: Resource { get }
    /// The row's name in error sentences ("listing", "task", "note").
    var noun: String { get }

    func delete(_ viewer: Viewer, id: UUID, check: VersionCheck, on connection: PostgresConnection) throws -> ResourceRow
}

extension ResourceStore {
    /// The row as `viewer` sees it: 404 when it does not exist or is invisible (contract §2).
    public func get(_ viewer: Viewer, id: UUID, on connection: PostgresConnection) throws -> ResourceRow {
        guard let row = try connection.query(getQuery(viewer, id: id)).first else { throw DomainError.notFound(noun) }
        return try ResourceSQL.decodeRow(row)
    }

    /// The statement of `get`; its plan is tested (ListPlanTests).
    func getQuery(_ viewer: Viewer, id: UUID) -> PostgresQuery {
        let description = resource.description
        return """
            SELECT \(StoredRowJSON.text("r", table: description.table)) AS json, r.version FROM \(unsafeSQL: description.table) r
            WHERE r.id = \(id) AND \(Visibility.predicateForOneRow(description.visibility, alias: "r", viewer))
            """
    }

    public func get(_ viewer: Viewer, id: UUID) throws -> ResourceRow {
        try pool.withConnection { try get(viewer, id: id, on: $0) }
    }

    /// Soft delete in its own transaction; deleting a deleted row returns its tombstone.
    public func delete(_ viewer: Viewer, id: UUID, check: VersionCheck = .none) throws -> ResourceRow {
        try pool.withTransaction { try delete(viewer, id: id, check: check, on: $0) }
    }
}
