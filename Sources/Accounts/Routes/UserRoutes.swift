import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// User directory and administration (contract §2 "users", contract §5 "Users").
///
/// Visibility: every signed-in user sees every active user's profile; deactivated users are
/// visible to admins only (to realtors they answer 404 and are left out of lists).
enum UserRoutes {
    static func register(on router: inout Router, auth: AuthService) {
        router.get("/v1/users") { _, context in
            let caller = try auth.currentUser(context)
            let users = try auth.users.list(includeDeactivated: caller.isAdmin)
            return .response(try .json(["items": JSONValue.array(users.map(JSONOutput.user))]))
        }
        router.get("/v1/users/{id}") { _, context in
            let caller = try auth.currentUser(context)
            let id = try userID(context)
            guard let user = try auth.users.find(id: id), user.isActive || caller.isAdmin else {
                throw DomainError.notFound("user")
            }
            return .response(try .json(JSONOutput.user(user)))
        }
        router.post("/v1/users") { request, context in
            _ = try auth.requireAdmin(context)
            var body = try JSONRequestBody(request, allowed: ["email", "name", "user_type", "password"])
            var errors: [FieldError] = []
            let email = body.string("email", required: true).flatMap { UserRules.checkEmail($0, errors: &errors) }
            let name = body.string("name", required: true).flatMap { UserRules.checkName($0, errors: &errors) }
            let type = body.userType("user_type", required: false) ?? .realtor
            let password = body.string("password", required: true)
            if let password { body.add(UserRules.checkPassword(password)) }
            errors.forEach { body.add($0) }
            try body.finish()
            guard let email, let name, let password else { throw JSONRequestBody.validationFailed(body.errors) }
            // Hashing runs on the KDF pool like every password operation (PasswordWork).
            return auth.passwordWork.respond(context) {
                let user = try auth.users.create(email: email, name: name, userType: type,
                                                 passwordHash: try auth.hasher.hash(password))
                let location = "/v1/users/\(user.id.uuidString.lowercased())"
                return try .json(JSONOutput.user(user), status: .created, headers: ["Location": location])
            }
        }
        router.patch("/v1/users/{id}") { request, context in
            let admin = try auth.requireAdmin(context)
            let id = try userID(context)
            var body = try JSONRequestBody(request, allowed: ["name", "user_type", "deactivated", "avatar_hash"],
                                           ignored: JSONRequestBody.serverManaged.union(["email", "deactivated_at"]))
            var errors: [FieldError] = []
            let name = body.string("name", required: false).flatMap { UserRules.checkName($0, errors: &errors) }
            let avatarHash = body.avatarHash(errors: &errors)
            let type = body.userType("user_type", required: false)
            let deactivated = body.bool("deactivated")
            errors += UserRules.selfLockout(target: id, admin: admin.id, userType: type, deactivated: deactivated)
            errors.forEach { body.add($0) }
            try body.finish()
            guard let user = try auth.updateUser(id: id, changes: .init(name: name, userType: type, deactivated: deactivated,
                                                                            avatarHash: avatarHash)) else {
                throw DomainError.notFound("user")
            }
            return .response(try .json(JSONOutput.user(user)))
        }
    }

    static func userID(_ context: RequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.pathParameter("id")) else {
            throw DomainError.notFound("user")
        }
        return id
    }
}
