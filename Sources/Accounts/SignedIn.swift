import Domain
import Foundation

/// A new sign-in session: what every sign-in (password, e-mail code or link, PKCE exchange)
/// produces, and what both sign-in families (`/v1/auth/login`, `/auth/v1/token`) render.
package struct SignedIn: Sendable {
    package var user: User
    package var sessionID: UUID
    package var refreshToken: String
    /// After a password sign-in: the `Set-Cookie` value of the device's token (`DeviceCookie`).
    package var deviceCookie: String?
}
