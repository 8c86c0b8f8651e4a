/// Whether a listing is for sale or for rent (SPEC 1).
public enum ListingType: String, Sendable, CaseIterable {
    case sale, rental
}
