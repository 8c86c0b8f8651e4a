import Accounts
import Domain
import Foundation
import HTTPServer
import RouteKit
import Store

/// `/v1/listings` (contract §5): list, create, get, patch, put, delete (`WritableRoutes`). HTTP
/// only; the rules live in `ListingStore` (SQL visibility) and `Domain`.
enum ListingRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        WritableRoutes(store: ListingStore(pool: auth.pool),
                       allowed: ResourceInputParser.listingFields, ignored: ResourceInputParser.listingIgnored,
                       parse: { ResourceInputParser.listing(&$0, complete: $1) }, workItem: false)
            .register(on: &router, auth: auth, paging: paging)
    }
}
