import Domain
import Foundation
import Postgres

/// The outcome of a write whose statement also reads the caller's account (active? admin?),
/// so a write makes one round trip instead of the account check's and its own.
public enum CallerWrite<Value: Sendable>: Sendable {
    /// The caller's account is gone or deactivated: nothing was written, and the request
    /// answers 401 as every authenticated route does (`AuthService.currentUser`).
    case callerInactive
    /// The write's answer.
    case written(Value)
}

extension CallerWrite: Equatable where Value: Equatable {}

/// The caller's users row as a write statement reads it: the CTE `caller` (one row when the
/// account is active, none otherwise), and the rules' predicates under the role it holds.
/// Reading the role in the write's own statement sees the account as of the write's snapshot,
/// as the separate check did just before it (a deactivation committed in between was not seen
/// then either).
enum CallerSQL {
    /// `caller AS (…)`: `user_type` and `admin` of an active `userID`; no row otherwise.
    static func cte(_ userID: UUID) -> PostgresQuery {
        """
        caller AS (SELECT u.user_type, u.user_type = '\(unsafeSQL: UserType.admin.rawValue)' AS admin
                   FROM users u WHERE u.id = \(userID) AND u.deactivated_at IS NULL)
        """
    }

    /// TRUE when the caller is active and either an administrator or `realtor` (the realtor
    /// rule of `Visibility`, for this caller) holds. Needs `caller` in the statement.
    static func allows(_ realtor: PostgresQuery) -> PostgresQuery {
        "(\(active) AND \(sees(realtor)))"
    }

    /// TRUE when the caller's account is active. Needs `caller` in the statement.
    static let active: PostgresQuery = "EXISTS (SELECT 1 FROM caller)"

    /// The rules' `guard !viewer.isAdmin else { return "TRUE" }` in SQL: an administrator, or
    /// `realtor` holds. Alone it is not the active test (NULL OR TRUE is TRUE when there is no
    /// caller row): use it where `caller` already gates the statement, else `allows`.
    static func sees(_ realtor: PostgresQuery) -> PostgresQuery {
        "((SELECT c.admin FROM caller c) OR \(realtor))"
    }

    /// The viewer a `caller` row describes; the role decoded as `currentUser` decodes it (an
    /// unknown stored value is an error, never a guess).
    static func viewer(_ userID: UUID, _ row: PostgresRow) throws -> Viewer {
        let type: UserType = try row.decodeKnown("user_type", table: "users")
        return Viewer(userID: userID, isAdmin: type == .admin)
    }

    /// The caller's viewer read on its own (nil: gone or deactivated), for a write that fails
    /// before its statement and must still answer 401 before its own error.
    static func viewer(_ userID: UUID, on connection: PostgresConnection) throws -> Viewer? {
        let rows = try connection.query("SELECT u.user_type FROM users u WHERE u.id = \(userID) AND u.deactivated_at IS NULL")
        return try rows.first.map { try viewer(userID, $0) }
    }
}
