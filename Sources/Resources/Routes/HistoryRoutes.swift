import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// History (contract §5): `GET /v1/{tasks|activities}/{id}/claim-events` and
/// `GET /v1/{listings|tasks|activities}/{id}/status-changes`, oldest first, paged like lists.
/// An entity the caller cannot see answers 404, like the entity itself.
enum HistoryRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        let store = HistoryStore(pool: auth.pool)
        for kind in WorkItemKind.allCases {
            router.get("/v1/\(kind.table)/{id}/claim-events") { _, context in
                let viewer = try auth.viewer(context)
                let id = try ResourceHTTP.uuid(context)
                let (limit, after) = try pageRequest(context)
                let page = try store.claimEvents(viewer, kind: kind, id: id, limit: limit, maxBytes: paging.rowBytes,
                                                 after: after)
                return .response(ResourceListQuery.response(page))
            }
        }
        for entity in HistoryStore.Entity.allCases {
            let table = entity == .listing ? "listings" : entity == .task ? "tasks" : "activities"
            router.get("/v1/\(table)/{id}/status-changes") { _, context in
                let viewer = try auth.viewer(context)
                let id = try ResourceHTTP.uuid(context)
                let (limit, after) = try pageRequest(context)
                let page = try store.statusChanges(viewer, entity: entity, id: id, limit: limit,
                                                   maxBytes: paging.rowBytes, after: after)
                return .response(ResourceListQuery.response(page))
            }
        }
    }

    static func pageRequest(_ context: RequestContext) throws -> (Int, KeysetPosition?) {
        let limit = try ResourceHTTP.limit(context)
        let after = try KeysetCursor.position(context)
        return (limit, after)
    }
}
