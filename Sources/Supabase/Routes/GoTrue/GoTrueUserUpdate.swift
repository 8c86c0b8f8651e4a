import Accounts
import Domain
import HTTP1
import HTTPServer

/// The body of `PUT /auth/v1/user`, checked against what we can honestly do:
/// - `password` changes the password under `/v1`'s rule, so it needs `current_password`
///   (GoTrue's field for the same check; supabase-py sends it, supabase-swift's
///   `UserAttributes` cannot), except once in a session opened by a recovery or invitation
///   mail (the route decides: `AuthService.resetPassword`). A reauthentication `nonce` is not
///   accepted in its place and is ignored.
/// - `data.name` renames the caller; `data.avatar_hash` is server-managed and ignored (avatars
///   change through `/v1/me/avatar`); any other `data` key is refused, since we do not store
///   arbitrary metadata and silently dropping it would lose the app's data.
/// - `email`: a different address starts an address change (a code and link to it, a notice
///   with a cancel link to the current one; PKCE `code_challenge` as GoTrue takes it), from a
///   session that proves presence with `current_password` or a recent password sign-in
///   (`AuthService.requestEmailChange`); `phone` must be empty.
struct GoTrueUserUpdate {
    var name: String?
    var password: String?
    var currentPassword: String
    /// The requested new address, when `email` names another one.
    var emailChange: AuthService.EmailRequest?

    init(_ request: HTTPRequest, current user: User, redirects: RedirectAllowList, redirectTo: String?) throws {
        var body = try GoTrueBody(request, allowed: ["password", "current_password", "data", "email", "phone", "nonce",
                                                     "code_challenge", "code_challenge_method"])
        let password = body.string("password", required: false).flatMap { $0.isEmpty ? nil : $0 }
        let current = body.string("current_password", required: false)
        let requested = body.string("email", required: false)?.trimmingCharacters(in: .whitespaces) ?? ""
        if !requested.isEmpty, requested.lowercased() != user.email.lowercased() {
            emailChange = body.body.emailRequest(redirectTo: redirectTo, redirects: redirects)
        } else {
            // No address change to bind a PKCE pair to, but a malformed pair is still refused.
            _ = body.body.pkceChallenge()
        }
        if let phone = body.string("phone", required: false), !phone.isEmpty {
            body.add(FieldError(field: "phone", code: "not_supported", message: "Phone numbers are not supported."))
        }
        var errors: [FieldError] = []
        switch body.value("data") {
        case nil, .null?:
            name = nil
        case .object(let data)?:
            for key in data.keys.sorted() where key != "name" && key != "avatar_hash" {
                errors.append(FieldError(field: "data.\(key)", code: "unknown_field",
                                         message: "Unknown field: only name can be changed."))
            }
            switch data["avatar_hash"] {
            case nil, .null?, .string?: break
            default: errors.append(FieldError(field: "data.avatar_hash", code: "invalid_type", message: "Must be a string or null."))
            }
            switch data["name"] {
            case nil: name = nil
            case .string(let value)?: name = UserRules.checkName(value, field: "data.name", errors: &errors)
            default:
                name = nil
                errors.append(FieldError(field: "data.name", code: "invalid_type", message: "Must be a string."))
            }
        default:
            name = nil
            errors.append(FieldError(field: "data", code: "invalid_type", message: "Must be an object."))
        }
        errors.forEach { body.add($0) }
        try body.finish()
        if let password {
            if let problem = UserRules.checkPassword(password) {
                throw HTTPError(status: .unprocessableContent, code: GoTrueErrorCode.weakPassword.rawValue, message: problem.message,
                                details: ["reasons": [.string(problem.code)]])
            }
        }
        self.password = password
        currentPassword = current ?? ""
    }
}
