import Credentials
import Foundation
import Postgres

/// Why an access token was refused.
package enum AccessTokenRefusal: Error {
    case expired, invalid, revoked
}

/// A verified access token: whose, which session, until when.
package struct VerifiedAccessToken: Sendable {
    package let userID: UUID
    package let sessionID: UUID
    package let expiresAt: Date
}

extension AuthService {
    /// The one check of an access token, for `/v1`, the Supabase families and Realtime alike:
    /// signed with our secret, unexpired, for a signed-in user (the `authenticated` role), and
    /// its session not revoked. No database round trip (`VerifiedTokenCache`, `RevokedSessions`).
    package func verifyAccessToken(_ token: String, now: Date = Date()) throws(AccessTokenRefusal) -> VerifiedAccessToken {
        let claims: AccessTokenClaims
        do {
            claims = try verifiedTokens.verify(token, now: now)
        } catch .tokenExpired {
            throw .expired
        } catch {
            throw .invalid
        }
        guard claims.role == AccessTokenClaims.authenticatedRole,
              let userID = UUIDText.parse(claims.sub), let sessionID = UUIDText.parse(claims.sid)
        else { throw .invalid }
        guard !revokedSessions.contains(sessionID) else { throw .revoked }
        return VerifiedAccessToken(userID: userID, sessionID: sessionID, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
    }
}
