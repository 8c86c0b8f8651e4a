import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// The routes of a resource clients create, replace and patch (contract §5), written once for
/// listings, tasks and activities: `GET|POST /v1/{r}`, `GET|PATCH|PUT|DELETE /v1/{r}/{id}`.
/// The collection and the statuses a list filters by come from the store's description; a
/// resource supplies how its body is read (`ResourceInputParser`). HTTP only: the rules live
/// in the stores.
struct WritableRoutes<Store: WritableRowStore> where Store.Input == ResourceInput {
    let store: Store
    /// The keys a body may carry (`allowed` are read, `ignored` accepted and dropped).
    let allowed: Set<String>
    let ignored: Set<String>
    /// Reads the resource's fields (`complete`: create and replace); `body.finish()` follows.
    let parse: @Sendable (inout JSONRequestBody, _ complete: Bool) -> ResourceInput
    /// Whether the list takes the work-item filters (`claimed_by`, `listing_id`).
    let workItem: Bool

    func register(on router: inout Router, auth: AuthService, paging: ListPaging) {
        let routes = self
        let base = "/v1/\(store.resource.description.table)"
        let statuses = store.resource.description.column("status").map { column -> [String] in
            if case .enumeration(let values) = column.type { return values }
            return []
        } ?? []

        router.get(base) { _, context in
            let viewer = try auth.viewer(context)
            let filter = try ResourceListQuery.filter(context, statuses: statuses, workItem: routes.workItem,
                                                      caller: viewer.userID, paging: paging)
            return .response(ResourceListQuery.response(try routes.store.list(viewer, filter), order: filter.order))
        }
        router.post(base) { request, context in
            let principal = try AuthService.principal(context)
            let id: UUID, input: ResourceInput
            do {
                var body = try routes.body(request)
                id = ResourceInputParser.id(&body) ?? UUID()
                input = routes.parse(&body, true)
                try body.finish()
            } catch {
                _ = try auth.viewer(context)  // 401 before 400 or 422, as on every route
                throw error
            }
            // The caller's account is read by the create (in its statement where the create is one).
            switch try routes.store.create(callerID: principal.userID, id: id, input: input) {
            case .callerInactive: throw AuthService.inactiveAccount
            case .written(let result):
                return .response(ResourceHTTP.row(result.row.json, version: result.row.version,
                                                  status: result.created ? .created : .ok, location: routes.location(id)))
            }
        }
        router.get("\(base)/{id}") { _, context in
            let principal = try AuthService.principal(context)
            let id: UUID
            do {
                id = try ResourceHTTP.uuid(context)
            } catch {
                _ = try auth.viewer(context)  // 401 before 400, as on every route
                throw error
            }
            // The caller's users row and the row in one statement (one round trip).
            switch try routes.store.get(callerID: principal.userID, id: id) {
            case .callerInactive: throw AuthService.inactiveAccount
            case .row(let row): return .response(ResourceHTTP.row(row.json, version: row.version))
            }
        }
        router.patch("\(base)/{id}") { request, context in
            try routes.write(request, context, auth: auth, replace: false)
        }
        router.put("\(base)/{id}") { request, context in
            try routes.write(request, context, auth: auth, replace: true)
        }
        router.delete("\(base)/{id}") { request, context in
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            let row = try routes.store.delete(viewer, id: id, check: IfMatch.check(request))
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }
    }

    /// `PATCH` (only the fields sent) or `PUT` (create-or-replace).
    private func write(_ request: HTTPRequest, _ context: RequestContext, auth: AuthService, replace: Bool) throws -> HandlerReply {
        let principal = try AuthService.principal(context)
        let id: UUID, input: ResourceInput
        do {
            id = try ResourceHTTP.uuid(context)
            var body = try body(request)
            ResourceInputParser.checkBodyID(&body, path: id)
            input = parse(&body, replace)
            try body.finish()
        } catch {
            _ = try auth.viewer(context)  // 401 before 400 or 422, as on every route
            throw error
        }
        let check = IfMatch.check(request)
        if replace {
            let result = try store.put(try auth.viewer(context), id: id, input: input, check: check)
            return .response(ResourceHTTP.row(result.row.json, version: result.row.version,
                                              status: result.created ? .created : .ok,
                                              location: result.created ? location(id) : nil))
        }
        // The caller's account is read by the update (in the statement that locks the row
        // where the store has one).
        switch try store.update(callerID: principal.userID, id: id, input: input, check: check) {
        case .callerInactive: throw AuthService.inactiveAccount
        case .written(let row): return .response(ResourceHTTP.row(row.json, version: row.version))
        }
    }

    private func body(_ request: HTTPRequest) throws -> JSONRequestBody {
        try JSONRequestBody(request, allowed: allowed, ignored: ignored)
    }

    private func location(_ id: UUID) -> String {
        "/v1/\(store.resource.description.table)/\(id.uuidString.lowercased())"
    }
}
