import Foundation

/// The domain errors more than one place throws, each built once with its code, sentence and
/// details. `noun` names the row in sentences ("listing", "task", "note").
extension DomainError {
    public static func notFound(_ noun: String) -> DomainError {
        DomainError(.notFound, .notFound, "No such \(noun).")
    }

    public static func forbidden(_ message: String) -> DomainError {
        DomainError(.forbidden, .forbidden, message)
    }

    /// A stale `If-Match` / `base_version`; `currentVersion` nil when no row has the id.
    public static func preconditionFailed(currentVersion: Int?) -> DomainError {
        DomainError(.preconditionFailed, .preconditionFailed,
                    "The row has changed since you read it (If-Match does not match its version).",
                    details: currentVersion.map { ["version": .integer($0)] } ?? [:],
                    hint: "GET the row again, reapply your change, and send its new ETag.")
    }

    /// 422 with every bad field (contract §4): collect all problems before throwing.
    public static func validation(_ fields: [FieldError]) -> DomainError {
        DomainError(.invalidInput, .validationFailed,
                    "Some fields are invalid: " + fields.map(\.field).joined(separator: ", ") + ".", fields: fields)
    }

    public static func validation(field: String, code: ErrorCode, message: String) -> DomainError {
        validation([FieldError(field: field, code: code, message: message)])
    }

    /// A client-chosen id that holds another row (or the same row with other content).
    public static func idConflict(_ message: String, hint: String) -> DomainError {
        DomainError(.conflict, .idConflict, message, details: ["field": .string("id")], hint: hint)
    }

    /// The row is a tombstone: it can be read and deleted again, nothing else.
    public static func rowDeleted(_ message: String) -> DomainError {
        DomainError(.conflict, .rowDeleted, message)
    }

    public static func parentDeleted(_ noun: String) -> DomainError {
        DomainError(.conflict, .parentDeleted, "The parent is deleted; its \(noun)s can no longer be added or changed.")
    }

    /// Someone else holds the claim (contract §3).
    public static func claimConflict(_ noun: String, claimedBy holder: UUID, claimedAt since: Date) -> DomainError {
        DomainError(.conflict, .claimConflict, "Someone else has claimed this \(noun).",
                    details: ["claimed_by": .string(holder.uuidString.lowercased()),
                              "claimed_at": .string(Timestamp.format(since))],
                    hint: "Ask the claimer to release it, or an administrator.")
    }

    /// Completed or deleted items cannot be claimed.
    public static func notClaimable(_ noun: String, status: WorkItemStatus) -> DomainError {
        DomainError(.conflict, .notClaimable, "A \(status.rawValue) \(noun) cannot be claimed.",
                    details: ["status": .string(status.rawValue)])
    }

    public static func badRequest(_ code: ErrorCode, _ message: String, details: [String: Detail] = [:],
                                  hint: String? = nil) -> DomainError {
        DomainError(.badRequest, code, message, details: details, hint: hint)
    }

    /// A query parameter with a bad value.
    public static func invalidParameter(_ name: String, _ message: String) -> DomainError {
        badRequest(.invalidParameter, message, details: ["parameter": .string(name)])
    }

    public static let internalError = DomainError(.internalError, .internalError, "An unexpected error occurred.")

    /// Whether a sync push reports this as a `conflict` (with the server's row) rather than
    /// `rejected` (contract §6): a stale `base_version`, or someone else's claim.
    public var isPushConflict: Bool {
        kind == .preconditionFailed || code == .claimConflict
    }
}
