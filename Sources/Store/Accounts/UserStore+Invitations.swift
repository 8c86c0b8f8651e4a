import Domain
import Foundation
import Postgres

/// The user writes of the e-mail flows, inside the caller's transaction so the
/// mail that goes with them is queued atomically.
extension UserStore {
    /// The active account with this address (case-insensitive) and whether it has a password;
    /// nil for unknown and deactivated accounts alike (mail goes to neither).
    public static func findActive(email: String, on connection: PostgresConnection) throws -> (user: User, hasPassword: Bool)? {
        let rows = try connection.query("""
            SELECT \(unsafeSQL: UserRow.columns), p.user_id IS NOT NULL AS has_password
            FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id
            WHERE lower(u.email) = lower(\(email)) AND u.deactivated_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        return (try UserRow.decode(row), try row.decode("has_password"))
    }

    public static func find(id: UUID, on connection: PostgresConnection) throws -> User? {
        try connection.query("SELECT \(unsafeSQL: UserRow.columns) FROM users u WHERE u.id = \(id)").first.map(UserRow.decode)
    }

    /// An account without a password: invited by an administrator (or signed up by code when
    /// the operator allows it). It signs in through its mail and then sets a password.
    public static func createWithoutPassword(email: String, name: String, userType: UserType,
                                             on connection: PostgresConnection) throws -> User {
        do {
            let rows = try connection.query("""
                INSERT INTO users AS u (name, email, user_type) VALUES (\(name), \(email), \(userType.rawValue))
                RETURNING \(unsafeSQL: UserRow.columns)
                """)
            guard let row = rows.first else { throw DomainError.internalError }
            return try UserRow.decode(row)
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw emailTaken
        }
    }

    /// Moves the account to `email` (a confirmed address change).
    public static func changeEmail(userID: UUID, to email: String, on connection: PostgresConnection) throws -> User? {
        do {
            return try connection.query("""
                UPDATE users u SET email = \(email) WHERE u.id = \(userID) RETURNING \(unsafeSQL: UserRow.columns)
                """).first.map(UserRow.decode)
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw emailTaken
        }
    }

    /// Who already uses `email` (case-insensitive): nil when nobody does.
    public enum EmailHolder: Sendable { case active, deactivated }

    public static func emailHolder(_ email: String, on connection: PostgresConnection) throws -> EmailHolder? {
        guard let row = try connection.query("""
            SELECT deactivated_at IS NOT NULL AS deactivated FROM users WHERE lower(email) = lower(\(email))
            """).first else { return nil }
        return try row.decode("deactivated", as: Bool.self) ? .deactivated : .active
    }

    public static func hasPassword(userID: UUID, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT 1 AS one FROM user_passwords WHERE user_id = \(userID)").first != nil
    }

    public static func setPasswordHash(userID: UUID, hash: String, on connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO user_passwords (user_id, hash) VALUES (\(userID), \(hash))
            ON CONFLICT (user_id) DO UPDATE SET hash = EXCLUDED.hash, changed_at = now()
            """)
    }

    public static let emailTaken = DomainError(.conflict, .emailTaken, "A user with this email already exists.",
                                        details: ["field": .string("email")])
}
