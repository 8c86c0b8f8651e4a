import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import Logging
import Testing

/// Revocation reaches other server instances through the poll of `auth_sessions.revoked_at`.
@Suite struct AuthRevocationTests {
    @Test func sessionRevokedByOneInstanceIsRejectedByAnotherAfterItsNextPoll() throws {
        let app = try AuthTestServer()
        let tokens = try app.login()
        // A second instance on the same database, not started: its polls are driven by hand.
        let other = try AuthService(pool: app.database.pool, jwtSecret: String(repeating: "k", count: 32),
                                    hasher: AuthTestServer.cheapHasher,
                                    logger: Logger(label: "other", factory: { _ in SwiftLogNoOpLogHandler() }))
        try other.revokedSessions.refresh()
        let claims = try other.signer.verify(tokens.access)
        let sessionID = try #require(UUID(uuidString: claims.sid))
        #expect(!other.revokedSessions.contains(sessionID))

        #expect(try app.request("POST", "/v1/auth/logout", token: tokens.access).status == 204)
        #expect(!other.revokedSessions.contains(sessionID))
        try other.revokedSessions.refresh()
        #expect(other.revokedSessions.contains(sessionID))
    }
}
