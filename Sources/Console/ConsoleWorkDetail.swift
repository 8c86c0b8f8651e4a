import API
import Domain
import Foundation
import Postgres
import Store

/// One listing, task or activity for the console: the row as the API returns it, its notes and
/// subtasks (deleted ones too, marked), its claim history and status history, and the forms of
/// the narrow edits an admin may make (ConsoleWorkActions).
enum ConsoleWorkDetail {
    /// The newest this many of each history or child list (an item rarely has more).
    static let limit = 100

    static func page(type: ConsoleWorkType, id: UUID, site: ConsoleSite, viewer: ConsoleViewer) throws -> ConsolePage {
        let pool = site.auth.pool
        let admin = ConsoleWorkRoutes.admin(viewer)
        let row: ResourceRow = if let kind = type.kind {
            try WorkItemStore(pool: pool, kind: kind).get(admin, id: id)
        } else {
            try ListingStore(pool: pool).get(admin, id: id)
        }
        let object = ConsoleRowView.object(row.json)
        let parent = ParentType(rawValue: type.noun) ?? .task
        let notes = try NoteStore(pool: pool).list(admin, parentType: parent, parentID: id, includeDeleted: true,
                                                   limit: limit, after: nil).rows.map(ConsoleRowView.object)
        let subtasks = type.kind == nil ? [] : try SubtaskStore(pool: pool).list(admin, parentType: parent, parentID: id,
                                                                                includeDeleted: true, limit: limit, after: nil)
            .rows.map(ConsoleRowView.object)
        let history = HistoryStore(pool: pool)
        let claims = try type.kind.map {
            try history.claimEvents(admin, kind: $0, id: id, limit: limit, maxBytes: ListFilter.defaultMaxBytes, after: nil).rows
        } ?? []
        let entity = HistoryStore.Entity(rawValue: type.noun) ?? .task
        let statuses = try history.statusChanges(admin, entity: entity, id: id, limit: limit, maxBytes: ListFilter.defaultMaxBytes,
                                                 after: nil).rows.map(ConsoleRowView.object)
        let claimRows = claims.map(ConsoleRowView.object)
        let view = try ConsoleRowView.load([object] + notes + claimRows + statuses,
                                           keys: ["claimed_by", "declared_by", "owned_by", "assigned_staff", "created_by",
                                                  "user_id", "actor_id", "changed_by"], pool: pool)
        let item = view.item(object, type: type)
        let people = try ConsolePeopleOptions.load(pool)
        let current = object["status"] as? String
        var data: [String: Any] = [
            "item": item, "itemID": id.uuidString.lowercased(), "type": type.rawValue, "noun": type.noun,
            "isListing": type == .listings, "deleted": current == "deleted",
            "notes": notes.map { note in
                ["author": view.name(note["created_by"]), "at": ConsoleRowView.time(note["created_at"]),
                 "content": ConsoleRowView.text(note["content"]), "deleted": note["deleted_at"] is String]
            },
            "subtasks": subtasks.map { sub in
                ["title": ConsoleRowView.text(sub["title"]), "done": sub["completed"] as? Bool ?? false,
                 "deleted": sub["deleted_at"] is String]
            },
            "claims": claimRows.map { event in
                ["at": ConsoleRowView.time(event["created_at"]), "action": ConsoleRowView.text(event["action"]),
                 "user": view.name(event["user_id"]), "actor": view.name(event["actor_id"])]
            },
            "statusChanges": statuses.map { change in
                ["at": ConsoleRowView.time(change["created_at"]), "from": ConsoleRowView.text(change["old_status"]),
                 "to": ConsoleRowView.text(change["new_status"]), "by": view.name(change["changed_by"])]
            },
            "statusChoices": type.statuses.filter { $0 != "deleted" && $0 != current }.map { ["value": $0] },
            "people": people.options(selected: nil, except: (object["claimed_by"] as? String)?.lowercased()),
        ]
        data["hasNotes"] = !notes.isEmpty
        data["hasSubtasks"] = !subtasks.isEmpty
        data["hasClaims"] = !claimRows.isEmpty
        data["hasStatusChanges"] = !statuses.isEmpty
        data["claimable"] = current == "open" || current == "in_progress"
        data["claimed"] = object["claimed_by"] is String
        return ConsolePage(title: item["title"] as? String ?? type.noun, section: "/console/work", template: "work-item", data: data)
    }
}
