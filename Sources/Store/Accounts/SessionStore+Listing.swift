import Foundation
import Postgres

extension SessionStore {
    /// A live sign-in session as an administrator sees it: which device, from where, when it
    /// started and when it was last used (its last token refresh, or its start).
    public struct Summary: Sendable, Equatable {
        public var id: UUID
        public var createdAt: Date
        public var lastUsedAt: Date
        public var expiresAt: Date
        public var userAgent: String?
        public var clientAddress: String?
    }

    /// The user's live sessions (not revoked, not expired), most recently used first.
    public func list(userID: UUID) throws -> [Summary] {
        try pool.query("""
            SELECT id, created_at, coalesce(rotated_at, created_at) AS last_used_at, expires_at, user_agent, client_address
            FROM auth_sessions WHERE user_id = \(userID) AND revoked_at IS NULL AND expires_at > now()
            ORDER BY last_used_at DESC, id
            """).map { row in
            Summary(id: try row.decode("id"), createdAt: try row.decode("created_at"), lastUsedAt: try row.decode("last_used_at"),
                    expiresAt: try row.decode("expires_at"), userAgent: try row.decode("user_agent"),
                    clientAddress: try row.decode("client_address"))
        }
    }

    /// Revokes one of the user's sessions; false when it is not theirs or already revoked.
    public func revoke(sessionID: UUID, userID: UUID, reason: RevocationReason) throws -> Bool {
        try pool.execute("""
            UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(reason.rawValue)
            WHERE id = \(sessionID) AND user_id = \(userID) AND revoked_at IS NULL
            """) == 1
    }
}
