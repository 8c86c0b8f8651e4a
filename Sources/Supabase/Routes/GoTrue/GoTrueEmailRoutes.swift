import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// GoTrue's e-mail routes, on the operations of `AuthService+EmailRequests` and
/// `+EmailVerify` that `/v1` calls too. Wire shapes from supabase/auth `internal/api`
/// (otp.go, magic_link.go, verify.go, recover.go, resend.go, invite.go) and what
/// supabase-swift 2.x and supabase-py send. Deviation (docs/app-developers/email-auth.md):
/// `/otp` for an unknown address answers the same `{}` as for a known one, and sends nothing.
enum GoTrueEmailRoutes {
    /// Fields clients send that change nothing here (captcha, SMS channel, `options` that
    /// supabase-py copies into the verify body) are read as unknown and ignored (`GoTrueBody`).
    static func registerPublic(on router: inout Router, auth: AuthService) {
        router.post("/auth/v1/otp") { request, context in
            var body = try GoTrueBody(request, allowed: ["email", "phone", "create_user", "data", "code_challenge",
                                                         "code_challenge_method"])
            try refusePhone(&body)
            let createUser = body.body.bool("create_user") ?? true
            let name = metadataName(body.value("data"))
            let mail = body.body.emailRequest(redirectTo: context.query["redirect_to"], redirects: auth.emailSettings.redirects)
            try body.finish()
            guard let mail else { throw JSONRequestBody.validationFailed(body.body.errors) }
            try auth.requestSignInCode(mail.from(context), createUser: createUser, name: name)
            return .response(try .json(JSONValue.object([:])))
        }
        router.post("/auth/v1/recover") { request, context in
            var body = try GoTrueBody(request, allowed: ["email", "code_challenge", "code_challenge_method"])
            let mail = body.body.emailRequest(redirectTo: context.query["redirect_to"], redirects: auth.emailSettings.redirects)
            try body.finish()
            guard let mail else { throw JSONRequestBody.validationFailed(body.body.errors) }
            try auth.requestRecovery(mail.from(context))
            return .response(try .json(JSONValue.object([:])))
        }
        router.post("/auth/v1/resend") { request, context in
            var body = try GoTrueBody(request, allowed: ["type", "email", "phone", "code_challenge", "code_challenge_method"])
            try refusePhone(&body)
            let typeName = body.string("type", required: true)
            let mail = body.body.emailRequest(redirectTo: context.query["redirect_to"], redirects: auth.emailSettings.redirects)
            try body.finish()
            guard let typeName, let mail else { throw JSONRequestBody.validationFailed(body.body.errors) }
            guard let kind = AuthService.ResendKind(rawValue: typeName) else {
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue,
                                message: "Missing one of these types: signup, email_change")
            }
            try auth.resend(mail.from(context), kind: kind)
            return .response(try .json(JSONValue.object([:])))
        }
        router.post("/auth/v1/verify") { request, context in
            let (proof, purposes) = try verifyBody(request)
            switch try auth.verifyEmail(proof, purposes: purposes, forBrowser: false, client: ClientInfo(request, context)) {
            case .session(let signedIn, _):
                return .response(try GoTrueRoutes.session(auth, signedIn.user, signedIn.sessionID, signedIn.refreshToken))
            case .emailChanged(let user):
                // No session: the user alone, which supabase-swift decodes as AuthResponse.user.
                return .response(try .json(GoTrueJSON.user(user)))
            case .pkceCode:
                throw DomainError.internalError
            }
        }
        // The link in the mail, opened by a browser: no apikey (SupabaseGateway lets it through).
        // HEAD (the router sends it here) is what link checkers and mail scanners probe with:
        // it answers without spending the link (GoTrueVerifyRedirect.probe).
        router.get("/auth/v1/verify") { request, context in
            .response(request.method == .head ? GoTrueVerifyRedirect.probe() : GoTrueVerifyRedirect.respond(request, context, auth))
        }
    }

    /// Invitations: administrators only. supabase-py posts to `/invite`, supabase-swift to
    /// `/admin/invite`; both answer the new user (GoTrue's shape), 200.
    static func registerAuthenticated(on router: inout Router, auth: AuthService) {
        for path in ["/auth/v1/invite", "/auth/v1/admin/invite"] {
            router.post(path) { request, context in
                _ = try auth.requireAdmin(context)
                var body = try GoTrueBody(request, allowed: ["email", "data"])
                let data = body.value("data")
                let userType = try metadataUserType(data)
                let mail = body.body.emailRequest(redirectTo: context.query["redirect_to"], redirects: auth.emailSettings.redirects)
                try body.finish()
                guard let mail else { throw JSONRequestBody.validationFailed(body.body.errors) }
                let user = try auth.invite(mail, name: metadataName(data), userType: userType)
                return .response(try .json(GoTrueJSON.user(user)))
            }
        }
    }

    /// `{type, token, email}` or `{type, token_hash}`, as GoTrue's VerifyParams.Validate.
    static func verifyBody(_ request: HTTPRequest) throws -> (AuthService.EmailProof, [EmailTokenPurpose]) {
        var body = try GoTrueBody(request, allowed: ["type", "token", "token_hash", "email", "phone", "redirect_to"])
        try refusePhone(&body)
        let type = body.string("type", required: true)
        let token = body.string("token", required: false).flatMap { $0.isEmpty ? nil : $0 }
        let tokenHash = body.string("token_hash", required: false).flatMap { $0.isEmpty ? nil : $0 }
        let email = body.string("email", required: false)?.trimmingCharacters(in: .whitespaces)
        try body.finish()
        guard let type, let purposes = EmailTokenPurpose.accepted(byType: type) else {
            throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue, message: "Unsupported verification type")
        }
        switch (token, tokenHash) {
        case (let token?, nil):
            guard let email, !email.isEmpty else {
                throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue,
                                message: "Only an email address or phone number should be provided on verify")
            }
            return (.code(email: email, code: token), purposes)
        case (nil, let tokenHash?):
            return (.link(token: tokenHash), purposes)
        default:
            throw HTTPError(status: .badRequest, code: GoTrueErrorCode.validationFailed.rawValue, message: "Verify requires either a token or a token hash")
        }
    }

    /// Phone sign-in is not offered: GoTrue's answer when its phone provider is off.
    static func refusePhone(_ body: inout GoTrueBody) throws {
        if let phone = body.string("phone", required: false), !phone.isEmpty {
            throw HTTPError(status: .badRequest, code: GoTrueErrorCode.phoneProviderDisabled.rawValue, message: "Unsupported phone provider")
        }
    }

    /// `data.name` of an invitation or sign-up, when it is a usable name.
    static func metadataName(_ data: JSONValue?) -> String? {
        guard case .object(let fields)? = data, case .string(let name)? = fields["name"] else { return nil }
        var errors: [FieldError] = []
        return UserRules.checkName(name, field: "data.name", errors: &errors)
    }

    /// `data.user_type` of an invitation (default realtor).
    static func metadataUserType(_ data: JSONValue?) throws -> UserType {
        guard case .object(let fields)? = data, let value = fields["user_type"] else { return .realtor }
        guard case .string(let name) = value, let type = UserType(rawValue: name) else {
            throw JSONRequestBody.validationFailed([FieldError(field: "data.user_type", code: .invalid, message: "Must be admin or realtor.")])
        }
        return type
    }
}
