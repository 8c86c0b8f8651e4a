import Domain
import Foundation
import Postgres

/// Listings, tasks and activities: rows of client fields (`Input`) that are created (an id
/// replay answers the stored row), replaced (`PUT`, create-or-replace) or patched. The shared
/// steps live here; each store supplies only its insert, its change (permissions, status
/// rules and stamps, history rows) and how a replay is recognised.
public protocol WritableRowStore: ResourceStore {
    associatedtype Input: Sendable

    /// A page of the visible rows under `filter`.
    func list(_ viewer: Viewer, _ filter: ListFilter) throws -> ResourcePage

    /// Inserts a new row declared by `viewer`; nil when the id is taken.
    func insert(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID?, input: Input) throws -> ResourceRow?
    /// Changes the visible row, locked: the fields sent (`patch`) or every field.
    func modify(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID, input: Input, patch: Bool,
                check: VersionCheck) throws -> ResourceRow
    /// SQL that is TRUE when row `alias` holds every field `input` sent (an idempotent replay).
    func sameAsRow(_ input: Input, _ alias: String) -> PostgresQuery
    /// `create` on a connection of the pool; by default in a transaction of its own (a store
    /// whose insert is one statement may skip it).
    func create(_ viewer: Viewer, id: UUID?, input: Input) throws -> CreateResult
    /// `create` for the caller `userID`, whose account it reads (`.callerInactive`: gone or
    /// deactivated, nothing written); by default first, in the create's transaction.
    func create(callerID userID: UUID, id: UUID?, input: Input) throws -> CallerWrite<CreateResult>
    /// `PATCH` for the caller `userID`, whose account it reads (`.callerInactive`: gone or
    /// deactivated, nothing written); by default first, in the update's transaction.
    func update(callerID userID: UUID, id: UUID, input: Input, check: VersionCheck) throws -> CallerWrite<ResourceRow>
}

extension WritableRowStore {
    /// Creates the row (`created: true`), or returns the existing one when `id` names a
    /// visible row whose fields equal every field sent (an idempotent replay).
    public func create(_ viewer: Viewer, id: UUID?, input: Input) throws -> CreateResult {
        try pool.withTransaction { try create(viewer, id: id, input: input, on: $0) }
    }

    /// `create` inside the caller's transaction (sync push).
    public func create(_ viewer: Viewer, id: UUID?, input: Input, on connection: PostgresConnection) throws -> CreateResult {
        if let row = try insert(connection, viewer, id: id, input: input) { return CreateResult(row: row, created: true) }
        return try replayed(viewer, id: id, input: input, on: connection)
    }

    /// The answer to a create whose id is taken: the existing row when the viewer sees it and it
    /// holds every field sent (an idempotent replay), else 409 `id_taken`.
    func replayed(_ viewer: Viewer, id: UUID?, input: Input, on connection: PostgresConnection) throws -> CreateResult {
        let description = resource.description
        let rows = try connection.query("""
            SELECT dispatch_json(r)::text AS json, r.version, \(sameAsRow(input, "r")) AS same
            FROM \(unsafeSQL: description.table) r
            WHERE r.id = \(id) AND \(Visibility.predicate(description.visibility, alias: "r", viewer))
            """)
        guard let row = rows.first, try row.decode("same", as: Bool.self) else { throw DomainError.idTaken(noun) }
        return CreateResult(row: try ResourceSQL.decodeRow(row), created: false)
    }

    /// `create` for the caller `userID`, whose account is read first (`.callerInactive`: gone
    /// or deactivated, nothing written). Stores whose create is one statement read it in that
    /// statement instead (`WorkItemStore`).
    public func create(callerID userID: UUID, id: UUID?, input: Input) throws -> CallerWrite<CreateResult> {
        try pool.withTransaction { connection in
            guard let viewer = try CallerSQL.viewer(userID, on: connection) else { return .callerInactive }
            return .written(try create(viewer, id: id, input: input, on: connection))
        }
    }

    /// `update(…replace: false…)` for the caller `userID`, whose account is read first.
    public func update(callerID userID: UUID, id: UUID, input: Input, check: VersionCheck) throws -> CallerWrite<ResourceRow> {
        try pool.withTransaction { connection in
            guard let viewer = try CallerSQL.viewer(userID, on: connection) else { return .callerInactive }
            return .written(try modify(connection, viewer, id: id, input: input, patch: true, check: check))
        }
    }

    /// `PATCH` (`replace: false`: only the fields sent) or replace (`true`).
    public func update(_ viewer: Viewer, id: UUID, input: Input, replace: Bool, check: VersionCheck) throws -> ResourceRow {
        try pool.withTransaction { try modify($0, viewer, id: id, input: input, patch: !replace, check: check) }
    }

    /// `update` inside the caller's transaction (sync push).
    public func update(_ viewer: Viewer, id: UUID, input: Input, replace: Bool, check: VersionCheck,
                       on connection: PostgresConnection) throws -> ResourceRow {
        try modify(connection, viewer, id: id, input: input, patch: !replace, check: check)
    }

    /// `PUT`: replaces the row, or creates it when no row has this id.
    public func put(_ viewer: Viewer, id: UUID, input: Input, check: VersionCheck) throws -> CreateResult {
        try pool.withTransaction { try put(viewer, id: id, input: input, check: check, on: $0) }
    }

    /// `put` inside the caller's transaction (sync push).
    public func put(_ viewer: Viewer, id: UUID, input: Input, check: VersionCheck,
                    on connection: PostgresConnection) throws -> CreateResult {
        let table = resource.description.table
        let exists = try !connection.query("SELECT 1 FROM \(unsafeSQL: table) WHERE id = \(id)").isEmpty
        if !exists {
            guard check.allows(version: nil) else { throw DomainError.preconditionFailed(currentVersion: nil) }
            if let row = try insert(connection, viewer, id: id, input: input) { return CreateResult(row: row, created: true) }
        }
        return CreateResult(row: try modify(connection, viewer, id: id, input: input, patch: false, check: check), created: false)
    }
}
