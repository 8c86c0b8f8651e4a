/// Whether a listing is for sale or for rent (contract §1).
public enum ListingType: String, Sendable, CaseIterable {
    case sale, rental
}
