/// The codes `/rest/v1` answers with of its own (PostgREST `src/PostgREST/Error.hs`):
/// `PGRST…` for request errors, the SQLSTATE for what PostgreSQL itself would have refused.
/// Codes of other layers pass through as they are (`RestError.init(status:passing:…)`): the
/// domain's (`claim_conflict`, `validation_failed`…), the gateway's (`no_api_key`), and
/// PostgreSQL's class 22 data exceptions.
///
/// An enum so the family's codes can be enumerated: the client-shape tests render each one and
/// decode it as supabase-swift's `PostgrestError`.
enum RestErrorCode: String, Sendable, CaseIterable {
    /// The database cannot be reached (503).
    case databaseUnavailable = "PGRST001"
    /// A query string that does not parse.
    case badQuery = "PGRST100"
    /// A body that is not the JSON the method takes.
    case invalidBody = "PGRST102"
    /// A range past the end (416).
    case invalidRange = "PGRST103"
    /// Parameters in a media type other than JSON (415).
    case unsupportedMediaType = "PGRST107"
    /// `vnd.pgrst.object+json` with other than one row (406).
    case notSingular = "PGRST116"
    /// No such function (404).
    case unknownFunction = "PGRST202"
    /// A body key or `columns=` name that is not a column.
    case unknownColumnInBody = "PGRST204"
    /// No such table (404).
    case unknownTable = "PGRST205"
    /// A bad JWT.
    case badJWT = "PGRST301"
    /// An expired JWT.
    case expiredJWT = "PGRST303"
    /// A PATCH or DELETE without a filter (Supabase's `safeupdate`).
    case missingFilter = "21000"
    /// A null argument to a strict function.
    case nullValueNotAllowed = "22004"
    /// A value that does not parse as its column's type.
    case invalidTextRepresentation = "22P02"
    /// A row referring to a row that does not exist.
    case foreignKeyViolation = "23503"
    /// A key in use.
    case uniqueViolation = "23505"
    /// A concurrent change won (503, retry).
    case serializationFailure = "40001"
    /// A deadlock was broken (503, retry).
    case deadlockDetected = "40P01"
    /// A permission refusal.
    case insufficientPrivilege = "42501"
    /// A column that does not exist.
    case undefinedColumn = "42703"
    /// A filter operator the column's type does not take.
    case datatypeMismatch = "42804"
    /// `on_conflict` naming other than the primary key.
    case invalidColumnReference = "42P10"
    /// The database did not answer in time (503).
    case queryCanceled = "57014"
}
