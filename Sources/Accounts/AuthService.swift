import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import Logging
import Postgres
import RouteKit
import Store
import Synchronization

/// Everything the authentication and user routes share: stores, token signing, password
/// hashing and the revocation set. One per server process.
package final class AuthService: Sendable {
    package let pool: PostgresPool
    package let users: UserStore
    package let sessions: SessionStore
    package let apiKeys: APIKeyStore
    package let avatars: AvatarStore
    package let throttle: LoginThrottle
    /// The devices accounts signed in on, which the throttle spares (`DeviceCookie`).
    package let signInDevices: SignInDevices
    /// How the device cookie is set (Secure when PUBLIC_URL is https).
    package let deviceCookie: DeviceCookie
    package let signer: JWTSigner
    /// `signer.verify` with memory: each distinct token is checked once (AuthMiddleware).
    package let verifiedTokens: VerifiedTokenCache
    package let hasher: PasswordHasher
    package let accessTokenTTL: Duration
    package let refreshTokenTTL: Duration
    /// Read by the access-token check; written only by the session verbs
    /// (`AuthService+EndSessions`), which also end the sessions in the database.
    package let revokedSessions: RevokedSessions
    /// Where every password hash and verification runs (KDF_CONCURRENCY threads).
    package let passwordWork: PasswordWork
    /// Verified against for unknown emails so both failure paths cost one KDF run.
    package let dummyPasswordHash: String
    /// Sign-in codes and links, recovery, invitations and address changes.
    package let emailSettings: EmailAuthSettings
    package let emailTokens: EmailTokenStore
    package let logger: Logger
    private let loginFailureCount = Atomic<Int>(0)

    /// Sign-ins refused with `invalid_credentials` since start (`auth_login_failures_total`).
    package var loginFailures: Int { loginFailureCount.load(ordering: .relaxed) }

    package func recordLoginFailure() { loginFailureCount.add(1, ordering: .relaxed) }
    /// Failed sign-ins that also paid for the other kind of hash (`equalizeFailureCost`).
    let equalizedFailureCount = Atomic<Int>(0)
    package var equalizedFailures: Int { equalizedFailureCount.load(ordering: .relaxed) }

    package static let defaultAccessTokenTTL: Duration = .seconds(15 * 60)
    package static let defaultRefreshTokenTTL: Duration = .seconds(30 * 24 * 3600)
    /// Avatar uploads (and Storage's images) may be up to 5 MiB. The server's global body limit
    /// is raised to allow this; JSON routes enforce their own 1 MiB.
    package static let avatarMaxBytes = 5 * 1024 * 1024
    /// Marks API keys so the middleware tells them from JWTs without trying to parse them.
    package static let apiKeyPrefix = "dsk_"

    package init(pool: PostgresPool, jwtSecret: String, hasher: PasswordHasher = PasswordHasher(),
                accessTokenTTL: Duration = AuthService.defaultAccessTokenTTL,
                refreshTokenTTL: Duration = AuthService.defaultRefreshTokenTTL,
                throttleLimits: LoginThrottle.Limits = LoginThrottle.Limits(),
                refreshReuseGrace: Duration = SessionStore.defaultReuseGrace,
                kdfConcurrency: Int = PasswordWork.defaultConcurrency,
                emailSettings: EmailAuthSettings? = nil,
                secureCookies: Bool = false,
                logger: Logger = Logger(label: "auth")) throws {
        self.pool = pool
        users = UserStore(pool: pool)
        sessions = SessionStore(pool: pool, reuseGrace: refreshReuseGrace)
        apiKeys = APIKeyStore(pool: pool)
        avatars = AvatarStore(pool: pool)
        throttle = LoginThrottle(pool: pool, limits: throttleLimits)
        signInDevices = SignInDevices(pool: pool)
        deviceCookie = DeviceCookie(secure: secureCookies)
        signer = JWTSigner(secret: jwtSecret)
        verifiedTokens = VerifiedTokenCache(signer: signer)
        self.hasher = hasher
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        passwordWork = PasswordWork(concurrency: kdfConcurrency)
        revokedSessions = RevokedSessions(store: sessions, accessTokenTTL: accessTokenTTL, logger: logger)
        self.logger = logger
        dummyPasswordHash = try hasher.hash(try SecureRandom.token())
        let emailSettings = try emailSettings ?? EmailAuthSettings.standard(serverSecret: jwtSecret)
        self.emailSettings = emailSettings
        emailTokens = EmailTokenStore(keys: EmailTokenKeys(serverSecret: jwtSecret), lifetime: emailSettings.tokenLifetime)
    }

    /// Starts the revocation poll; call before serving.
    package func start() throws {
        try revokedSessions.start()
    }

    package func stop() {
        revokedSessions.stop()
        passwordWork.stop()
    }

    /// A signed access token for the session, with its issue and expiry times (unix seconds).
    package struct IssuedAccessToken {
        package var token: String
        var issuedAt: Int64
        package var expiresAt: Int64
        package var lifetime: Int64 { expiresAt - issuedAt }
    }

    /// The one place access tokens are minted, for `/v1` and `/auth/v1` alike.
    package func issueAccessToken(user: User, sessionID: UUID) throws -> IssuedAccessToken {
        let now = Int64(Date().timeIntervalSince1970)
        let lifetime = accessTokenTTL.components.seconds
        let claims = AccessTokenClaims(sub: user.id.uuidString.lowercased(), iat: now, exp: now + lifetime,
                                       sid: sessionID.uuidString.lowercased(), email: user.email)
        return IssuedAccessToken(token: try signer.sign(claims), issuedAt: now, expiresAt: now + lifetime)
    }

    /// An access token for the session plus the JSON the login and refresh routes answer with.
    package func tokenResponse(user: User, sessionID: UUID, refreshToken: String) throws -> JSONValue {
        let issued = try issueAccessToken(user: user, sessionID: sessionID)
        return [
            "access_token": .string(issued.token),
            "token_type": "bearer",
            "expires_in": .number(Double(issued.lifetime)),
            "refresh_token": .string(refreshToken),
            "user": JSONOutput.user(user),
        ]
    }

    /// The caller's user row; 401 when it is gone or deactivated (its tokens die with it).
    package func currentUser(_ principal: Principal) throws -> User {
        guard let user = try users.find(id: principal.userID), user.isActive else { throw Self.inactiveAccount }
        return user
    }

    /// The 401 of a caller whose account is gone or deactivated (its tokens die with it).
    package static var inactiveAccount: HTTPError {
        unauthorized(tokenGiven: true, "The account is no longer active.")
    }

    /// The authenticated caller of `client`; 401 without one.
    package static func principal(_ client: ClientInfo) throws -> Principal {
        guard let principal = client.principal else { throw unauthorized(tokenGiven: false, "Authentication is required.") }
        return principal
    }

    /// 403 `session_required`: the caller authenticated with an API key, and this needs a session.
    package static func sessionRequired(_ message: String) -> DomainError {
        DomainError(.forbidden, .sessionRequired, message, hint: "Sign in with POST /v1/auth/login and use the access token.")
    }

    /// A 401 with `WWW-Authenticate: Bearer` (RFC 6750), plus `error="invalid_token"` when a
    /// credential was presented.
    package static func unauthorized(tokenGiven: Bool, code: ErrorCode = .unauthorized, _ message: String) -> HTTPError {
        var headers = HTTPHeaders()
        headers.set(name: "WWW-Authenticate", value: tokenGiven ? #"Bearer error="invalid_token""# : "Bearer")
        return HTTPError(status: .unauthorized, code: code.rawValue, message: message, extraHeaders: headers)
    }
}
