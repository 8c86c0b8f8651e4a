import Domain

/// The errors of the row stores, with the sentences the API has always answered. `noun` is
/// the row's name in sentences ("listing", "task", "note").
extension DomainError {
    /// A listing, task or activity create whose id holds another row.
    static func idTaken(_ noun: String) -> DomainError {
        .idConflict("This id is already in use.", hint: "Use a new UUID, or PUT to replace a \(noun) you can see.")
    }

    /// A note or subtask create whose id holds another row.
    static func childIDTaken(_ noun: String) -> DomainError {
        .idConflict("A different \(noun) already has this id.", hint: "Generate a new id, or resend the original content.")
    }

    /// A change to a listing, task or activity tombstone.
    static func deleted(_ noun: String) -> DomainError {
        .rowDeleted("This \(noun) is deleted and can no longer change.")
    }

    /// A change to a note or subtask tombstone.
    static func childDeleted(_ noun: String) -> DomainError {
        .rowDeleted("This \(noun) is deleted and can no longer be changed.")
    }

    /// A child whose parent does not exist or is invisible to the caller.
    static let noSuchParent = DomainError.validation(field: "parent_id", code: .noSuchParent, message: "No such parent.")
}
