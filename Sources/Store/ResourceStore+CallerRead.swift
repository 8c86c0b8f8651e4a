import Domain
import Foundation
import Postgres

/// What `GET /v1/{r}/{id}` needs from the database, in one statement.
public enum CallerRowRead: Sendable, Equatable {
    /// The caller's account is gone or deactivated: the request answers 401, as every
    /// authenticated route does (`AuthService.currentUser`).
    case callerInactive
    /// The row as the caller sees it.
    case row(ResourceRow)
}

extension ResourceStore {
    /// `get` for the caller `userID`, read in the same statement as the caller's users row
    /// (active? admin?). Reading the users row first was a second round trip on every read:
    /// about a fifth of a `GET /v1/tasks/{id}`'s instructions (bench/callgrind) and a second
    /// statement for PostgreSQL. Throws 404 when the row does not exist or is invisible.
    public func get(callerID userID: UUID, id: UUID) throws -> CallerRowRead {
        let rows = try pool.query(getQuery(callerID: userID, id: id))
        guard let row = rows.first, try row.decode("active", as: Bool.self) else { return .callerInactive }
        // The role as the users row says it, as `currentUser` decodes it (an unknown stored
        // value is an error, never a guess).
        let _: UserType = try row.decodeKnown("user_type", table: "users")
        guard let json = try row.decode("json", as: String?.self) else { throw DomainError.notFound(noun) }
        return .row(ResourceRow(json: json, version: try row.decode("version")))
    }

    /// The statement of `get(callerID:id:)`: the users row, and through a lateral join the
    /// resource row under the same rule as `getQuery` (admins see every row; a realtor's
    /// predicate is `Visibility.predicateForOneRow`), read only for an active caller. Its plan
    /// is tested (ListPlanTests).
    func getQuery(callerID userID: UUID, id: UUID) -> PostgresQuery {
        let description = resource.description
        let visible = Visibility.predicateForOneRow(description.visibility, alias: "r", subject: .user(userID))
        return """
            SELECT u.user_type, u.deactivated_at IS NULL AS active, r.json, r.version
            FROM users u LEFT JOIN LATERAL (
                SELECT \(StoredRowJSON.text("r", table: description.table)) AS json, r.version FROM \(unsafeSQL: description.table) r
                WHERE r.id = \(id) AND (u.user_type = '\(unsafeSQL: UserType.admin.rawValue)' OR \(visible))
            ) r ON u.deactivated_at IS NULL
            WHERE u.id = \(userID)
            """
    }
}
