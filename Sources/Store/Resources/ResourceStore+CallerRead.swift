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

    /// The statement of `get(callerID:id:)`, its text built once per resource
    /// (`CallerGetStatement`). Its plan is tested (ListPlanTests).
    func getQuery(callerID userID: UUID, id: UUID) -> PostgresQuery {
        CallerGetStatement.query(resource, callerID: userID, id: id)
    }
}
