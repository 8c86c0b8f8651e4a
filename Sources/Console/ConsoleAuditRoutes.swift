import Foundation
import HTTP1
import HTTPServer
import Store

/// `/console/audit`: every console action, newest first, filtered by who did it and which
/// action, a page at a time (keyset on the entry id).
enum ConsoleAuditRoutes {
    static let pageSize = 50

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/audit") { request, context in
            try site.page(request, context) { _ in
                let actor = context.query["actor"]?.trimmingCharacters(in: .whitespaces)
                let action = context.query["action"].flatMap { $0.isEmpty ? nil : $0 }
                var before: Int64?
                if let cursor = context.query["before"] {
                    guard let value = Int64(cursor), value > 0 else { throw ConsoleError.invalid("That page link is not valid.") }
                    before = value
                }
                let filter = ConsoleAuditStore.Filter(actorEmail: actor.flatMap { $0.isEmpty ? nil : $0 }, action: action,
                                                      before: before, limit: pageSize)
                let (entries, more) = try site.audit.list(filter)
                var data: [String: Any] = [
                    "actor": actor ?? "",
                    "actions": try site.audit.actions().map { ["name": $0, "selected": $0 == action] },
                    "entries": entries.map {
                        ["at": ConsoleFormat.time($0.at), "actor": $0.actorEmail, "action": $0.action,
                         "target": "\($0.targetType) \($0.targetID)", "summary": $0.summary,
                         "person": $0.targetType == "user" ? "/console/people/\($0.targetID)" : ""]
                    },
                    "none": entries.isEmpty,
                ]
                if more, let last = entries.last {
                    var items = [URLQueryItem(name: "before", value: String(last.id))]
                    if let actor, !actor.isEmpty { items.append(URLQueryItem(name: "actor", value: actor)) }
                    if let action { items.append(URLQueryItem(name: "action", value: action)) }
                    var components = URLComponents()
                    components.path = "/console/audit"
                    components.queryItems = items
                    data["next"] = components.string ?? "/console/audit"
                }
                return ConsolePage(title: "Audit log", section: "/console/audit", template: "audit", data: data)
            }
        }
    }
}
