import Domain
import Foundation
import Postgres

/// Listings under contract §2: every query carries the caller's visibility predicate, and every
/// write runs in one transaction with its status side effects and `status_changes` row.
/// Used by the HTTP routes and, without HTTP, by the sync push.
public struct ListingStore: WritableRowStore {
    public let pool: PostgresPool

    public var resource: Resource { .listings }
    public var noun: String { "listing" }

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func list(_ viewer: Viewer, _ filter: ListFilter) throws -> ResourcePage {
        try pool.withConnection { connection in
            try ResourceSQL.page(connection, table: "listings", alias: "l", visibility: Visibility.listing("l", viewer), filter: filter,
                                 conditions: filter.ownedBy.map { ["l.owned_by = \($0)"] } ?? [])
        }
    }

    /// Whether `viewer` may see listing `id` (contract §2): realtime's `listing:<id>` topics.
    public func isVisible(_ id: UUID, to viewer: Viewer) throws -> Bool {
        try !pool.query("SELECT 1 FROM listings l WHERE l.id = \(id) AND \(Visibility.listing("l", viewer))").isEmpty
    }

    public func sameAsRow(_ input: ListingInput, _ alias: String) -> PostgresQuery {
        input.sameAsRow(resource.description, alias)
    }

    /// `delete` inside the caller's transaction (sync push).
    public func delete(_ viewer: Viewer, id: UUID, check: VersionCheck, on connection: PostgresConnection) throws -> ResourceRow {
        let current = try lock(connection, viewer, id: id)
        guard current.mayManage else { throw DomainError.forbidden("Only the listing's owner may delete it.") }
        guard check.allows(version: current.version) else { throw DomainError.preconditionFailed(currentVersion: current.version) }
        if current.status == .deleted { return try get(connection, id) }
        let rows = try connection.query("""
            UPDATE listings l SET status = 'deleted', deleted_at = now() WHERE l.id = \(id)
            RETURNING dispatch_json(l)::text AS json, l.version
            """)
        guard let row = rows.first else { throw DomainError.notFound("listing") }
        try ResourceSQL.recordStatusChange(entityType: "listing", id: id, old: current.status.rawValue, new: "deleted",
                                           by: viewer.userID, on: connection)
        return try ResourceSQL.decodeRow(row)
    }

    // MARK: Steps inside a transaction

    struct Locked {
        var status: ListingStatus
        var version: Int
        var ownedBy: UUID
        var assignedStaff: UUID?
        var mayUpdate: Bool
        var mayManage: Bool
    }

    /// The visible row, locked for the rest of the transaction, with the caller's permissions.
    func lock(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID) throws -> Locked {
        let rows = try connection.query("""
            SELECT l.status, l.version, l.owned_by, l.assigned_staff,
                   \(Visibility.mayUpdateListing("l", viewer)) AS may_update,
                   \(Visibility.mayManageListing("l", viewer)) AS may_manage
            FROM listings l WHERE l.id = \(id) AND \(Visibility.listing("l", viewer))
            FOR UPDATE OF l
            """)
        guard let row = rows.first else { throw DomainError.notFound("listing") }
        return Locked(status: try row.decodeKnown("status", table: "listings"),
                      version: try row.decode("version"), ownedBy: try row.decode("owned_by"),
                      assignedStaff: try row.decode("assigned_staff"),
                      mayUpdate: try row.decode("may_update"), mayManage: try row.decode("may_manage"))
    }

    func get(_ connection: PostgresConnection, _ id: UUID) throws -> ResourceRow {
        let rows = try connection.query("SELECT dispatch_json(l)::text AS json, l.version FROM listings l WHERE l.id = \(id)")
        guard let row = rows.first else { throw DomainError.notFound("listing") }
        return try ResourceSQL.decodeRow(row)
    }

