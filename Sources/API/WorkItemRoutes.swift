import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// `/v1/tasks` and `/v1/activities` (contract §5): list, create, get, patch, put, delete. HTTP only;
/// the rules live in `WorkItemStore` (SQL visibility) and `Domain`. Claims: `ClaimRoutes`.
enum WorkItemRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        for kind in WorkItemKind.allCases {
            register(kind, on: &router, auth: auth, paging: paging)
        }
    }

    static func register(_ kind: WorkItemKind, on router: inout Router, auth: AuthService, paging: ListPaging) {
        let store = WorkItemStore(pool: auth.pool, kind: kind)
        let statuses = WorkItemStatus.allCases.map(\.rawValue)
        let base = "/v1/\(kind.table)"

        router.get(base) { _, context in
            let viewer = try auth.viewer(context)
            let filter = try ResourceListQuery.filter(context, statuses: statuses, workItem: true, caller: viewer.userID,
                                                      paging: paging)
            return .response(ResourceListQuery.response(try store.list(viewer, filter), order: filter.order))
        }
        router.post(base) { request, context in
            let viewer = try auth.viewer(context)
            var body = try body(request, kind)
            let id = ResourceInputParser.id(&body) ?? UUID()
            let input = ResourceInputParser.workItem(&body, kind: kind, complete: true)
            try body.finish()
            let result = try store.create(viewer, id: id, input: input)
            return .response(ResourceHTTP.row(result.row.json, version: result.row.version,
                                              status: result.created ? .created : .ok, location: location(kind, id)))
        }
        router.get("\(base)/{id}") { _, context in
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            let row = try store.get(viewer, id: id)
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }
        router.patch("\(base)/{id}") { request, context in
            try write(request, context, replace: false)
        }
        router.put("\(base)/{id}") { request, context in
            try write(request, context, replace: true)
        }
        router.delete("\(base)/{id}") { request, context in
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            let row = try store.delete(viewer, id: id, check: IfMatch.check(request))
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }

        @Sendable func write(_ request: HTTPRequest, _ context: RequestContext, replace: Bool) throws -> HandlerReply {
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            var body = try body(request, kind)
            ResourceInputParser.checkBodyID(&body, path: id)
            let input = ResourceInputParser.workItem(&body, kind: kind, complete: replace)
            try body.finish()
            let check = IfMatch.check(request)
            if replace {
                let result = try store.put(viewer, id: id, input: input, check: check)
                return .response(ResourceHTTP.row(result.row.json, version: result.row.version,
                                                  status: result.created ? .created : .ok,
                                                  location: result.created ? location(kind, id) : nil))
            }
            let row = try store.update(viewer, id: id, input: input, replace: false, check: check)
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }
    }

    static func body(_ request: HTTPRequest, _ kind: WorkItemKind) throws -> JSONRequestBody {
        try JSONRequestBody(request, allowed: ResourceInputParser.workItemFields(kind), ignored: ResourceInputParser.workItemIgnored)
    }

    static func location(_ kind: WorkItemKind, _ id: UUID) -> String { "/v1/\(kind.table)/\(id.uuidString.lowercased())" }
}
