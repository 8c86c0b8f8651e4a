import Domain
import HTTPServer
import JSON

/// One entry of a join's `config.postgres_changes`: `{event, schema, table?, filter?}`.
///
/// The join reply echoes each entry with an `id` added: clients match their callbacks by
/// comparing `event`, `schema`, `table` and `filter` with the echo (supabase-py by position
/// and exact equality, supabase-swift by equality), so the strings go back exactly as sent.
/// Events then name the ids of the entries they match.
struct PostgresChangeSubscription: Sendable {
    enum Event: String, Sendable {
        case all = "*", insert = "INSERT", update = "UPDATE", delete = "DELETE"
    }

    static let schema = "public"

    let id: Int
    let event: Event
    /// nil: every synced table (no `table`, or `*`).
    let resource: Resource?
    let filter: PostgresChangeFilter?
    /// The entry as sent plus `id`, a JSON object.
    let echo: String

    init(_ value: JSONValue) throws(RealtimeJoinError) {
        guard case .object(let entry) = value else { throw .invalid("each postgres_changes entry must be an object") }
        guard case .string(let eventText)? = entry["event"], let event = Event(rawValue: eventText.uppercased()) else {
            throw .invalid("postgres_changes event must be one of *, INSERT, UPDATE, DELETE")
        }
        // Absent means public (supabase-py leaves it out when the caller does).
        switch entry["schema"] {
        case nil, .null?, .string(Self.schema)?: break
        default: throw .invalid("postgres_changes schema must be \"public\"")
        }
        var resource: Resource?
        switch entry["table"] {
        case nil, .null?, .string("*")?:
            resource = nil
        case .string(let table)?:
            guard let found = Resource(table: table) else {
                let known = Resource.allCases.map(\.description.table).joined(separator: ", ")
                throw .invalid("postgres_changes table \"\(table)\" is not served; tables: \(known)")
            }
            resource = found
        default:
            throw .invalid("postgres_changes table must be a string")
        }
        switch entry["filter"] {
        case nil, .null?, .string("")?:
            filter = nil
        case .string(let text)?:
            guard let resource else { throw .invalid("a postgres_changes filter needs a table") }
            filter = try PostgresChangeFilter(text, description: resource.description)
        default:
            throw .invalid("postgres_changes filter must be a string")
        }
        self.event = event
        self.resource = resource
        var echoed: [String] = []
        for key in ["event", "schema", "table", "filter"] {
            if let field = entry[key] { echoed.append("\(JSONText.quoted(key)):\(JSONText.encode(field))") }
        }
        let id = Self.stableID(eventText, entry["schema"].map(JSONText.encode), entry["table"].map(JSONText.encode), entry["filter"].map(JSONText.encode))
        self.id = id
        echo = "{" + (echoed + ["\"id\":\(id)"]).joined(separator: ",") + "}"
    }

    /// Whether a change of `type` to a row of `resource` (decoded `record`; for a DELETE only
    /// its id) is one this entry asks for.
    func matches(_ change: RealtimeChange) -> Bool {
        guard resource.map({ $0 == change.resource }) ?? true else { return false }
        guard event == .all || event.rawValue == change.type.rawValue else { return false }
        guard let filter else { return true }
        // A row that left the view is known by its id only: Supabase does not filter deletes
        // either, except that a filter on `id` still can be checked.
        if change.type == .delete && filter.column.name != "id" { return true }
        return filter.matches(change.record)
    }

    /// The same entry gets the same id on every join (FNV-1a over its fields, 27 bits like
    /// Supabase's phash2 range), so a client's id survives a rejoin.
    static func stableID(_ parts: String?...) -> Int {
        var hash: UInt32 = 2_166_136_261
        for part in parts {
            for byte in (part ?? "\u{0}").utf8 + [0x1f] {
                hash ^= UInt32(byte)
                hash = hash &* 16_777_619
            }
        }
        // Never 0: supabase-py treats a 0 id as "no id".
        return Int(max(hash & 0x07ff_ffff, 1))
    }
}
