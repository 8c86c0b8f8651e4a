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

extension AuthService {
    /// The console's "send a new one" for a dead invitation, sign-in or recovery mail: a fresh
    /// code and link through the same path the API takes (the old mail's code is never sent
    /// again; it may have expired, and its message was dropped when the mail died). Answers
    /// false for a kind that carries no link.
    package func sendNewMail(kind: String, to email: String) throws -> Bool {
        let request = EmailRequest(email: email, challenge: nil, redirectTo: emailSettings.redirects.resolve(nil), source: nil)
        switch kind {
        case "invite": _ = try invite(email: email, name: nil, userType: .realtor)
        case "magic_link": try requestSignInCode(request, createUser: false, name: nil)
        case "recovery": try requestRecovery(request)
        default: return false
        }
        return true
    }
}
