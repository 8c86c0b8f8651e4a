import Credentials
import Foundation
import Postgres

/// Refresh-token rotation with reuse detection and a retry grace window. The rule lives here,
/// not in a route, so every refresh endpoint (`/v1/auth/refresh`, a Supabase-compatible one)
/// behaves the same.
extension SessionStore {
    public enum RotationResult: Sendable, Equatable {
        /// The session goes on with `refreshToken`: a fresh one when the presented token was
        /// current, or the session's current one when it was a replay within the grace window.
        case rotated(sessionID: UUID, userID: UUID, refreshToken: String)
        /// The token was spent before the grace window: the whole session has just been
        /// revoked (theft signal).
        case reuseDetected(sessionID: UUID)
        /// Unknown, expired, or belonging to a revoked session or deactivated user.
        case invalid
    }

    /// How many rotations a replay may walk forward to reach the current token; a client
    /// retrying within seconds is one or two behind, anything longer is not a retry.
    static let maxReplayHops = 4

    /// Exchanges `presented` for a new refresh token.
    ///
    /// - Current token: it is spent, a new one becomes current, and the new one is kept
    ///   sealed under the spent one (`TokenSealer`) with the spend time.
    /// - Spent within `reuseGrace` (a retry, or two concurrent refreshes): answers with the
    ///   session's current token, recovered by opening the sealed successors forward from
    ///   the presented token. The session stays valid.
    /// - Spent earlier: the session is revoked (`reuse_detected`).
    ///
    /// Race safety: the session row lock serialises concurrent refreshes. The loser of a race
    /// re-reads under READ COMMITTED, finds its token spent a moment ago, and answers with the
    /// winner's token: both succeed with the same pair.
    public func rotate(presented: String) throws -> RotationResult {
        let replacement = try SecureRandom.token()
        let sealed = try TokenSealer.seal(replacement, under: presented)
        let presentedHash = SHA256.hex(presented)
        let graceSeconds = Double(reuseGrace.components.seconds) + Double(reuseGrace.components.attoseconds) / 1e18
        return try pool.withTransaction { connection in
            let current = try connection.query("""
                SELECT s.id, s.user_id, (s.revoked_at IS NULL AND s.expires_at > now() AND u.deactivated_at IS NULL) AS usable
                FROM auth_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.refresh_token_hash = \(presentedHash)
                FOR UPDATE OF s
                """)
            if let row = current.first {
                let sessionID: UUID = try row.decode("id")
                guard try row.decode("usable", as: Bool.self) else { return .invalid }
                try connection.execute("""
                    UPDATE auth_sessions SET refresh_token_hash = \(SHA256.hex(replacement)),
                        rotation_count = rotation_count + 1, rotated_at = now()
                    WHERE id = \(sessionID)
                    """)
                try connection.execute("""
                    INSERT INTO auth_spent_refresh_tokens (token_hash, session_id, successor_sealed)
                    VALUES (\(presentedHash), \(sessionID), \(Data(sealed)))
                    """)
                return .rotated(sessionID: sessionID, userID: try row.decode("user_id"), refreshToken: replacement)
            }
            let spent = try connection.query("""
                SELECT session_id, successor_sealed, spent_at > now() - make_interval(secs => \(graceSeconds)) AS in_grace
                FROM auth_spent_refresh_tokens WHERE token_hash = \(presentedHash)
                """)
            guard let row = spent.first else { return .invalid }
            let sessionID: UUID = try row.decode("session_id")
            if try row.decode("in_grace", as: Bool.self), let successor: Data = try row.decode("successor_sealed"),
               let replayed = try Self.replay(presented, successor: Array(successor), sessionID: sessionID, on: connection) {
                return replayed
            }
            try connection.execute("""
                UPDATE auth_sessions SET revoked_at = now(), revoked_reason = \(RevocationReason.reuseDetected.rawValue)
                WHERE id = \(sessionID) AND revoked_at IS NULL
                """)
            return .reuseDetected(sessionID: sessionID)
        }
    }

    /// The session's current token reached by opening sealed successors from `presented`;
    /// `.invalid` when the session is no longer usable; nil when the chain does not lead to
    /// the current token (treated as reuse by the caller).
    static func replay(_ presented: String, successor: [UInt8], sessionID: UUID,
                       on connection: PostgresConnection) throws -> RotationResult? {
        // Locks the session so a concurrent rotation is either wholly before or after us.
        let session = try connection.query("""
            SELECT s.user_id, s.refresh_token_hash,
                (s.revoked_at IS NULL AND s.expires_at > now() AND u.deactivated_at IS NULL) AS usable
            FROM auth_sessions s JOIN users u ON u.id = s.user_id
            WHERE s.id = \(sessionID)
            FOR UPDATE OF s
            """)
        guard let row = session.first else { return .invalid }
        guard try row.decode("usable", as: Bool.self) else { return .invalid }
        let currentHash: String = try row.decode("refresh_token_hash")
        var key = presented
        var sealed = successor
        for _ in 0..<maxReplayHops {
            guard let next = TokenSealer.open(sealed, under: key) else { return nil }
            let nextHash = SHA256.hex(next)
            if nextHash == currentHash {
                return .rotated(sessionID: sessionID, userID: try row.decode("user_id"), refreshToken: next)
            }
            let hop = try connection.query("""
                SELECT successor_sealed FROM auth_spent_refresh_tokens
                WHERE token_hash = \(nextHash) AND session_id = \(sessionID)
                """)
            guard let further: Data = try hop.first?.decode("successor_sealed") else { return nil }
            key = next
            sealed = Array(further)
        }
        return nil
    }
}
