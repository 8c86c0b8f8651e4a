import Domain
import Foundation
import Store

/// Ending sessions: the one place a revocation reaches both the database and this instance's
/// revocation set. Both halves matter: a session revoked only in the database keeps its access
/// tokens valid here until the next poll of `RevokedSessions`.
extension AuthService {
    /// Ends `sessionID` (a sign-out, a refused console sign-in).
    package func endSession(_ sessionID: UUID, reason: SessionStore.RevocationReason) throws {
        try sessions.revoke(sessionID: sessionID, reason: reason)
        revokedSessions.insert([sessionID])
    }

    /// Ends `sessionID` if it is a live session of `userID`; false when it is not.
    package func endSession(_ sessionID: UUID, of userID: UUID, reason: SessionStore.RevocationReason) throws -> Bool {
        guard try sessions.revoke(sessionID: sessionID, userID: userID, reason: reason) else { return false }
        revokedSessions.insert([sessionID])
        return true
    }

    /// Ends every session of `userID` but `keep`; the ids ended.
    @discardableResult
    package func endSessions(of userID: UUID, except keep: UUID?, reason: SessionStore.RevocationReason) throws -> [UUID] {
        let ended = try sessions.revokeAll(userID: userID, except: keep, reason: reason)
        revokedSessions.insert(ended)
        return ended
    }

    /// Sessions a committed transaction revoked (a deactivation, a recovery, a detected
    /// refresh-token reuse): ended here too, at once.
    package func sessionsEnded(_ sessionIDs: [UUID]) {
        revokedSessions.insert(sessionIDs)
    }

    /// Applies `changes` to a user; a deactivation ends the user's sessions. nil: no such user.
    package func updateUser(id: UUID, changes: UserStore.Changes) throws -> User? {
        guard let result = try users.update(id: id, changes: changes) else { return nil }
        sessionsEnded(result.revokedSessions)
        return result.user
    }
}

extension AuthService {
    /// Whether `sessionID` was ended (here, or on another instance as of the last poll).
    package func isSessionEnded(_ sessionID: UUID) -> Bool {
        revokedSessions.contains(sessionID)
    }
}
