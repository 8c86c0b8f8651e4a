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
package enum DatabaseErrorMapping {
    /// Seconds a client should wait before retrying a transient failure.
    package static let retryAfterSeconds = 1

    /// What a database failure is, by its SQLSTATE: the one classification both wire shapes
    /// (the contract's here, PostgREST's in `RestErrorMapping`) answer from.
    package enum Failure: Equatable, Sendable {
        /// The connection was lost after a change was sent: it may or may not have committed.
        case outcomeUnknown
        /// No connection (down, pool exhausted or closed).
        case unavailable
        /// A statement timeout or a lock wait that gave up: overloaded.
        case timeout
        /// A serialization failure or a deadlock: transient; the same request succeeds retried.
        case collision(deadlock: Bool)
        /// A unique or exclusion constraint.
        case uniqueViolation
        /// `users.avatar_hash` naming no stored image.
        case unknownAvatar
        case foreignKeyViolation
        /// A CHECK or NOT NULL constraint.
        case notAllowed
        /// Class 22 (a bad number, an out-of-range date, a malformed array): a client's value.
        case badValue
        case undefinedColumn
        /// Anything else: a bug.
        case other
    }

    package static func classify(_ error: PostgresError) -> Failure {
        if error.outcomeUnknown { return .outcomeUnknown }
        if error.isConnectionError || error.kind == .poolTimeout || error.kind == .closed { return .unavailable }
        guard error.kind == .server, let code = error.code else { return .other }
        switch code {
        case .serializationFailure: return .collision(deadlock: false)
        case .deadlockDetected: return .collision(deadlock: true)
        case .queryCanceled, .lockNotAvailable: return .timeout
        case .uniqueViolation, .exclusionViolation: return .uniqueViolation
        case .foreignKeyViolation where error.constraint == UserStore.avatarHashConstraint: return .unknownAvatar
        case .foreignKeyViolation: return .foreignKeyViolation
        case .checkViolation, .notNullViolation: return .notAllowed
        case .undefinedColumn: return .undefinedColumn
        default: return code.errorClass == "22" ? .badValue : .other
        }
    }

    package static func domainError(for error: PostgresError) -> DomainError {
        switch classify(error) {
        // Not "nothing happened": a retry without the same id could make a duplicate.
        case .outcomeUnknown:
            DomainError(.unavailable, .outcomeUnknown,
                        "The connection to the database was lost after the change was sent: it may or may not have been saved. Retry with the same id, or read it back first.")
        case .unavailable:
            DomainError(.unavailable, .databaseUnavailable, "The database is temporarily unavailable. Try again shortly.")
        // Transient: 503 + Retry-After (retry as is), not 409 (which tells a client to
        // reconcile its data first).
        case .collision:
            DomainError(.unavailable, .transactionConflict, "The request collided with a concurrent change. Retry it.")
        case .timeout:
            DomainError(.unavailable, .databaseTimeout, "The database did not answer in time. Try again shortly.")
        case .uniqueViolation:
            DomainError(.conflict, .conflict, "A record with the same unique value already exists.")
        case .unknownAvatar:
            UserStore.unknownAvatar
        case .foreignKeyViolation:
            DomainError(.invalidInput, .invalidReference, "The request refers to a record that does not exist.")
        case .notAllowed:
            DomainError(.invalidInput, .validationFailed, "A value is missing or not allowed.")
        // A value the client sent that slipped past validation.
        case .badValue:
            DomainError(.invalidInput, .invalidValue, "A value has the wrong format or is out of range.")
        case .undefinedColumn, .other:
            .internalError
        }
    }

    /// The contract answer for `error` (for callers outside a route's rendering, such as the
    /// sync feed's parked requests).
    /// A read cannot have changed anything, so "outcome unknown" would only confuse: safe
    /// methods answer `database_unavailable` for a lost connection.
    package static func forMethod(_ error: any Error, safe: Bool) -> any Error {
        guard safe, var database = error as? PostgresError, database.outcomeUnknown else { return error }
        database.outcomeUnknown = false
        return database
    }

    package static func httpError(for error: PostgresError) -> HTTPError {
        APIErrorRenderer.contract(domainError(for: error))
    }

    /// A `PostgresError` or `DomainError` as its contract answer (an `HTTPError`); any other
    /// error unchanged. For renderers of other wire shapes that translate the contract's
    /// answers (`GoTrueErrorRenderer`).
    package static func map(_ error: any Error) -> any Error {
        switch error {
        case let database as PostgresError: httpError(for: database)
        case let domain as DomainError: APIErrorRenderer.contract(domain)
        default: error
        }
    }

    package static let internalError = APIErrorRenderer.contract(.internalError)
}
