import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// Sign-in and password change: everything that runs the KDF. Bodies are parsed on the HTTP
/// worker (cheap, and a bad body never queues for the KDF); the rest runs on
/// `AuthService.passwordWork`. The throttle is checked there, right before the KDF, so a burst
/// queued behind one account sees the failures recorded ahead of it.
extension AuthRoutes {
    struct SignInCredentials: Sendable {
        var email: String
        var password: String

        init(_ request: HTTPRequest) throws {
            var body = try JSONRequestBody(request, allowed: ["email", "password"], ignored: [])
            let email = body.string("email", required: true)?.trimmingCharacters(in: .whitespaces)
            let password = body.string("password", required: true)
            try body.finish()
            guard let email, let password else { throw JSONRequestBody.validationFailed(body.errors) }
            self.email = email
            self.password = password
        }
    }

    struct ProfileChange: Sendable {
        var name: String?
        /// nil: unchanged; `.some(nil)`: cleared; a hash must name a stored image (the store checks).
        var avatarHash: String??
        var password: String?
        var currentPassword: String

        init(_ request: HTTPRequest) throws {
            var body = try JSONRequestBody(request, allowed: ["name", "avatar_hash", "password", "current_password"],
                                           ignored: JSONRequestBody.serverManaged.union(["email", "user_type", "deactivated_at"]))
            var errors: [FieldError] = []
            name = body.string("name", required: false).flatMap { UserRules.checkName($0, errors: &errors) }
            avatarHash = body.avatarHash(errors: &errors)
            password = body.string("password", required: false)
            // Required with `password`, except once in a session opened by a recovery or
            // invitation mail: the route decides (`AuthService.resetPassword`).
            let current = body.string("current_password", required: false)
            if let password { body.add(UserRules.checkPassword(password)) }
            errors.forEach { body.add($0) }
            try body.finish()
            currentPassword = current ?? ""
        }
    }

    static func rateLimited(_ wait: Int, _ message: String) -> HTTPError {
        HTTPError(status: .tooManyRequests, code: ErrorCode.rateLimited.rawValue, message: "\(message) Try again in \(wait) seconds.",
                  extraHeaders: ["Retry-After": String(wait)])
    }

    /// A new sign-in session: what both sign-in routes (`/v1/auth/login`, `/auth/v1/token`) render.
    struct SignedIn {
        var user: User
        var sessionID: UUID
        var refreshToken: String
        /// After a password sign-in: the `Set-Cookie` value of the device's token (`DeviceCookie`).
        var deviceCookie: String?

        /// `response` with the device cookie, when there is one.
        func withDeviceCookie(_ response: HTTPResponse) -> HTTPResponse {
            guard let deviceCookie else { return response }
            var response = response
            response.headers.add(name: "Set-Cookie", value: deviceCookie)
            return response
        }
    }

    static func signIn(_ credentials: SignInCredentials, _ request: HTTPRequest, _ context: RequestContext,
                       _ auth: AuthService) throws -> HTTPResponse {
        let signedIn = try startSession(credentials, request, context, auth)
        return signedIn.withDeviceCookie(
            try .json(auth.tokenResponse(user: signedIn.user, sessionID: signedIn.sessionID, refreshToken: signedIn.refreshToken)))
    }