    /// Inserts a new listing; nil when the id is taken. The rules: the owner is the caller
    /// unless an admin names another, referenced users must be active, the entered status is
    /// stamped and recorded in `status_changes`.
    public func insert(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID?, input: ListingInput) throws -> ResourceRow? {
        var input = input
        let owner = input.sent["owned_by"]?.uuid ?? viewer.userID
        input.set("owned_by", .uuid(owner))
        var errors = input.check(complete: true)
        guard owner == viewer.userID || viewer.isAdmin else {
            throw DomainError.forbidden("Only administrators may create listings owned by someone else.")
        }
        var references = [(field: "owned_by", id: owner)]
        if let staff = input.sent["assigned_staff"]?.uuid { references.append((field: "assigned_staff", id: staff)) }
        errors += try ResourceSQL.checkUsers(references, on: connection)
        guard errors.isEmpty else { throw DomainError.validation(errors) }
        let status = try Self.status(input, patch: false) ?? .draft
        let stamp = StatusRules.stampedColumn(enteringListingStatus: status)
        let stamps = ["activated_at", "pending_at", "closed_at"].map {
            ServerValue(column: $0, value: stamp == $0 ? "now()" : "NULL")
        }
        let rows = try connection.query(ResourceWriteSQL.insert(resource.description, alias: "l", id: id, input: input, server: stamps))
        guard let row = rows.first else { return nil }
        try ResourceSQL.recordStatusChange(entityType: "listing", id: try row.decode("id"), old: nil, new: status.rawValue,
                                           by: viewer.userID, on: connection)
        return try ResourceSQL.decodeRow(row)
    }

    public func modify(_ connection: PostgresConnection, _ viewer: Viewer, id: UUID, input: ListingInput, patch: Bool,
                check: VersionCheck) throws -> ResourceRow {
        let current = try lock(connection, viewer, id: id)
        guard current.mayUpdate else { throw DomainError.forbidden("Only the listing's owner or assigned staff may change it.") }
        guard check.allows(version: current.version) else { throw DomainError.preconditionFailed(currentVersion: current.version) }
        let newStatus = try Self.status(input, patch: patch) ?? current.status
        let verdict = StatusRules.update(from: current.status, to: newStatus)
        switch verdict {
        case .rowDeleted: throw DomainError.deleted("listing")
        case .useDelete: throw DomainError.validation([ListingInput.useDelete])
        case .restore:
            // Only a write that names the status restores (a replace leaving it out does not).
            guard input.provides("status") else { throw DomainError.deleted("listing") }
            guard current.mayManage else { throw DomainError.forbidden("Only the listing's owner may restore it.") }
        case .allowed: break
        }
        if !patch {
            let errors = input.check(complete: true)
            guard errors.isEmpty else { throw DomainError.validation(errors) }
        }
        var references: [(field: String, id: UUID)] = []
        var reassigns = false
        if let owner = input.sent["owned_by"]?.uuid, owner != current.ownedBy {
            reassigns = true
            references.append((field: "owned_by", id: owner))
        }
        if let staff = input.value(named: "assigned_staff", patch: patch), staff.uuid != current.assignedStaff {
            reassigns = true
            if let staff = staff.uuid { references.append((field: "assigned_staff", id: staff)) }
        }
        guard !reassigns || current.mayManage else {
            throw DomainError.forbidden("Only the listing's owner may change owned_by or assigned_staff.")
        }
        let errors = try ResourceSQL.checkUsers(references, on: connection)
        guard errors.isEmpty else { throw DomainError.validation(errors) }
        var sets = input.assignments(resource.description, patch: patch)
        if newStatus != current.status, let stamp = StatusRules.stampedColumn(enteringListingStatus: newStatus) {
            sets.append("\(unsafeSQL: stamp) = now()")
        }
        if verdict == .restore { sets.append("deleted_at = NULL") }
        guard !sets.isEmpty else { return try get(connection, id) }
        let rows = try connection.query(ResourceWriteSQL.update(resource.description, alias: "l", id: id, sets: sets))
        guard let row = rows.first else { throw DomainError.notFound("listing") }
        if newStatus != current.status {
            try ResourceSQL.recordStatusChange(entityType: "listing", id: id, old: current.status.rawValue,
                                               new: newStatus.rawValue, by: viewer.userID, on: connection)
        }
        return try ResourceSQL.decodeRow(row)
    }

    /// The status a write stores (nil: unchanged). The parser only lets the description's
    /// values through, so an unknown one is a caller's bug, reported rather than defaulted.
    static func status(_ input: ListingInput, patch: Bool) throws -> ListingStatus? {
        guard let value = input.value(named: "status", patch: patch) else { return nil }
        guard let text = value.text, let status = ListingStatus(rawValue: text) else {
            throw DomainError.validation([FieldError(field: "status", code: .invalidValue, message: "Is not a listing status.")])
        }
        return status
    }
}
