import Domain
import Foundation
import Postgres

/// Subtasks of tasks and activities (contract §2): visible with their parent; whoever may update
/// the parent adds, changes, reorders and deletes them. Listing, creating, locking and
/// deleting are `ChildRowStore`'s; this file holds the subtasks' rules.
///
/// Order is (position, id). Positions are the client's: the server never renumbers siblings,
/// so reordering is one PATCH of the moved row's position, and ties fall back to id order.
public struct SubtaskStore: ChildRowStore {
    public let pool: PostgresPool

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

    // MARK: Rules (ChildRowStore)

    public func accepts(_ parentType: ParentType) -> Bool { parentType.canHaveSubtasks }
    public var createNeedsParentUpdate: Bool { true }
    public var forbiddenMessage: String { "Only someone who may update the parent may change its subtasks." }

    public func sortKey(_ alias: String) -> String { "\(alias).position::int8" }
    public func orderBy(_ alias: String) -> String { "\(alias).position, \(alias).id" }

    public func permissionColumns(_ alias: String, _ viewer: Viewer) -> PostgresQuery {
        "\(ChildSQL.mayUpdateParent(alias, viewer)) AS may_update"
    }

    public func mayChange(_ row: PostgresRow, _ viewer: Viewer) throws -> Bool {
        try row.decode("may_update", as: Bool.self)
    }

    public func id(of subtask: NewSubtask) -> UUID? { subtask.id }
    public func parent(of subtask: NewSubtask) -> (type: ParentType, id: UUID) { (subtask.parentType, subtask.parentID) }

    public func insert(_ subtask: NewSubtask, _ viewer: Viewer) -> PostgresQuery {
        """
        INSERT INTO subtasks AS s (id, title, completed, parent_type, parent_id, position)
        VALUES (coalesce(\(subtask.id), gen_random_uuid()), \(subtask.title), coalesce(\(subtask.completed), false),
                \(subtask.parentType.rawValue), \(subtask.parentID),
                coalesce(\(subtask.position),
                         (SELECT coalesce(max(x.position) + 1, 0) FROM subtasks x
                          WHERE x.parent_type = \(subtask.parentType.rawValue) AND x.parent_id = \(subtask.parentID)
                            AND x.deleted_at IS NULL AND x.position < \(ChildRules.positionMaximum))))
        ON CONFLICT (id) DO NOTHING
        RETURNING dispatch_json(s)::text AS json, s.version
        """
    }

    /// The same subtask again: same parent and title, and `completed`/`position` when given.
    public func sameRow(_ subtask: NewSubtask, _ alias: String, _ viewer: Viewer) -> PostgresQuery {
        """
        (\(unsafeSQL: alias).title = \(subtask.title)
         AND \(unsafeSQL: alias).parent_type = \(subtask.parentType.rawValue) AND \(unsafeSQL: alias).parent_id = \(subtask.parentID)
         AND (\(subtask.completed) IS NULL OR \(unsafeSQL: alias).completed = \(subtask.completed))
         AND (\(subtask.position) IS NULL OR \(unsafeSQL: alias).position = \(subtask.position)))
        """
    }

    // MARK: The subtask's own change

    /// Applies the given fields; a change that alters nothing writes nothing (no version bump).
    public func update(_ viewer: Viewer, id: UUID, changes: Changes,
                       check: VersionCheck = .none) throws -> ResourceRow {
        try pool.withTransaction { try update(viewer, id: id, changes: changes, check: check, on: $0) }
    }

    /// The same inside the caller's transaction (sync push).
    public func update(_ viewer: Viewer, id: UUID, changes: Changes, check: VersionCheck,
                       on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lockForEdit(id: id, viewer: viewer, check: check, on: connection)
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
}
