import Domain
import Foundation
import Store

/// What the operator's console (target `Console`) shares with the API's routes, so a console
/// sign-in runs exactly the code an API sign-in runs.
extension AuthService {
    /// Signs in with a password through the API's throttle and KDF (`signIn`): a new sign-in
    /// session, recorded with the client's device and address. Throws what `/v1/auth/login`
    /// answers: 429 `rate_limited` (with the wait) or 401 `invalid_credentials`.
    /// `deviceCookie`: the `Set-Cookie` value that keeps this browser known (`DeviceCookie`).
    package func startSession(email: String, password: String,
                             client: ClientInfo) throws -> (user: User, sessionID: UUID, deviceCookie: String?) {
        let signedIn = try signIn(email: email.trimmingCharacters(in: .whitespaces), password: password, client: client)
        return (signedIn.user, signedIn.sessionID, signedIn.deviceCookie)
    }
}
