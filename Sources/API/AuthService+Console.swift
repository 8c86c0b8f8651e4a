import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// What the operator's console (target `Console`) shares with the API's routes, so a console
/// sign-in and a console edit run exactly the code an API call runs.
extension AuthService {
    /// Signs in with a password through the API's throttle and KDF (`AuthRoutes.startSession`):
    /// a new sign-in session, recorded with the request's device and address. Throws what
    /// `/v1/auth/login` answers: 429 `rate_limited` (with the wait) or 401 `invalid_credentials`.
    /// `deviceCookie`: the `Set-Cookie` value that keeps this browser known (`DeviceCookie`).
    public func startSession(email: String, password: String, request: HTTPRequest,
                             context: RequestContext) throws -> (user: User, sessionID: UUID, deviceCookie: String?) {
        let credentials = AuthRoutes.SignInCredentials(email: email.trimmingCharacters(in: .whitespaces), password: password)
        let signedIn = try AuthRoutes.startSession(credentials, request, context, self)
        return (signedIn.user, signedIn.sessionID, signedIn.deviceCookie)
    }

    /// The API's rule that an admin cannot demote or deactivate themselves (`UserRoutes.selfLockout`).
    public static func selfLockout(target: UUID, admin: UUID, userType: UserType?, deactivated: Bool?) -> [FieldError] {
        UserRoutes.selfLockout(target: target, admin: admin, userType: userType, deactivated: deactivated)
    }
}
