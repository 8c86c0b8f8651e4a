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
/// Styles, one case each in `response(for:style:context:)`: `.contract` (docs/contract.md §4)
/// for `/v1`, the operations routes and anything unmatched; the Supabase-compatible families
/// `.goTrue` (`/auth/v1`, `GoTrueErrorRenderer`) and `.postgREST` (`/rest/v1`,
/// `RestErrorMapping`: PostgREST's Error.hs, a code per failure, one status per code),
/// `.storage` (`/storage/v1`, `StorageErrorRenderer`) and `.realtime` (`/realtime/v1`'s
/// refused upgrades, `RealtimeErrorRenderer`). A
/// family's style is its path name (`SupabaseFamily.errorStyle`); adding a family's error
/// shape is one case here.
public struct APIErrorRenderer: ErrorRendering {
    public init() {}

    public func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        Self.response(for: error, style: context.route?.errorStyle ?? .contract, context: context)
    }

    /// The one function that picks an error's wire shape: by the style of the request's route
    /// group or path family. Each shape's renderer logs what deserves it.
    static func response(for error: any Error, style: ErrorStyle, context: RequestContext) -> HTTPResponse {
        let safe = context.route.map { $0.method == .get || $0.method == .head } ?? false
        let error = DatabaseErrorMapping.forMethod(error, safe: safe)
        return switch style {
        case .goTrue: GoTrueErrorRenderer.response(for: error, context: context)
        case .postgREST: RestErrorMapping.response(for: error, context: context)
        case .storage: StorageErrorRenderer.response(for: error, context: context)
        case .realtime: RealtimeErrorRenderer.response(for: error, context: context)
        default: contractError(for: error, logger: context.logger).response
        }
    }

    /// `error` in the contract's shape, logging what deserves it.
    static func contractError(for error: any Error, logger: Logger) -> HTTPError {
        switch error {
        case let domain as DomainError:
            return contract(domain)
        case let database as PostgresError:
            let mapped = DatabaseErrorMapping.domainError(for: database)
            logger.log(level: mapped.kind == .unavailable || mapped.kind == .internalError ? .error : .debug,
                       "database error", metadata: ["error": .string(database.description), "code": .string(mapped.code.rawValue)])
            return contract(mapped)
        case let http as HTTPError:
            return http
        default:
            logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
            return contract(.internalError)
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

extension ErrorStyle {
    /// `/auth/v1`: GoTrue's shape and codes.
    static let goTrue = SupabaseFamily.auth.errorStyle
    /// `/rest/v1`: PostgREST's codes in `{"code","message","details","hint"}`.
    static let postgREST = SupabaseFamily.rest.errorStyle
    /// `/storage/v1`: Storage's `{"statusCode","error","message"}` (`StorageErrorRenderer`).
    static let storage = SupabaseFamily.storage.errorStyle
    /// `/realtime/v1`: Supabase Realtime's `{"error"}` for a refused socket (`RealtimeErrorRenderer`).
    static let realtime = SupabaseFamily.realtime.errorStyle
}
