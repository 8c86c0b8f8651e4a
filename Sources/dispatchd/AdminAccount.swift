import Credentials
import Foundation
import Postgres

/// Creates administrator accounts from the command line and on the first embedded start.
enum AdminAccount {
    static let firstAdminEmail = "admin@dispatch.local"
    static let minimumPasswordLength = 10  // Same as the API's rule (Domain.UserRules).

    /// The account could not be created for a reason other than bad arguments (exit 1).
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    struct Created {
        let id: String
        let email: String
        /// Set when the password was generated and must be shown to the operator once.
        let generatedPassword: String?
    }

    /// Inserts the user and its password hash in one transaction.
    static func create(email: String, name: String, password: String?, pool: PostgresPool) throws -> Created {
        let email = email.trimmingCharacters(in: .whitespaces)
        let name = name.trimmingCharacters(in: .whitespaces)
        guard let at = email.firstIndex(of: "@"), at != email.startIndex, email.index(after: at) != email.endIndex else {
            throw ConfigurationError("--email must be an email address (got \"\(email)\")")
        }
        guard !name.isEmpty else { throw ConfigurationError("--name must not be empty") }
        if let password, password.count < minimumPasswordLength {
            throw ConfigurationError("--password must be at least \(minimumPasswordLength) characters")
        }
        // 18 random bytes → 24 URL-safe characters: strong, and easy to copy from a terminal.
        let generated = password == nil ? try SecureRandom.token(byteCount: 18) : nil
        let hash = try PasswordHasher().hash(password ?? generated ?? "")
        do {
            let id = try pool.withTransaction { connection -> String in
                let rows = try connection.query("""
                    INSERT INTO users (name, email, user_type) VALUES (\(name), \(email), 'admin') RETURNING id::text
                    """)
                guard let row = rows.first else {
                    throw Failure(message: "the database returned no id for the new user")
                }
                let id: String = try row.decode("id")
                try connection.execute("""
                    INSERT INTO user_passwords (user_id, hash) VALUES (\(id)::uuid, \(hash))
                    """)
                return id
            }
            return Created(id: id, email: email, generatedPassword: generated)
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw Failure(message: "a user with email \(email) already exists")
        }
    }

    /// Creates `admin@dispatch.local` when the database has no users at all (first start).
    static func createFirstIfNeeded(pool: PostgresPool) throws -> Created? {
        let rows = try pool.query("SELECT EXISTS (SELECT 1 FROM users) AS any_user")
        let anyUser: Bool = try rows.first?.decode("any_user") ?? true
        guard !anyUser else { return nil }
        return try create(email: firstAdminEmail, name: "Administrator", password: nil, pool: pool)
    }
}
