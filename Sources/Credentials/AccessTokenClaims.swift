import Foundation

/// The claims of an access token (contract §5): `sub` = user id, `role` = `authenticated`, `iat`,
/// `exp` (seconds since 1970), and `sid`, the sign-in session it belongs to, so revoking the
/// session can invalidate the token before it expires.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public var sub: String
    public var role: String
    public var iat: Int64
    public var exp: Int64
    public var sid: String

    public static let authenticatedRole = "authenticated"

    public init(sub: String, role: String = AccessTokenClaims.authenticatedRole, iat: Int64, exp: Int64, sid: String) {
        self.sub = sub
        self.role = role
        self.iat = iat
        self.exp = exp
        self.sid = sid
    }
}
