import Domain
import Foundation
import Postgres

/// Long-lived API keys, stored as SHA-256 hex; looked up on every request that presents one,
/// so revocation takes effect immediately.
public struct APIKeyStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct APIKey: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var prefix: String
        public var createdAt: Date
        public var lastUsedAt: Date?
        public var expiresAt: Date?
    }

    static let columns = "id, name, prefix, created_at, last_used_at, expires_at"

    static func decode(_ row: PostgresRow) throws -> APIKey {
        APIKey(id: try row.decode("id"), name: try row.decode("name"), prefix: try row.decode("prefix"),
               createdAt: try row.decode("created_at"), lastUsedAt: try row.decode("last_used_at"),
               expiresAt: try row.decode("expires_at"))
    }

    public func create(userID: UUID, name: String, keyHash: String, prefix: String, expiresAt: Date?) throws -> APIKey {
        let rows = try pool.query("""
            INSERT INTO api_keys (user_id, name, key_hash, prefix, expires_at)
            VALUES (\(userID), \(name), \(keyHash), \(prefix), \(expiresAt as Date?))
            RETURNING \(unsafeSQL: Self.columns)
            """)
        guard let row = rows.first else { throw DomainError.internalError }
        return try Self.decode(row)
    }

    /// The owner's live (unrevoked) keys, newest first. Expired keys stay listed so their owner
    /// can see why an integration stopped working.
    public func list(userID: UUID) throws -> [APIKey] {
        try pool.query("""
            SELECT \(unsafeSQL: Self.columns) FROM api_keys
            WHERE user_id = \(userID) AND revoked_at IS NULL ORDER BY created_at DESC, id
            """).map(Self.decode)
    }

    /// Revokes the owner's key; false when it does not exist, is not theirs, or is already revoked.
    public func revoke(id: UUID, userID: UUID) throws -> Bool {
        try pool.execute("""
            UPDATE api_keys SET revoked_at = now() WHERE id = \(id) AND user_id = \(userID) AND revoked_at IS NULL
            """) == 1
    }

    /// Revokes every live key of the user inside the caller's transaction (a completed
    /// recovery: keys an intruder made must not outlive the owner taking the account back).
    /// Returns how many were revoked.
    @discardableResult
    public static func revokeAll(userID: UUID, on connection: PostgresConnection) throws -> Int {
        try connection.execute("UPDATE api_keys SET revoked_at = now() WHERE user_id = \(userID) AND revoked_at IS NULL")
    }

    /// The owner of a usable key (not revoked, not expired, owner active), recording use at most
    /// once a minute so busy integrations do not turn every request into a write.
    public func authenticate(keyHash: String) throws -> (keyID: UUID, userID: UUID)? {
        let rows = try pool.query("""
            SELECT k.id, k.user_id, (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stale
            FROM api_keys k JOIN users u ON u.id = k.user_id
            WHERE k.key_hash = \(keyHash) AND k.revoked_at IS NULL
              AND (k.expires_at IS NULL OR k.expires_at > now()) AND u.deactivated_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        let keyID: UUID = try row.decode("id")
        if try row.decode("stale", as: Bool.self) {
            try pool.execute("UPDATE api_keys SET last_used_at = now() WHERE id = \(keyID)")
        }
        return (keyID, try row.decode("user_id"))
    }
}
