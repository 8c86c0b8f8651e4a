/// A stable snake_case error code clients branch on (docs/contract.md §4): the `code` of an
/// error answer, or of one field's problem in a 422's `details`. Every code the server
/// answers with is named here, once; handlers and stores use the names, never the text.
///
/// An enum so the codes can be enumerated (`allCases`): the client-shape tests render every
/// one through every family's renderer, so a code added here is covered without a list to
/// keep in step.
public enum ErrorCode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {

    // MARK: - Answers (the `code` of the error object)

    // Requests the server cannot read.
    case invalidJSON = "invalid_json"
    case invalidEncoding = "invalid_encoding"
    case duplicateKey = "duplicate_key"
    case bodyTooLarge = "body_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    case invalidParameter = "invalid_parameter"
    case invalidIdempotencyKey = "invalid_idempotency_key"
    case invalidCursor = "invalid_cursor"
    case invalidUUID = "invalid_uuid"
    case invalidImage = "invalid_image"
    case validationFailed = "validation_failed"

    // Who may do what.
    case unauthorized = "unauthorized"
    case tokenExpired = "token_expired"
    case sessionRevoked = "session_revoked"
    case invalidCredentials = "invalid_credentials"
    case invalidRefreshToken = "invalid_refresh_token"
    case notASession = "not_a_session"
    case rateLimited = "rate_limited"
    case notFound = "not_found"
    case forbidden = "forbidden"
    case sessionRequired = "session_required"
    // The e-mail flows: a code or link that is wrong, used, void or expired; the
    // one-mail-per-address interval; a PKCE code unknown or spent, or a verifier that does
    // not answer its challenge.
    case emailCodeInvalid = "email_code_invalid"
    case emailRateLimited = "email_rate_limited"
    case authCodeInvalid = "auth_code_invalid"
    case codeVerifierMismatch = "code_verifier_mismatch"

    // Rows that cannot take this change.
    case preconditionFailed = "precondition_failed"
    case idConflict = "id_conflict"
    case rowDeleted = "row_deleted"
    case parentDeleted = "parent_deleted"
    case claimConflict = "claim_conflict"
    case notClaimable = "not_claimable"
    case emailTaken = "email_taken"
    case resyncRequired = "resync_required"

    // The database's answers (`DatabaseErrorMapping`) and the server's state.
    case conflict = "conflict"
    case invalidReference = "invalid_reference"
    case invalidValue = "invalid_value"
    case databaseUnavailable = "database_unavailable"
    case transactionConflict = "transaction_conflict"
    case databaseTimeout = "database_timeout"
    case outcomeUnknown = "outcome_unknown"
    case idempotencyKeyReused = "idempotency_key_reused"
    case idempotencyKeyInUse = "idempotency_key_in_use"
    case notReady = "not_ready"
    case shuttingDown = "shutting_down"
    case internalError = "internal_error"

    // MARK: - Field problems (the `code` of one `details` entry of a 422)

    case required = "required"
    case unknownField = "unknown_field"
    case invalidType = "invalid_type"
    case notNullable = "not_nullable"
    case invalidCharacter = "invalid_character"
    case invalidTimestamp = "invalid_timestamp"
    case invalidDate = "invalid_date"
    case invalidPrice = "invalid_price"
    case invalid = "invalid"
    case blank = "blank"
    case tooShort = "too_short"
    case tooLong = "too_long"
    case tooMany = "too_many"
    case readOnly = "read_only"
    case idMismatch = "id_mismatch"
    case useDelete = "use_delete"
    case unknownUser = "unknown_user"
    case unknownListing = "unknown_listing"
    case noSuchParent = "no_such_parent"
    case incorrect = "incorrect"
    case inPast = "in_past"
    case selfReference = "self"

    // MARK: - Storage (`/storage/v1`)

    /// The multipart body cannot be read, or does not hold exactly one file.
    case invalidMultipart = "invalid_multipart"
    /// An object name outside `StorageObjectName`'s rules.
    case invalidObjectName = "invalid_object_name"
    /// A content-addressed name (a SHA-256 hex) given bytes with another hash.
    case contentHashMismatch = "content_hash_mismatch"
    /// An upload without `x-upsert: true` to a name that is taken (Storage's "Duplicate").
    case objectExists = "object_exists"
    /// `avatar_hash` names no stored image (a field problem and the answer's code).
    case unknownAvatar = "unknown_avatar"

    public var description: String { rawValue }
}
