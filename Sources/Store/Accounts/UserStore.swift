import Domain
import Foundation
import Postgres

/// Users and their passwords. Deactivation revokes every session and API key of the user in
/// the same transaction, so there is no moment where a deactivated user still holds credentials.
public struct UserStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Changes: Sendable {
        public var name: String?
        public var userType: UserType?
        public var deactivated: Bool?
        /// nil: unchanged; `.some(nil)`: no avatar; `.some(hash)`: 64 lowercase hex digits naming a stored image.
        public var avatarHash: String??
        public init(name: String? = nil, userType: UserType? = nil, deactivated: Bool? = nil, avatarHash: String?? = nil) {
            self.name = name
            self.userType = userType
            self.deactivated = deactivated
            self.avatarHash = avatarHash
        }
    }

    /// `users.avatar_hash` references `avatars` (migration 0014), whichever route writes it.
    public static let avatarHashConstraint = "users_avatar_hash_fkey"

    /// What a write of an `avatar_hash` naming no stored image answers, on every surface.
    public static let unknownAvatar = DomainError(
        .invalidInput, .unknownAvatar, "avatar_hash names no stored image.",
        fields: [FieldError(field: "avatar_hash", code: .unknownAvatar, message: "No stored image has this hash; upload it first.")],
        hint: "Upload the image (PUT /v1/me/avatar or /storage/v1/object/avatars/…), then set its SHA-256 hex.")

    /// Inserts a user with its password hash.
    public func create(email: String, name: String, userType: UserType, passwordHash: String) throws -> User {
        do {
            return try pool.withTransaction { connection in
                let rows = try connection.query("""
                    INSERT INTO users AS u (name, email, user_type) VALUES (\(name), \(email), \(userType.rawValue))
                    RETURNING \(unsafeSQL: UserRow.columns)
                    """)
                guard let row = rows.first else { throw DomainError.internalError }
                let user = try UserRow.decode(row)
                try connection.execute("INSERT INTO user_passwords (user_id, hash) VALUES (\(user.id), \(passwordHash))")
                return user
            }
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw Self.emailTaken
        }
    }

    public func find(id: UUID) throws -> User? {
        try pool.query("SELECT \(unsafeSQL: UserRow.columns) FROM users u WHERE u.id = \(id)").first.map(UserRow.decode)
    }

    /// The user with this email (case-insensitive) and their password hash, for signing in.
    public func findCredentials(email: String) throws -> (user: User, passwordHash: String?)? {
        let rows = try pool.query("""
            SELECT \(unsafeSQL: UserRow.columns), p.hash AS password_hash
            FROM users u LEFT JOIN user_passwords p ON p.user_id = u.id
            WHERE lower(u.email) = lower(\(email))
            """)
        guard let row = rows.first else { return nil }
        return (try UserRow.decode(row), try row.decode("password_hash"))
    }

    public func passwordHash(userID: UUID) throws -> String? {
        try pool.query("SELECT hash FROM user_passwords WHERE user_id = \(userID)").first?.decode("hash")
    }

    /// Replaces the hash; `onlyIfCurrent` makes a background rehash lose against a concurrent
    /// password change instead of overwriting it.
    public func setPasswordHash(userID: UUID, hash: String, onlyIfCurrent current: String? = nil) throws {
        if let current {
            try pool.execute("UPDATE user_passwords SET hash = \(hash), changed_at = now() WHERE user_id = \(userID) AND hash = \(current)")
        } else {
            try pool.withConnection { try Self.setPasswordHash(userID: userID, hash: hash, on: $0) }
        }
    }

    /// Whether any password is still stored as a pre-Argon2id (scrypt) hash. Stops at the
    /// first; read on a failed sign-in only, which the KDF already makes hundreds of times dearer.
    public func legacyPasswordHashesRemain() throws -> Bool {
        try !pool.query("SELECT 1 AS one FROM user_passwords WHERE hash LIKE '$scrypt$%' LIMIT 1").isEmpty
    }

    /// Every user, or only active ones; ordered by name for stable listings.
    public func list(includeDeactivated: Bool) throws -> [User] {
        try pool.query("""
            SELECT \(unsafeSQL: UserRow.columns) FROM users u
            WHERE \(includeDeactivated) OR u.deactivated_at IS NULL
            ORDER BY lower(u.name), u.id
            """).map(UserRow.decode)
    }

    /// Applies `changes`; returns the updated user and the ids of sessions revoked by a
    /// deactivation (so the caller can stop their access tokens at once). Nil when no such user.
    public func update(id: UUID, changes: Changes) throws -> (user: User, revokedSessions: [UUID])? {
        do {
            return try pool.withTransaction { try update(id: id, changes: changes, on: $0) }
        } catch let error as PostgresError where error.constraint == Self.avatarHashConstraint {
            throw Self.unknownAvatar
        }
    }

    /// `update` inside the caller's transaction (`/rest/v1` writes).
    public func update(id: UUID, changes: Changes,
                       on connection: PostgresConnection) throws -> (user: User, revokedSessions: [UUID])? {
        let rows = try connection.query("""
            UPDATE users u SET
                name = coalesce(\(changes.name as String?), u.name),
                user_type = coalesce(\(changes.userType?.rawValue as String?), u.user_type),
                deactivated_at = CASE
                    WHEN \(changes.deactivated as Bool?) IS NULL THEN u.deactivated_at
                    WHEN \(changes.deactivated as Bool?) THEN coalesce(u.deactivated_at, now())
                    ELSE NULL END,
                avatar_hash = CASE WHEN \(changes.avatarHash != nil) THEN \(changes.avatarHash ?? nil) ELSE u.avatar_hash END
            WHERE u.id = \(id)
            RETURNING \(unsafeSQL: UserRow.columns)
            """)
        guard let row = rows.first else { return nil }
        let user = try UserRow.decode(row)
        var revoked: [UUID] = []
        if changes.deactivated == true {
            revoked = try SessionStore.revokeAll(userID: id, except: nil, reason: .deactivated, on: connection)
            try connection.execute("UPDATE api_keys SET revoked_at = now() WHERE user_id = \(id) AND revoked_at IS NULL")
        }
        return (user, revoked)
    }

    /// Points the user at an avatar already stored by `AvatarStore` (bumps updated_at/version).
    public func setAvatarHash(userID: UUID, hash: String) throws -> User? {
        try pool.query("""
            UPDATE users u SET avatar_hash = \(hash) WHERE u.id = \(userID) RETURNING \(unsafeSQL: UserRow.columns)
            """).first.map(UserRow.decode)
    }
}
