import Domain
import Foundation
import Postgres
import Store

/// Rows as the console shows them: the stores hand out each row's API JSON (the one
/// rendering every client gets), and this turns it into template values, with people's names
/// in place of their ids. Everything here is text for `{{…}}`, so it is escaped on output.
struct ConsoleRowView {
    /// Display names of users by id (deactivated ones too: they still appear in history).
    let names: [UUID: String]

    /// Names of every user referenced by `rows` (fields `keys`) plus `extra`, in one query.
    static func load(_ rows: [[String: Any]], keys: [String], extra: [UUID] = [], pool: PostgresPool) throws -> ConsoleRowView {
        var ids = Set(extra)
        for row in rows {
            for key in keys { if let id = (row[key] as? String).flatMap(UUID.init(uuidString:)) { ids.insert(id) } }
        }
        guard !ids.isEmpty else { return ConsoleRowView(names: [:]) }
        let found = try pool.query("SELECT id, name FROM users WHERE id = ANY(\(Array(ids)))")
        return ConsoleRowView(names: Dictionary(uniqueKeysWithValues: try found.map { (try $0.decode("id"), try $0.decode("name")) }))
    }

    /// The row's JSON as a dictionary; a row the server wrote always decodes.
    static func object(_ json: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }

    /// The name behind a user-id field, "—" when empty.
    func name(_ value: Any?) -> String {
        guard let text = value as? String, let id = UUID(uuidString: text) else { return "—" }
        return names[id] ?? text
    }

    static func text(_ value: Any?) -> String {
        switch value {
        case let text as String: text
        case let number as NSNumber: number.stringValue
        default: "—"
        }
    }

    /// The short form of a timestamp field (to the minute, UTC), "—" when empty.
    static func time(_ value: Any?) -> String {
        guard let text = value as? String, text.count >= 16 else { return "—" }
        return text.prefix(10) + " " + text.dropFirst(11).prefix(5)
    }

    /// A listing, task or activity row for a table or a detail page.
    func item(_ row: [String: Any], type: ConsoleWorkType) -> [String: Any] {
        var out: [String: Any] = [
            "id": Self.text(row["id"]), "type": type.rawValue, "status": Self.text(row["status"]),
            "updated": Self.time(row["updated_at"]), "created": Self.time(row["created_at"]),
            "version": Self.text(row["version"]), "deleted": (row["status"] as? String) == "deleted",
        ]
        if type == .listings {
            out["title"] = [row["address"], row["city"]].compactMap { $0 as? String }.filter { !$0.isEmpty }.joined(separator: ", ")
            out["owner"] = name(row["owned_by"])
            out["staff"] = name(row["assigned_staff"])
            out["price"] = Self.text(row["price"])
            out["mls"] = Self.text(row["mls_number"])
        } else {
            out["title"] = Self.text(row["title"])
            out["description"] = row["description"] as? String ?? ""
            out["priority"] = Self.text(row["priority"])
            out["due"] = Self.time(row["due_date"])
            out["declarer"] = name(row["declared_by"])
            out["claimer"] = name(row["claimed_by"])
            out["claimed"] = row["claimed_by"] is String
            out["listingID"] = row["listing_id"] as? String ?? ""
            // Mustache treats an empty string as a value, so a section needs a real boolean.
            out["hasListing"] = row["listing_id"] is String
        }
        return out
    }
}

/// The three kinds of work the console lists, as the path segment and store they map to.
enum ConsoleWorkType: String, CaseIterable, Sendable {
    case tasks, activities, listings

    var kind: WorkItemKind? {
        switch self {
        case .tasks: .task
        case .activities: .activity
        case .listings: nil
        }
    }

    var noun: String {
        switch self {
        case .tasks: "task"
        case .activities: "activity"
        case .listings: "listing"
        }
    }

    var statuses: [String] {
        self == .listings ? ListingStatus.allCases.map(\.rawValue) : WorkItemStatus.allCases.map(\.rawValue)
    }
}
