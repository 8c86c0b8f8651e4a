import Foundation

/// A client's local copy, kept the way README's "Sync protocol for client developers" tells
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
                if let id = row["id"] as? String { rows[table, default: [:]][id] = row }
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

    /// Syncs until `has_more` is false; `limit` picks each page's size.
    mutating func syncToEnd(_ server: SyncTestServer, as member: SyncTestServer.Member,
                            limit: () -> Int? = { nil }) throws {
        while true {
            let json = try apply(try server.sync(member, since: since, limit: limit()))
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
