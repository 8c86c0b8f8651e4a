import Domain
import HTTP1
import HTTPServer

/// An error of the Supabase-compatible `/rest/v1` surface, with PostgREST's codes and
/// statuses (PostgREST `src/PostgREST/Error.hs`): `PGRST…` for request errors, the SQLSTATE
/// for what PostgreSQL itself would have refused. Rendered in the family's one shape by
/// `RestErrorMapping`.
struct RestError: Error, Sendable, Equatable {
    var status: HTTPStatus
    var code: String
    var message: String
    var details: String?
    var hint: String?

    /// A query string PostgREST could not parse (`PGRST100`).
    static func badQuery(_ message: String, details: String? = nil) -> RestError {
        RestError(status: .badRequest, code: "PGRST100", message: message, details: details)
    }

    static func unknownTable(_ name: String) -> RestError {
        RestError(status: .notFound, code: "PGRST205",
                  message: "Could not find the table 'public.\(name)' in the schema cache",
                  hint: "The tables are: " + RestTables.names.joined(separator: ", ") + ".")
    }

    /// PostgreSQL's undefined_column, as PostgREST passes it through.
    static func unknownColumn(_ table: String, _ column: String) -> RestError {
        RestError(status: .badRequest, code: "42703", message: "column \(table).\(column) does not exist")
    }

    /// PostgreSQL's invalid_text_representation for a value that does not parse as its
    /// column's type (the value is the client's own, so echoing it leaks nothing).
    static func invalidValue(_ typeName: String, _ value: String) -> RestError {
        RestError(status: .badRequest, code: "22P02", message: "invalid input syntax for type \(typeName): \"\(value)\"")
    }

    /// `Accept: application/vnd.pgrst.object+json` with other than one row (`PGRST116`);
    /// `maybeSingle()` reads the count in `details`.
    static func notSingular(_ count: Int) -> RestError {
        RestError(status: RestStatus.notAcceptable, code: "PGRST116",
                  message: "Cannot coerce the result to a single JSON object",
                  details: "The result contains \(count) rows")
    }

    /// `PGRST103`, 416.
    static func invalidRange(_ details: String) -> RestError {
        RestError(status: RestStatus.rangeNotSatisfiable, code: "PGRST103", message: "Requested range not satisfiable",
                  details: details)
    }

    var httpError: HTTPError {
        HTTPError(status: status, code: code, message: message, details: details.map { .string($0) }, hint: hint)
    }
}

/// Statuses only this family answers with (kept here rather than in HTTP1's list).
enum RestStatus {
    static let partialContent = HTTPStatus(code: 206, reason: "Partial Content")
    static let notAcceptable = HTTPStatus(code: 406, reason: "Not Acceptable")
    static let rangeNotSatisfiable = HTTPStatus(code: 416, reason: "Range Not Satisfiable")
}

/// The tables `/rest/v1` serves: the eight described resources.
enum RestTables {
    static let names = Resource.allCases.map(\.description.table)
}
