import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// `POST|DELETE /v1/{tasks|activities}/{id}/claim` (contract §3). Both answer 200 with the row,
/// also when nothing changed (re-claiming your own claim, releasing an unclaimed item).
enum ClaimRoutes {
    static func register(on router: inout Router, auth: AuthService) {
        for kind in WorkItemKind.allCases {
            let store = WorkItemStore(pool: auth.pool, kind: kind)
            router.post("/v1/\(kind.table)/{id}/claim") { _, context in
                let (caller, id) = try target(auth, context)
                return try answer(try store.claim(callerID: caller, id: id))
            }
            router.delete("/v1/\(kind.table)/{id}/claim") { _, context in
                let (caller, id) = try target(auth, context)
                return try answer(try store.release(callerID: caller, id: id))
            }
        }
    }

    /// The caller and the item. The caller's account is read by the claim's or release's own
    /// statement (one round trip), so only a bad id reads it here: 401 before 400.
    private static func target(_ auth: AuthService, _ context: RequestContext) throws -> (caller: UUID, id: UUID) {
        let principal = try AuthService.principal(context)
        do {
            return (principal.userID, try ResourceHTTP.uuid(context))
        } catch {
            _ = try auth.viewer(context)
            throw error
        }
    }

    private static func answer(_ write: CallerWrite<(row: ResourceRow, changed: Bool)>) throws -> HandlerReply {
        switch write {
        case .callerInactive: throw AuthService.inactiveAccount
        case .written(let result): return .response(ResourceHTTP.row(result.row.json, version: result.row.version))
        }
    }
}
