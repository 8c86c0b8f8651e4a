import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// Notes (contract §2, 5): `GET /v1/{tasks|activities|listings}/{id}/notes`, `POST /v1/notes`,
/// `GET|PATCH|DELETE /v1/notes/{id}`. The rules live in `NoteStore`; this file is HTTP only.
enum NoteRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        let notes = NoteStore(pool: auth.pool)
        for parent in ParentType.allCases {
            router.get("/v1/\(parent.table)/{id}/notes") { _, context in
                let viewer = try ChildHTTP.viewer(auth, context)
                let list = try ChildHTTP.listRequest(context)
                let page = try notes.list(viewer, parentType: parent, parentID: list.parentID,
                                          includeDeleted: list.includeDeleted, limit: list.limit,
                                          maxBytes: paging.rowBytes, after: list.cursor)
                return .response(ChildHTTP.page(page))
            }
        }
        router.post("/v1/notes") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            var body = try ChildInputParser.noteCreation.body(request)
            let note = try ChildInputParser.newNote(&body)
            let result = try notes.create(viewer, note)
            return .response(ChildHTTP.created(result, collection: "notes"))
        }
        router.get("/v1/notes/{id}") { _, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            return .response(ChildHTTP.row(try notes.get(viewer, id: id)))
        }
        router.patch("/v1/notes/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            var body = try ChildInputParser.noteChange.body(request)
            let content = try ChildInputParser.noteContent(&body)
            let check = IfMatch.check(request)
            let row = try notes.update(viewer, id: id, content: content, check: check)
            return .response(ChildHTTP.row(row))
        }
        router.delete("/v1/notes/{id}") { request, context in
            let viewer = try ChildHTTP.viewer(auth, context)
            let id = try ResourceHTTP.uuid(context)
            let check = IfMatch.check(request)
            return .response(ChildHTTP.row(try notes.delete(viewer, id: id, check: check)))
        }
    }
}
