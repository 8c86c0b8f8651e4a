import Domain
import HTTP1
import HTTPServer

/// The body of `PUT /auth/v1/user`, checked against what we can honestly do:
/// - `password` changes the password under `/v1`'s rule, so it needs `current_password`
///   (GoTrue's field for the same check; supabase-py sends it, supabase-swift's
///   `UserAttributes` cannot — see docs/app-developers/switching-from-supabase.md). A reauthentication `nonce` is not accepted in
///   its place and is ignored.
/// - `data.name` renames the caller; `data.avatar_hash` is server-managed and ignored (avatars
///   change through `/v1/me/avatar`); any other `data` key is refused, since we do not store
///   arbitrary metadata and silently dropping it would lose the app's data.
/// - `email` may only repeat the current address; `phone` must be empty: neither can change.
struct GoTrueUserUpdate {
    var name: String?
    var password: String?
    var currentPassword: String

    init(_ request: HTTPRequest, current user: User) throws {
        var body = try GoTrueBody(request, allowed: ["password", "current_password", "data", "email", "phone", "nonce"])
        let password = body.string("password", required: false).flatMap { $0.isEmpty ? nil : $0 }
        let current = body.string("current_password", required: false)
        if let email = body.string("email", required: false), !email.isEmpty,
           email.lowercased() != user.email.lowercased() {
            body.add(FieldError(field: "email", code: "not_supported", message: "The email address cannot be changed."))
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
                throw HTTPError(status: .unprocessableContent, code: "weak_password", message: problem.message,
                                details: ["reasons": [.string(problem.code)]])
            }
            guard let current, !current.isEmpty else {
                throw HTTPError(status: .badRequest, code: "current_password_required",
                                message: "Current password required when setting new password.")
            }
        }
        self.password = password
        currentPassword = current ?? ""
    }
}
