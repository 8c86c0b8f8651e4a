import Accounts
import HTTPServer
import RouteKit

/// The `/v1` rows and claims, for the composition root; every one needs credentials.
package enum ResourceRoutes {
    package static func register(on router: inout Router, auth: AuthService, paging: ListPaging) {
        ListingRoutes.register(on: &router, auth: auth, paging: paging)
        WorkItemRoutes.register(on: &router, auth: auth, paging: paging)
        ClaimRoutes.register(on: &router, auth: auth)
        HistoryRoutes.register(on: &router, auth: auth, paging: paging)
        NoteRoutes.register(on: &router, auth: auth, paging: paging)
        SubtaskRoutes.register(on: &router, auth: auth, paging: paging)
    }
}
