import Domain
import Foundation
import Postgres

/// Sign-in sessions and their rotating refresh tokens (stored as SHA-256 hex only).
public struct SessionStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public enum RevocationReason: String, Sendable {
        case logout, reuseDetected = "reuse_detected", deactivated, passwordChanged = "password_changed", admin
    }

    public enum RotationResult: Sendable, Equatable {
        /// The token was current: it is now spent and `newHash` is the session's token.
        case rotated(sessionID: UUID, userID: UUID)
        /// The token was already spent: the whole session has just been revoked (theft signal).
        case reuseDetected(sessionID: UUID)
        /// Unknown, expired, or belonging to a revoked session or deactivated user.
        case invalid
    }

    public func create(userID: UUID, refreshTokenHash: String, expiresAt: Date,
                       userAgent: String?, clientAddress: String?) throws -> UUID {
        let rows = try pool.query("""
            INSERT INTO auth_sessions (user_id, refresh_token_hash, expires_at, user_agent, client_address)
            VALUES (\(userID), \(refreshTokenHash), \(expiresAt), \(userAgent as String?), \(clientAddress as String?))
            RETURNING id
            """)
        guard let row = rows.first else { throw StoreError.notFound }
        return try row.decode("id")
    }

    /// Exchanges the current refresh token `oldHash` for `newHash`. The row lock serialises
    /// concurrent refreshes of one session: the loser sees its token as spent.
    public func rotate(oldHash: String, newHash: String) throws -> RotationResult {
        try pool.withTransaction { connection in
            let current = try connection.query("""
                SELECT s.id, s.user_id, (s.revoked_at IS NULL AND s.expires_at > now() AND u.deactivated_at IS NULL) AS usable
                FROM auth_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.refresh_token_hash = \(oldHash)
                FOR UPDATE OF s
                """)
            if let row = current.first {
                let sessionID: UUID = try row.decode("id")
                guard try row.decode("usable", as: Bool.self) else { return .invalid }
                try connection.execute("""
                    UPDATE auth_sessions SET refresh_token_hash = \(newHash), rotation_count = rotation_count + 1,
                        rotated_at = now()
                    WHERE id = \(sessionID)
                    """)
                try connection.execute("INSERT INTO auth_spent_refresh_tokens (token_hash, session_id) VALUES (\(oldHash), \(sessionID))")
                return .rotated(sessionID: sessionID, userID: try row.decode("user_id"))
            }
            let spent = try connection.query("SELECT session_id FROM auth_spent_refresh_tokens WHERE token_hash = \(oldHash)")
            guard let row = spent.first else { return .invalid }
            let sessionID: UUID = try row.decode("session_id")
            try connection.execute("""
                UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(RevocationReason.reuseDetected.rawValue)
                WHERE id = \(sessionID) AND revoked_at IS NULL
                """)
            return .reuseDetected(sessionID: sessionID)
        }
    }

    public func revoke(sessionID: UUID, reason: RevocationReason) throws {
        try pool.execute("""
            UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(reason.rawValue)
            WHERE id = \(sessionID) AND revoked_at IS NULL
            """)
    }

    /// Revokes every live session of the user except `keep`; returns the revoked ids.
    public func revokeAll(userID: UUID, except keep: UUID?, reason: RevocationReason) throws -> [UUID] {
        try pool.withConnection { try Self.revokeAll(userID: userID, except: keep, reason: reason, on: $0) }
    }

    static func revokeAll(userID: UUID, except keep: UUID?, reason: RevocationReason,
                          on connection: PostgresConnection) throws -> [UUID] {
        try connection.query("""
            UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(reason.rawValue)
            WHERE user_id = \(userID) AND revoked_at IS NULL AND (\(keep as UUID?)::uuid IS NULL OR id <> \(keep as UUID?))
            RETURNING id
            """).map { try $0.decode("id") }
    }

    /// Sessions revoked at or after `since` with the database's current time, for the
    /// in-memory revocation set. Uses the database clock so server clock skew cannot skip rows.
    public func revokedSince(_ since: Date?) throws -> (ids: [UUID], databaseNow: Date) {
        let rows = try pool.query("""
            SELECT s.id, now() AS db_now FROM auth_sessions s
            WHERE s.revoked_at IS NOT NULL AND s.revoked_at >= coalesce(\(since as Date?), '-infinity'::timestamptz)
            UNION ALL SELECT NULL, now()
            """)
        var ids: [UUID] = []
        var now = Date()
        for row in rows {
            now = try row.decode("db_now")
            if let id: UUID = try row.decode("id") { ids.append(id) }
        }
        return (ids, now)
    }
}
