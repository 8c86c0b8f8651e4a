import Domain
import Foundation
import Postgres

/// Tasks and activities under contract §2 (one store per kind; the rules are the same). Every query
/// carries the caller's visibility predicate; every write runs in one transaction with its
/// status side effects (`completed_at`, `deleted_at`) and `status_changes` row. Claims are in
/// `WorkItemStore+Claims.swift`. Used by the HTTP routes and, without HTTP, by the sync push.
public struct WorkItemStore: WritableRowStore {
    public let pool: PostgresPool
    public let kind: WorkItemKind

    public var resource: Resource { kind == .task ? .tasks : .activities }
    public var noun: String { kind.rawValue }

    public init(pool: PostgresPool, kind: WorkItemKind) {
        self.pool = pool
        self.kind = kind
    }

    var table: String { kind.table }
    /// What a write or read of one row `t` answers: its row JSON (the stored text where the
    /// table keeps one, `StoredRowJSON`) and its version.
    var jsonAndVersion: PostgresQuery { "\(StoredRowJSON.text("t", table: table)) AS json, t.version" }

    public func list(_ viewer: Viewer, _ filter: ListFilter) throws -> ResourcePage {
        let query = listQuery(viewer, filter)
        return try pool.withConnection { connection in
            try ResourceSQL.page(connection, query)
        }
    }

    /// The statement of `list` (`ResourceSQL.pageQuery`); its plan is tested (ListPlanTests).
    func listQuery(_ viewer: Viewer, _ filter: ListFilter) -> PostgresQuery {
        var conditions: [PostgresQuery] = []
        switch filter.claimedBy {
        case .user(let id)?: conditions.append("t.claimed_by = \(id)")
        case .none?: conditions.append("t.claimed_by IS NULL")
        case nil: break
        }
        if let listingID = filter.listingID { conditions.append("t.listing_id = \(listingID)") }
        if !filter.priorities.isEmpty { conditions.append("t.priority = ANY(\(filter.priorities))") }
        if let declarer = filter.declaredBy { conditions.append("t.declared_by = \(declarer)") }
        if let now = filter.overdueAt {
            conditions.append("t.due_date < \(now) AND t.status IN ('open', 'in_progress')")
        }
        return ResourceSQL.pageQuery(table: table, alias: "t", visibility: Visibility.workItemScan("t", viewer),
                                     filter: filter, conditions: conditions, keysFirst: Self.coveredByIndex(filter.order))
    }

    /// `create` without a transaction of its own: the create is one statement (`insert`),
    /// atomic by itself, so BEGIN and COMMIT would only add two round trips. A replay's read
    /// that may follow writes nothing.
    public func create(_ viewer: Viewer, id: UUID?, input: WorkItemInput) throws -> CreateResult {
        try pool.withConnection { try create(viewer, id: id, input: input, on: $0) }
    }

    /// Orders whose index carries the columns the list filters on (`0015_list_index_only.sql`),
    /// so a page's keys come from an index-only scan (`ResourceSQL.pageQuery`, `keysFirst`).
    static func coveredByIndex(_ order: ListOrder) -> Bool { order.field == .updatedAt }

    public func sameAsRow(_ input: WorkItemInput, _ alias: String) -> PostgresQuery {
        input.sameAsRow(resource.description, alias)
    }

    /// `delete` inside the caller's transaction (sync push).
    public func delete(_ viewer: Viewer, id: UUID, check: VersionCheck, on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lock(connection, viewer, id: id)
        guard current.mayDelete else {
            throw DomainError.forbidden("Only the \(kind.rawValue)'s declarer or its listing's owner may delete it.")
        }
        guard check.allows(version: current.version) else { throw DomainError.preconditionFailed(currentVersion: current.version) }
        if current.status == .deleted { return try get(connection, id) }
        let rows = try connection.query("""
            UPDATE \(unsafeSQL: table) t SET status = 'deleted', deleted_at = now(), completed_at = NULL WHERE t.id = \(id)
            RETURNING \(jsonAndVersion)
            """)
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        try ResourceSQL.recordStatusChange(entityType: kind.rawValue, id: id, old: current.status.rawValue, new: "deleted",
                                           by: viewer.userID, on: connection)
        return try ResourceSQL.decodeRow(row)
    }

    // MARK: Steps inside a transaction

    struct Locked {
        var status: WorkItemStatus
        var version: Int
        var claimedBy: UUID?
        var listingID: UUID?
        var mayDelete: Bool
    }

    /// The visible row, locked for the rest of the transaction. Whoever sees an item may
    /// update it (contract §2), so only the delete permission needs computing.
    func lock(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID) throws -> Locked {
        let rows = try connection.query("""
            SELECT t.status, t.version, t.claimed_by, t.listing_id, \(Visibility.mayDeleteWorkItem("t", viewer)) AS may_delete
            FROM \(unsafeSQL: table) t WHERE t.id = \(id) AND \(Visibility.workItem("t", viewer))
            FOR UPDATE OF t
            """)
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        return try locked(row)
    }

