import Domain
import HTTP1
import HTTPServer
import RouteKit
import Store

/// The caller of a request, for route handlers: the principal `AuthMiddleware` put on the
/// context, and the user row behind it.
extension AuthService {
    package static func principal(_ context: RequestContext) throws -> Principal {
        guard let principal = context.principal as? Principal else {
            throw unauthorized(tokenGiven: false, "Authentication is required.")
        }
        return principal
    }

    /// The caller's user row; 401 when it is gone or deactivated (its tokens die with it).
    package func currentUser(_ context: RequestContext) throws -> User {
        try currentUser(try Self.principal(context))
    }

    package func requireAdmin(_ context: RequestContext) throws -> User {
        let user = try currentUser(context)
        guard user.isAdmin else {
            throw HTTPError(status: .forbidden, code: ErrorCode.forbidden.rawValue, message: "Only administrators may do this.")
        }
        return user
    }

    /// The caller as the visibility rules see it; 401 when the account is gone or deactivated.
    package func viewer(_ context: RequestContext) throws -> Viewer {
        let user = try currentUser(context)
        return Viewer(userID: user.id, isAdmin: user.isAdmin)
    }
}
