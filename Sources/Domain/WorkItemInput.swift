import Foundation

/// The client-writable fields of a task or activity, already validated, plus which ones the
/// client sent. `type` and `duration_seconds` exist for activities only.
///
/// Create and replace use every field, missing ones at their defaults; `PATCH` changes only
/// `provided`. `claimed_by` is not writable: a value equal to the current one is ignored, a
/// different one is refused (claims go through claim/release), so it travels separately.
public struct WorkItemInput: Sendable, Equatable {
    public enum Field: String, Sendable, CaseIterable {
        case title, description, priority, status, type
        case dueDate = "due_date"
        case listingID = "listing_id"
        case createdVia = "created_via"
        case sourceSlackMessages = "source_slack_messages"
        case durationSeconds = "duration_seconds"
    }

    public var title = ""
    public var description: String?
    public var dueDate: Date?
    public var priority = Priority.medium
    public var status = WorkItemStatus.open
    public var listingID: UUID?
    public var createdVia = CreatedVia.dispatch
    public var sourceSlackMessages: [String]?
    public var type = ActivityType.other
    public var durationSeconds: Int?
    /// `claimed_by` as sent: nil when absent; `.some(nil)` when sent as null.
    public var claimedBy: UUID??
    public var provided: Set<Field> = []

    public init() {}

    public func applies(_ field: Field, patch: Bool) -> Bool {
        !patch || provided.contains(field)
    }

    /// Problems that depend on the operation or on the current row rather than on one value.
    /// `currentClaimer` is the row's `claimed_by` (nil on create); `complete` is create or replace.
    public func check(complete: Bool, currentClaimer: UUID?) -> [FieldError] {
        var errors: [FieldError] = []
        if complete, !provided.contains(.title) {
            errors.append(FieldError(field: "title", code: .required, message: "Is required."))
        }
        if provided.contains(.status), status == .deleted {
            errors.append(ListingInput.useDelete)
        }
        if let sent = claimedBy, sent != currentClaimer {
            errors.append(FieldError(field: "claimed_by", code: .readOnly,
                                     message: "Claims change only through POST/DELETE …/claim."))
        }
        return errors
    }
}
