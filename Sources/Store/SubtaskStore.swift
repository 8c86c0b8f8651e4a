import Domain
import Foundation
import Postgres

/// Subtasks of tasks and activities (contract §2): visible with their parent; whoever may update
/// the parent adds, changes, reorders and deletes them.
///
/// Order is (position, id). Positions are the client's: the server never renumbers siblings,
/// so reordering is one PATCH of the moved row's position, and ties fall back to id order.
public struct SubtaskStore: ResourceStore {
    public let pool: PostgresPool
    /// Why a caller who sees the row may still not change it (403).
    static let forbidden = "Only someone who may update the parent may change its subtasks."

    public var resource: Resource { .subtasks }
    public var noun: String { "subtask" }

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct NewSubtask: Sendable, Equatable {
        public var id: UUID?
        public var parentType: ParentType
        public var parentID: UUID
        public var title: String
        public var completed: Bool?
        /// Nil appends: one past the largest position among the parent's live subtasks.
        public var position: Int?

        public init(id: UUID? = nil, parentType: ParentType, parentID: UUID, title: String,
                    completed: Bool? = nil, position: Int? = nil) {
            self.id = id
            self.parentType = parentType
            self.parentID = parentID
            self.title = title
            self.completed = completed
            self.position = position
        }
    }

    public struct Changes: Sendable, Equatable {
        public var title: String?
        public var completed: Bool?
        public var position: Int?

        public init(title: String? = nil, completed: Bool? = nil, position: Int? = nil) {
            self.title = title
            self.completed = completed
            self.position = position
        }
    }

    /// A parent's subtasks in display order. `.notFound` when the parent is not visible.
    public func list(_ viewer: Viewer, parentType: ParentType, parentID: UUID, includeDeleted: Bool,
                     limit: Int, maxBytes: Int = ListFilter.defaultMaxBytes,
                     after: KeysetPosition?) throws -> ResourcePage {
        try pool.withConnection { connection in
            guard parentType.canHaveSubtasks,
                  try ChildSQL.parentState(parentType, id: parentID, viewer: viewer, lock: false, on: connection) != nil else {
                throw DomainError.notFound("subtask")
            }
            let budget = ByteBudgetPage(limit: limit, maxBytes: maxBytes, descending: false)
            let rows = try connection.query(budget.query("""
                SELECT dispatch_json(s)::text AS json, s.version, s.id, s.position::int8 AS sort_key
                FROM subtasks s
                WHERE s.parent_type = \(parentType.rawValue) AND s.parent_id = \(parentID)
                  AND (\(includeDeleted) OR s.deleted_at IS NULL)
                  AND (\(after?.key) IS NULL OR (s.position::int8, s.id) > (\(after?.key), \(after?.id)))
                  AND \(ChildSQL.visible("s", viewer))
                ORDER BY s.position, s.id
                LIMIT \(limit + 1)
                """))
            return try ChildSQL.page(rows)
        }
    }

