import Domain
import HTTP1
import HTTPServer
import Postgres
import RouteKit
import Store

/// The one place that turns anything a `/rest/v1` handler throws into the family's one wire
/// type, `RestError` (`{"code","message","details","hint"}`, details and hint a string or
/// null), with PostgREST's statuses. A route-group error renderer can call `restError(for:)`
/// as this family's style.
///
/// Database errors keep the server's transient-failure policy (503 + `Retry-After`, never a
/// 5xx that could be mistaken for a permanent refusal), and messages are fixed sentences:
/// PostgreSQL's own text can contain SQL and never reaches a client.
package struct RestErrorMapping: ErrorRendering {
    package init() {}

    package func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        Self.response(for: error, context: context)
    }

    /// The family's renderer: every error under `/rest/v1`, the gateway's and
    /// authentication's included (logged by `APIErrorRenderer`, never shown).
    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        restError(for: error).response
    }

    static func restError(for error: any Error) -> RestError {
        switch error {
        case let error as RestError:
            return error
        case let error as HTTPError where error.status == .unauthorized:
            return restError(for: unauthorized(error))
        case let error as HTTPError:
            return restError(for: error)
        case let error as PostgresError:
            return restError(for: error)
        case let error as DomainError:
            return restError(for: error)
        default:
            return restError(for: HTTPError.internalError)
        }
    }

    /// The server's and the gateway's own errors: their JSON details become text + extras.
    static func restError(for error: HTTPError) -> RestError {
        let (text, extras) = RestErrorDetails.from(error.details)
        var mapped = RestError(status: error.status, passing: error.code, message: error.message, details: text, hint: error.hint)
        mapped.extras = extras
        mapped.extraHeaders = error.extraHeaders
        return mapped
    }

    /// The services' own refusals (a shared rule, a store check) keep their status and named
    /// code, their facts in `details` as text and as extra keys (`RestErrorDetails`). Two take
    /// PostgreSQL's codes, which PostgREST clients test for: a permission refusal is `42501`
    /// (insufficient_privilege), an id in use `23505`.
    static func restError(for error: DomainError) -> RestError {
        let contract = APIErrorRenderer.contract(error)
        var code = error.code.rawValue
        if error.kind == .forbidden { code = RestErrorCode.insufficientPrivilege.rawValue }
        if error.code == .idConflict { code = RestErrorCode.uniqueViolation.rawValue }
        let (text, extras) = RestErrorDetails.from(error)
        var mapped = RestError(status: contract.status, passing: code, message: error.message, details: text, hint: error.hint)
        mapped.extras = extras
        mapped.extraHeaders = contract.extraHeaders
        return mapped
    }

    /// PostgREST's answers (its Error.hs) to the failures `DatabaseErrorMapping.classify` tells
    /// apart: 409 for a key collision or a missing referenced row, 400 for a value the database
    /// refused, 503 + `Retry-After` for transient failures.
    static func restError(for error: PostgresError) -> RestError {
        switch DatabaseErrorMapping.classify(error) {
        case .outcomeUnknown, .unknownAvatar:
            return restError(for: DatabaseErrorMapping.domainError(for: error))
        case .unavailable:
            return unavailable(.databaseUnavailable, "The database is temporarily unavailable. Try again shortly.")
        case .timeout:
            return unavailable(.queryCanceled, "The database did not answer in time. Try again shortly.")
        case .collision(let deadlock):
            return unavailable(deadlock ? .deadlockDetected : .serializationFailure, "The request collided with a concurrent change. Retry it.")
        case .uniqueViolation:
            // A write the stores did not foresee colliding.
            return RestError(status: .conflict, code: .uniqueViolation, message: "A row with this key already exists.")
        case .foreignKeyViolation:
            return RestError(status: .conflict, code: .foreignKeyViolation, message: "The row refers to a row that does not exist.")
        case .undefinedColumn:
            return RestError(status: .badRequest, code: .undefinedColumn, message: "A column in the request does not exist.")
        case .notAllowed, .badValue:
            // A filter or body value the database could not take for its column: the client's, a 400.
            return RestError(status: .badRequest, passing: error.code?.rawValue ?? "22000",
                             message: "A value has the wrong format or is out of range for its column.")
        case .other:
            return restError(for: HTTPError.internalError)
        }
    }

    /// PostgREST's JWT errors for what the authentication layer refused: an expired token is
    /// `PGRST303` "JWT expired", any other bad token `PGRST301`. The gateway's key errors
    /// (`no_api_key`, `invalid_api_key`) keep their codes, as Supabase's gateway sends them.
    private static func unauthorized(_ error: HTTPError) -> HTTPError {
        var mapped = error
        switch error.code {
        case ErrorCode.tokenExpired.rawValue:
            mapped.code = RestErrorCode.expiredJWT.rawValue
            mapped.message = "JWT expired"
        case SupabaseGatewayCode.noAPIKey.rawValue, SupabaseGatewayCode.invalidAPIKey.rawValue:
            break
        default:
            mapped.code = RestErrorCode.badJWT.rawValue
        }
        return mapped
    }

    private static func unavailable(_ code: RestErrorCode, _ message: String) -> RestError {
        var error = RestError(status: .serviceUnavailable, code: code, message: message)
        error.extraHeaders.set(name: "Retry-After", value: String(DatabaseErrorMapping.retryAfterSeconds))
        return error
    }
}
