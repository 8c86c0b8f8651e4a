import Domain
import HTTP1
import HTTPServer
import JSON
import RouteKit

/// An error of the Supabase-compatible `/rest/v1` surface, in PostgREST's wire shape
/// `{"code","message","details","hint"}`: the only type the family renders
/// (`RestError+Response`), so `details` and `hint` can only ever be a string or null, which is
/// what supabase-swift's `PostgrestError` (`details: String?`) decodes. Structured facts a
/// client can act on (the claim holder, field errors) travel twice: as text in `details`
/// (`RestErrorDetails`' grammar) and as `extras`, extra top-level keys decoders ignore
/// (docs/app-developers/errors.md). Codes and statuses are PostgREST's (`RestErrorCode`); other
/// layers' errors are converted by `RestErrorMapping`.
struct RestError: WireFamilyError, Sendable, Equatable {
    var status: HTTPStatus
    var code: String
    var message: String
    var details: String?
    var hint: String?
    /// Extra top-level keys after the four (`claimed_by`, `errors`…). The four names themselves
    /// are never written from here (`RestError+Response`).
    var extras: [String: JSONValue] = [:]
    /// Added to the response (`Retry-After`, `Content-Range`).
    var extraHeaders = HTTPHeaders()

    /// One of the family's own refusals.
    init(status: HTTPStatus, code: RestErrorCode, message: String, details: String? = nil, hint: String? = nil) {
        self.init(status: status, passing: code.rawValue, message: message, details: details, hint: hint)
    }

    /// Another layer's code, passed through as it is (a domain code, the gateway's
    /// `no_api_key`, a PostgreSQL class 22 SQLSTATE).
    init(status: HTTPStatus, passing code: String, message: String, details: String? = nil, hint: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
    }

    /// A query string PostgREST could not parse (`PGRST100`).
    static func badQuery(_ message: String, details: String? = nil) -> RestError {
        RestError(status: .badRequest, code: .badQuery, message: message, details: details)
    }

    static func unknownTable(_ name: String) -> RestError {
        RestError(status: .notFound, code: .unknownTable,
                  message: "Could not find the table 'public.\(name)' in the schema cache",
                  hint: "The tables are: " + RestTables.names.joined(separator: ", ") + ".")
    }

    /// PostgreSQL's undefined_column, as PostgREST passes it through.
    static func unknownColumn(_ table: String, _ column: String) -> RestError {
        RestError(status: .badRequest, code: .undefinedColumn, message: "column \(table).\(column) does not exist")
    }

    /// PostgreSQL's invalid_text_representation for a value that does not parse as its
    /// column's type (the value is the client's own, so echoing it leaks nothing).
    static func invalidValue(_ typeName: String, _ value: String) -> RestError {
        RestError(status: .badRequest, code: .invalidTextRepresentation, message: "invalid input syntax for type \(typeName): \"\(value)\"")
    }

    /// `Accept: application/vnd.pgrst.object+json` with other than one row (`PGRST116`);
    /// `maybeSingle()` reads the count in `details`.
    static func notSingular(_ count: Int) -> RestError {
        RestError(status: RestStatus.notAcceptable, code: .notSingular,
                  message: "Cannot coerce the result to a single JSON object",
                  details: "The result contains \(count) rows")
    }

    /// `PGRST103`, 416.
    static func invalidRange(_ details: String) -> RestError {
        RestError(status: RestStatus.rangeNotSatisfiable, code: .invalidRange, message: "Requested range not satisfiable",
                  details: details)
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