    /// Adds a subtask. An invisible or missing parent is `.noSuchParent`; a visible parent the
    /// caller may not update is `.forbidden`. A repeated client id replays like notes do: the
    /// same parent and title (and `completed`/`position` when given) return the stored row.
    public func create(_ viewer: Viewer, _ subtask: NewSubtask) throws -> CreateResult {
        try pool.withTransaction { try create(viewer, subtask, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func create(_ viewer: Viewer, _ subtask: NewSubtask, on connection: PostgresConnection) throws -> CreateResult {
        if let id = subtask.id, let existing = try replay(id: id, of: subtask, viewer: viewer, on: connection) {
            return CreateResult(row: existing, created: false)
        }
        guard subtask.parentType.canHaveSubtasks,
              let parent = try ChildSQL.parentState(subtask.parentType, id: subtask.parentID, viewer: viewer,
                                                    lock: true, on: connection) else {
            throw DomainError.noSuchParent
        }
        guard parent.mayUpdate else { throw DomainError.forbidden(Self.forbidden) }
        guard !parent.deleted else { throw DomainError.parentDeleted("subtask") }
        let rows = try connection.query("""
            INSERT INTO subtasks AS s (id, title, completed, parent_type, parent_id, position)
            VALUES (coalesce(\(subtask.id), gen_random_uuid()), \(subtask.title), coalesce(\(subtask.completed), false),
                    \(subtask.parentType.rawValue), \(subtask.parentID),
                    coalesce(\(subtask.position),
                             (SELECT coalesce(max(x.position) + 1, 0) FROM subtasks x
                              WHERE x.parent_type = \(subtask.parentType.rawValue) AND x.parent_id = \(subtask.parentID)
                                AND x.deleted_at IS NULL AND x.position < \(ChildRules.positionMaximum))))
            ON CONFLICT (id) DO NOTHING
            RETURNING dispatch_json(s)::text AS json, s.version
            """)
        if let row = rows.first { return CreateResult(row: try ResourceSQL.decodeRow(row), created: true) }
        if let id = subtask.id, let existing = try replay(id: id, of: subtask, viewer: viewer, on: connection) {
            return CreateResult(row: existing, created: false)
        }
        throw DomainError.childIDTaken("subtask")
    }

    private func replay(id: UUID, of subtask: NewSubtask, viewer: Viewer, on connection: PostgresConnection) throws -> ResourceRow? {
        let rows = try connection.query("""
            SELECT dispatch_json(s)::text AS json, s.version, s.title, s.completed, s.position, s.parent_type, s.parent_id,
                   \(ChildSQL.visible("s", viewer)) AS visible
            FROM subtasks s WHERE s.id = \(id)
            """)
        guard let row = rows.first else { return nil }
        let same = try row.decode("visible", as: Bool.self)
            && row.decode("title", as: String.self) == subtask.title
            && row.decode("parent_type", as: String.self) == subtask.parentType.rawValue
            && row.decode("parent_id", as: UUID.self) == subtask.parentID
            && subtask.completed.map { try row.decode("completed", as: Bool.self) == $0 } ?? true
            && subtask.position.map { try row.decode("position", as: Int.self) == $0 } ?? true
        guard same else { throw DomainError.childIDTaken("subtask") }
        return try ResourceSQL.decodeRow(row)
    }

    /// Applies the given fields; a change that alters nothing writes nothing (no version bump).
    public func update(_ viewer: Viewer, id: UUID, changes: Changes,
                       check: VersionCheck = .none) throws -> ResourceRow {
        try pool.withTransaction { try update(viewer, id: id, changes: changes, check: check, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func update(_ viewer: Viewer, id: UUID, changes: Changes, check: VersionCheck,
                       on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForChange(id: id, viewer: viewer, check: check, on: connection)
        guard !current.deleted else { throw DomainError.childDeleted("subtask") }
        guard !current.parentDeleted else { throw DomainError.parentDeleted("subtask") }
        let rows = try connection.query("""
            UPDATE subtasks s SET title = coalesce(\(changes.title), s.title),
                                  completed = coalesce(\(changes.completed), s.completed),
                                  position = coalesce(\(changes.position), s.position)
            WHERE s.id = \(id)
              AND (s.title, s.completed, s.position) IS DISTINCT FROM
                  (coalesce(\(changes.title), s.title), coalesce(\(changes.completed), s.completed),
                   coalesce(\(changes.position), s.position))
            RETURNING dispatch_json(s)::text AS json, s.version
            """)
        guard let row = rows.first else { return current.row }
        return try ResourceSQL.decodeRow(row)
    }

    /// The same inside the caller's transaction (sync push).
    public func delete(_ viewer: Viewer, id: UUID, check: VersionCheck, on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForChange(id: id, viewer: viewer, check: check, on: connection)
        guard !current.deleted else { return current.row }
        return try ChildSQL.softDelete(table: "subtasks", id: id, on: connection)
    }

    private struct Locked {
        var row: ResourceRow
        var deleted: Bool
        var parentDeleted: Bool
    }

    /// Not visible → `.notFound`; may not update the parent → `.forbidden`; stale → `.versionMismatch`.
    private func lockForChange(id: UUID, viewer: Viewer, check: VersionCheck,
                               on connection: PostgresConnection) throws -> Locked {
        let rows = try connection.query("""
            SELECT dispatch_json(s)::text AS json, s.version, \(ChildSQL.mayUpdateParent("s", viewer)) AS may_update,
                   s.deleted_at IS NOT NULL AS deleted, \(ChildSQL.parentDeleted("s")) AS parent_deleted
            FROM subtasks s
            WHERE s.id = \(id) AND \(ChildSQL.visible("s", viewer))
            FOR UPDATE OF s
            """)
        guard let row = rows.first else { throw DomainError.notFound("subtask") }
        let current = try ResourceSQL.decodeRow(row)
        guard try row.decode("may_update", as: Bool.self) else { throw DomainError.forbidden(Self.forbidden) }
        if !check.allows(version: current.version) {
            throw DomainError.preconditionFailed(currentVersion: current.version)
        }
        return Locked(row: current, deleted: try row.decode("deleted"), parentDeleted: try row.decode("parent_deleted"))
    }
}
