import Domain
import HTTP1

/// The refusals only `/rest/v1` writes make, in PostgREST's codes (rendered by
/// `RestErrorMapping` like every error of the family).
enum RestWriteErrors {
    /// A body key or `columns=` name that is not a column (PostgREST's `PGRST204`).
    static func unknownColumn(_ table: String, _ name: String) -> RestError {
        RestError(status: .badRequest, code: .unknownColumnInBody,
                  message: "Could not find the '\(name)' column of '\(table)' in the schema cache")
    }

    /// A body that is not the JSON the method takes (`PGRST102`).
    static func invalidBody(_ message: String) -> RestError {
        RestError(status: .badRequest, code: .invalidBody, message: message)
    }

    /// A PATCH or DELETE without any filter: refused, as Supabase's `safeupdate` does, so a
    /// forgotten `.eq(…)` cannot rewrite or delete every row the caller can see.
    static func missingFilter(_ verb: String) -> RestError {
        RestError(status: .badRequest, code: .missingFilter, message: "\(verb) requires a WHERE clause",
                  hint: "Add a filter such as id=eq.<uuid>; to change every row you can see, filter on a column "
                      + "all of them match (e.g. id=not.is.null).")
    }

    /// Writes to tables only the server writes, and user creation/removal.
    static func notAllowed(_ message: String, hint: String? = nil) -> RestError {
        RestError(status: .forbidden, code: .insufficientPrivilege, message: message, hint: hint)
    }
}
