import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON

/// A JSON object request body with the contract §4 errors: 413 over `maxBytes`, 415 when not
/// `application/json`, 400 `invalid_json` when unparsable or not an object, and 422
/// `validation_failed` for unknown fields, bad values and strings containing U+0000 — every
/// problem collected, one `details` entry per field.
///
/// The server's global body limit is raised to fit avatar uploads (5 MiB); JSON routes keep a
/// 1 MiB limit here, which is far beyond any legitimate object they accept.
package struct JSONRequestBody {
    package static let maxBytes = 1024 * 1024

    package let object: [String: JSONValue]
    package var errors: [FieldError] = []

    /// `allowed` are the fields the route reads; `ignored` are server-managed fields a client
    /// may send back unchanged (contract §4), accepted and dropped. Anything else is a 422.
    package init(_ request: HTTPRequest, allowed: Set<String>, ignored: Set<String> = JSONRequestBody.serverManaged) throws {
        guard request.body.count <= Self.maxBytes else {
            throw DomainError(.contentTooLarge, .bodyTooLarge, "JSON request bodies are limited to \(Self.maxBytes) bytes.")
        }
        try Self.checkContentType(request.headers["Content-Type"])
        do {
            try StrictJSON.check(request.body)
        } catch {
            throw Self.domainError(error)
        }
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: Data(request.body))
        } catch {
            throw DomainError.badRequest(.invalidJSON, "The request body is not valid JSON.")
        }
        guard case .object(let object) = parsed else {
            throw DomainError.badRequest(.invalidJSON, "The request body must be a JSON object.")
        }
        self.init(object: object, allowed: allowed, ignored: ignored)
    }

    /// A body already parsed (e.g. one `record` of a sync push), with the same field rules.
    package init(object: [String: JSONValue], allowed: Set<String>, ignored: Set<String> = JSONRequestBody.serverManaged) {
        self.object = object
        for key in object.keys.sorted() where !allowed.contains(key) && !ignored.contains(key) {
            errors.append(FieldError(field: key, code: .unknownField, message: "Unknown field."))
        }
        // PostgreSQL text cannot hold U+0000, so such a value could never be stored or looked
        // up: it is the client's mistake (422), not a server error.
        for key in object.keys.sorted() where allowed.contains(key) && Self.containsNUL(object[key]) {
            errors.append(FieldError(field: key, code: .invalidCharacter, message: "Must not contain U+0000 (NUL)."))
        }
    }

    private static func containsNUL(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let text)?: text.utf8.contains(0)
        case .array(let values)?: values.contains { containsNUL($0) }
        case .object(let fields)?: fields.contains { $0.key.utf8.contains(0) || containsNUL($0.value) }
        default: false
        }
    }

    package static let serverManaged: Set<String> = ["id", "created_at", "updated_at", "version"]

    package func contains(_ field: String) -> Bool { object[field] != nil }

    /// The raw value of `field`, for shapes the typed helpers do not cover (arrays of objects).
    package func value(_ field: String) -> JSONValue? { object[field] }

    package mutating func string(_ field: String, required: Bool) -> String? {
        switch object[field] {
        case nil:
            if required { errors.append(FieldError(field: field, code: .required, message: "Is required.")) }
            return nil
        case .string(let value):
            // Reported by init; nil keeps the value away from the database.
            return value.utf8.contains(0) ? nil : value
        default:
            errors.append(FieldError(field: field, code: .invalidType, message: "Must be a string."))
            return nil
        }
    }

    package mutating func bool(_ field: String) -> Bool? {
        switch object[field] {
        case nil: return nil
        case .bool(let value): return value
        default:
            errors.append(FieldError(field: field, code: .invalidType, message: "Must be true or false."))
            return nil
        }
    }

    /// An optional RFC 3339 timestamp; JSON null counts as absent.
    package mutating func timestamp(_ field: String) -> Date? {
        switch object[field] {
        case nil, .null?: return nil
        case .string(let text)?:
            if let date = Timestamp.parse(text) { return date }
            fallthrough
        default:
            errors.append(FieldError(field: field, code: .invalidTimestamp,
                                     message: "Must be an RFC 3339 timestamp like 2026-11-22T10:15:30Z."))
            return nil
        }
    }

    package mutating func userType(_ field: String, required: Bool) -> UserType? {
        guard let text = string(field, required: required) else { return nil }
        guard let type = UserType(rawValue: text) else {
            errors.append(FieldError(field: field, code: .invalidValue, message: "Must be admin or realtor."))
            return nil
        }
        return type
    }

    package mutating func add(_ error: FieldError?) {
        if let error { errors.append(error) }
    }

    /// Throws the 422 when any problem was collected.
    package func finish() throws {
        guard !errors.isEmpty else { return }
        throw Self.validationFailed(errors)
    }

    package static func validationFailed(_ errors: [FieldError]) -> DomainError {
        DomainError.validation(errors)
    }
}
