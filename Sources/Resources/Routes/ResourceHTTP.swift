import Domain
import Foundation
import HTTP1
import HTTPServer

/// HTTP conventions shared by every resource family (listings, tasks, activities, notes,
/// subtasks, history): path ids, `If-Match`/`ETag`, list parameters, and responses whose rows
/// arrive already encoded as JSON text from PostgreSQL (`dispatch_json`, migration 0005).
enum ResourceHTTP {
    static let defaultLimit = 50
    static let maximumLimit = 500

    /// A UUID path parameter. Malformed → 400 `invalid_uuid` (contract §4: bad UUID is malformed
    /// input); well-formed but unknown or invisible is the handler's 404.
    static func uuid(_ context: RequestContext, _ name: String = "id") throws -> UUID {
        let text = try context.pathParameter(name)
        guard let id = UUID(uuidString: text) else {
            throw DomainError.badRequest(.invalidUUID, "'\(name)' must be a UUID.")
        }
        return id
    }

    /// `limit` query parameter: default 50, 1…500, else 400 `invalid_parameter`.
    static func limit(_ context: RequestContext, default fallback: Int = defaultLimit, maximum: Int = maximumLimit) throws -> Int {
        guard let text = context.query["limit"] else { return fallback }
        guard let value = Int(text), (1...maximum).contains(value) else {
            throw invalidParameter("limit", "Must be an integer from 1 to \(maximum).")
        }
        return value
    }

    /// A `true`/`false` query parameter (absent → false).
    static func flag(_ context: RequestContext, _ name: String) throws -> Bool {
        switch context.query[name] {
        case nil, "false"?: return false
        case "true"?: return true
        default: throw invalidParameter(name, "Must be true or false.")
        }
    }

    /// An RFC 3339 timestamp query parameter.
    static func timestamp(_ context: RequestContext, _ name: String) throws -> Date? {
        guard let text = context.query[name] else { return nil }
        guard let date = Timestamp.parse(text) else {
            throw invalidParameter(name, "Must be an RFC 3339 timestamp like 2026-11-22T10:15:30Z.")
        }
        return date
    }

    static func invalidParameter(_ name: String, _ message: String) -> DomainError {
        DomainError.invalidParameter(name, "Query parameter '\(name)': \(message)")
    }

    /// `ETag: "<version>"` (contract §5); strong, since a version names exactly one representation.
    static func etag(_ version: Int) -> String { "\"\(version)\"" }

    /// One row, already JSON text, with its ETag.
    static func row(_ json: String, version: Int, status: HTTPStatus = .ok, location: String? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "ETag": etag(version)]
        if let location { headers.set(name: "Location", value: location) }
        return HTTPResponse(status: status, headers: headers, body: Array(json.utf8))
    }

    /// `{"items": [...], "next_cursor": "..." | null}` from JSON-text rows.
    static func page(_ rows: [String], nextCursor: String?) -> HTTPResponse {
        var body = Array("{\"items\":[".utf8)
        body.reserveCapacity(rows.reduce(64) { $0 + $1.utf8.count + 1 })
        for (index, row) in rows.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: row.utf8)
        }
        body.append(contentsOf: "],\"next_cursor\":".utf8)
        if let nextCursor {
            HTTPResponse.appendJSONString(nextCursor, into: &body)
        } else {
            body.append(contentsOf: "null".utf8)
        }
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: body)
    }
}

/// Reads `If-Match` (RFC 9110 §13.1.1) as the store's `VersionCheck`: none when absent, any
/// current row for `*`, else one of the listed versions. Weak tags compare by their opaque
/// value too: versions are exact.
enum IfMatch {
    static func check(_ request: HTTPRequest) -> VersionCheck {
        guard let header = request.headers["If-Match"] else { return .none }
        var versions: [Int] = []
        for item in header.split(separator: ",") {
            var tag = item.trimmingASCIIWhitespace()
            if tag == "*" { return .exists }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            // A malformed tag can match nothing: the write answers 412, never applies blindly.
            guard tag.count >= 2, tag.first == "\"", tag.last == "\"",
                  let version = Int(tag.dropFirst().dropLast()) else { continue }
            versions.append(version)
        }
        return .oneOf(versions)
    }
}
