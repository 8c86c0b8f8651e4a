import Accounts
import Domain
import Foundation
import HTTPServer
import RouteKit
import Store

/// Notes (contract §2, 5): `GET /v1/{tasks|activities|listings}/{id}/notes`, `POST /v1/notes`,
/// `GET|PATCH|DELETE /v1/notes/{id}` (`ChildRoutes`). The rules live in `NoteStore`.
enum NoteRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        ChildRoutes(store: NoteStore(pool: auth.pool), parseNew: { try ChildInputParser.newNote(&$0) },
                    change: { notes, viewer, id, body, check in
                        let content = try ChildInputParser.noteContent(&body)
                        return try notes.update(viewer, id: id, content: content, check: check)
                    })
            .register(on: &router, auth: auth, paging: paging)
    }
}
