import Domain
import HTTPServer
import Postgres
import Store

/// The one function that says what a database failure means to a client (contract §4,
/// ENGINEERING 3; PostgREST's Error.hs is the model: one answer per SQLSTATE class).
///
/// Stores that expect a particular failure (a unique email, a claim race) catch it first and
/// throw a specific `DomainError`; everything else reaches this mapping through
/// `APIErrorRenderer`. Messages are fixed sentences: the database's own text can contain SQL,
/// table names or values and never reaches a client.
public enum DatabaseErrorMapping {
    /// Seconds a client should wait before retrying a transient failure.
    public static let retryAfterSeconds = 1

    public static func domainError(for error: PostgresError) -> DomainError {
        // Not "nothing happened": a retry without the same id could make a duplicate.
        if error.outcomeUnknown {
            return DomainError(.unavailable, .outcomeUnknown,
                               "The connection to the database was lost after the change was sent: it may or may not have been saved. Retry with the same id, or read it back first.")
        }
        if error.isConnectionError || error.kind == .poolTimeout || error.kind == .closed {
            return DomainError(.unavailable, .databaseUnavailable, "The database is temporarily unavailable. Try again shortly.")
        }
        guard error.kind == .server, let code = error.code else { return .internalError }
        switch code {
        // Serialization failures and deadlocks are transient: the same request succeeds when
        // retried, so they are 503 + Retry-After (retry as is), not 409 (which tells a client
        // to reconcile its data first).
        case .serializationFailure, .deadlockDetected:
            return DomainError(.unavailable, .transactionConflict, "The request collided with a concurrent change. Retry it.")
        // A statement timeout or a lock wait that gave up: the database is overloaded.
        case .queryCanceled, .lockNotAvailable:
            return DomainError(.unavailable, .databaseTimeout, "The database did not answer in time. Try again shortly.")
        case .uniqueViolation, .exclusionViolation:
            return DomainError(.conflict, .conflict, "A record with the same unique value already exists.")
        case .foreignKeyViolation where error.constraint == UserStore.avatarHashConstraint:
            return UserStore.unknownAvatar
        case .foreignKeyViolation:
            return DomainError(.invalidInput, .invalidReference, "The request refers to a record that does not exist.")
        case .checkViolation, .notNullViolation:
            return DomainError(.invalidInput, .validationFailed, "A value is missing or not allowed.")
        default:
            // Class 22 (data exception: bad number, out-of-range date, malformed array…) is a
            // value the client sent that slipped past validation.
            if code.errorClass == "22" {
                return DomainError(.invalidInput, .invalidValue, "A value has the wrong format or is out of range.")
            }
            return .internalError
        }
    }

    /// The contract answer for `error` (for callers outside a route's rendering, such as the
    /// sync feed's parked requests).
    /// A read cannot have changed anything, so "outcome unknown" would only confuse: safe
    /// methods answer `database_unavailable` for a lost connection.
    public static func forMethod(_ error: any Error, safe: Bool) -> any Error {
        guard safe, var database = error as? PostgresError, database.outcomeUnknown else { return error }
        database.outcomeUnknown = false
        return database
    }

    public static func httpError(for error: PostgresError) -> HTTPError {
        APIErrorRenderer.contract(domainError(for: error))
    }

    /// A `PostgresError` or `DomainError` as its contract answer (an `HTTPError`); any other
    /// error unchanged. For renderers of other wire shapes that translate the contract's
    /// answers (`GoTrueErrorRenderer`).
    public static func map(_ error: any Error) -> any Error {
        switch error {
        case let database as PostgresError: httpError(for: database)
        case let domain as DomainError: APIErrorRenderer.contract(domain)
        default: error
        }
    }

    package static let internalError = APIErrorRenderer.contract(.internalError)
}
