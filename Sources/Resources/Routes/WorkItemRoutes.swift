import Accounts
import Domain
import Foundation
import HTTPServer
import RouteKit
import Store

/// `/v1/tasks` and `/v1/activities` (contract §5): list, create, get, patch, put, delete
/// (`WritableRoutes`). HTTP only; the rules live in `WorkItemStore` (SQL visibility) and
/// `Domain`. Claims: `ClaimRoutes`.
enum WorkItemRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        for kind in WorkItemKind.allCases {
            WritableRoutes(store: WorkItemStore(pool: auth.pool, kind: kind),
                           allowed: ResourceInputParser.workItemFields(kind), ignored: ResourceInputParser.workItemIgnored,
                           parse: { ResourceInputParser.workItem(&$0, kind: kind, complete: $1) }, workItem: true)
                .register(on: &router, auth: auth, paging: paging)
        }
    }
}
