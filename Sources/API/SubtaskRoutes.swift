import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// Subtasks (contract §2, 5): `GET /v1/{tasks|activities}/{id}/subtasks`, `POST /v1/subtasks`,
/// `GET|PATCH|DELETE /v1/subtasks/{id}`. The rules live in `SubtaskStore`; this file is HTTP only.
enum SubtaskRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        let subtasks = SubtaskStore(pool: auth.pool)
        for parent in ParentType.allCases where parent.canHaveSubtasks {
            router.get("/v1/\(parent.table)/{id}/subtasks") { _, context in
                let viewer = try ChildHTTP.viewer(auth, context)
                let list = try ChildHTTP.listRequest(context)
                let page = try subtasks.list(viewer, parentType: parent, parentID: list.parentID,
                                             includeDeleted: list.includeDeleted, limit: list.limit,
                                             maxBytes: paging.rowBytes, after: list.cursor)
                return .response(ChildHTTP.page(page))
            }
        }
        router.post("/v1/subtasks") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            var body = try ChildInputParser.subtaskCreation.body(request)
            let subtask = try ChildInputParser.newSubtask(&body)
            let result = try subtasks.create(viewer, subtask)
            return .response(ChildHTTP.created(result, collection: "subtasks"))
        }
        router.get("/v1/subtasks/{id}") { _, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            return .response(ChildHTTP.row(try subtasks.get(viewer, id: id)))
        }
        router.patch("/v1/subtasks/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            var body = try ChildInputParser.subtaskChange.body(request)
            let changes = try ChildInputParser.subtaskChanges(&body)
            let check = IfMatch.check(request)
            let row = try subtasks.update(viewer, id: id, changes: changes, check: check)
            return .response(ChildHTTP.row(row))
        }
        router.delete("/v1/subtasks/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            let check = IfMatch.check(request)
            return .response(ChildHTTP.row(try subtasks.delete(viewer, id: id, check: check)))
        }
    }
}
