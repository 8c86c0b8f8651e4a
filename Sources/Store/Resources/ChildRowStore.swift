import Domain
import Foundation
import Postgres

/// Notes and subtasks: rows that hang off a parent (a task, an activity or a listing) and are
/// visible with it (contract §2). The shared steps live here, written once over the store's
/// description: listing a parent's children in keyset pages, creating with id replay under
/// the parent's lock, locking a row for a change with the permission and version checks, and
/// the soft delete. A store supplies its rules: its order, who may change a row, what a
/// create inserts and how a replay is recognised, and its own change.
public protocol ChildRowStore: ResourceStore {
    /// What a create carries (validated by `ChildInputParser`).
    associatedtype NewRow: Sendable

    /// The parent kinds this child hangs off (subtasks: work items only).
    func accepts(_ parentType: ParentType) -> Bool
    /// Whether adding a child needs the right to update the parent (subtasks) or only to see it (notes).
    var createNeedsParentUpdate: Bool { get }
    /// The int8 keyset key of child `alias` and the ORDER BY it follows, id last.
    func sortKey(_ alias: String) -> String
    func orderBy(_ alias: String) -> String
    /// Columns the permission check reads, selected with the locked row.
    func permissionColumns(_ alias: String, _ viewer: Viewer) -> PostgresQuery
    /// Whether `viewer` may change the locked row (403 `forbiddenMessage` otherwise).
    func mayChange(_ row: PostgresRow, _ viewer: Viewer) throws -> Bool
    var forbiddenMessage: String { get }

    func id(of new: NewRow) -> UUID?
    func parent(of new: NewRow) -> (type: ParentType, id: UUID)
    /// The INSERT … ON CONFLICT (id) DO NOTHING RETURNING json, version of a new child by `viewer`.
    func insert(_ new: NewRow, _ viewer: Viewer) -> PostgresQuery
    /// SQL that is TRUE when row `alias` is `new` again (same parent, author, values sent).
    func sameRow(_ new: NewRow, _ alias: String, _ viewer: Viewer) -> PostgresQuery
}

/// A child row locked for a change, with what the checks found.
struct LockedChild {
    var row: ResourceRow
    var deleted: Bool
    var parentDeleted: Bool
    /// The locked row's columns, for a store's own change (a note's content).
    var columns: PostgresRow
}

extension ChildRowStore {
    var table: String { resource.description.table }

    /// A parent's children in the store's order. `.notFound` when the parent is not visible.
    public func list(_ viewer: Viewer, parentType: ParentType, parentID: UUID, includeDeleted: Bool,
                     limit: Int, maxBytes: Int = ListFilter.defaultMaxBytes,
                     after: KeysetPosition?) throws -> ResourcePage {
        try pool.withConnection { connection in
            guard accepts(parentType),
                  try ChildSQL.parentState(parentType, id: parentID, viewer: viewer, lock: false, on: connection) != nil else {
                throw DomainError.notFound(noun)
            }
            let budget = ByteBudgetPage(limit: limit, maxBytes: maxBytes, descending: false)
            let rows = try connection.query(budget.query("""
                SELECT dispatch_json(c)::text AS json, c.version, c.id, \(unsafeSQL: sortKey("c")) AS sort_key
                FROM \(unsafeSQL: table) c
                WHERE c.parent_type = \(parentType.rawValue) AND c.parent_id = \(parentID)
                  AND (\(includeDeleted) OR c.deleted_at IS NULL)
                  AND (\(after?.key) IS NULL OR (\(unsafeSQL: sortKey("c")), c.id) > (\(after?.key), \(after?.id)))
                  AND \(ChildSQL.visible("c", viewer))
                ORDER BY \(unsafeSQL: orderBy("c"))
                LIMIT \(limit + 1)
                """))
            return try ChildSQL.page(rows)
        }
    }

