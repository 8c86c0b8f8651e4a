import HTTPServer

/// The account routes the composition root registers: sign-in, refresh, avatar downloads and
/// the mail requests take no credentials; the rest need them.
package enum AccountRoutes {
    package static func registerPublic(on router: inout Router, auth: AuthService) {
        AuthRoutes.registerSignIn(on: &router, auth: auth)
        AvatarRoutes.registerDownload(on: &router, auth: auth)
        EmailAuthRoutes.registerPublic(on: &router, auth: auth)
    }

    package static func register(on router: inout Router, auth: AuthService) {
        AuthRoutes.register(on: &router, auth: auth)
        UserRoutes.register(on: &router, auth: auth)
        APIKeyRoutes.register(on: &router, auth: auth)
        AvatarRoutes.register(on: &router, auth: auth)
        EmailAuthRoutes.register(on: &router, auth: auth)
    }
}
