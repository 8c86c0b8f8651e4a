import Domain
import Foundation
import Postgres

/// The one mapping between `users` rows and `User`, so every query selects the same columns.
enum UserRow {
    static let columns = "u.id, u.name, u.email, u.user_type, u.avatar_hash, u.deactivated_at, u.created_at, u.updated_at, u.version"

    static func decode(_ row: PostgresRow) throws -> User {
        let userType: UserType = try row.decodeKnown("user_type", table: "users")
        return User(
            id: try row.decode("id"), name: try row.decode("name"), email: try row.decode("email"),
            userType: userType, avatarHash: try row.decode("avatar_hash"),
            deactivatedAt: try row.decode("deactivated_at"), createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at"), version: try row.decode("version")
        )
    }
}
