import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// `/auth/v1`: the subset of GoTrue (Supabase Auth) the official clients use, on the same
/// session system as `/v1` — sign-in, throttle, rotation with its grace window, revocation and
/// deactivation are the very functions `/v1` calls; only the wire shapes differ. Errors are
/// GoTrue-shaped by `GoTrueErrorRenderer`, the renderer of these routes' error style (work run
/// on the KDF pool renders through the same one: `RequestContext.renderError`).
enum GoTrueRoutes {
    /// `POST /auth/v1/token`: hands out credentials, so it takes none (only the publishable key).
    static func registerSignIn(on router: inout Router, auth: AuthService) {
        router.post("/auth/v1/token") { request, context in
            switch context.query["grant_type"] {
            case "password":
                let credentials = try GoTrueBody.signInCredentials(request)
                return auth.passwordWork.respond(context) {
                    let signedIn = try auth.signIn(email: credentials.email, password: credentials.password, client: ClientInfo(request, context))
                    return signedIn.withDeviceCookie(try session(auth, signedIn.user, signedIn.sessionID, signedIn.refreshToken))
                }
            case "refresh_token":
                var body = try GoTrueBody(request, allowed: ["refresh_token"])
                let token = body.string("refresh_token", required: true)
                try body.finish()
                switch try auth.refresh(presented: token ?? "") {
                case .session(let user, let sessionID, let refreshToken):
                    return .response(try session(auth, user, sessionID, refreshToken))
                case .reused:
                    throw HTTPError(status: .badRequest, code: GoTrueErrorCode.refreshTokenAlreadyUsed.rawValue,
                                    message: "Invalid Refresh Token: Already Used")
                case .invalid:
                    throw HTTPError(status: .badRequest, code: GoTrueErrorCode.refreshTokenNotFound.rawValue,
                                    message: "Invalid Refresh Token: Refresh Token Not Found")
                }
            case "pkce":
                // The code a PKCE mail link answered (GET /verify) and the app's verifier.
                var body = try GoTrueBody(request, allowed: ["auth_code", "code_verifier"])
                let code = body.string("auth_code", required: false) ?? ""
                let verifier = body.string("code_verifier", required: false) ?? ""
                try body.finish()
                guard !code.isEmpty, !verifier.isEmpty else {
                    throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue,
                                    message: "invalid request: both auth code and code verifier should be non-empty")
                }
                let signedIn = try auth.exchangePKCE(code: code, verifier: verifier, client: ClientInfo(request, context))
                return .response(try session(auth, signedIn.user, signedIn.sessionID, signedIn.refreshToken))
            default:
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue,
                                message: "grant_type must be password, refresh_token or pkce.")
            }
        }
    }

    /// Sign-out and the caller's own user: for signed-in callers.
    static func register(on router: inout Router, auth: AuthService) {
        router.post("/auth/v1/logout") { _, context in
            let principal = try AuthService.principal(context)
            guard let sessionID = principal.sessionID else {
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.notASession.rawValue,
                                message: "API keys are not sessions; revoke a key with DELETE /v1/api-keys/{id}.")
            }
            switch context.query["scope"] ?? "global" {
            case "global":
                try auth.endSessions(of: principal.userID, except: nil, reason: .logout)
            case "local":
                try auth.endSession(sessionID, reason: .logout)
            case "others":
                try auth.endSessions(of: principal.userID, except: sessionID, reason: .logout)
            default:
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue,
                                message: "scope must be global, local or others.")
            }
            return .response(HTTPResponse(status: .noContent))
        }
        router.get("/auth/v1/user") { _, context in
            .response(try .json(GoTrueJSON.user(try currentUser(auth, context))))
        }
        router.put("/auth/v1/user") { request, context in
            let user = try currentUser(auth, context)
            let update = try GoTrueUserUpdate(request, current: user,
                                              redirects: auth.emailSettings.redirects, redirectTo: context.query["redirect_to"])
            if update.emailChange != nil, try AuthService.principal(context).sessionID == nil {
                throw HTTPError(status: .forbidden, code: GoTrueErrorCode.notASession.rawValue,
                                message: AuthService.apiKeyMayNotChangeEmail)
            }
            guard let password = update.password else {
                guard update.emailChange != nil else { return .response(try .json(finishUpdate(user, update, auth, context))) }
                // The address change checks the current password: KDF work.
                return auth.passwordWork.respond(context) { try .json(finishUpdate(user, update, auth, context)) }
            }
            return auth.passwordWork.respond(context) {
                if update.currentPassword.isEmpty {
                    // Only a session from a recovery or invitation mail may, once (supabase
                    // clients send only `password` after "forgot password").
                    guard try auth.resetPassword(user, to: password, client: ClientInfo(context)) else {
                        throw HTTPError(status: .badRequest, code: GoTrueErrorCode.currentPasswordRequired.rawValue,
                                        message: "Current password required when setting new password.")
                    }
                } else {
                    do {
                        // /v1's rule: current password checked (and throttled), other sessions revoked.
                        try auth.changePassword(user, to: password, current: update.currentPassword, client: ClientInfo(context))
                    } catch let error as DomainError where error.code == .validationFailed {
                        throw HTTPError(status: .badRequest, code: GoTrueErrorCode.currentPasswordMismatch.rawValue,
                                        message: "The current password is incorrect.")
                    }
                }
                return try .json(finishUpdate(user, update, auth, context, passwordProven: true))
            }
        }
    }

    /// The rest of an update once any password change went through: a new address is only
    /// requested (the account moves when the mail to it is verified, type email_change; the
    /// old address gets a notice with a cancel link), then the rename. GoTrue's user, with a
    /// requested address change as `new_email`. `passwordProven`: this request already
    /// checked or reset the password, which is the address change's proof of presence too.
    static func finishUpdate(_ user: Domain.User, _ update: GoTrueUserUpdate, _ auth: AuthService, _ context: RequestContext,
                             passwordProven: Bool = false) throws -> JSONValue {
        if let change = update.emailChange {
            do {
                try auth.requestEmailChange(user, change, presence: passwordProven ? .provenInThisRequest
                                                : .currentPassword(update.currentPassword), client: ClientInfo(context))
            } catch let error as DomainError where error == AuthService.emailChangeNeedsPassword {
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.currentPasswordRequired.rawValue,
                                message: "Current password required when changing the email address (or sign in with the password again first).")
            } catch let error as DomainError where error == AuthService.currentPasswordIncorrect {
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.currentPasswordMismatch.rawValue,
                                message: "The current password is incorrect.")
            }
        }
        var json = GoTrueJSON.user(try auth.rename(user, to: update.name))
        if let change = update.emailChange, case .object(var fields) = json {
            fields["new_email"] = .string(change.email)
            fields["email_change_sent_at"] = JSONOutput.timestamp(Date())
            json = .object(fields)
        }
        return json
    }

    /// The caller's user; the same rule as `AuthService.currentUser` (gone or deactivated →
    /// refused) in GoTrue's words.
    static func currentUser(_ auth: AuthService, _ context: RequestContext) throws -> Domain.User {
        let principal = try AuthService.principal(context)
        guard let user = try auth.users.find(id: principal.userID) else {
            throw HTTPError(status: .forbidden, code: GoTrueErrorCode.userNotFound.rawValue, message: "User from sub claim in JWT does not exist")
        }
        guard user.isActive else { throw HTTPError(status: .forbidden, code: GoTrueErrorCode.userBanned.rawValue, message: "User is banned") }
        return user
    }

    static func session(_ auth: AuthService, _ user: Domain.User, _ sessionID: UUID, _ refreshToken: String) throws -> HTTPResponse {
        try .json(GoTrueJSON.session(try auth.issueAccessToken(user: user, sessionID: sessionID),
                                     refreshToken: refreshToken, user: user))
    }
}
