import Credentials
import Foundation
import HTTP1
import HTTPServer

/// A submitted console form (`application/x-www-form-urlencoded`, what a browser sends
/// without JavaScript). Reading it checks the CSRF token first: a form without the session's
/// token is refused before any field is looked at.
package struct ConsoleForm: Sendable {
    /// The hidden field every console form carries (`{{csrf}}` in the layout's data).
    package static let csrfField = "csrf"
    static let maxBytes = 64 * 1024

    let fields: QueryParameters

    init(_ request: HTTPRequest) throws {
        guard request.body.count <= Self.maxBytes else { throw ConsoleError.invalid("The form is too large.") }
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") || request.body.isEmpty else {
            throw ConsoleError.invalid("Console forms are sent as application/x-www-form-urlencoded.")
        }
        fields = QueryParameters(parsing: Substring(decoding: request.body, as: UTF8.self))
    }

    /// Refuses the form (403, nothing done) unless it carries `expected` (compared in constant time).
    func requireCSRF(_ expected: String) throws {
        guard let sent = fields[Self.csrfField], !expected.isEmpty,
              ConstantTime.equals(Array(sent.utf8), Array(expected.utf8)) else { throw ConsoleError.csrfRejected }
    }

    /// The field's value with surrounding blanks removed; nil when absent or blank.
    package subscript(name: String) -> String? {
        guard let value = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// The field's value, or a 422 page naming the field when it is missing.
    package func required(_ name: String, label: String) throws -> String {
        guard let value = self[name] else { throw ConsoleError.invalid("\(label) is required.") }
        return value
    }
}
