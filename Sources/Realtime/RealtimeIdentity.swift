import Accounts
import Credentials
import Domain
import Foundation
import Store

/// Who joined a channel, from the join's `access_token` (or a later `access_token` event).
/// Checked again on a timer and at every delivery: an expired or revoked token closes the
/// channel.
struct RealtimeIdentity: Sendable, Equatable {
    let userID: UUID
    let sessionID: UUID
    let isAdmin: Bool
    let expiresAt: Date

    var viewer: Viewer { Viewer(userID: userID, isAdmin: isAdmin) }

    /// Why a channel holding this identity must close now, or nil while it may stay.
    func problem(now: Date, revoked: (UUID) -> Bool) -> String? {
        if revoked(sessionID) { return "The session has been signed out" }
        if now >= expiresAt { return "Token has expired \(Int(now.timeIntervalSince(expiresAt))) seconds ago" }
        return nil
    }
}

extension AuthService {
    /// A realtime identity for `token`: a valid, unrevoked access token of an active user.
    /// The publishable key (which supabase clients send until a user signs in), API keys and
    /// anything else are refused: only signed-in users may join.
    func realtimeIdentity(token: String?, now: Date = Date()) throws(RealtimeJoinError) -> RealtimeIdentity {
        guard let token, !token.isEmpty else {
            throw .unauthorized("an access_token (a signed-in user's JWT) is required to join")
        }
        if token.hasPrefix("sb_") || token.hasPrefix(Self.apiKeyPrefix) {
            throw .unauthorized("the access_token must be a signed-in user's JWT, not a key")
        }
        let verified: VerifiedAccessToken
        do {
            verified = try verifyAccessToken(token, now: now)
        } catch .expired {
            throw .unauthorized("Token has expired")
        } catch .revoked {
            throw .unauthorized("The session has been signed out")
        } catch {
            throw .unauthorized("The access token is invalid")
        }
        let (userID, sessionID) = (verified.userID, verified.sessionID)
        let user: User?
        do {
            user = try users.find(id: userID)
        } catch {
            throw .unavailable("the database is unavailable; retry shortly")
        }
        guard let user, user.isActive else { throw .unauthorized("The account is no longer active") }
        return RealtimeIdentity(userID: userID, sessionID: sessionID, isAdmin: user.isAdmin,
                                expiresAt: verified.expiresAt)
    }
}
