import HTTPServer
import Store

extension AuthService {
    /// The caller as the visibility rules see it; 401 when the account is gone or deactivated.
    func viewer(_ context: RequestContext) throws -> Viewer {
        let user = try currentUser(context)
        return Viewer(userID: user.id, isAdmin: user.isAdmin)
    }
}
