import Foundation

/// A client's local copy, kept the way docs/app-developers/sync.md tells
/// client developers to: upsert every row by id, drop what `removed` names together with its
/// children (notes, subtasks, claim events, status changes), keep `next_since`.
struct SyncReplica {
    enum ReplicaError: Error { case badResponse(Int, String) }

    /// Response key → id → row.
    var rows: [String: [String: [String: Any]]] = [:]
    var since: String?
    /// Every raw body received, for leak checks.
    var bodies: [String] = []
    var pages = 0
    /// Rows whose parent (a work item's listing; a child's task, activity or listing) was not
    /// in the replica when the row was applied: the feed broke "parents first" (contract §6).
    var orphans: [String] = []

    static let tables = ["users", "listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"]

    /// Applies one page; returns its JSON.
    @discardableResult
    mutating func apply(_ response: TestHTTPClient.Response) throws -> [String: Any] {
        let text = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200, let json = response.json else { throw ReplicaError.badResponse(response.status, text) }
        bodies.append(text)
        pages += 1
        for table in Self.tables {
            for row in json[table] as? [[String: Any]] ?? [] {
                guard let id = row["id"] as? String else { continue }
                if let (parentTable, parentID) = Self.parent(of: row, in: table), rows[parentTable]?[parentID] == nil {
                    orphans.append("\(table) \(id) before its parent \(parentTable) \(parentID)")
                }
                rows[table, default: [:]][id] = row
            }
        }
        for removal in json["removed"] as? [[String: Any]] ?? [] {
            guard let type = removal["type"] as? String, let id = removal["id"] as? String else { continue }
            let table = ["user": "users", "listing": "listings", "task": "tasks", "activity": "activities"][type] ?? type
            rows[table]?[id] = nil
            for child in ["notes", "subtasks"] {
                rows[child] = rows[child]?.filter { ($0.value["parent_type"] as? String, $0.value["parent_id"] as? String) != (type, id) }
            }
            for child in ["claim_events", "status_changes"] {
                rows[child] = rows[child]?.filter { ($0.value["entity_type"] as? String, $0.value["entity_id"] as? String) != (type, id) }
            }
        }
        since = json["next_since"] as? String
        return json
    }

    /// The table and id of `row`'s parent, if it has one.
    static func parent(of row: [String: Any], in table: String) -> (String, String)? {
        let tableOf = ["listing": "listings", "task": "tasks", "activity": "activities"]
        switch table {
        case "tasks", "activities":
            return (row["listing_id"] as? String).map { ("listings", $0) }
        case "notes", "subtasks":
            guard let type = row["parent_type"] as? String, let id = row["parent_id"] as? String, let parent = tableOf[type] else { return nil }
            return (parent, id)
        case "claim_events", "status_changes":
            guard let type = row["entity_type"] as? String, let id = row["entity_id"] as? String, let parent = tableOf[type] else { return nil }
            return (parent, id)
        default:
            return nil
        }
    }

    /// Syncs until `has_more` is false; `limit` picks each page's size.
    /// `wait` applies to the chain's first request only (a long-poll; mid-chain pages come at once).
    mutating func syncToEnd(_ server: some SyncEndpoint, as member: SyncTestServer.Member,
                            wait: Int? = nil, limit: () -> Int? = { nil }) throws {
        var wait = wait
        while true {
            let json = try apply(try server.sync(member, since: since, limit: limit(), wait: wait))
            wait = nil
            if json["has_more"] as? Bool != true { return }
        }
    }

    /// id → version per key, comparable with `SyncTestServer.expectedState`.
    var state: [String: [String: Int]] {
        var state: [String: [String: Int]] = [:]
        for table in Self.tables {
            state[table] = (rows[table] ?? [:]).mapValues { $0["version"] as? Int ?? -1 }
        }
        return state
    }

    func ids(_ table: String) -> Set<String> { Set((rows[table] ?? [:]).keys) }

    /// "table id: replica version vs expected version" for every mismatch (nil = absent).
    static func differences(_ state: [String: [String: Int]], _ expected: [String: [String: Int]]) -> [String] {
        tables.flatMap { table -> [String] in
            let have = state[table] ?? [:], want = expected[table] ?? [:]
            return Set(have.keys).union(want.keys).sorted().compactMap { id in
                have[id] == want[id] ? nil : "\(table) \(id): \(have[id].map(String.init) ?? "absent") vs \(want[id].map(String.init) ?? "absent")"
            }
        }
    }
}
