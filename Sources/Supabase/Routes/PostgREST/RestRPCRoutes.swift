import Accounts
import Domain
import HTTP1
import HTTPServer
import RouteKit
import Store

/// `POST /rest/v1/rpc/<name>`: the atomic claim and release functions (`RestRPCFunction`) for
/// signed-in users. Each runs the same store operation as `POST`/`DELETE /v1/…/{id}/claim` —
/// same rules, one `claim_events` row, a version bump — and answers 200 with the row as one
/// JSON **object**, as PostgREST answers a function that returns a single row of a table
/// (`RETURNS tasks`), so `rpc(…).execute().value` decodes straight into the app's model.
/// Refusals are the store's (404 `not_found`, 409 `claim_conflict` with the holder in
/// `details`, 409 `not_claimable`, 403 `forbidden`) or the call's own (`RestRPCCall`), all
/// rendered by `RestErrorMapping`.
enum RestRPCRoutes {
    static func register(on router: inout Router, auth: AuthService) {
        let stores = Dictionary(uniqueKeysWithValues: WorkItemKind.allCases.map { ($0, WorkItemStore(pool: auth.pool, kind: $0)) })
        router.post("/rest/v1/rpc/{function}") { request, context in
            let viewer = try auth.viewer(context)
            guard request.body.count <= JSONRequestBody.maxBytes else {
                throw DomainError(.contentTooLarge, .bodyTooLarge,
                                  "JSON request bodies are limited to \(JSONRequestBody.maxBytes) bytes.")
            }
            let call = try RestRPCCall(name: try context.pathParameter("function"), body: request.body,
                                       contentType: request.headers["Content-Type"], query: context.query)
            guard let store = stores[call.function.kind] else { throw HTTPError.internalError }
            let result = switch call.function.action {
            case .claim: try store.claim(viewer, id: call.id)
            case .release: try store.release(viewer, id: call.id)
            }
            let object = request.headers["Accept"]?.contains("application/vnd.pgrst.object+json") == true
            return .response(HTTPResponse(status: .ok,
                                          headers: ["Content-Type": object ? RestReadRoutes.objectType : RestReadRoutes.jsonType],
                                          body: Array(result.row.json.utf8)))
        }
    }
}
