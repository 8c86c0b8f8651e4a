import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// `/v1/listings` (contract §5): list, create, get, patch, put, delete, status history. HTTP only;
/// the rules live in `ListingStore` (SQL visibility) and `Domain`.
enum ListingRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        let store = ListingStore(pool: auth.pool)
        let statuses = ListingStatus.allCases.map(\.rawValue)

        router.get("/v1/listings") { _, context in
            let viewer = try auth.viewer(context)
            let filter = try ResourceListQuery.filter(context, statuses: statuses, workItem: false, caller: viewer.userID,
                                                      paging: paging)
            return .response(ResourceListQuery.response(try store.list(viewer, filter), order: filter.order))
        }
        router.post("/v1/listings") { request, context in
            let viewer = try auth.viewer(context)
            var body = try body(request)
            let id = ResourceInputParser.id(&body) ?? UUID()
            let input = ResourceInputParser.listing(&body, complete: true)
            try body.finish()
            let result = try store.create(viewer, id: id, input: input)
            return .response(ResourceHTTP.row(result.row.json, version: result.row.version,
                                              status: result.created ? .created : .ok, location: location(id)))
        }
        router.get("/v1/listings/{id}") { _, context in
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            let row = try store.get(viewer, id: id)
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }
        router.patch("/v1/listings/{id}") { request, context in
            try write(request, context, replace: false)
        }
        router.put("/v1/listings/{id}") { request, context in
            try write(request, context, replace: true)
        }
        router.delete("/v1/listings/{id}") { request, context in
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            let row = try store.delete(viewer, id: id, check: IfMatch.check(request))
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }

        @Sendable func write(_ request: HTTPRequest, _ context: RequestContext, replace: Bool) throws -> HandlerReply {
            let viewer = try auth.viewer(context)
            let id = try ResourceHTTP.uuid(context)
            var body = try body(request)
            ResourceInputParser.checkBodyID(&body, path: id)
            let input = ResourceInputParser.listing(&body, complete: replace)
            try body.finish()
            let check = IfMatch.check(request)
            if replace {
                let result = try store.put(viewer, id: id, input: input, check: check)
                return .response(ResourceHTTP.row(result.row.json, version: result.row.version,
                                                  status: result.created ? .created : .ok,
                                                  location: result.created ? location(id) : nil))
            }
            let row = try store.update(viewer, id: id, input: input, replace: false, check: check)
            return .response(ResourceHTTP.row(row.json, version: row.version))
        }
    }

    static func body(_ request: HTTPRequest) throws -> JSONRequestBody {
        try JSONRequestBody(request, allowed: ResourceInputParser.listingFields, ignored: ResourceInputParser.listingIgnored)
    }

    static func location(_ id: UUID) -> String { "/v1/listings/\(id.uuidString.lowercased())" }
}
