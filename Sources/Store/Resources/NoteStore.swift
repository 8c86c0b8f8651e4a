import Domain
import Foundation
import Postgres

/// Notes on tasks, activities and listings (contract §2): visible with their parent; anyone who
/// sees the parent adds one; only the author (or an admin) edits or deletes it. Listing,
/// creating, locking and deleting are `ChildRowStore`'s; this file holds the notes' rules.
///
/// Every query carries the visibility predicate itself, so an invisible note is never read.
/// Inputs are already validated (`ChildRules`); failures are `DomainError`s in the contract's terms (docs/contract.md §4).
public struct NoteStore: ChildRowStore {
    public let pool: PostgresPool

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

    // MARK: Rules (ChildRowStore)

    public func accepts(_ parentType: ParentType) -> Bool { true }
    public var createNeedsParentUpdate: Bool { false }
    public var forbiddenMessage: String { "Only the note's author (or an admin) may change it." }

    /// Oldest first: (created_at, id); the key is `created_at` in microseconds.
    public func sortKey(_ alias: String) -> String { "(extract(epoch FROM \(alias).created_at) * 1000000)::int8" }
    public func orderBy(_ alias: String) -> String { "\(alias).created_at, \(alias).id" }

    public func permissionColumns(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        "\(unsafeSQL: alias).content, \(unsafeSQL: alias).created_by"
    }

    public func mayChange(_ row: PostgresRow, _ viewer: Viewer) throws -> Bool {
        ChildRules.mayChangeNote(authorID: try row.decode("created_by"), callerID: viewer.userID, callerIsAdmin: viewer.isAdmin)
    }

    public func id(of note: NewNote) -> UUID? { note.id }
    public func parent(of note: NewNote) -> (type: ParentType, id: UUID) { (note.parentType, note.parentID) }

    public func insert(_ note: NewNote, _ viewer: Viewer) -> PostgresQuery {
        """
        INSERT INTO notes AS n (id, content, created_by, parent_type, parent_id)
        VALUES (coalesce(\(note.id), gen_random_uuid()), \(note.content), \(viewer.userID),
                \(note.parentType.rawValue), \(note.parentID))
        ON CONFLICT (id) DO NOTHING
        RETURNING dispatch_json(n)::text AS json, n.version
        """
    }

    /// The same note again: same author, parent and content.
    public func sameRow(_ note: NewNote, _ alias: String, _ viewer: Viewer) -> PostgresQuery {
        """
        (\(unsafeSQL: alias).content = \(note.content) AND \(unsafeSQL: alias).created_by = \(viewer.userID)
         AND \(unsafeSQL: alias).parent_type = \(note.parentType.rawValue) AND \(unsafeSQL: alias).parent_id = \(note.parentID))
        """
    }

    // MARK: The note's own change

    /// Replaces the content, stamping `edited_at`/`edited_by`. Unchanged content writes nothing.
    public func update(_ viewer: Viewer, id: UUID, content: String?,
                       check: VersionCheck = .none) throws -> ResourceRow {
        try pool.withTransaction { try update(viewer, id: id, content: content, check: check, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func update(_ viewer: Viewer, id: UUID, content: String?, check: VersionCheck,
                       on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForEdit(id: id, viewer: viewer, check: check, on: connection)
        guard let content, content != (try current.columns.decode("content", as: String.self)) else { return current.row }
        let rows = try connection.query("""
            UPDATE notes n SET content = \(content), edited_at = now(), edited_by = \(viewer.userID)
            WHERE n.id = \(id)
            RETURNING dispatch_json(n)::text AS json, n.version
            """)
        guard let row = rows.first else { throw DomainError.notFound("note") }
        return try ResourceSQL.decodeRow(row)
    }
}
