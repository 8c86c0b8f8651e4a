import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// The e-mail flows under `/v1` (docs/contract.md §5 "Auth"), on the same operations as
/// GoTrue's routes (`GoTrueEmailRoutes`), in the contract's shapes: strict bodies (unknown
/// fields refused), `redirect_to` in the body, sessions as `/v1/auth/login` answers them.
/// Requests that send mail answer 202 `{}` whether or not the address has an account.
enum EmailAuthRoutes {
    static func registerPublic(on router: inout Router, auth: AuthService) {
        router.post("/v1/auth/otp") { request, context in
            var body = try JSONRequestBody(request, allowed: ["email", "redirect_to", "code_challenge", "code_challenge_method"])
            let mail = body.emailRequest(redirectTo: body.string("redirect_to", required: false), redirects: auth.emailSettings.redirects)
            try body.finish()
            guard let mail else { throw JSONRequestBody.validationFailed(body.errors) }
            try auth.requestSignInCode(mail.from(context), createUser: false, name: nil)
            return accepted()
        }
        router.post("/v1/auth/recover") { request, context in
            var body = try JSONRequestBody(request, allowed: ["email", "redirect_to", "code_challenge", "code_challenge_method"])
            let mail = body.emailRequest(redirectTo: body.string("redirect_to", required: false), redirects: auth.emailSettings.redirects)
            try body.finish()
            guard let mail else { throw JSONRequestBody.validationFailed(body.errors) }
            try auth.requestRecovery(mail.from(context))
            return accepted()
        }
        router.post("/v1/auth/resend") { request, context in
            var body = try JSONRequestBody(request, allowed: ["email", "type", "redirect_to", "code_challenge", "code_challenge_method"])
            let kind = body.string("type", required: true).flatMap { name -> AuthService.ResendKind? in
                guard let kind = resendKinds[name] else {
                    body.add(FieldError(field: "type", code: .invalid, message: "Must be invite or email_change."))
                    return nil
                }
                return kind
            }
            let mail = body.emailRequest(redirectTo: body.string("redirect_to", required: false), redirects: auth.emailSettings.redirects)
            try body.finish()
            guard let mail, let kind else { throw JSONRequestBody.validationFailed(body.errors) }
            try auth.resend(mail.from(context), kind: kind)
            return accepted()
        }
        router.post("/v1/auth/verify") { request, context in
            var body = try JSONRequestBody(request, allowed: ["type", "email", "code", "token_hash"])
            let type = body.string("type", required: true)
            let purposes = type.flatMap { name -> [EmailTokenPurpose]? in
                guard let purposes = EmailTokenPurpose.accepted(byType: name) else {
                    body.add(FieldError(field: "type", code: .invalid, message: "Must be email, magiclink, recovery, invite or email_change."))
                    return nil
                }
                return purposes
            }
            let email = body.string("email", required: false)?.trimmingCharacters(in: .whitespaces)
            let code = body.string("code", required: false)
            let tokenHash = body.string("token_hash", required: false)
            let proof: AuthService.EmailProof?
            switch (email, code, tokenHash) {
            case (let email?, let code?, nil): proof = .code(email: email, code: code)
            case (nil, nil, let tokenHash?): proof = .link(token: tokenHash)
            default:
                proof = nil
                body.add(FieldError(field: "code", code: .required, message: "Send either email and code, or token_hash."))
            }
            try body.finish()
            guard let proof, let purposes else { throw JSONRequestBody.validationFailed(body.errors) }
            switch try auth.verifyEmail(proof, purposes: purposes, forBrowser: false, client: ClientInfo(request, context)) {
            case .session(let signedIn, _):
                return .response(try .json(auth.tokenResponse(user: signedIn.user, sessionID: signedIn.sessionID,
                                                              refreshToken: signedIn.refreshToken)))
            case .emailChanged(let user):
                // The address moved; the caller's existing session stays as it was, and none is opened.
                return .response(try .json(JSONValue.object(["user": JSONOutput.user(user)])))
            case .pkceCode:
                throw DomainError.internalError
            }
        }
        EmailChangeCancelPage.register(on: &router, auth: auth)
        router.post("/v1/auth/pkce") { request, context in
            var body = try JSONRequestBody(request, allowed: ["auth_code", "code_verifier"])
            let code = body.string("auth_code", required: true)
            let verifier = body.string("code_verifier", required: true)
            try body.finish()
            guard let code, let verifier else { throw JSONRequestBody.validationFailed(body.errors) }
            let signedIn = try auth.exchangePKCE(code: code, verifier: verifier, client: ClientInfo(request, context))
            return .response(try .json(auth.tokenResponse(user: signedIn.user, sessionID: signedIn.sessionID,
                                                          refreshToken: signedIn.refreshToken)))
        }
    }

    /// Invitations (admins) and the caller's own address change.
    static func register(on router: inout Router, auth: AuthService) {
        router.post("/v1/invitations") { request, context in
            _ = try auth.requireAdmin(context)
            var body = try JSONRequestBody(request, allowed: ["email", "name", "user_type", "redirect_to"])
            var errors: [FieldError] = []
            let name = body.string("name", required: false).flatMap { UserRules.checkName($0, errors: &errors) }
            let type = body.userType("user_type", required: false) ?? .realtor
            let mail = body.emailRequest(redirectTo: body.string("redirect_to", required: false), redirects: auth.emailSettings.redirects)
            errors.forEach { body.add($0) }
            try body.finish()
            guard let mail else { throw JSONRequestBody.validationFailed(body.errors) }
            return .response(try inviteResponse(auth.invite(mail, name: name, userType: type)))
        }
        router.post("/v1/me/email") { request, context in
            try APIKeyRoutes.requireSession(context, AuthService.apiKeyMayNotChangeEmail)
            let user = try auth.currentUser(context)
            var body = try JSONRequestBody(request, allowed: ["email", "current_password", "redirect_to", "code_challenge",
                                                              "code_challenge_method"])
            let mail = body.emailRequest(redirectTo: body.string("redirect_to", required: false), redirects: auth.emailSettings.redirects)
            let current = body.string("current_password", required: false) ?? ""
            try body.finish()
            guard let mail else { throw JSONRequestBody.validationFailed(body.errors) }
            guard mail.email.lowercased() != user.email.lowercased() else {
                throw JSONRequestBody.validationFailed([FieldError(field: "email", code: .invalid, message: "Is already the account's address.")])
            }
            return auth.passwordWork.respond(context) {
                try auth.requestEmailChange(user, mail, presence: .currentPassword(current), client: ClientInfo(context))
                return (try? HTTPResponse.json(JSONValue.object([:]), status: .accepted)) ?? HTTPResponse(status: .accepted)
            }
        }
    }

    static let resendKinds: [String: AuthService.ResendKind] = ["invite": .invitation, "email_change": .emailChange]

    static func accepted() -> HandlerReply {
        .response((try? HTTPResponse.json(JSONValue.object([:]), status: .accepted)) ?? HTTPResponse(status: .accepted))
    }

    static func inviteResponse(_ user: User) throws -> HTTPResponse {
        try .json(JSONOutput.user(user), status: .created, headers: ["Location": "/v1/users/\(user.id.uuidString.lowercased())"])
    }
}
