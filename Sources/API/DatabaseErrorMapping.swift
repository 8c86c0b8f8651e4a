import HTTP1
import HTTPServer
import Postgres

/// The one place that turns database failures into HTTP answers (contract §4, ENGINEERING 3).
///
/// Handlers that expect a particular failure (a unique email, a claim race) catch it first and
/// answer specifically; everything else reaches this mapping. Messages are fixed sentences:
/// the database's own text can contain SQL, table names or values and never reaches a client.
public enum DatabaseErrorMapping {
    /// Seconds a client should wait before retrying a transient failure.
    public static let retryAfterSeconds = 1

    public static func httpError(for error: PostgresError) -> HTTPError {
        if error.isConnectionError || error.kind == .poolTimeout || error.kind == .closed {
            return unavailable(code: "database_unavailable", "The database is temporarily unavailable. Try again shortly.")
        }
        guard error.kind == .server, let code = error.code else { return internalError }
        switch code {
        // Serialization failures and deadlocks are transient: the same request succeeds when
        // retried, so they are 503 + Retry-After (retry as is), not 409 (which tells a client
        // to reconcile its data first).
        case .serializationFailure, .deadlockDetected:
            return unavailable(code: "transaction_conflict", "The request collided with a concurrent change. Retry it.")
        // A statement timeout or a lock wait that gave up: the database is overloaded.
        case .queryCanceled, .lockNotAvailable:
            return unavailable(code: "database_timeout", "The database did not answer in time. Try again shortly.")
        case .uniqueViolation, .exclusionViolation:
            return HTTPError(status: .conflict, code: "conflict", message: "A record with the same unique value already exists.")
        case .foreignKeyViolation:
            return HTTPError(status: .unprocessableContent, code: "invalid_reference",
                             message: "The request refers to a record that does not exist.")
        case .checkViolation, .notNullViolation:
            return HTTPError(status: .unprocessableContent, code: "validation_failed",
                             message: "A value is missing or not allowed.")
        default:
            // Class 22 (data exception: bad number, out-of-range date, malformed array…) is a
            // value the client sent that slipped past validation.
            if code.errorClass == "22" {
                return HTTPError(status: .unprocessableContent, code: "invalid_value",
                                 message: "A value has the wrong format or is out of range.")
            }
            return internalError
        }
    }

    /// Maps `PostgresError` and leaves every other error untouched.
    public static func map(_ error: any Error) -> any Error {
        guard let postgresError = error as? PostgresError else { return error }
        return httpError(for: postgresError)
    }

    static let internalError = HTTPError(
        status: .internalServerError, code: "internal_error", message: "An unexpected error occurred."
    )

    static func unavailable(code: String, _ message: String) -> HTTPError {
        var headers = HTTPHeaders()
        headers.set(name: "Retry-After", value: String(retryAfterSeconds))
        return HTTPError(status: .serviceUnavailable, code: code, message: message, extraHeaders: headers)
    }
}
