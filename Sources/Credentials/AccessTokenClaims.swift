import Foundation

/// The claims of an access token (contract §5): `sub` = user id, `role` = `authenticated`, `iat`,
/// `exp` (seconds since 1970), and `sid`, the sign-in session it belongs to, so revoking the
/// session can invalidate the token before it expires.
///
/// The optional claims are the ones GoTrue (Supabase Auth) emits and Supabase clients read from
/// the token itself (`aud`, `email`, `session_id`, `aal`, `is_anonymous`): every token carries
/// them, whichever route issued it, so one token works on `/v1` and on `/auth/v1`. They are
/// informational: verification relies on `sub`, `role`, `exp` and `sid` only.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public var sub: String
    public var role: String
    public var iat: Int64
    public var exp: Int64
    public var sid: String
    public var aud: String?
    public var email: String?
    /// GoTrue's name for `sid`.
    public var sessionID: String?
    public var aal: String?
    public var isAnonymous: Bool?

    enum CodingKeys: String, CodingKey {
        case sub, role, iat, exp, sid, aud, email, aal
        case sessionID = "session_id"
        case isAnonymous = "is_anonymous"
    }

    public static let authenticatedRole = "authenticated"

    public init(sub: String, role: String = AccessTokenClaims.authenticatedRole, iat: Int64, exp: Int64, sid: String,
                email: String? = nil) {
        self.sub = sub
        self.role = role
        self.iat = iat
        self.exp = exp
        self.sid = sid
        self.aud = role
        self.email = email
        self.sessionID = sid
        self.aal = "aal1"
        self.isAnonymous = false
    }
}
