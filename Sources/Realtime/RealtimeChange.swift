import Domain
import Foundation
import HTTPServer
import JSON
import Store

/// One change as `postgres_changes` reports it, made from the user's sync delta (so exactly
/// what the user may see, contract §2, and the same row JSON as `/rest/v1` and `/v1`).
///
/// INSERT or UPDATE is told by the row's `version`: the trigger of migrations/0001 sets 1 on
/// insert and adds one on every update, so version 1 is a row as created and anything above
/// has been updated (a row created and updated between two reads arrives once, as UPDATE).
/// A soft delete is an UPDATE whose row has `deleted_at` set, as `/rest/v1` shows it. A row
/// that *left* the user's view (the feed's `removed`) is a DELETE with `old_record: {id}`.
struct RealtimeChange: Sendable {
    enum Kind: String, Sendable {
        case insert = "INSERT", update = "UPDATE", delete = "DELETE"
    }

    let resource: Resource
    let type: Kind
    /// The row decoded (filters read it); for a DELETE only `{"id": …}`.
    let record: [String: JSONValue]
    /// The row's JSON text (nil for a DELETE).
    let recordJSON: String?
    let commitTimestamp: String
    /// The sync cursor after this change (SyncPage.Entry): `/v1/sync?since=` from it, or a
    /// join replaying from it, returns exactly the changes that follow. Sent as `data.cursor`,
    /// a key official clients ignore.
    let cursor: String

    /// The `postgres_changes` payload naming the subscription ids it matched.
    func payload(ids: [Int]) -> String {
        let table = resource.description.table
        let id = record["id"].map(JSONText.encode) ?? "null"
        let (newRecord, oldRecord) = switch type {
        case .insert: (recordJSON ?? "{}", "{}")
        case .update: (recordJSON ?? "{}", "{\"id\":\(id)}")
        case .delete: ("{}", "{\"id\":\(id)}")
        }
        return """
            {"ids":[\(ids.map(String.init).joined(separator: ","))],"data":{"type":"\(type.rawValue)",\
            "schema":"\(PostgresChangeSubscription.schema)","table":"\(table)",\
            "commit_timestamp":\(JSONText.quoted(commitTimestamp)),"columns":\(Self.columns[resource] ?? "[]"),\
            "record":\(newRecord),"old_record":\(oldRecord),"errors":null,"cursor":\(JSONText.quoted(cursor))}}
            """
    }

    /// The changes in a user's delta (the pages of one chain), in the order the feed walked
    /// them: parents before children, removals last. `now` stamps removals, which have no
    /// row to read; `epoch` stamps each change's cursor (DatabaseEpoch).
    static func changes(from pages: [SyncPage], now: Date, epoch: String) -> [RealtimeChange] {
        var changes: [RealtimeChange] = []
        let removedAt = Timestamp.format(now)
        for page in pages {
            for entry in page.entries {
                let cursor = entry.after.encoded(epoch: epoch)
                if entry.stage == .removed {
                    guard entry.index < page.removed.count else { continue }
                    let removal = page.removed[entry.index]
                    guard let resource = removedResources[removal.type] else { continue }
                    changes.append(RealtimeChange(resource: resource, type: .delete, record: ["id": .string(removal.id)],
                                                  recordJSON: nil, commitTimestamp: removedAt, cursor: cursor))
                    continue
                }
                guard let resource = entry.stage.resource, let rows = page.rows[entry.stage], entry.index < rows.count,
                      let record = JSONText.object(rows[entry.index]) else { continue }
                let version = record["version"].flatMap { if case .number(let n) = $0 { n } else { nil } } ?? 0
                let stamp = record["updated_at"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? removedAt
                changes.append(RealtimeChange(resource: resource, type: version <= 1 ? .insert : .update, record: record,
                                              recordJSON: rows[entry.index], commitTimestamp: stamp, cursor: cursor))
            }
        }
        return changes
    }

    /// The feed's `removed` types and their tables.
    static let removedResources: [String: Resource] = [
        "user": .users, "listing": .listings, "task": .tasks, "activity": .activities,
    ]

    /// `columns` per table: names and PostgreSQL type names, as Supabase sends them.
    static let columns: [Resource: String] = Dictionary(uniqueKeysWithValues: Resource.allCases.map { resource in
        let entries = resource.description.columns.map { "{\"name\":\"\($0.name)\",\"type\":\"\(typeName($0.type))\"}" }
        return (resource, "[" + entries.joined(separator: ",") + "]")
    })

    static func typeName(_ type: ColumnType) -> String {
        switch type {
        case .uuid: "uuid"
        case .text, .enumeration: "text"
        case .integer: "int4"
        case .decimal: "numeric"
        case .boolean: "bool"
        case .timestamp: "timestamptz"
        case .textArray: "_text"
        }
    }
}
