/// The single error type of the Postgres layer.
///
/// `kind` says what went wrong at the client level; `code` (SQLSTATE) and the diagnostic
/// fields are present when the server reported the error.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable {
        /// Could not connect, or the connection was lost.
        case connection
        /// The server rejected a statement (see `code`).
        case server
        /// No pooled connection became available within the acquisition timeout.
        case poolTimeout
        /// A result value could not be decoded into the requested Swift type.
        case decoding
        /// The connection, pool or listener was closed by the caller.
        case closed
        /// libpq or the server answered in a way this client does not expect.
        case protocolViolation
        /// The API was used incorrectly (for example one prepared-statement name for two SQL texts).
        case misuse
    }

    public var kind: Kind
    public var code: Code?
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var table: String?
    public var column: String?
    public var severity: String?
    /// The connection was lost after a statement that may commit (an autocommit statement, or
    /// COMMIT) was sent: the change may or may not be in the database.
    public var outcomeUnknown = false

    public init(
        kind: Kind, code: Code? = nil, message: String, detail: String? = nil, hint: String? = nil,
        constraint: String? = nil, table: String? = nil, column: String? = nil, severity: String? = nil
    ) {
        self.kind = kind
        self.code = code
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.table = table
        self.column = column
        self.severity = severity
    }

    /// True when the failure is about the connection itself (lost, refused, server shutting
    /// down) rather than about the statement: callers map it to 503 and the pool replaces
    /// the connection.
    public var isConnectionError: Bool {
        kind == .connection || (code?.isConnectionError ?? false)
    }

    public var description: String {
        var text = "PostgresError(\(kind.rawValue)"
        if let code { text += ", \(code.rawValue)" }
        text += "): \(message)"
        if let detail { text += " — detail: \(detail)" }
        if let hint { text += " — hint: \(hint)" }
        if let constraint { text += " — constraint: \(constraint)" }
        if let column, kind == .decoding { text += " — column: \(column)" }
        return text
    }
}

extension PostgresError {
    /// A SQLSTATE code. Compare with the named constants; unknown codes keep their raw value.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let uniqueViolation = Code("23505")
        public static let foreignKeyViolation = Code("23503")
        public static let checkViolation = Code("23514")
        public static let notNullViolation = Code("23502")
        public static let exclusionViolation = Code("23P01")
        public static let invalidTextRepresentation = Code("22P02")
        public static let serializationFailure = Code("40001")
        public static let deadlockDetected = Code("40P01")
        public static let queryCanceled = Code("57014")
        public static let lockNotAvailable = Code("55P03")
        public static let undefinedTable = Code("42P01")
        public static let undefinedColumn = Code("42703")
        public static let syntaxError = Code("42601")
        public static let adminShutdown = Code("57P01")
        public static let crashShutdown = Code("57P02")
        public static let cannotConnectNow = Code("57P03")
        public static let invalidSQLStatementName = Code("26000")
        /// Among others, "cached plan must not change result type" for a prepared statement.
        public static let featureNotSupported = Code("0A000")
        public static let inFailedSQLTransaction = Code("25P02")
        public static let idleInTransactionSessionTimeout = Code("25P03")

        /// The two-character SQLSTATE class, e.g. "23" for integrity constraint violations.
        public var errorClass: String { String(rawValue.prefix(2)) }

        /// Class 08 (connection exception) and 57P01–57P03 (server shutting down / starting).
        public var isConnectionError: Bool {
            errorClass == "08" || self == .adminShutdown || self == .crashShutdown || self == .cannotConnectNow
        }

        public var description: String { rawValue }
    }
}