    /// A locked row as `lock` and `lock(callerID:)` select it.
    func locked(_ row: PostgresRow) throws -> Locked {
        Locked(status: try row.decodeKnown("status", table: table),
               version: try row.decode("version"), claimedBy: try row.decode("claimed_by"),
               listingID: try row.decode("listing_id"), mayDelete: try row.decode("may_delete"))
    }

    func get(_ connection: PostgresConnection, _ id: UUID) throws -> ResourceRow {
        let rows = try connection.query("SELECT \(jsonAndVersion) FROM \(unsafeSQL: table) t WHERE t.id = \(id)")
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        return try ResourceSQL.decodeRow(row)
    }

    /// Inserts a new item declared by the caller; nil when the id is taken. The rules: its
    /// listing must be one the caller sees, `completed_at` follows the status, and the status
    /// is recorded in `status_changes`. All three are one statement (the listing check, the
    /// row, its history row: `ResourceWriteSQL.insert`), so a create is one round trip.
    public func insert(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID?, input: WorkItemInput) throws -> ResourceRow? {
        var errors = input.check(complete: true, currentClaimer: nil)
        let listingID = input.sent["listing_id"]?.uuid
        guard errors.isEmpty else {
            // Report every problem at once, the listing's too (a read: nothing is written).
            if let listingID, let error = try ResourceSQL.checkListing(listingID, viewer, on: connection) { errors.append(error) }
            throw DomainError.validation(errors)
        }
        let status = try status(input, patch: false) ?? .open
        let server = [ServerValue(column: "declared_by", value: "\(viewer.userID)"),
                      ServerValue(column: "completed_at", value: StatusRules.hasCompletedAt(status) ? "now()" : "NULL::timestamptz")]
        let rows = try connection.query(ResourceWriteSQL.insert(
            resource.description, alias: "t", id: id, input: input, server: server,
            condition: listingID.map { ResourceSQL.usableListing($0, viewer) } ?? "TRUE",
            history: ResourceSQL.statusChangeOfInserted(entityType: kind.rawValue, new: status.rawValue, by: viewer.userID)))
        guard let row = rows.first else { throw PostgresError(kind: .protocolViolation, message: "a one-row SELECT answered no row") }
        guard try row.decode("allowed", as: Bool.self) else { throw DomainError.validation([ResourceSQL.unknownListing]) }
        guard let json = try row.decode("json", as: String?.self) else { return nil }
        return ResourceRow(json: json, version: try row.decode("version"))
    }

    public func modify(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID, input: WorkItemInput, patch: Bool,
                check: VersionCheck) throws -> ResourceRow {
        try change(connection, viewer, id: id, input: input, patch: patch, check: check, current: try lock(connection, viewer, id: id))
    }

    /// `modify` of the row `lock` returned (`current`), in the same transaction.
    func change(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID, input: WorkItemInput, patch: Bool,
                check: VersionCheck, current: Locked) throws -> ResourceRow {
        guard check.allows(version: current.version) else { throw DomainError.preconditionFailed(currentVersion: current.version) }
        let newStatus = try status(input, patch: patch) ?? current.status
        let verdict = StatusRules.update(from: current.status, to: newStatus)
        switch verdict {
        case .rowDeleted: throw DomainError.deleted(kind.rawValue)
        case .restore:
            // Only a write that names the status restores (a replace leaving it out does not).
            guard input.provides("status") else { throw DomainError.deleted(kind.rawValue) }
            guard current.mayDelete else {
                throw DomainError.forbidden("Only the \(kind.rawValue)'s declarer or its listing's owner may restore it.")
            }
        case .allowed, .useDelete: break // `use_delete` is the input check's field error, below.
        }
        var errors = input.check(complete: !patch, currentClaimer: current.claimedBy)
        if let listingID = input.value(named: "listing_id", patch: patch)?.uuid, listingID != current.listingID,
           let error = try ResourceSQL.checkListing(listingID, viewer, on: connection) {
            errors.append(error)
        }
        guard errors.isEmpty else { throw DomainError.validation(errors) }
        var sets = input.assignments(resource.description, patch: patch)
        if newStatus != current.status {
            sets.append(StatusRules.hasCompletedAt(newStatus) ? "completed_at = now()" : "completed_at = NULL")
        }
        if verdict == .restore { sets.append("deleted_at = NULL") }
        guard !sets.isEmpty else { return try get(connection, id) }
        let rows = try connection.query(ResourceWriteSQL.update(resource.description, alias: "t", id: id, sets: sets))
        guard let row = rows.first else { throw DomainError.notFound(kind.rawValue) }
        if newStatus != current.status {
            try ResourceSQL.recordStatusChange(entityType: kind.rawValue, id: id, old: current.status.rawValue,
                                               new: newStatus.rawValue, by: viewer.userID, on: connection)
        }
        return try ResourceSQL.decodeRow(row)
    }

    /// The status a write stores (nil: unchanged); an unknown value is reported, not defaulted.
    func status(_ input: WorkItemInput, patch: Bool) throws -> WorkItemStatus? {
        guard let value = input.value(named: "status", patch: patch) else { return nil }
        guard let text = value.text, let status = WorkItemStatus(rawValue: text) else {
            throw DomainError.validation([FieldError(field: "status", code: .invalidValue, message: "Is not a \(kind.rawValue) status.")])
        }
        return status
    }
}
