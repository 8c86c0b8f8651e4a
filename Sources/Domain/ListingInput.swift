import Foundation

/// The client-writable fields of a listing, already validated, plus which ones the client sent.
///
/// Create and replace (`PUT`) use every field, missing ones at their defaults (so a replace
/// resets what it leaves out), except `owned_by`: missing means the caller on create and
/// "unchanged" on replace. `PATCH` changes only `provided`.
public struct ListingInput: Sendable, Equatable {
    public enum Field: String, Sendable, CaseIterable {
        case address, city, province, country, price
        case postalCode = "postal_code"
        case mlsNumber = "mls_number"
        case listingType = "listing_type"
        case status
        case ownedBy = "owned_by"
        case assignedStaff = "assigned_staff"
        case createdVia = "created_via"
        case sourceSlackMessages = "source_slack_messages"
    }

    public var address = ""
    public var city = ""
    public var province = ""
    public var postalCode = ""
    public var country = ""
    public var price: Decimal?
    public var mlsNumber: String?
    public var listingType = ListingType.sale
    public var status = ListingStatus.draft
    public var ownedBy: UUID?
    public var assignedStaff: UUID?
    public var createdVia = CreatedVia.dispatch
    public var sourceSlackMessages: [String]?
    public var provided: Set<Field> = []

    public init() {}

    /// Whether a write applies `field`: every field for create/replace, sent ones for a patch.
    public func applies(_ field: Field, patch: Bool) -> Bool {
        if field == .ownedBy { return ownedBy != nil }
        return !patch || provided.contains(field)
    }

    /// Problems that depend on the operation rather than on one value; `complete` is create or replace.
    public func check(complete: Bool) -> [FieldError] {
        var errors: [FieldError] = []
        if complete, !provided.contains(.address) {
            errors.append(FieldError(field: "address", code: .required, message: "Is required."))
        }
        if provided.contains(.status), status == .deleted {
            errors.append(Self.useDelete)
        }
        return errors
    }

    public static let useDelete = FieldError(field: "status", code: .useDelete,
                                      message: "Rows are deleted with DELETE, not by setting status to deleted.")
}
