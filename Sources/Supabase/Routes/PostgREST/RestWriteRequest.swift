import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// A `POST`, `PATCH` or `DELETE /rest/v1/<table>` request, parsed: the filters and `select=`
/// (the read side's parser, `RestReadRequest`, without the delta widening: a write must touch
/// exactly the rows its filters name), `columns=`, `on_conflict=`, the `Prefer` set (with the
/// read side's `count=`), the single-object `Accept`, and the body's records.
struct RestWriteRequest: Sendable {
    var resource: Resource
    /// The filters (PATCH, DELETE) and the representation's columns (`select=`).
    var query: RestReadQuery
    var preferences: RestWritePreferences
    /// `Prefer: count=…`: put the number of rows written in `Content-Range` (`RestWriteResponse`).
    var count: RestCountMode?
    /// `Accept: application/vnd.pgrst.object+json`: answer one bare object (or 406).
    var single: Bool
    /// The body's rows (one for an object); empty for DELETE.
    var records: [[String: JSONValue]] = []

    init(resource: Resource, request: HTTPRequest, query parameters: QueryParameters) throws {
        self.resource = resource
        let read = try RestReadRequest(resource: resource, query: parameters, headers: request.headers,
                                       isGet: false, delta: .none)
        // A limit on a write would pick rows by an order the request does not state; refusing
        // is safer than ignoring it (a DELETE would then remove more than asked).
        guard read.query.limit == nil, read.query.offset == 0, read.query.order.isEmpty else {
            throw RestError.badQuery("limit, offset and order are not supported on writes",
                                     details: "Select the rows to change with filters (e.g. id=eq.<uuid>).")
        }
        query = read.query
        single = read.single
        count = read.count
        preferences = RestWritePreferences(request.headers.values(for: "Prefer"))
        let description = resource.description
        if let target = parameters["on_conflict"] {
            // The primary key is the only conflict target: every other unique key of these
            // tables is server-managed or a user's email, which this surface does not create.
            let columns = target.split(separator: ",").map { String($0.trimmingASCIIWhitespace()).trimmingQuotes }
            guard columns == ["id"] else {
                throw RestError(status: .badRequest, code: .invalidColumnReference,
                                message: "on_conflict supports only id, the primary key (got '\(target)')",
                                hint: "Leave on_conflict out, or send on_conflict=id.")
            }
        }
        let columns = try parameters["columns"].map { try Self.columns($0, description) }
        if request.method == .post || request.method == .patch {
            records = try Self.records(request, description, columns: columns, allowArray: request.method == .post)
        }
    }

    /// `columns="a","b"` or `columns=a,b`: each must be a column of the table.
    static func columns(_ value: String, _ description: ResourceDescription) throws -> Set<String> {
        var names = Set<String>()
        for item in value.split(separator: ",") {
            let name = String(item.trimmingASCIIWhitespace()).trimmingQuotes
            guard description.column(name) != nil else { throw RestWriteErrors.unknownColumn(description.table, name) }
            names.insert(name)
        }
        return names
    }

    /// The JSON body as rows: one object, or (POST) an array of objects. Keys must be columns
    /// of the table (PostgREST's `PGRST204`); with `columns=` only the listed keys are read.
    static func records(_ request: HTTPRequest, _ description: ResourceDescription, columns: Set<String>?,
                        allowArray: Bool) throws -> [[String: JSONValue]] {
        guard request.body.count <= JSONRequestBody.maxBytes else {
            throw DomainError(.contentTooLarge, .bodyTooLarge, "JSON request bodies are limited to \(JSONRequestBody.maxBytes) bytes.")
        }
        try JSONRequestBody.checkContentType(request.headers["Content-Type"])
        do {
            try StrictJSON.check(request.body)
        } catch {
            throw JSONRequestBody.domainError(error)
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(request.body))
        } catch {
            throw RestWriteErrors.invalidBody("The request body is not valid JSON.")
        }
        var objects: [[String: JSONValue]]
        switch value {
        case .object(let object): objects = [object]
        case .array(let items) where allowArray:
            objects = try items.map {
                guard case .object(let object) = $0 else { throw RestWriteErrors.invalidBody("Every element of the array must be a JSON object.") }
                return object
            }
        default:
            throw RestWriteErrors.invalidBody(allowArray ? "The request body must be a JSON object or an array of objects."
                                                         : "The request body must be a JSON object.")
        }
        for index in objects.indices {
            if let columns { objects[index] = objects[index].filter { columns.contains($0.key) } }
            for key in objects[index].keys.sorted() {
                guard let column = description.column(key) else { throw RestWriteErrors.unknownColumn(description.table, key) }
                if column.type == .timestamp, case .string(let text)? = objects[index][key] {
                    objects[index][key] = .string(utcIfNoOffset(text))
                }
            }
        }
        return objects
    }

    /// supabase-swift encodes body dates as `2024-06-15T18:12:04.123`, UTC without a zone;
    /// the shared parsers want an offset, so such a value gets its `Z` here (and only such a
    /// value: anything else reaches the parser as sent, for its 422).
    static func utcIfNoOffset(_ text: String) -> String {
        guard Timestamp.parse(text) == nil, Timestamp.parse(text + "Z") != nil else { return text }
        return text + "Z"
    }
}

extension String {
    /// `"title"` → `title` (supabase-py quotes the names in `columns=`).
    var trimmingQuotes: String {
        count >= 2 && hasPrefix("\"") && hasSuffix("\"") ? String(dropFirst().dropLast()) : self
    }
}