    /// Checks the throttle and the password and opens a session. Throws 429 `rate_limited` and
    /// 401 `invalid_credentials` (the `/auth/v1` renderer translates both to GoTrue's codes).
    /// A device that signed in to this account before (its `dispatch_device` cookie) is
    /// throttled on its own budget; a success (re)sets the cookie.
    static func startSession(_ credentials: SignInCredentials, _ request: HTTPRequest, _ context: RequestContext,
                             _ auth: AuthService) throws -> SignedIn {
        let (email, password) = (credentials.email, credentials.password)
        let address = context.clientAddress
        let known = try knownDevice(request, email: email, auth)
        if let wait = try auth.throttle.retryAfter(email: email, clientAddress: address, knownDevice: known?.hash) {
            throw rateLimited(wait, "Too many failed sign-in attempts.")
        }
        // Unknown email, missing password, wrong password and deactivated account all cost one
        // KDF run and give the same answer, so neither timing nor wording reveals accounts.
        let found = try auth.users.findCredentials(email: email)
        let storedHash = found?.passwordHash ?? auth.dummyPasswordHash
        let matches = auth.hasher.verify(password, against: storedHash) && found?.passwordHash != nil
        guard let user = found?.user, matches, user.isActive else {
            auth.recordLoginFailure()
            try auth.throttle.record(email: email, clientAddress: address, knownDevice: known?.hash, succeeded: false)
            throw HTTPError(status: .unauthorized, code: ErrorCode.invalidCredentials.rawValue, message: "The email or password is incorrect.",
                            extraHeaders: bearerChallenge)
        }
        try auth.throttle.record(email: email, clientAddress: address, knownDevice: known?.hash, succeeded: true)
        if auth.hasher.needsRehash(storedHash) {
            try auth.users.setPasswordHash(userID: user.id, hash: try auth.hasher.hash(password), onlyIfCurrent: storedHash)
        }
        // A token presented for another account (a shared computer) or never issued is
        // replaced: only a token this account's own sign-in produced becomes its device.
        let deviceToken = try known?.token ?? SecureRandom.token()
        try auth.signInDevices.remember(tokenHash: DeviceCookie.hash(deviceToken), userID: user.id)
        var signedIn = try auth.pool.withConnection { try auth.openSession(user, request, context, passwordResetFor: nil, passwordVerified: true, on: $0) }
        signedIn.deviceCookie = auth.deviceCookie.header(deviceToken)
        return signedIn
    }

    /// The request's device token and its hash, when the device signed in to this account before.
    private static func knownDevice(_ request: HTTPRequest, email: String,
                                    _ auth: AuthService) throws -> (token: String, hash: String)? {
        guard let token = DeviceCookie.presented(request) else { return nil }
        let hash = DeviceCookie.hash(token)
        return try auth.signInDevices.isKnown(tokenHash: hash, email: email) ? (token, hash) : nil
    }

    static func mailRateLimited(_ wait: Int) -> HTTPError {
        HTTPError(status: .tooManyRequests, code: ErrorCode.emailRateLimited.rawValue,
                  message: "For security purposes, a mail to this address can only be requested again after \(wait) seconds.",
                  extraHeaders: ["Retry-After": String(wait)])
    }

    /// A new password revokes every other session: whoever knew the old one is signed out,
    /// the device making the change stays signed in. Wrong `current_password` guesses count
    /// toward the account's sign-in limits (same table, same keys), so a stolen access token
    /// cannot be turned into unlimited password guessing.
    static func changePassword(_ user: User, to password: String, current: String, _ context: RequestContext,
                               _ auth: AuthService) throws {
        try verifyCurrentPassword(user, current, context, auth)
        try auth.users.setPasswordHash(userID: user.id, hash: try auth.hasher.hash(password))
        let principal = try AuthService.principal(context)
        let revoked = try auth.sessions.revokeAll(userID: user.id, except: principal.sessionID, reason: .passwordChanged)
        auth.revokedSessions.insert(revoked)
    }

    static func rename(_ user: User, to name: String?, avatarHash: String?? = nil, _ auth: AuthService) throws -> User {
        guard name != nil || avatarHash != nil,
              let updated = try auth.users.update(id: user.id, changes: .init(name: name, avatarHash: avatarHash))?.user
        else { return user }
        return updated
    }

    static let currentPasswordIncorrect = JSONRequestBody.validationFailed([
        FieldError(field: "current_password", code: .incorrect, message: "Does not match the current password.")])

    /// Checks `current` against the caller's password (throttled like sign-in; a wrong one is
    /// recorded as a failure): 422 `current_password` incorrect, or 429.
    static func verifyCurrentPassword(_ user: User, _ current: String, _ context: RequestContext, _ auth: AuthService) throws {
        if let wait = try auth.throttle.retryAfter(email: user.email, clientAddress: context.clientAddress) {
            throw rateLimited(wait, "Too many wrong current passwords.")
        }
        guard let stored = try auth.users.passwordHash(userID: user.id), auth.hasher.verify(current, against: stored) else {
            try auth.throttle.record(email: user.email, clientAddress: context.clientAddress, succeeded: false)
            throw currentPasswordIncorrect
        }
    }
}
