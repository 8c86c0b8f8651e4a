import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// `POST|DELETE /v1/{tasks|activities}/{id}/claim` (contract §3). Both answer 200 with the row,
/// also when nothing changed (re-claiming your own claim, releasing an unclaimed item).
enum ClaimRoutes {
    static func register(on router: inout Router, auth: AuthService) {
        for kind in WorkItemKind.allCases {
            let store = WorkItemStore(pool: auth.pool, kind: kind)
            router.post("/v1/\(kind.table)/{id}/claim") { _, context in
                let viewer = try auth.viewer(context)
                let id = try ResourceHTTP.uuid(context)
                let result = try store.claim(viewer, id: id)
                return .response(ResourceHTTP.row(result.row.json, version: result.row.version))
            }
            router.delete("/v1/\(kind.table)/{id}/claim") { _, context in
                let viewer = try auth.viewer(context)
                let id = try ResourceHTTP.uuid(context)
                let result = try store.release(viewer, id: id)
                return .response(ResourceHTTP.row(result.row.json, version: result.row.version))
            }
        }
    }
}
