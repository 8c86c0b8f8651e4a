import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// Sign-in, token refresh, sign-out and the caller's own profile (contract §5, "Auth"). The
/// password-checking parts are in `AuthRoutes+Passwords.swift`; they run on the KDF pool.
enum AuthRoutes {
    /// Sign-in and refresh: the routes that hand out credentials, so they take none.
    static func registerSignIn(on router: inout Router, auth: AuthService) {
        router.post("/v1/auth/login") { request, context in
            let credentials = try SignInCredentials(request)
            return auth.passwordWork.respond(context) { try signIn(credentials, request, context, auth) }
        }
        router.post("/v1/auth/refresh") { request, context in
            var body = try JSONRequestBody(request, allowed: ["refresh_token"], ignored: [])
            let token = body.string("refresh_token", required: true)
            try body.finish()
            let invalid = HTTPError(status: .unauthorized, code: ErrorCode.invalidRefreshToken.rawValue,
                                    message: "The refresh token is invalid, expired or revoked; sign in again.",
                                    extraHeaders: bearerChallenge)
            // A retry within the grace window answers with the session's current token
            // (SessionStore.rotate), so a phone retrying after a timeout stays signed in.
            switch try auth.refresh(presented: token ?? "") {
            case .session(let user, let sessionID, let refreshToken):
                return .response(try .json(auth.tokenResponse(user: user, sessionID: sessionID, refreshToken: refreshToken)))
            case .reused, .invalid:
                throw invalid
            }
        }
    }

    /// Sign-out and the caller's own profile: for authenticated callers.
    static func register(on router: inout Router, auth: AuthService) {
        router.post("/v1/auth/logout") { _, context in
            let principal = try AuthService.principal(context)
            guard let sessionID = principal.sessionID else {
                throw HTTPError.badRequest(code: ErrorCode.notASession.rawValue,
                                           "API keys are not sessions; revoke a key with DELETE /v1/api-keys/{id}.")
            }
            try auth.endSession(sessionID, reason: .logout)
            return .response(HTTPResponse(status: .noContent))
        }
        router.get("/v1/me") { _, context in
            .response(try .json(JSONOutput.user(try auth.currentUser(context))))
        }
        router.patch("/v1/me") { request, context in
            let user = try auth.currentUser(context)
            let change = try ProfileChange(request)
            guard let password = change.password else {
                return .response(try .json(JSONOutput.user(try auth.rename(user, to: change.name, avatarHash: change.avatarHash))))
            }
            return auth.passwordWork.respond(context) {
                if change.currentPassword.isEmpty {
                    guard try auth.resetPassword(user, to: password, client: ClientInfo(context)) else {
                        throw JSONRequestBody.validationFailed([FieldError(field: "current_password", code: .required, message: "Is required.")])
                    }
                } else {
                    try auth.changePassword(user, to: password, current: change.currentPassword, client: ClientInfo(context))
                }
                return try .json(JSONOutput.user(try auth.rename(user, to: change.name, avatarHash: change.avatarHash)))
            }
        }
    }

    /// Every 401 carries a challenge (RFC 9110 §15.5.2, contract §4), sign-in and refresh included.
    static let bearerChallenge: HTTPHeaders = ["WWW-Authenticate": "Bearer"]
}
