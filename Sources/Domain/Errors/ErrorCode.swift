/// A stable snake_case error code clients branch on (docs/contract.md §4): the `code` of an
/// error answer, or of one field's problem in a 422's `details`. Every code the server
/// answers with is named here, once; handlers and stores use the names, never the text.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

// MARK: - Answers (the `code` of the error object)

extension ErrorCode {
    // Requests the server cannot read.
    public static let invalidJSON = ErrorCode(rawValue: "invalid_json")
    public static let invalidEncoding = ErrorCode(rawValue: "invalid_encoding")
    public static let duplicateKey = ErrorCode(rawValue: "duplicate_key")
    public static let bodyTooLarge = ErrorCode(rawValue: "body_too_large")
    public static let unsupportedMediaType = ErrorCode(rawValue: "unsupported_media_type")
    public static let invalidParameter = ErrorCode(rawValue: "invalid_parameter")
    public static let invalidCursor = ErrorCode(rawValue: "invalid_cursor")
    public static let invalidUUID = ErrorCode(rawValue: "invalid_uuid")
    public static let invalidImage = ErrorCode(rawValue: "invalid_image")
    public static let validationFailed = ErrorCode(rawValue: "validation_failed")

    // Who may do what.
    public static let unauthorized = ErrorCode(rawValue: "unauthorized")
    public static let tokenExpired = ErrorCode(rawValue: "token_expired")
    public static let sessionRevoked = ErrorCode(rawValue: "session_revoked")
    public static let invalidCredentials = ErrorCode(rawValue: "invalid_credentials")
    public static let invalidRefreshToken = ErrorCode(rawValue: "invalid_refresh_token")
    public static let notASession = ErrorCode(rawValue: "not_a_session")
    public static let rateLimited = ErrorCode(rawValue: "rate_limited")
    public static let notFound = ErrorCode(rawValue: "not_found")
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    public static let sessionRequired = ErrorCode(rawValue: "session_required")
    // The e-mail flows (issue 25): a code or link that is wrong, used, void or expired; the
    // one-mail-per-address interval; a PKCE code unknown or spent, or a verifier that does
    // not answer its challenge.
    public static let emailCodeInvalid = ErrorCode(rawValue: "email_code_invalid")
    public static let emailRateLimited = ErrorCode(rawValue: "email_rate_limited")
    public static let authCodeInvalid = ErrorCode(rawValue: "auth_code_invalid")
    public static let codeVerifierMismatch = ErrorCode(rawValue: "code_verifier_mismatch")

    // Rows that cannot take this change.
    public static let preconditionFailed = ErrorCode(rawValue: "precondition_failed")
    public static let idConflict = ErrorCode(rawValue: "id_conflict")
    public static let rowDeleted = ErrorCode(rawValue: "row_deleted")
    public static let parentDeleted = ErrorCode(rawValue: "parent_deleted")
    public static let claimConflict = ErrorCode(rawValue: "claim_conflict")
    public static let notClaimable = ErrorCode(rawValue: "not_claimable")
    public static let emailTaken = ErrorCode(rawValue: "email_taken")
    public static let resyncRequired = ErrorCode(rawValue: "resync_required")

    // The database's answers (`DatabaseErrorMapping`) and the server's state.
    public static let conflict = ErrorCode(rawValue: "conflict")
    public static let invalidReference = ErrorCode(rawValue: "invalid_reference")
    public static let invalidValue = ErrorCode(rawValue: "invalid_value")
    public static let databaseUnavailable = ErrorCode(rawValue: "database_unavailable")
    public static let transactionConflict = ErrorCode(rawValue: "transaction_conflict")
    public static let databaseTimeout = ErrorCode(rawValue: "database_timeout")
    public static let notReady = ErrorCode(rawValue: "not_ready")
    public static let shuttingDown = ErrorCode(rawValue: "shutting_down")
    public static let internalError = ErrorCode(rawValue: "internal_error")
}

// MARK: - Field problems (the `code` of one `details` entry of a 422)

extension ErrorCode {
    public static let required = ErrorCode(rawValue: "required")
    public static let unknownField = ErrorCode(rawValue: "unknown_field")
    public static let invalidType = ErrorCode(rawValue: "invalid_type")
    public static let notNullable = ErrorCode(rawValue: "not_nullable")
    public static let invalidCharacter = ErrorCode(rawValue: "invalid_character")
    public static let invalidTimestamp = ErrorCode(rawValue: "invalid_timestamp")
    public static let invalidDate = ErrorCode(rawValue: "invalid_date")
    public static let invalidPrice = ErrorCode(rawValue: "invalid_price")
    public static let invalid = ErrorCode(rawValue: "invalid")
    public static let blank = ErrorCode(rawValue: "blank")
    public static let tooShort = ErrorCode(rawValue: "too_short")
    public static let tooLong = ErrorCode(rawValue: "too_long")
    public static let tooMany = ErrorCode(rawValue: "too_many")
    public static let readOnly = ErrorCode(rawValue: "read_only")
    public static let idMismatch = ErrorCode(rawValue: "id_mismatch")
    public static let useDelete = ErrorCode(rawValue: "use_delete")
    public static let unknownUser = ErrorCode(rawValue: "unknown_user")
    public static let unknownListing = ErrorCode(rawValue: "unknown_listing")
    public static let noSuchParent = ErrorCode(rawValue: "no_such_parent")
    public static let incorrect = ErrorCode(rawValue: "incorrect")
    public static let inPast = ErrorCode(rawValue: "in_past")
    public static let selfReference = ErrorCode(rawValue: "self")
}

// MARK: - Storage (`/storage/v1`)

extension ErrorCode {
    /// The multipart body cannot be read, or does not hold exactly one file.
    public static let invalidMultipart = ErrorCode(rawValue: "invalid_multipart")
    /// An object name outside `StorageObjectName`'s rules.
    public static let invalidObjectName = ErrorCode(rawValue: "invalid_object_name")
    /// A content-addressed name (a SHA-256 hex) given bytes with another hash.
    public static let contentHashMismatch = ErrorCode(rawValue: "content_hash_mismatch")
    /// An upload without `x-upsert: true` to a name that is taken (Storage's "Duplicate").
    public static let objectExists = ErrorCode(rawValue: "object_exists")
    /// `avatar_hash` names no stored image (a field problem and the answer's code).
    public static let unknownAvatar = ErrorCode(rawValue: "unknown_avatar")
}
