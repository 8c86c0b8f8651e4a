import Domain
import Foundation
import Postgres

/// Notes on tasks, activities and listings (contract §2): visible with their parent; anyone who
/// sees the parent adds one; only the author (or an admin) edits or deletes it.
///
/// Every query carries the visibility predicate itself, so an invisible note is never read.
/// Inputs are already validated (`ChildRules`); failures are `DomainError`s in the contract's terms (docs/contract.md §4).
public struct NoteStore: ResourceStore {
    public let pool: PostgresPool
    /// Why a caller who sees the row may still not change it (403).
    static let forbidden = "Only the note's author (or an admin) may change it."

    public var resource: Resource { .notes }
    public var noun: String { "note" }

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct NewNote: Sendable, Equatable {
        public var id: UUID?
        public var parentType: ParentType
        public var parentID: UUID
        public var content: String

        public init(id: UUID? = nil, parentType: ParentType, parentID: UUID, content: String) {
            self.id = id
            self.parentType = parentType
            self.parentID = parentID
            self.content = content
        }
    }

    /// A parent's notes, oldest first (created_at, id). `.notFound` when the parent is not visible.
    public func list(_ viewer: Viewer, parentType: ParentType, parentID: UUID, includeDeleted: Bool,
                     limit: Int, maxBytes: Int = ListFilter.defaultMaxBytes,
                     after: KeysetPosition?) throws -> ResourcePage {
        try pool.withConnection { connection in
            guard try ChildSQL.parentState(parentType, id: parentID, viewer: viewer, lock: false, on: connection) != nil else {
                throw DomainError.notFound("note")
            }
            let budget = ByteBudgetPage(limit: limit, maxBytes: maxBytes, descending: false)
            let rows = try connection.query(budget.query("""
                SELECT dispatch_json(n)::text AS json, n.version, n.id,
                       (extract(epoch FROM n.created_at) * 1000000)::int8 AS sort_key
                FROM notes n
                WHERE n.parent_type = \(parentType.rawValue) AND n.parent_id = \(parentID)
                  AND (\(includeDeleted) OR n.deleted_at IS NULL)
                  AND (\(after?.key) IS NULL
                       OR ((extract(epoch FROM n.created_at) * 1000000)::int8, n.id) > (\(after?.key), \(after?.id)))
                  AND \(ChildSQL.visible("n", viewer))
                ORDER BY n.created_at, n.id
                LIMIT \(limit + 1)
                """))
            return try ChildSQL.page(rows)
        }
    }

