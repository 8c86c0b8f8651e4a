import Credentials
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// The bodies of sign-in and password change, parsed on the HTTP worker (cheap, and a bad body
/// never queues for the KDF); the rest runs on `AuthService.passwordWork`
/// (`AuthService.signIn`, `changePassword`).
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

    static func signIn(_ credentials: SignInCredentials, _ request: HTTPRequest, _ context: RequestContext,
                       _ auth: AuthService) throws -> HTTPResponse {
        let signedIn = try auth.signIn(email: credentials.email, password: credentials.password, client: ClientInfo(request, context))
        return signedIn.withDeviceCookie(
            try .json(auth.tokenResponse(user: signedIn.user, sessionID: signedIn.sessionID, refreshToken: signedIn.refreshToken)))
    }
}

extension SignedIn {
    /// `response` with the device cookie, when there is one.
    package func withDeviceCookie(_ response: HTTPResponse) -> HTTPResponse {
        guard let deviceCookie else { return response }
        var response = response
        response.headers.add(name: "Set-Cookie", value: deviceCookie)
        return response
    }
}
