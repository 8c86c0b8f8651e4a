import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Logging
import Postgres
import Store
import Synchronization

/// Everything the authentication and user routes share: stores, token signing, password
/// hashing and the revocation set. One per server process.
public final class AuthService: Sendable {
    public let pool: PostgresPool
    public let users: UserStore
    public let sessions: SessionStore
    public let apiKeys: APIKeyStore
    public let avatars: AvatarStore
    public let throttle: LoginThrottle
    /// The devices accounts signed in on, which the throttle spares (`DeviceCookie`).
    public let signInDevices: SignInDevices
    /// How the device cookie is set (Secure when PUBLIC_URL is https).
    let deviceCookie: DeviceCookie
    public let signer: JWTSigner
    /// `signer.verify` with memory: each distinct token is checked once (AuthMiddleware).
    public let verifiedTokens: VerifiedTokenCache
    public let hasher: PasswordHasher
    public let accessTokenTTL: Duration
    public let refreshTokenTTL: Duration
    public let revokedSessions: RevokedSessions
    /// Last-seen times and sync health per session or API key, written in batches.
    public let devices: DeviceActivity
    /// Where every password hash and verification runs (KDF_CONCURRENCY threads).
    public let passwordWork: PasswordWork
    /// Verified against for unknown emails so both failure paths cost one KDF run.
    let dummyPasswordHash: String
    /// Sign-in codes and links, recovery, invitations and address changes.
    public let emailSettings: EmailAuthSettings
    public let emailTokens: EmailTokenStore
    private let loginFailureCount = Atomic<Int>(0)

    /// Sign-ins refused with `invalid_credentials` since start (`auth_login_failures_total`).
    public var loginFailures: Int { loginFailureCount.load(ordering: .relaxed) }

    func recordLoginFailure() { loginFailureCount.add(1, ordering: .relaxed) }

    public static let defaultAccessTokenTTL: Duration = .seconds(15 * 60)
    public static let defaultRefreshTokenTTL: Duration = .seconds(30 * 24 * 3600)
    /// Marks API keys so the middleware tells them from JWTs without trying to parse them.
    public static let apiKeyPrefix = "dsk_"

    public init(pool: PostgresPool, jwtSecret: String, hasher: PasswordHasher = PasswordHasher(),
                accessTokenTTL: Duration = AuthService.defaultAccessTokenTTL,
                refreshTokenTTL: Duration = AuthService.defaultRefreshTokenTTL,
                throttleLimits: LoginThrottle.Limits = LoginThrottle.Limits(),
                refreshReuseGrace: Duration = SessionStore.defaultReuseGrace,
                kdfConcurrency: Int = PasswordWork.defaultConcurrency,
                emailSettings: EmailAuthSettings? = nil,
                deviceFlushInterval: Duration = DeviceActivity.defaultInterval,
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
        devices = DeviceActivity(store: DeviceHealthStore(pool: pool), interval: deviceFlushInterval, logger: logger)
        dummyPasswordHash = try hasher.hash(try SecureRandom.token())
        let emailSettings = try emailSettings ?? EmailAuthSettings.standard(serverSecret: jwtSecret)
        self.emailSettings = emailSettings
        emailTokens = EmailTokenStore(keys: EmailTokenKeys(serverSecret: jwtSecret), lifetime: emailSettings.tokenLifetime)
    }

    /// Starts the revocation poll; call before serving.
    public func start() throws {
        try revokedSessions.start()
        devices.start()
    }

    public func stop() {
        devices.stop()
        revokedSessions.stop()
        passwordWork.stop()
    }

    /// A signed access token for the session, with its issue and expiry times (unix seconds).
    struct IssuedAccessToken {
        var token: String
        var issuedAt: Int64
        var expiresAt: Int64
        var lifetime: Int64 { expiresAt - issuedAt }
    }

    /// The one place access tokens are minted, for `/v1` and `/auth/v1` alike.
    func issueAccessToken(user: User, sessionID: UUID) throws -> IssuedAccessToken {
        let now = Int64(Date().timeIntervalSince1970)
        let lifetime = accessTokenTTL.components.seconds
        let claims = AccessTokenClaims(sub: user.id.uuidString.lowercased(), iat: now, exp: now + lifetime,
                                       sid: sessionID.uuidString.lowercased(), email: user.email)
        return IssuedAccessToken(token: try signer.sign(claims), issuedAt: now, expiresAt: now + lifetime)
    }

    /// An access token for the session plus the JSON the login and refresh routes answer with.
    func tokenResponse(user: User, sessionID: UUID, refreshToken: String) throws -> JSONValue {
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
    func currentUser(_ context: RequestContext) throws -> User {
        let principal = try Self.principal(context)
        guard let user = try users.find(id: principal.userID), user.isActive else { throw Self.inactiveAccount }
        return user
    }

    /// The 401 of a caller whose account is gone or deactivated (its tokens die with it).
    static var inactiveAccount: HTTPError {
        AuthMiddleware.unauthorized(tokenGiven: true, "The account is no longer active.")
    }

    func requireAdmin(_ context: RequestContext) throws -> User {
        let user = try currentUser(context)
        guard user.isAdmin else {
            throw HTTPError(status: .forbidden, code: ErrorCode.forbidden.rawValue, message: "Only administrators may do this.")
        }
        return user
    }

    static func principal(_ context: RequestContext) throws -> Principal {
        guard let principal = context.principal as? Principal else {
            throw AuthMiddleware.unauthorized(tokenGiven: false, "Authentication is required.")
        }
        return principal
    }
}
