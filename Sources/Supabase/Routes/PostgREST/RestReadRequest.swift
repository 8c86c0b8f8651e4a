import Domain
import HTTP1
import HTTPServer
import Store

/// A `GET`/`HEAD /rest/v1/<table>` request, parsed: the query (checked against the resource
/// description), and what the headers ask for (`Prefer: count=…`, the single-object `Accept`).
struct RestReadRequest: Sendable {
    var query: RestReadQuery
    var count: RestCountMode?
    /// `Accept: application/vnd.pgrst.object+json`.
    var single: Bool
    /// `limit=0`: PostgREST answers an empty page (with the total, when counted).
    var limitZero: Bool

    /// Not filters: PostgREST's own keys, and `apikey` (the gateway reads it from the query too).
    static let reservedKeys: Set<String> = ["select", "order", "limit", "offset", "columns", "on_conflict", "apikey"]
    static let treeKeys: Set<String> = ["or", "and", "not.or", "not.and"]

    /// `delta`: how `updated_at=gt./gte.` filters are widened (`RestDeltaWindow`).
    init(resource: Resource, query parameters: QueryParameters, headers: HTTPHeaders, isGet: Bool,
         delta: RestDeltaWindow) throws {
        let description = resource.description
        let filters = RestFilterParser(description: description)
        query = RestReadQuery(resource: resource)
        var offset: Int?
        var limit: Int?
        for item in parameters {
            switch item.name {
            case "select": query.columns = try Self.columns(item.value, filters)
            case "order": query.order = try Self.order(item.value, filters)
            case "limit": limit = try Self.integer(item.value, name: "limit")
            case "offset": offset = try Self.integer(item.value, name: "offset")
            case let key where Self.reservedKeys.contains(key): continue
            case let key where Self.treeKeys.contains(key):
                query.conditions.append(try filters.tree(key: key, item.value))
            case let key where key.contains("."):
                throw RestError.badQuery("embedded resources are not supported ('\(key)')",
                                         details: "Filters, orders and limits apply to the table's own columns.")
            default:
                let condition = try filters.filter(column: item.name, item.value)
                query.conditions.append(delta.widening(condition))
            }
        }
        count = Self.countPreference(headers.values(for: "Prefer"))
        single = headers.values(for: "Accept").contains { $0.lowercased().contains("application/vnd.pgrst.object") }
        limitZero = limit == 0
        let range = try RestRange(offset: offset, limit: limit, header: isGet ? headers["Range"] : nil)
        query.offset = range.offset
        query.limit = range.limit
    }

    private static func integer(_ value: String, name: String) throws -> Int {
        // Bounded so range arithmetic can never overflow.
        guard let number = Int(value), number <= RestRange.maxRow else {
            throw RestError.badQuery("failed to parse \(name) (\(value))", details: "expected a whole number")
        }
        guard number >= 0 else {
            throw RestError.invalidRange(name == "limit" ? "Limit should be greater than or equal to zero."
                                                         : "Offset should be greater than or equal to zero.")
        }
        return number
    }

    /// `*`, or a list of the resource's columns. Embedding (`rel(*)`), aliases (`a:b`), casts
    /// (`a::text`) and JSON paths (`a->b`) are refused.
    private static func columns(_ value: String, _ filters: RestFilterParser) throws -> [ColumnDescription]? {
        let names = value.split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0.trimmingASCIIWhitespace()) }
        if names.allSatisfy({ $0 == "*" || $0.isEmpty }) { return nil }
        for name in names where name.contains("(") || name.contains(":") || name.contains("->") || name.contains("!") {
            throw RestError.badQuery("failed to parse select parameter (\(value))",
                                     details: "Embedded resources, aliases, casts and JSON paths are not supported; select '*' or column names.")
        }
        if names.contains("*") { return nil }
        return try names.filter { !$0.isEmpty }.map { try filters.column($0) }
    }

    /// `order=col[.asc|.desc][.nullsfirst|.nullslast],…`.
    private static func order(_ value: String, _ filters: RestFilterParser) throws -> [RestOrderTerm] {
        try value.split(separator: ",").map { term in
            let parts = term.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard let name = parts.first, !name.isEmpty, !name.contains("("), !name.contains("->") else {
                throw RestError.badQuery("failed to parse order (\(value))", details: "expected column[.asc|.desc][.nullsfirst|.nullslast]")
            }
            var result = RestOrderTerm(column: try filters.column(name))
            for modifier in parts.dropFirst() {
                switch modifier {
                case "asc": result.descending = false
                case "desc": result.descending = true
                case "nullsfirst": result.nullsFirst = true
                case "nullslast": result.nullsFirst = false
                default:
                    throw RestError.badQuery("failed to parse order (\(value))",
                                             details: "unexpected '\(modifier)': expected asc, desc, nullsfirst or nullslast")
                }
            }
            return result
        }
    }

    /// `Prefer` values are a set: comma-joined, in any order, possibly in several headers.
    static func countPreference(_ values: [String]) -> RestCountMode? {
        for value in values {
            for token in value.split(separator: ",") {
                let pair = token.trimmingASCIIWhitespace()
                guard pair.hasPrefix("count=") else { continue }
                if let mode = RestCountMode(rawValue: String(pair.dropFirst("count=".count)).lowercased()) { return mode }
            }
        }
        return nil
    }
}
