import Foundation
import Postgres

/// Console sign-ins (migration 0022): a browser cookie bound to an ordinary sign-in session.
/// The cookie token is stored as SHA-256 hex only; a console session lives while its auth
/// session is neither revoked nor expired, so every revocation path ends it too.
public struct ConsoleSessionStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// A live console session: whose it is and the secret its forms carry.
    public struct Live: Sendable {
        public var sessionID: UUID
        public var userID: UUID
        public var csrfToken: String
    }

    public func create(tokenHash: String, sessionID: UUID, csrfToken: String, expiresAt: Date) throws {
        try pool.execute("""
            INSERT INTO console_sessions (token_hash, session_id, csrf_token, expires_at)
            VALUES (\(tokenHash), \(sessionID), \(csrfToken), \(expiresAt))
            """)
    }

    /// The session behind a cookie, or nil when it is unknown, expired or its sign-in session was revoked.
    public func find(tokenHash: String) throws -> Live? {
        let rows = try pool.query("""
            SELECT c.session_id, s.user_id, c.csrf_token FROM console_sessions c
            JOIN auth_sessions s ON s.id = c.session_id
            WHERE c.token_hash = \(tokenHash) AND c.expires_at > now()
              AND s.revoked_at IS NULL AND s.expires_at > now()
            """)
        guard let row = rows.first else { return nil }
        return Live(sessionID: try row.decode("session_id"), userID: try row.decode("user_id"),
                    csrfToken: try row.decode("csrf_token"))
    }
}
