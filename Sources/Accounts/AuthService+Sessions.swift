import Credentials
import Domain
import Foundation
import Postgres
import Store

extension AuthService {
    /// Opens a session for `user`: the one place sign-in by password, by e-mail code or link,
    /// and by PKCE exchange create one. Inside the caller's transaction when there is one, so
    /// a verification's "used" mark and its session commit together.
    package func openSession(_ user: User, _ client: ClientInfo, passwordResetFor: Duration?,
                     passwordVerified: Bool = false, on connection: PostgresConnection) throws -> SignedIn {
        let refreshToken = try SecureRandom.token()
        let sessionID = try SessionStore.create(
            userID: user.id, refreshTokenHash: SHA256.hex(refreshToken),
            expiresAt: Date().addingTimeInterval(TimeInterval(refreshTokenTTL.components.seconds)),
            userAgent: client.userAgent, clientAddress: client.address,
            passwordResetFor: passwordResetFor, passwordVerified: passwordVerified, on: connection
        )
        return SignedIn(user: user, sessionID: sessionID, refreshToken: refreshToken, deviceCookie: nil)
    }
}
