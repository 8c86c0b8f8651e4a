import API
import Domain
import Foundation
import HTTPServer
import Store

/// `/console/access`: "why can't this agent see that row". Pick a person and a listing, task or
/// activity; the page shows the verdict of the API's own predicate, which clause of contract §2
/// holds or fails, and the pair's grant, revocation and claim history (`AccessExplainer`).
/// `/console/access/view-as`: what that person's phone would sync, read through the sync feed's
/// own page code from a full snapshot, a page at a time (the feed's cursor is the page link).
/// Both only read.
enum ConsoleAccessRoutes {
    static let viewAsPage = 100

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/access") { request, context in
            try site.page(request, context) { _ in try explain(context.query, site: site) }
        }
        router.get("/console/access/view-as") { request, context in
            try site.page(request, context) { _ in try viewAs(context.query, site: site) }
        }
    }

    static let clauseText: [AccessExplanation.Clause.Kind: String] = [
        .admin: "is an administrator (sees everything)",
        .declarer: "declared it",
        .claimer: "has claimed it",
        .listingOwner: "owns the listing",
        .listingStaff: "is the listing's assigned staff",
        .viaWorkItem: "declared or claimed a task or activity on it",
    ]

    static func explain(_ query: QueryParameters, site: ConsoleSite) throws -> ConsolePage {
        let people = try ConsolePeopleOptions.load(site.auth.pool)
        let entityText = query["type"] ?? "task"
        guard let entity = AccessExplanation.Entity(rawValue: entityText) else { throw ConsoleError.invalid("Choose listing, task or activity.") }
        var data: [String: Any] = [
            "people": people.options(selected: query["user"]), "rowID": query["id"] ?? "",
            "types": AccessExplanation.Entity.allCases.map { ["value": $0.rawValue, "selected": $0 == entity] },
        ]
        guard let userText = query["user"], !userText.isEmpty, let idText = query["id"]?.trimmingCharacters(in: .whitespaces),
              !idText.isEmpty else {
            return ConsolePage(title: "Explain access", section: "/console/access", template: "access", data: data)
        }
        guard let user = UUID(uuidString: userText) else { throw ConsoleError.invalid("Choose a person from the list.") }
        guard let id = UUID(uuidString: idText) else { throw ConsoleError.invalid("The row must be given by its id (a UUID).") }
        let answer = try AccessExplainer(pool: site.auth.pool).explain(userID: user, entity: entity, id: id)
        let view = try ConsoleRowView.load([], keys: [], extra: [user] + answer.history.compactMap(\.actor), pool: site.auth.pool)
        let type = entity == .listing ? ConsoleWorkType.listings : entity == .task ? .tasks : .activities
        data["result"] = [
            "sees": answer.sees, "person": view.name(user.uuidString), "noun": entity.rawValue,
            "link": "/console/work/\(type.rawValue)/\(id.uuidString.lowercased())",
            "deactivated": answer.userDeactivated, "rowDeleted": answer.rowDeleted,
            "clauses": answer.clauses.map { clause in
                ["holds": clause.holds, "text": clauseText[clause.kind] ?? clause.kind.rawValue,
                 "through": clause.through.map { ["link": "/console/work/\($0.kind == "task" ? "tasks" : "activities")/\($0.id.uuidString.lowercased())",
                                                  "label": "\($0.kind) \($0.id.uuidString.lowercased().prefix(8))"] }]
            },
            "history": answer.history.map { event in
                ["at": ConsoleFormat.time(event.at), "kind": event.kind.rawValue,
                 "actor": event.actor.map { view.name($0.uuidString) } ?? ""]
            },
            "hasHistory": !answer.history.isEmpty,
            "viewAs": "/console/access/view-as?user=\(user.uuidString.lowercased())",
        ] as [String: Any]
        return ConsolePage(title: "Explain access", section: "/console/access", template: "access", data: data)
    }

    static func viewAs(_ query: QueryParameters, site: ConsoleSite) throws -> ConsolePage {
        guard let user = query["user"].flatMap(UUID.init(uuidString:)), let found = try site.auth.users.find(id: user) else {
            throw ConsoleError.notFound("That person")
        }
        var cursor = SyncCursor.initial
        if let after = query["after"] {
            guard let decoded = SyncCursor(decoding: after) else { throw ConsoleError.invalid("That page link is no longer valid; start from the first page.") }
            cursor = decoded
        }
        let feed = SyncFeed(pool: site.auth.pool)
        let page = try feed.page(viewer: Viewer(userID: user, isAdmin: found.isAdmin), cursor: cursor, limit: viewAsPage)
        var rows: [[String: Any]] = []
        for stage in SyncStage.allCases where stage != .removed {
            for json in page.rows[stage] ?? [] { rows.append(["stage": stage.key, "object": ConsoleRowView.object(json)]) }
        }
        let objects = rows.compactMap { $0["object"] as? [String: Any] }
        let view = try ConsoleRowView.load(objects, keys: ["claimed_by", "declared_by", "owned_by"], pool: site.auth.pool)
        let me = user.uuidString.lowercased()
        var data: [String: Any] = [
            "person": found.name, "personID": me, "isAdmin": found.isAdmin,
            "rows": rows.map { row -> [String: Any] in
                let object = row["object"] as? [String: Any] ?? [:]
                let claimer = (object["claimed_by"] as? String)?.lowercased()
                return ["stage": row["stage"] as? String ?? "", "id": ConsoleRowView.text(object["id"]),
                        "label": label(object), "status": object["status"] as? String ?? "",
                        "mine": claimer == me, "other": claimer != nil && claimer != me, "claimer": view.name(object["claimed_by"])]
            },
            "none": rows.isEmpty,
        ]
        if page.hasMore {
            var components = URLComponents()
            components.path = "/console/access/view-as"
            components.queryItems = [URLQueryItem(name: "user", value: me), URLQueryItem(name: "after", value: page.next.encoded())]
            data["next"] = components.string
        }
        if query["after"] != nil { data["first"] = "/console/access/view-as?user=\(me)" }
        return ConsolePage(title: "View as \(found.name)", section: "/console/access", template: "view-as", data: data)
    }

    /// What a synced row is called on the page: a title, an address, a name or note text.
    static func label(_ object: [String: Any]) -> String {
        for key in ["title", "address", "name", "content", "action", "new_status"] {
            if let text = object[key] as? String, !text.isEmpty { return String(text.prefix(120)) }
        }
        return "—"
    }
}
