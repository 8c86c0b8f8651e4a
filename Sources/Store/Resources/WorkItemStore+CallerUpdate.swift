import Domain
import Foundation
import Postgres

/// `PATCH /v1/{tasks|activities}/{id}` for the caller `userID`, with the caller's account read
/// in the statement that locks the row (`CallerSQL`): one round trip fewer than the account
/// check before the transaction. The row is locked, and its delete permission computed, under
/// the role the users row holds; the rest is `modify`'s (`change`).
extension WorkItemStore {
    /// The `PATCH`; `.callerInactive` (nothing locked or written) when the account is gone or
    /// deactivated.
    public func update(callerID userID: UUID, id: UUID, input: WorkItemInput, check: VersionCheck) throws -> CallerWrite<ResourceRow> {
        try pool.withTransaction { connection in
            guard let (viewer, current) = try lock(connection, callerID: userID, id: id) else { return .callerInactive }
            return .written(try change(connection, viewer, id: id, input: input, patch: true, check: check, current: current))
        }
    }

    /// `lock` with the caller's users row read in the same statement: nil when the account is
    /// inactive; 404 when the row does not exist or the caller does not see it.
    func lock(_ connection: PostgresConnection, callerID userID: UUID, id: UUID) throws -> (Viewer, Locked)? {
        // The realtor rules of `lock`, for this caller (the one-row form of its visibility
        // rule: the row's listing probed by key); an administrator passes through `c.admin`.
        let realtor = Viewer(userID: userID, isAdmin: false)
        let rows = try connection.query("""
            WITH \(CallerSQL.cte(userID))
            SELECT c.user_type, t.status, t.version, t.claimed_by, t.listing_id, t.may_delete
            FROM caller c LEFT JOIN LATERAL (
                SELECT t.status, t.version, t.claimed_by, t.listing_id,
                       (c.admin OR \(Visibility.mayDeleteWorkItem("t", realtor))) AS may_delete
                FROM \(unsafeSQL: table) t WHERE t.id = \(id) AND (c.admin OR \(Visibility.workItemRow("t", realtor)))
                FOR UPDATE OF t
            ) t ON TRUE
            """)
        guard let row = rows.first else { return nil }
        let viewer = try CallerSQL.viewer(userID, row)
        guard try row.decode("version", as: Int?.self) != nil else { throw DomainError.notFound(kind.rawValue) }
        return (viewer, try locked(row))
    }
}
