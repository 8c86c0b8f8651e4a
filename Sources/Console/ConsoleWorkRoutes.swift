import API
import Domain
import Foundation
import HTTPServer
import Postgres
import Store

/// `/console/work`: listings, tasks and activities with an office's filters (status, priority,
/// claimer, declarer, listing, overdue), most recently changed first, a page at a time on the
/// API's own keyset; and `/console/work/{type}/{id}`, one row with its notes, subtasks, claim
/// history and status history. Reads run the API's list and history stores as an admin.
/// The edits are in ConsoleWorkActions.
enum ConsoleWorkRoutes {
    static let pageSize = 50
    static let order = ListOrder(field: .updatedAt, descending: true)

    static func register(on router: inout Router, site: ConsoleSite) {
        router.get("/console/work") { request, context in
            try site.page(request, context) { viewer in
                try list(context.query, site: site, viewer: viewer)
            }
        }
        router.get("/console/work/{type}/{id}") { request, context in
            try site.page(request, context) { viewer in
                let (type, id) = try target(context)
                return try ConsoleWorkDetail.page(type: type, id: id, site: site, viewer: viewer)
            }
        }
    }

    static func target(_ context: RequestContext) throws -> (ConsoleWorkType, UUID) {
        guard let type = ConsoleWorkType(rawValue: try context.pathParameter("type")),
              let id = UUID(uuidString: try context.pathParameter("id")) else { throw ConsoleError.notFound("That item") }
        return (type, id)
    }

    static func admin(_ viewer: ConsoleViewer) -> Viewer { Viewer(userID: viewer.user.id, isAdmin: true) }

    static func list(_ query: QueryParameters, site: ConsoleSite, viewer: ConsoleViewer) throws -> ConsolePage {
        guard let type = ConsoleWorkType(rawValue: query["type"] ?? "tasks") else { throw ConsoleError.invalid("Unknown list.") }
        var filter = ListFilter()
        filter.limit = pageSize
        filter.order = order
        var kept: [(String, String)] = [("type", type.rawValue)]
        func value(_ name: String) -> String? {
            guard let text = query[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            kept.append((name, text))
            return text
        }
        func person(_ name: String) throws -> UUID? {
            guard let text = value(name), text != "none" else { return nil }
            guard let id = UUID(uuidString: text) else { throw ConsoleError.invalid("Choose a person from the list.") }
            return id
        }
        if let status = value("status") {
            guard type.statuses.contains(status) else { throw ConsoleError.invalid("Status must be one of \(type.statuses.joined(separator: ", ")).") }
            filter.statuses = [status]
        }
        if type == .listings {
            filter.ownedBy = try person("owner")
        } else {
            if let priority = value("priority") {
                guard Priority(rawValue: priority) != nil else { throw ConsoleError.invalid("Priority must be low, medium, high or urgent.") }
                filter.priorities = [priority]
            }
            if query["claimer"] == "none" {
                kept.append(("claimer", "none"))
                filter.claimedBy = ListFilter.Claimer.none
            } else if let claimer = try person("claimer") {
                filter.claimedBy = .user(claimer)
            }
            filter.declaredBy = try person("declarer")
            if let listing = value("listing") {
                filter.listingID = try listingID(listing, pool: site.auth.pool)
            }
            if value("overdue") != nil { filter.overdueAt = Date() }
        }
        filter.after = try query["after"].map(position)
        let page: ResourcePage = if let kind = type.kind {
            try WorkItemStore(pool: site.auth.pool, kind: kind).list(admin(viewer), filter)
        } else {
            try ListingStore(pool: site.auth.pool).list(admin(viewer), filter)
        }
        let rows = page.rows.map(ConsoleRowView.object)
        let view = try ConsoleRowView.load(rows, keys: ["claimed_by", "declared_by", "owned_by", "assigned_staff"], pool: site.auth.pool)
        let people = try ConsolePeopleOptions.load(site.auth.pool)
        var data: [String: Any] = [
            "items": rows.map { view.item($0, type: type) }, "none": rows.isEmpty, "isListings": type == .listings,
            "types": ConsoleWorkType.allCases.map { ["value": $0.rawValue, "selected": $0 == type] },
            "statuses": type.statuses.map { ["value": $0, "selected": $0 == query["status"]] },
            "priorities": Priority.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == query["priority"]] },
            "claimers": people.options(selected: query["claimer"]), "claimerNone": query["claimer"] == "none",
            "declarers": people.options(selected: query["declarer"]), "owners": people.options(selected: query["owner"]),
            "listing": try listingText(query["listing"], pool: site.auth.pool), "overdue": query["overdue"] != nil,
        ]
        if let next = page.next {
            data["next"] = link(kept + [("after", "\(next.key.map(String.init) ?? "").\(next.id.uuidString.lowercased())")])
        }
        if filter.after != nil { data["first"] = link(kept) }
        return ConsolePage(title: "Work", section: "/console/work", template: "work", data: data)
    }

    /// A page link: `<key>.<id>` of the last row (the API's keyset position in this order).
    static func position(_ text: String) throws -> KeysetPosition {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let id = UUID(uuidString: String(parts[1])), let key = Int64(parts[0]),
              order.keyRange.contains(key) else {
            throw ConsoleError.invalid("That page link is no longer valid; start from the first page.")
        }
        return KeysetPosition(key: key, id: id)
    }

    /// The listing a filter names: by its address (exactly, or the one listing whose address or
    /// city contains the text), or by id when the filter came from a link.
    static func listingID(_ text: String, pool: PostgresPool) throws -> UUID {
        if let id = UUID(uuidString: text) { return id }
        let matches = try ListingAddressLookup(pool: pool).find(text)
        switch matches.count {
        case 0: throw ConsoleError.invalid("No listing has an address or city containing “\(text)”.")
        case 1: return matches[0].id
        default:
            let shown = matches.prefix(5).map { "\($0.address)\($0.city.isEmpty ? "" : ", \($0.city)")" }.joined(separator: "; ")
            throw ConsoleError.invalid("Several listings match “\(text)”: \(shown)\(matches.count > 5 ? "; …" : ""). Type more of the address.")
        }
    }

    /// What the listing field shows: the address of a listing chosen by id, or what was typed.
    static func listingText(_ value: String?, pool: PostgresPool) throws -> String {
        guard let value else { return "" }
        guard let id = UUID(uuidString: value) else { return value }
        return try ListingAddressLookup(pool: pool).address(of: id) ?? value
    }

    static func link(_ items: [(String, String)]) -> String {
        var components = URLComponents()
        components.path = "/console/work"
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? "/console/work"
    }
}

/// The active people, for the filters' and forms' choices (an office has tens to hundreds).
struct ConsolePeopleOptions {
    static let limit = 1000
    let people: [(id: String, name: String)]

    static func load(_ pool: PostgresPool) throws -> ConsolePeopleOptions {
        let rows = try pool.query("""
            SELECT id, name, email FROM users WHERE deactivated_at IS NULL ORDER BY lower(name), id LIMIT \(unsafeSQL: String(limit))
            """)
        return ConsolePeopleOptions(people: try rows.map {
            let id: UUID = try $0.decode("id")
            return (id.uuidString.lowercased(), "\(try $0.decode("name", as: String.self)) (\(try $0.decode("email", as: String.self)))")
        })
    }

    func options(selected: String?, except: String? = nil) -> [[String: Any]] {
        people.filter { $0.id != except }.map { ["value": $0.id, "label": $0.name, "selected": $0.id == selected?.lowercased()] }
    }
}
