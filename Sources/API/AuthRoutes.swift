import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// Sign-in, token refresh, sign-out and the caller's own profile (SPEC 5, "Auth").
enum AuthRoutes {
    static func register(on router: inout Router, auth: AuthService) {
        router.post("/v1/auth/login") { request, context in
            .response(try login(request, context, auth))
        }
        router.post("/v1/auth/refresh") { request, context in
            var body = try JSONRequestBody(request, allowed: ["refresh_token"], ignored: [])
            let token = body.string("refresh_token", required: true)
            try body.finish()
            let invalid = HTTPError(status: .unauthorized, code: "invalid_refresh_token",
                                    message: "The refresh token is invalid, expired or revoked; sign in again.",
                                    extraHeaders: bearerChallenge)
            // A retry within the grace window answers with the session's current token
            // (SessionStore.rotate), so a phone retrying after a timeout stays signed in.
            switch try auth.sessions.rotate(presented: token ?? "") {
            case .rotated(let sessionID, let userID, let refreshToken):
                guard let user = try auth.users.find(id: userID), user.isActive else { throw invalid }
                return .response(try .json(auth.tokenResponse(user: user, sessionID: sessionID, refreshToken: refreshToken)))
            case .reuseDetected(let sessionID):
                auth.revokedSessions.insert([sessionID])
                context.logger.warning("refresh token reuse; session revoked",
                                       metadata: ["session_id": .string(sessionID.uuidString)])
                throw invalid
            case .invalid:
                throw invalid
            }
        }
        router.post("/v1/auth/logout") { _, context in
            let principal = try AuthService.principal(context)
            guard let sessionID = principal.sessionID else {
                throw HTTPError.badRequest(code: "not_a_session",
                                           "API keys are not sessions; revoke a key with DELETE /v1/api-keys/{id}.")
            }
            try auth.sessions.revoke(sessionID: sessionID, reason: .logout)
            auth.revokedSessions.insert([sessionID])
            return .response(HTTPResponse(status: .noContent))
        }
        router.get("/v1/me") { _, context in
            .response(try .json(JSONOutput.user(try auth.currentUser(context))))
        }
        router.patch("/v1/me") { request, context in
            .response(try .json(JSONOutput.user(try updateMe(request, context, auth))))
        }
    }

    /// Every 401 carries a challenge (RFC 9110 §15.5.2, SPEC 4), sign-in and refresh included.
    static let bearerChallenge: HTTPHeaders = ["WWW-Authenticate": "Bearer"]

    private static func login(_ request: HTTPRequest, _ context: RequestContext, _ auth: AuthService) throws -> HTTPResponse {
        var body = try JSONRequestBody(request, allowed: ["email", "password"], ignored: [])
        let email = body.string("email", required: true)?.trimmingCharacters(in: .whitespaces)
        let password = body.string("password", required: true)
        try body.finish()
        guard let email, let password else { throw JSONRequestBody.validationFailed(body.errors) }
        let address = context.clientAddress
        if let wait = try auth.throttle.retryAfter(email: email, clientAddress: address) {
            throw HTTPError(status: .tooManyRequests, code: "rate_limited",
                            message: "Too many failed sign-in attempts. Try again in \(wait) seconds.",
                            extraHeaders: ["Retry-After": String(wait)])
        }
        // Unknown email, missing password, wrong password and deactivated account all cost one
        // KDF run and give the same answer, so neither timing nor wording reveals accounts.
        let found = try auth.users.findCredentials(email: email)
        let storedHash = found?.passwordHash ?? auth.dummyPasswordHash
        let matches = auth.hasher.verify(password, against: storedHash) && found?.passwordHash != nil
        guard let user = found?.user, matches, user.isActive else {
            auth.recordLoginFailure()
            try auth.throttle.record(email: email, clientAddress: address, succeeded: false)
            throw HTTPError(status: .unauthorized, code: "invalid_credentials", message: "The email or password is incorrect.",
                            extraHeaders: bearerChallenge)
        }
        try auth.throttle.record(email: email, clientAddress: address, succeeded: true)
        if auth.hasher.needsRehash(storedHash) {
            try auth.users.setPasswordHash(userID: user.id, hash: try auth.hasher.hash(password), onlyIfCurrent: storedHash)
        }
        let refreshToken = try SecureRandom.token()
        let sessionID = try auth.sessions.create(
            userID: user.id, refreshTokenHash: SHA256.hex(refreshToken),
            expiresAt: Date().addingTimeInterval(TimeInterval(auth.refreshTokenTTL.components.seconds)),
            userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) }, clientAddress: address
        )
        return try .json(auth.tokenResponse(user: user, sessionID: sessionID, refreshToken: refreshToken))
    }

    /// Name and password changes of the caller. A new password revokes every other session:
    /// whoever knew the old one is signed out, the device making the change stays signed in.
    private static func updateMe(_ request: HTTPRequest, _ context: RequestContext, _ auth: AuthService) throws -> User {
        var user = try auth.currentUser(context)
        var body = try JSONRequestBody(request, allowed: ["name", "password", "current_password"],
                                       ignored: JSONRequestBody.serverManaged.union(["email", "user_type", "avatar_hash", "deactivated_at"]))
        var errors: [FieldError] = []
        let name = body.string("name", required: false).flatMap { UserRules.checkName($0, errors: &errors) }
        let password = body.string("password", required: false)
        let current = body.string("current_password", required: password != nil)
        if let password { body.add(UserRules.checkPassword(password)) }
        errors.forEach { body.add($0) }
        try body.finish()
        if let password, let current {
            guard let stored = try auth.users.passwordHash(userID: user.id), auth.hasher.verify(current, against: stored) else {
                throw JSONRequestBody.validationFailed([FieldError(field: "current_password", code: "incorrect",
                                                                   message: "Does not match the current password.")])
            }
            try auth.users.setPasswordHash(userID: user.id, hash: try auth.hasher.hash(password))
            let principal = try AuthService.principal(context)
            let revoked = try auth.sessions.revokeAll(userID: user.id, except: principal.sessionID, reason: .passwordChanged)
            auth.revokedSessions.insert(revoked)
        }
        if let name, let updated = try auth.users.update(id: user.id, changes: .init(name: name))?.user {
            user = updated
        }
        return user
    }
}
