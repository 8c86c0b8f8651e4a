import Accounts
import Domain
import Foundation
import HTTPServer
import RouteKit
import Store

/// Subtasks (contract §2, 5): `GET /v1/{tasks|activities}/{id}/subtasks`, `POST /v1/subtasks`,
/// `GET|PATCH|DELETE /v1/subtasks/{id}` (`ChildRoutes`). The rules live in `SubtaskStore`.
enum SubtaskRoutes {
    static func register(on router: inout Router, auth: AuthService, paging: ListPaging = ListPaging()) {
        ChildRoutes(store: SubtaskStore(pool: auth.pool), parseNew: { try ChildInputParser.newSubtask(&$0) },
                    change: { subtasks, viewer, id, body, check in
                        let changes = try ChildInputParser.subtaskChanges(&body)
                        return try subtasks.update(viewer, id: id, changes: changes, check: check)
                    })
            .register(on: &router, auth: auth, paging: paging)
    }
}
