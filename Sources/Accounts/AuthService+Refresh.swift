import Domain
import Foundation
import HTTPServer
import Store

extension AuthService {
    /// What a refresh-token exchange came to, for every refresh route to render in its own shape.
    package enum RefreshOutcome {
        /// The session goes on (a rotation, or a replay within the grace window answered with
        /// the session's current token).
        case session(user: User, sessionID: UUID, refreshToken: String)
        /// The token was spent before the grace window: the session has just been revoked.
        case reused
        /// Unknown, expired, revoked, or its user is deactivated.
        case invalid
    }

    /// The refresh rule of both `/v1/auth/refresh` and `/auth/v1/token?grant_type=refresh_token`:
    /// rotation, grace window and reuse detection are `SessionStore.rotate`'s; a detected reuse
    /// also revokes the session's access tokens in this process at once.
    package func refresh(presented token: String) throws -> RefreshOutcome {
        switch try sessions.rotate(presented: token) {
        case .rotated(let sessionID, let userID, let refreshToken):
            guard let user = try users.find(id: userID), user.isActive else { return .invalid }
            return .session(user: user, sessionID: sessionID, refreshToken: refreshToken)
        case .reuseDetected(let sessionID):
            sessionsEnded([sessionID])
            logger.warning("refresh token reuse; session revoked",
                                   metadata: ["session_id": .string(sessionID.uuidString)])
            return .reused
        case .invalid:
            return .invalid
        }
    }
}
