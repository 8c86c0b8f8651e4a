import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit

/// A GoTrue request body: a JSON object parsed with the contract's rules (size, content type,
/// strict JSON, types, NUL), except that unknown fields are ignored, as GoTrue does — clients
/// send extras such as `gotrue_meta_security`, `data` on sign-in, or `code_challenge`.
struct GoTrueBody {
    var body: JSONRequestBody

    init(_ request: HTTPRequest, allowed: Set<String>) throws {
        body = try JSONRequestBody(request, allowed: allowed, ignored: [])
        body.errors.removeAll { $0.code == "unknown_field" }
    }

    mutating func string(_ field: String, required: Bool) -> String? { body.string(field, required: required) }
    func value(_ field: String) -> JSONValue? { body.value(field) }
    mutating func add(_ error: FieldError?) { body.add(error) }
    func finish() throws { try body.finish() }

    /// `{"email", "password"}` of `grant_type=password`, as `/v1/auth/login` reads them.
    static func signInCredentials(_ request: HTTPRequest) throws -> (email: String, password: String) {
        var body = try GoTrueBody(request, allowed: ["email", "password"])
        let email = body.string("email", required: true)?.trimmingCharacters(in: .whitespaces)
        let password = body.string("password", required: true)
        try body.finish()
        guard let email, let password else { throw JSONRequestBody.validationFailed(body.body.errors) }
        return (email, password)
    }
}
