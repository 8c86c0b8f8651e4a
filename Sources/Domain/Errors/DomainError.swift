/// Why an operation did not happen: the one error type stores, rules and handlers throw
/// (docs/contract.md §4). It says what went wrong in domain terms — a `kind` (which decides
/// the HTTP status), a named `code`, a sentence, and structured details — and nothing about
/// the wire: the API's one renderer (`APIErrorRenderer`) turns it into the answer of the
/// route's error style (the `/v1` contract shape today).
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; each error style maps a kind to one status.
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// The request cannot be read (malformed JSON, a bad parameter or cursor): 400.
        case badRequest
        /// No such row, or the caller cannot see it (deliberately the same, contract §2): 404.
        case notFound
        /// The caller sees the row but may not do this: 403.
        case forbidden
        /// The row's state refuses the change (id taken, deleted, claimed): 409.
        case conflict
        /// The history the request needs is gone: 410.
        case gone
        /// `If-Match` / `base_version` does not name the row's version: 412.
        case preconditionFailed
        /// The body is larger than the route accepts: 413.
        case contentTooLarge
        /// The body is not in a media type the route reads: 415.
        case unsupportedMediaType
        /// Well-formed but not acceptable input, one entry per field: 422.
        case invalidInput
        /// A transient failure (database down, busy, deadlocked): 503, retry shortly.
        case unavailable
        /// A bug or an unexpected state: 500, details only in the server log.
        case internalError
    }

    public var kind: Kind
    public var code: ErrorCode
    /// For people; never SQL, stack traces or other internals.
    public var message: String
    /// Structured facts a client can act on (`{"version": 3}`, `{"claimed_by": …}`).
    public var details: [String: Detail]
    /// The bad fields of an `.invalidInput` error (rendered as `details`).
    public var fields: [FieldError]
    public var hint: String?

    /// One value of `details`.
    public enum Detail: Sendable, Equatable {
        case string(String)
        case integer(Int)
    }

    public init(_ kind: Kind, _ code: ErrorCode, _ message: String, details: [String: Detail] = [:],
                fields: [FieldError] = [], hint: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.details = details
        self.fields = fields
        self.hint = hint
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
