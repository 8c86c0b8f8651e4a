import Foundation

/// The filters and page of `GET /v1/{listings|tasks|activities}` (contract §5).
public struct ListFilter: Sendable, Equatable {
    /// Whose claim: a user, or unclaimed rows.
    public enum Claimer: Sendable, Equatable {
        case user(UUID)
        case none
    }

    /// Only these statuses (exact strings, already validated); empty means any.
    public var statuses: [String] = []
    /// Rows with `updated_at > updatedSince`.
    public var updatedSince: Date?
    /// Soft-deleted rows are left out unless this is set or `statuses` names `deleted`.
    public var includeDeleted = false
    /// Work items only.
    public var claimedBy: Claimer?
    /// Work items only.
    public var listingID: UUID?
    /// The console's office filters (not offered by `/v1`, whose parser never sets
    /// them). Work items: only these priorities (validated strings; empty means any), only
    /// items declared by this user, only items due before `overdueAt` and still open or in
    /// progress. Listings: only those owned by this user.
    public var priorities: [String] = []
    public var declaredBy: UUID?
    public var overdueAt: Date?
    public var ownedBy: UUID?
    public var limit = 50
    /// Rows stop once their JSON passes this many bytes (the first row always goes out).
    public var maxBytes = ListFilter.defaultMaxBytes
    public var order = ListOrder.updatedAscending
    /// Rows after this position in `order`.
    public var after: KeysetPosition?

    /// 1 MiB: every row the API accepts fits in it (see `FieldRules`).
    public static let defaultMaxBytes = 1 << 20

    public init() {}
}