    /// Adds a child by `viewer`. A client id that already exists is a replay when the row is
    /// `new` again (the stored row is returned), else `.idConflict`; an invisible or missing
    /// parent is `.noSuchParent`.
    public func create(_ viewer: Viewer, _ new: NewRow) throws -> CreateResult {
        try pool.withTransaction { try create(viewer, new, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func create(_ viewer: Viewer, _ new: NewRow, on connection: PostgresConnection) throws -> CreateResult {
        if let id = id(of: new), let existing = try replay(id: id, of: new, viewer: viewer, on: connection) {
            return CreateResult(row: existing, created: false)
        }
        let parent = parent(of: new)
        guard accepts(parent.type),
              let state = try ChildSQL.parentState(parent.type, id: parent.id, viewer: viewer, lock: true, on: connection) else {
            throw DomainError.noSuchParent
        }
        guard !createNeedsParentUpdate || state.mayUpdate else { throw DomainError.forbidden(forbiddenMessage) }
        guard !state.deleted else { throw DomainError.parentDeleted(noun) }
        if let row = try connection.query(insert(new, viewer)).first {
            return CreateResult(row: try ResourceSQL.decodeRow(row), created: true)
        }
        // A concurrent create with the same id committed first: judge it like a replay.
        if let id = id(of: new), let existing = try replay(id: id, of: new, viewer: viewer, on: connection) {
            return CreateResult(row: existing, created: false)
        }
        throw DomainError.childIDTaken(noun)
    }

    /// The stored row with `id` if `new` replays it; nil when no row has the id; throws
    /// `.idConflict` when the id holds something else (or a row the caller cannot see: only
    /// the fact that the id is taken is revealed, never the row).
    private func replay(id: UUID, of new: NewRow, viewer: Viewer, on connection: PostgresConnection) throws -> ResourceRow? {
        let rows = try connection.query("""
            SELECT dispatch_json(c)::text AS json, c.version,
                   (\(ChildSQL.visible("c", viewer)) AND \(sameRow(new, "c", viewer))) AS same
            FROM \(unsafeSQL: table) c WHERE c.id = \(id)
            """)
        guard let row = rows.first else { return nil }
        guard try row.decode("same", as: Bool.self) else { throw DomainError.childIDTaken(noun) }
        return try ResourceSQL.decodeRow(row)
    }

    /// Soft-deletes (sets `deleted_at`) so syncing clients receive the tombstone; deleting a
    /// deleted row returns it. Inside the caller's transaction (sync push).
    public func delete(_ viewer: Viewer, id: UUID, check: VersionCheck, on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForChange(id: id, viewer: viewer, check: check, on: connection)
        guard !current.deleted else { return current.row }
        return try ChildSQL.softDelete(table: table, id: id, on: connection)
    }

    /// Locks a visible row for a write with the checks every write shares, in HTTP's order:
    /// not visible → `.notFound`, may not change it → `.forbidden`, stale version → 412.
    func lockForChange(id: UUID, viewer: Viewer, check: VersionCheck, on connection: PostgresConnection) throws -> LockedChild {
        let rows = try connection.query("""
            SELECT dispatch_json(c)::text AS json, c.version, \(permissionColumns("c", viewer)),
                   c.deleted_at IS NOT NULL AS deleted, \(ChildSQL.parentDeleted("c")) AS parent_deleted
            FROM \(unsafeSQL: table) c
            WHERE c.id = \(id) AND \(ChildSQL.visible("c", viewer))
            FOR UPDATE OF c
            """)
        guard let row = rows.first else { throw DomainError.notFound(noun) }
        let current = try ResourceSQL.decodeRow(row)
        guard try mayChange(row, viewer) else { throw DomainError.forbidden(forbiddenMessage) }
        if !check.allows(version: current.version) {
            throw DomainError.preconditionFailed(currentVersion: current.version)
        }
        return LockedChild(row: current, deleted: try row.decode("deleted"), parentDeleted: try row.decode("parent_deleted"),
                           columns: row)
    }

    /// The checks of a change after the lock: a deleted row or parent cannot change.
    func lockForEdit(id: UUID, viewer: Viewer, check: VersionCheck, on connection: PostgresConnection) throws -> LockedChild {
        let current = try lockForChange(id: id, viewer: viewer, check: check, on: connection)
        guard !current.deleted else { throw DomainError.childDeleted(noun) }
        guard !current.parentDeleted else { throw DomainError.parentDeleted(noun) }
        return current
    }
}
