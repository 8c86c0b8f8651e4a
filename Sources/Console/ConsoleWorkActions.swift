import API
import Domain
import Foundation
import HTTPServer
import Store

/// The console's narrow edits of one work row, each the store call its API route makes, as an
/// admin: release a claim (`DELETE …/claim`), hand it to someone (release + claim for them,
/// `WorkItemStore.reassign`), change the status (`PATCH` with `status`), soft-delete
/// (`DELETE`), restore (admins only, `RowRestore`). Every one writes an audit row and reaches
/// syncing phones like the API's own writes (same triggers, same history rows).
enum ConsoleWorkActions {
    static func register(on router: inout Router, site: ConsoleSite) {
        router.post("/console/work/{type}/{id}/release") { request, context in
            try site.action(request, context) { viewer, _ in
                let (type, id, kind) = try workItem(context)
                let result = try WorkItemStore(pool: site.auth.pool, kind: kind).release(ConsoleWorkRoutes.admin(viewer), id: id)
                try site.record(viewer, action: "\(type.noun).release", targetType: type.noun, targetID: text(id),
                                summary: result.changed ? "Released the claim" : "Nothing to release (not claimed)")
                return .redirect(back(type, id, "released"))
            }
        }
        router.post("/console/work/{type}/{id}/reassign") { request, context in
            try site.action(request, context) { viewer, form in
                let (type, id, kind) = try workItem(context)
                guard let to = UUID(uuidString: try form.required("to", label: "New claimer")) else {
                    throw ConsoleError.invalid("Choose a person from the list.")
                }
                let store = WorkItemStore(pool: site.auth.pool, kind: kind)
                _ = try site.auth.pool.withTransaction { try store.reassign(ConsoleWorkRoutes.admin(viewer), id: id, to: to, on: $0) }
                try site.record(viewer, action: "\(type.noun).reassign", targetType: type.noun, targetID: text(id),
                                summary: "Handed the claim to \(text(to))")
                return .redirect(back(type, id, "reassigned"))
            }
        }
        router.post("/console/work/{type}/{id}/status") { request, context in
            try site.action(request, context) { viewer, form in
                let (type, id) = try ConsoleWorkRoutes.target(context)
                let status = try form.required("status", label: "Status")
                guard type.statuses.contains(status), status != "deleted" else {
                    throw ConsoleError.invalid("Status must be one of \(type.statuses.filter { $0 != "deleted" }.joined(separator: ", ")).")
                }
                let admin = ConsoleWorkRoutes.admin(viewer)
                if let kind = type.kind {
                    var input = ResourceInput(kind == .task ? .tasks : .activities)
                    input.set("status", .text(status))
                    _ = try WorkItemStore(pool: site.auth.pool, kind: kind).update(admin, id: id, input: input, replace: false, check: .none)
                } else {
                    var input = ListingInput.listing()
                    input.set("status", .text(status))
                    _ = try ListingStore(pool: site.auth.pool).update(admin, id: id, input: input, replace: false, check: .none)
                }
                try site.record(viewer, action: "\(type.noun).status", targetType: type.noun, targetID: text(id),
                                summary: "Status set to \(status)")
                return .redirect(back(type, id, "status"))
            }
        }
        router.post("/console/work/{type}/{id}/delete") { request, context in
            try site.action(request, context) { viewer, _ in
                let (type, id) = try ConsoleWorkRoutes.target(context)
                let admin = ConsoleWorkRoutes.admin(viewer)
                if let kind = type.kind {
                    _ = try WorkItemStore(pool: site.auth.pool, kind: kind).delete(admin, id: id)
                } else {
                    _ = try ListingStore(pool: site.auth.pool).delete(admin, id: id)
                }
                try site.record(viewer, action: "\(type.noun).delete", targetType: type.noun, targetID: text(id), summary: "Deleted")
                return .redirect(back(type, id, "deleted"))
            }
        }
        router.post("/console/work/{type}/{id}/restore") { request, context in
            try site.action(request, context) { viewer, _ in
                let (type, id) = try ConsoleWorkRoutes.target(context)
                let admin = ConsoleWorkRoutes.admin(viewer)
                let pool = site.auth.pool
                _ = try pool.withTransaction { connection in
                    if let kind = type.kind { return try WorkItemStore(pool: pool, kind: kind).restore(admin, id: id, on: connection) }
                    return try ListingStore(pool: pool).restore(admin, id: id, on: connection)
                }
                try site.record(viewer, action: "\(type.noun).restore", targetType: type.noun, targetID: text(id), summary: "Restored")
                return .redirect(back(type, id, "restored"))
            }
        }
    }

    static func workItem(_ context: RequestContext) throws -> (ConsoleWorkType, UUID, WorkItemKind) {
        let (type, id) = try ConsoleWorkRoutes.target(context)
        guard let kind = type.kind else { throw ConsoleError.notFound("That task or activity") }
        return (type, id, kind)
    }

    static func text(_ id: UUID) -> String { id.uuidString.lowercased() }

    static func back(_ type: ConsoleWorkType, _ id: UUID, _ done: String) -> String {
        "/console/work/\(type.rawValue)/\(text(id))?done=\(done)"
    }
}
