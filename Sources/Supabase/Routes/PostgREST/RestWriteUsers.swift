import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// Writes to `/rest/v1/users`, under `/v1`'s user rules (contract §2 "users"):
/// - `PATCH ?<filters>`: the visible users the filters match, in one transaction. A user
///   changes their own `name` and `avatar_hash`; an administrator also anyone's, plus
///   `user_type` and `deactivated_at` (any timestamp deactivates — the server stamps its own
///   time and revokes the user's sessions and API keys as `PATCH /v1/users/{id}` does; null
///   reactivates), and cannot lock themselves out. A matching user the caller may not change
///   refuses the whole request (403 `42501`). `id`, `email` and the stamps are ignored.
/// - `POST` and `DELETE` are refused (403 `42501`): administrators create users with
///   `POST /v1/users`, and users are deactivated, never deleted.
struct RestWriteUsers {
    let auth: AuthService
    let viewer: Viewer

    static let ignored: Set<String> = ["id", "email", "created_at", "updated_at", "version"]

    func respond(_ method: HTTPMethod, _ write: RestWriteRequest) throws -> HTTPResponse {
        switch method {
        case .post:
            throw RestWriteErrors.notAllowed("Users are created by an administrator",
                                             hint: "An administrator creates accounts with POST /v1/users.")
        case .delete:
            throw RestWriteErrors.notAllowed("Users are deactivated, never deleted",
                                             hint: "An administrator sets deactivated_at with PATCH.")
        default:
            return try patch(write)
        }
    }

    private func patch(_ write: RestWriteRequest) throws -> HTTPResponse {
        guard !write.query.conditions.isEmpty else { throw RestWriteErrors.missingFilter("UPDATE") }
        let (changes, deactivation) = try Self.changes(write.records.first ?? [:], admin: viewer.isAdmin)
        var revoked: [UUID] = []
        let rows = try auth.pool.withTransaction(maxAttempts: 3) { connection in
            revoked = []
            var written: [UUID] = []
            for id in try RestWriteSQL.lockMatching(write.query, viewer, on: connection) {
                guard viewer.isAdmin || id == viewer.userID else {
                    throw RestWriteErrors.notAllowed("You may change only your own profile")
                }
                let lockout = UserRules.selfLockout(target: id, admin: viewer.userID, userType: changes.userType,
                                                     deactivated: changes.deactivated, deactivationField: deactivation)
                guard lockout.isEmpty else { throw DomainError.validation(lockout) }
                guard let result = try auth.users.update(id: id, changes: changes, on: connection) else { continue }
                revoked += result.revokedSessions
                written.append(id)
            }
            let rows = try RestWriteSQL.rows(.users, ids: written, on: connection)
            if write.single, write.preferences.returning == .representation, rows.count != 1 {
                throw RestError.notSingular(rows.count)
            }
            guard write.preferences.returning == .representation, let columns = write.query.columns else { return rows }
            return try RestWriteSQL.project(rows, columns: columns, on: connection)
        }
        auth.sessionsEnded(revoked)
        return RestWriteResponse.make(.patch, write, rows: rows)
    }

    /// The changes a body asks for, checked with `/v1`'s user rules; the second value is the
    /// key that deactivates (for error details).
    static func changes(_ record: [String: JSONValue], admin: Bool) throws -> (UserStore.Changes, String) {
        if !admin, let key = ["user_type", "deactivated_at"].first(where: { record[$0] != nil }) {
            throw RestWriteErrors.notAllowed("Only administrators change \(key)")
        }
        var body = JSONRequestBody(object: record, allowed: ["name", "avatar_hash", "user_type", "deactivated_at"],
                                   ignored: ignored)
        var errors: [FieldError] = []
        var changes = UserStore.Changes()
        changes.name = body.string("name", required: false).flatMap { UserRules.checkName($0, errors: &errors) }
        changes.userType = body.userType("user_type", required: false)
        switch record["deactivated_at"] {
        case nil: break
        case .null?: changes.deactivated = false
        case .string?: changes.deactivated = body.timestamp("deactivated_at") != nil ? true : nil
        default: errors.append(FieldError(field: "deactivated_at", code: .invalidType, message: "Must be a timestamp or null."))
        }
        switch record["avatar_hash"] {
        case nil: break
        case .null?: changes.avatarHash = .some(nil)
        case .string(let text)? where text.count == 64 && text.allSatisfy(\.isHexDigit):
            // Whether a stored image has this hash is the user rules' check (`UserStore`).
            changes.avatarHash = .some(text.lowercased())
        default:
            errors.append(FieldError(field: "avatar_hash", code: .invalidValue,
                                     message: "Must be the SHA-256 of an uploaded image, as 64 hex digits, or null."))
        }
        errors.forEach { body.add($0) }
        try body.finish()
        return (changes, "deactivated_at")
    }
}