    /// Adds a note by `viewer`. With a client id that already exists: the same note again
    /// (same author, parent and content) is a replay and returns the stored row; anything
    /// else is `.idConflict`. An invisible or missing parent is `.noSuchParent`.
    public func create(_ viewer: Viewer, _ note: NewNote) throws -> CreateResult {
        try pool.withTransaction { try create(viewer, note, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func create(_ viewer: Viewer, _ note: NewNote, on connection: PostgresConnection) throws -> CreateResult {
        if let id = note.id, let existing = try replay(id: id, of: note, viewer: viewer, on: connection) {
            return CreateResult(row: existing, created: false)
        }
        guard let parent = try ChildSQL.parentState(note.parentType, id: note.parentID, viewer: viewer,
                                                    lock: true, on: connection) else {
            throw DomainError.noSuchParent
        }
        guard !parent.deleted else { throw DomainError.parentDeleted("note") }
        let rows = try connection.query("""
            INSERT INTO notes AS n (id, content, created_by, parent_type, parent_id)
            VALUES (coalesce(\(note.id), gen_random_uuid()), \(note.content), \(viewer.userID),
                    \(note.parentType.rawValue), \(note.parentID))
            ON CONFLICT (id) DO NOTHING
            RETURNING dispatch_json(n)::text AS json, n.version
            """)
        if let row = rows.first { return CreateResult(row: try ResourceSQL.decodeRow(row), created: true) }
        // A concurrent create with the same id committed first: judge it like a replay.
        if let id = note.id, let existing = try replay(id: id, of: note, viewer: viewer, on: connection) {
            return CreateResult(row: existing, created: false)
        }
        throw DomainError.childIDTaken("note")
    }

    /// The stored note with `id` if `note` replays it; nil when no row has the id; throws
    /// `.idConflict` when the id holds something else (or a note the caller cannot see: only
    /// the fact that the id is taken is revealed, never the row).
    private func replay(id: UUID, of note: NewNote, viewer: Viewer, on connection: PostgresConnection) throws -> ResourceRow? {
        let rows = try connection.query("""
            SELECT dispatch_json(n)::text AS json, n.version, n.content, n.created_by, n.parent_type, n.parent_id,
                   \(ChildSQL.visible("n", viewer)) AS visible
            FROM notes n WHERE n.id = \(id)
            """)
        guard let row = rows.first else { return nil }
        let same = try row.decode("visible", as: Bool.self)
            && row.decode("content", as: String.self) == note.content
            && row.decode("created_by", as: UUID.self) == viewer.userID
            && row.decode("parent_type", as: String.self) == note.parentType.rawValue
            && row.decode("parent_id", as: UUID.self) == note.parentID
        guard same else { throw DomainError.childIDTaken("note") }
        return try ResourceSQL.decodeRow(row)
    }

    /// Replaces the content, stamping `edited_at`/`edited_by`. Unchanged content writes nothing.
    public func update(_ viewer: Viewer, id: UUID, content: String?,
                       check: VersionCheck = .none) throws -> ResourceRow {
        try pool.withTransaction { try update(viewer, id: id, content: content, check: check, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func update(_ viewer: Viewer, id: UUID, content: String?, check: VersionCheck,
                       on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForChange(id: id, viewer: viewer, check: check, on: connection)
        guard !current.deleted else { throw DomainError.childDeleted("note") }
        guard !current.parentDeleted else { throw DomainError.parentDeleted("note") }
        guard let content, content != current.content else { return current.row }
        let rows = try connection.query("""
            UPDATE notes n SET content = \(content), edited_at = now(), edited_by = \(viewer.userID)
            WHERE n.id = \(id)
            RETURNING dispatch_json(n)::text AS json, n.version
            """)
        guard let row = rows.first else { throw DomainError.notFound("note") }
        return try ResourceSQL.decodeRow(row)
    }

    /// Soft-deletes (sets `deleted_at`) so syncing clients receive the tombstone. Deleting a
    /// The same inside the caller's transaction (sync push).
    public func delete(_ viewer: Viewer, id: UUID, check: VersionCheck, on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForChange(id: id, viewer: viewer, check: check, on: connection)
        guard !current.deleted else { return current.row }
        return try ChildSQL.softDelete(table: "notes", id: id, on: connection)
    }

    private struct Locked {
        var row: ResourceRow
        var content: String
        var deleted: Bool
        var parentDeleted: Bool
    }

    /// Locks a visible note for a write and applies the checks every write shares, in HTTP's
    /// order: not visible → `.notFound`, not the author → `.forbidden`, stale version →
    /// `.versionMismatch`.
    private func lockForChange(id: UUID, viewer: Viewer, check: VersionCheck,
                               on connection: PostgresConnection) throws -> Locked {
        let rows = try connection.query("""
            SELECT dispatch_json(n)::text AS json, n.version, n.content, n.created_by,
                   n.deleted_at IS NOT NULL AS deleted, \(ChildSQL.parentDeleted("n")) AS parent_deleted
            FROM notes n
            WHERE n.id = \(id) AND \(ChildSQL.visible("n", viewer))
            FOR UPDATE OF n
            """)
        guard let row = rows.first else { throw DomainError.notFound("note") }
        let current = try ResourceSQL.decodeRow(row)
        guard ChildRules.mayChangeNote(authorID: try row.decode("created_by"), callerID: viewer.userID,
                                       callerIsAdmin: viewer.isAdmin) else {
            throw DomainError.forbidden(Self.forbidden)
        }
        if !check.allows(version: current.version) {
            throw DomainError.preconditionFailed(currentVersion: current.version)
        }
        return Locked(row: current, content: try row.decode("content"), deleted: try row.decode("deleted"),
                      parentDeleted: try row.decode("parent_deleted"))
    }
}
