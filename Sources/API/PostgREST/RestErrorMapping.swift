import Domain
import HTTP1
import HTTPServer
import Postgres
import Store

/// The one place that turns anything a `/rest/v1` handler throws into the family's wire shape
/// `{"code","message","details","hint"}` with PostgREST's statuses. A route-group error
/// renderer can call `httpError(for:)` as this family's style.
///
/// Database errors keep the server's transient-failure policy (503 + `Retry-After`, never a
/// 5xx that could be mistaken for a permanent refusal), and messages are fixed sentences:
/// PostgreSQL's own text can contain SQL and never reaches a client.
enum RestErrorMapping {
    /// The family's renderer (`SupabaseFamily.render`): every error under `/rest/v1`, the
    /// gateway's and authentication's included. Unexpected ones are logged here, never shown.
    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        if !(error is RestError || error is HTTPError || error is PostgresError || error is DomainError) {
            context.logger.error("Unhandled error in /rest/v1", metadata: ["error": "\(String(reflecting: error))"])
        }
        return httpError(for: error).response
    }

    static func httpError(for error: any Error) -> HTTPError {
        switch error {
        case let error as RestError:
            return error.httpError
        case let error as HTTPError where error.status == .unauthorized:
            return unauthorized(error)
        case let error as HTTPError:
            return error
        case let error as PostgresError:
            return httpError(for: error)
        case let error as DomainError:
            // The services' own refusals (a shared rule, a store check) keep their status and
            // named code; their shape is already PostgREST's {code, message, details, hint}.
            // Two take PostgreSQL's codes, which PostgREST clients test for: a permission
            // refusal is `42501` (insufficient_privilege), an id in use `23505`.
            var mapped = APIErrorRenderer.contract(error)
            if error.kind == .forbidden { mapped.code = "42501" }
            if error.code == .idConflict { mapped.code = "23505" }
            return mapped
        default:
            return HTTPError.internalError
        }
    }

    static func httpError(for error: PostgresError) -> HTTPError {
        if error.isConnectionError || error.kind == .poolTimeout || error.kind == .closed {
            return unavailable("PGRST001", "The database is temporarily unavailable. Try again shortly.")
        }
        guard error.kind == .server, let code = error.code else { return HTTPError.internalError }
        // users.avatar_hash naming no stored image (migration 0014): the same 422 as on /v1.
        if error.constraint == UserStore.avatarHashConstraint { return APIErrorRenderer.contract(UserStore.unknownAvatar) }
        switch code {
        case .queryCanceled, .lockNotAvailable:
            return unavailable("57014", "The database did not answer in time. Try again shortly.")
        case .serializationFailure, .deadlockDetected:
            return unavailable(code.rawValue, "The request collided with a concurrent change. Retry it.")
        case .uniqueViolation, .foreignKeyViolation:
            // A write the stores did not foresee colliding (PostgREST's 409 for both).
            return RestError(status: .conflict, code: code.rawValue,
                             message: code == .uniqueViolation ? "A row with this key already exists."
                                                               : "The row refers to a row that does not exist.").httpError
        case .undefinedColumn:
            return RestError(status: .badRequest, code: code.rawValue, message: "A column in the request does not exist.").httpError
        default:
            // Class 22: a filter value the database could not read as its column's type
            // (a timestamp out of range, a malformed array): the client's value, a 400.
            if code.errorClass == "22" {
                return RestError(status: .badRequest, code: code.rawValue,
                                 message: "A filter value has the wrong format or is out of range for its column.").httpError
            }
            return HTTPError.internalError
        }
    }

    /// PostgREST's JWT errors for what the authentication layer refused: an expired token is
    /// `PGRST303` "JWT expired", any other bad token `PGRST301`. The gateway's key errors
    /// (`no_api_key`, `invalid_api_key`) keep their codes, as Supabase's gateway sends them.
    private static func unauthorized(_ error: HTTPError) -> HTTPError {
        var mapped = error
        switch error.code {
        case "token_expired":
            mapped.code = "PGRST303"
            mapped.message = "JWT expired"
        case "no_api_key", "invalid_api_key":
            break
        default:
            mapped.code = "PGRST301"
        }
        return mapped
    }

    private static func unavailable(_ code: String, _ message: String) -> HTTPError {
        var error = RestError(status: .serviceUnavailable, code: code, message: message).httpError
        error.extraHeaders.set(name: "Retry-After", value: String(DatabaseErrorMapping.retryAfterSeconds))
        return error
    }
}
