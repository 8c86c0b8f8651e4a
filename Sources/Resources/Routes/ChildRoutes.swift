import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import RouteKit
import Store

/// The routes of a child resource (contract §2, 5), written once for notes and subtasks:
/// `GET /v1/{parents}/{id}/{children}` for each parent kind the store accepts,
/// `POST /v1/{children}`, `GET|PATCH|DELETE /v1/{children}/{id}`. A child supplies how its
/// create and change bodies are read (`ChildInputParser`) and how its change is applied; the
/// rules live in its store. HTTP only.
struct ChildRoutes<Store: ChildRowStore> {
    let store: Store
    /// A create body → the store's new row, or a 422 with every field problem.
    let parseNew: @Sendable (inout JSONRequestBody) throws -> Store.NewRow
    /// Reads a change body and applies it to row `id` with the `If-Match` check.
    let change: @Sendable (Store, Viewer, UUID, inout JSONRequestBody, VersionCheck) throws -> ResourceRow

    func register(on router: inout Router, auth: AuthService, paging: ListPaging) {
        let store = store, parseNew = parseNew, change = change
        let collection = store.resource.description.table
        let creation = ChildInputParser.creation(store.resource), edit = ChildInputParser.change(store.resource)
        for parent in ParentType.allCases where store.accepts(parent) {
            router.get("/v1/\(parent.table)/{id}/\(collection)") { _, context in
                let viewer = try ChildHTTP.viewer(auth, context)
                let list = try ChildHTTP.listRequest(context, store.resource)
                let page = try store.list(viewer, parentType: parent, parentID: list.parentID,
                                          includeDeleted: list.includeDeleted, limit: list.limit,
                                          maxBytes: paging.rowBytes, after: list.cursor)
                return .response(ChildHTTP.page(page, store.resource))
            }
        }
        router.post("/v1/\(collection)") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            var body = try creation.body(request)
            let new = try parseNew(&body)
            return .response(ChildHTTP.created(try store.create(viewer, new), collection: collection))
        }
        router.get("/v1/\(collection)/{id}") { _, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            return .response(ChildHTTP.row(try store.get(viewer, id: id)))
        }
        router.patch("/v1/\(collection)/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            var body = try edit.body(request)
            return .response(ChildHTTP.row(try change(store, viewer, id, &body, IfMatch.check(request))))
        }
        router.delete("/v1/\(collection)/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            return .response(ChildHTTP.row(try store.delete(viewer, id: id, check: IfMatch.check(request))))
        }
    }
}
