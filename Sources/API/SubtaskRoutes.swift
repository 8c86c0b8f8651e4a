import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// Subtasks (SPEC 2, 5): `GET /v1/{tasks|activities}/{id}/subtasks`, `POST /v1/subtasks`,
/// `GET|PATCH|DELETE /v1/subtasks/{id}`. The rules live in `SubtaskStore`; this file is HTTP only.
enum SubtaskRoutes {
    static let forbidden = "Only someone who may update the parent may change its subtasks."

    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        let subtasks = SubtaskStore(pool: auth.pool)
        for parent in ParentType.allCases where parent.canHaveSubtasks {
            router.get("/v1/\(parent.table)/{id}/subtasks") { _, context in
                let viewer = try ChildHTTP.viewer(auth, context)
                let list = try ChildHTTP.listRequest(context)
                let page = try run {
                    try subtasks.list(parentType: parent, parentID: list.parentID, viewer: viewer,
                                   includeDeleted: list.includeDeleted, limit: list.limit, maxBytes: paging.rowBytes,
                                   after: list.cursor)
                }
                return .response(ChildHTTP.page(page))
            }
        }
        router.post("/v1/subtasks") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            var body = try JSONRequestBody(request, allowed: ["id", "parent_type", "parent_id", "title", "completed", "position"],
                                           ignored: ChildHTTP.ignoredOnWrite)
            var errors: [FieldError] = []
            let id = body.uuidField("id", required: false)
            let parentType = body.parentType(forSubtask: true)
            let parentID = body.uuidField("parent_id", required: true)
            let title = body.string("title", required: true).flatMap { ChildRules.checkSubtaskTitle($0, errors: &errors) }
            let completed = body.bool("completed")
            let position = body.numberField("position").flatMap { ChildRules.checkPosition($0, errors: &errors) }
            errors.forEach { body.add($0) }
            try body.finish()
            guard let parentType, let parentID, let title else { throw JSONRequestBody.validationFailed(body.errors) }
            let subtask = SubtaskStore.NewSubtask(id: id, parentType: parentType, parentID: parentID, title: title,
                                                  completed: completed, position: position)
            let result = try run { try subtasks.create(subtask, viewer: viewer) }
            return .response(ChildHTTP.created(result, collection: "subtasks"))
        }
        router.get("/v1/subtasks/{id}") { _, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            return .response(ChildHTTP.row(try run { try subtasks.find(id: id, viewer: viewer) }))
        }
        router.patch("/v1/subtasks/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            // A subtask stays with its parent; parent fields sent back are ignored.
            var body = try JSONRequestBody(request, allowed: ["title", "completed", "position"],
                                           ignored: ChildHTTP.ignoredOnWrite.union(["parent_type", "parent_id"]))
            var errors: [FieldError] = []
            let title = body.string("title", required: false).flatMap { ChildRules.checkSubtaskTitle($0, errors: &errors) }
            let completed = body.bool("completed")
            let position = body.numberField("position").flatMap { ChildRules.checkPosition($0, errors: &errors) }
            errors.forEach { body.add($0) }
            try body.finish()
            let check = IfMatch.check(request)
            let row = try run {
                try subtasks.update(id: id, changes: .init(title: title, completed: completed, position: position),
                                    viewer: viewer, check: check)
            }
            return .response(ChildHTTP.row(row))
        }
        router.delete("/v1/subtasks/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            let check = IfMatch.check(request)
            return .response(ChildHTTP.row(try run { try subtasks.delete(id: id, viewer: viewer, check: check) }))
        }
    }

    private static func run<Result>(_ body: () throws -> Result) throws -> Result {
        try ChildHTTP.run(noun: "subtask", forbidden: forbidden, body)
    }
}
