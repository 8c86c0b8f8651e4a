import Domain
import HTTP1
import HTTPServer
import JSON
import Logging
import Postgres

/// The one place errors become HTTP answers (`ErrorMiddleware` calls it for every request and
/// hands it to the request's context, so work that answers later renders through it too:
/// `RequestContext.renderError`). Handlers and stores only throw:
/// - `DomainError`: rendered in the style of the request's route group;
/// - `PostgresError`: first turned into a `DomainError` by `DatabaseErrorMapping` (the one
///   database → error function), logged with its diagnostics, which never reach the client;
/// - `HTTPError` (the server's own: 404/405 routing, parse errors): as it is;
/// - anything else: a bug; logged once, answered 500 with a generic message.
///
/// Each route group carries its error style (`Router.group(auth:errorStyle:)`); each wire
/// family registers its renderer for its style here (the composition root builds the table);
/// a style without a renderer, `/v1`'s and the operations routes', answers in the contract's
/// shape (docs/contract.md, "Errors").
package struct APIErrorRenderer: ErrorRendering {
    package let families: [ErrorStyle: any ErrorRendering]

    package init(families: [ErrorStyle: any ErrorRendering] = [:]) {
        self.families = families
    }

    package func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        response(for: error, style: context.route?.errorStyle ?? .contract, context: context)
    }

    /// `error` in `style`'s shape: the family's renderer, or the contract's. Logged here,
    /// once, whatever the family (`log`); the renderers only shape the answer.
    package func response(for error: any Error, style: ErrorStyle, context: RequestContext) -> HTTPResponse {
        let safe = context.route.map { $0.method == .get || $0.method == .head } ?? false
        let error = DatabaseErrorMapping.forMethod(error, safe: safe)
        Self.log(error, logger: context.logger)
        // On the request's log line and in the caller's recent failures (`FailureRing`).
        switch error {
        case is DomainError, is HTTPError, is PostgresError:
            context.logFields["error_code"] = .string(Self.contract(for: error).code)
        default:
            break
        }
        if let family = families[style] { return family.response(for: error, context: context) }
        return Self.contract(for: error).response
    }

    /// The one log line of a failure that deserves one: a database error with its diagnostics
    /// (which never reach the client; at error level when it is an outage or a bug), and
    /// anything no renderer models, which is a bug. Refusals the code means to give
    /// (`DomainError`, `HTTPError`, a family's own `WireFamilyError`) are not logged.
    package static func log(_ error: any Error, logger: Logger) {
        switch error {
        case let database as PostgresError:
            let mapped = DatabaseErrorMapping.domainError(for: database)
            logger.log(level: mapped.kind == .unavailable || mapped.kind == .internalError ? .error : .debug,
                       "database error", metadata: ["error": .string(database.description), "code": .string(mapped.code.rawValue)])
        case is DomainError, is HTTPError, is any WireFamilyError:
            break
        default:
            logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// `error` in the contract's shape: database errors mapped, anything unknown a generic
    /// 500. Logs nothing (`log` does); for the renderers of other shapes, which start from it.
    package static func contract(for error: any Error) -> HTTPError {
        switch error {
        case let domain as DomainError: contract(domain)
        case let database as PostgresError: contract(DatabaseErrorMapping.domainError(for: database))
        case let http as HTTPError: http
        default: contract(.internalError)
        }
    }

    /// `error` in the contract's shape, logged as `log` does: for answers made off the
    /// renderer's path (the console's pages, a parked long-poll).
    package static func contractError(for error: any Error, logger: Logger) -> HTTPError {
        log(error, logger: logger)
        return contract(for: error)
    }

    /// docs/contract.md §4: `{"code","message","details","hint"}`, one status per kind;
    /// transient failures carry `Retry-After`.
    package static func contract(_ error: DomainError) -> HTTPError {
        var headers = HTTPHeaders()
        if error.kind == .unavailable {
            headers.set(name: "Retry-After", value: String(DatabaseErrorMapping.retryAfterSeconds))
        }
        return HTTPError(status: status(error.kind), code: error.code.rawValue, message: error.message,
                         details: details(error), hint: error.hint, extraHeaders: headers)
    }

    package static func status(_ kind: DomainError.Kind) -> HTTPStatus {
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
    package static func details(_ error: DomainError) -> JSONValue? {
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

