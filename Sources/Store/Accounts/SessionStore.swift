import Domain
import Foundation
import Postgres

/// Sign-in sessions and their rotating refresh tokens (stored as SHA-256 hex only).
public struct SessionStore: Sendable {
    let pool: PostgresPool
    /// How long after a rotation a replay of the spent token still answers with the session's
    /// current token instead of revoking the session (see `rotate(presented:)`).
    public let reuseGrace: Duration

    /// GoTrue's default refresh-token reuse interval.
    public static let defaultReuseGrace: Duration = .seconds(10)

    public init(pool: PostgresPool, reuseGrace: Duration = SessionStore.defaultReuseGrace) {
        self.pool = pool
        self.reuseGrace = reuseGrace
    }

    public enum RevocationReason: String, Sendable {
        case logout, reuseDetected = "reuse_detected", deactivated, passwordChanged = "password_changed", admin
    }

    public func create(userID: UUID, refreshTokenHash: String, expiresAt: Date,
                       userAgent: String?, clientAddress: String?) throws -> UUID {
        try pool.withConnection {
            try Self.create(userID: userID, refreshTokenHash: refreshTokenHash, expiresAt: expiresAt, userAgent: userAgent,
                            clientAddress: clientAddress, passwordResetFor: nil, on: $0)
        }
    }

    /// `create` inside the caller's transaction. `passwordResetFor`: a session opened by a
    /// recovery or invitation mail may set a password once without the current one, for this long.
    /// `passwordVerified`: opened by a password sign-in (proof of presence for a short while,
    /// `passwordVerified(sessionID:within:)`).
    public static func create(userID: UUID, refreshTokenHash: String, expiresAt: Date, userAgent: String?,
                              clientAddress: String?, passwordResetFor: Duration?, passwordVerified: Bool = false,
                              on connection: PostgresConnection) throws -> UUID {
        let resetSeconds = passwordResetFor.map { $0.components.seconds }
        let rows = try connection.query("""
            INSERT INTO auth_sessions (user_id, refresh_token_hash, expires_at, user_agent, client_address, password_reset_until,
                                       password_verified_at)
            VALUES (\(userID), \(refreshTokenHash), \(expiresAt), \(userAgent as String?), \(clientAddress as String?),
                    now() + make_interval(secs => \(resetSeconds as Int64?)), CASE WHEN \(passwordVerified) THEN now() END)
            RETURNING id
            """)
        guard let row = rows.first else { throw DomainError.internalError }
        return try row.decode("id")
    }

    /// Spends the session's one password change without `current_password` (recovery,
    /// invitation): true at most once, and only before it runs out.
    public static func spendPasswordReset(sessionID: UUID, on connection: PostgresConnection) throws -> Bool {
        try connection.execute("""
            UPDATE auth_sessions SET password_reset_until = NULL
            WHERE id = \(sessionID) AND revoked_at IS NULL AND password_reset_until > now()
            """) == 1
    }

    /// Whether the session may still set a password without the current one (read only).
    /// Whether the session was opened by a password sign-in less than `window` ago.
    public func passwordVerified(sessionID: UUID, within window: Duration) throws -> Bool {
        try pool.withConnection {
            try $0.query("""
                SELECT 1 AS one FROM auth_sessions WHERE id = \(sessionID) AND revoked_at IS NULL
                  AND password_verified_at > now() - make_interval(secs => \(window.components.seconds))
                """).first != nil
        }
    }

    public func mayResetPassword(sessionID: UUID) throws -> Bool {
        try pool.query("""
            SELECT 1 AS one FROM auth_sessions WHERE id = \(sessionID) AND revoked_at IS NULL AND password_reset_until > now()
            """).first != nil
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

    /// Revoking every session is what a password change, a reset and "sign out everywhere" do,
    /// so it also voids the account's pending address change and recovery mail: whoever
    /// started them with the old credentials must not finish them afterwards.
    public static func revokeAll(userID: UUID, except keep: UUID?, reason: RevocationReason,
                                 on connection: PostgresConnection) throws -> [UUID] {
        try EmailTokenStore.voidPendingChangeAndRecovery(userID: userID, on: connection)
        return try connection.query("""
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
