/// A listing's lifecycle (contract §1). `deleted` is the soft delete.
public enum ListingStatus: String, Sendable, CaseIterable {
    case draft, active, pending, closed, deleted
}
