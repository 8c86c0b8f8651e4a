import Domain
import HTTP1
import HTTPServer
import Logging
import Postgres

/// The one place errors become HTTP answers (`ErrorMiddleware` calls it for every request;
/// handlers that answer later call it themselves). Handlers and stores only throw:
/// - `DomainError`: rendered in the style of the request's route group;
/// - `PostgresError`: first turned into a `DomainError` by `DatabaseErrorMapping` (the one
///   database → error function), logged with its diagnostics, which never reach the client;
/// - `HTTPError` (the server's own: 404/405 routing, parse errors): as it is;
/// - anything else: a bug; logged, answered 500 with a generic message.
///
/// Styles: `.contract` (docs/contract.md §4) is the only one today. A Supabase-compatible
/// group (`/auth/v1`, `/rest/v1`) declares its `ErrorStyle` on its `Router.group` and adds a
/// case to `render(_:style:)` mapping the same `DomainError` to its own shape and codes
/// (PostgREST's Error.hs: a code per failure, one status per code).
public struct APIErrorRenderer: ErrorRendering {
    public init() {}

    public func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        Self.httpError(for: error, style: context.route?.errorStyle ?? .contract, logger: context.logger).response
    }

    /// `error` as the answer of a route in `style`, logging what deserves it.
    static func httpError(for error: any Error, style: ErrorStyle, logger: Logger) -> HTTPError {
        switch error {
        case let domain as DomainError:
            return render(domain, style: style)
        case let database as PostgresError:
            let mapped = DatabaseErrorMapping.domainError(for: database)
            logger.log(level: mapped.kind == .unavailable || mapped.kind == .internalError ? .error : .debug,
                       "database error", metadata: ["error": .string(database.description), "code": .string(mapped.code.rawValue)])
            return render(mapped, style: style)
        case let http as HTTPError:
            return http
        default:
            logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
            return render(.internalError, style: style)
        }
    }

    /// `error` in `style`.
    static func render(_ error: DomainError, style: ErrorStyle) -> HTTPError {
        switch style {
        default: contract(error)
        }
    }

    /// docs/contract.md §4: `{"code","message","details","hint"}`, one status per kind;
    /// transient failures carry `Retry-After`.
    static func contract(_ error: DomainError) -> HTTPError {
        var headers = HTTPHeaders()
        if error.kind == .unavailable {
            headers.set(name: "Retry-After", value: String(DatabaseErrorMapping.retryAfterSeconds))
        }
        return HTTPError(status: status(error.kind), code: error.code.rawValue, message: error.message,
                         details: details(error), hint: error.hint, extraHeaders: headers)
    }

    static func status(_ kind: DomainError.Kind) -> HTTPStatus {
        switch kind {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .conflict: .conflict
        case .gone: .gone
        case .preconditionFailed: .preconditionFailed
        case .contentTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .invalidInput: .unprocessableContent
        case .unavailable: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }

    /// Field problems as an array of `{"field","code","message"}`, else the facts as an object.
    static func details(_ error: DomainError) -> JSONValue? {
        if !error.fields.isEmpty {
            return .array(error.fields.map { ["field": .string($0.field), "code": .string($0.code), "message": .string($0.message)] })
        }
        guard !error.details.isEmpty else { return nil }
        return .object(error.details.mapValues {
            switch $0 {
            case .string(let text): .string(text)
            case .integer(let number): .number(Double(number))
            }
        })
    }
}
