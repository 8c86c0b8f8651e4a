/// A listing write: the generic input over `Resource.listings`' description. The listing's
/// own rules (owner permissions, status stamps, history rows) live in `ListingStore`.
public typealias ListingInput = ResourceInput

extension ResourceInput {
    /// An empty listing write.
    public static func listing() -> ResourceInput {
        ResourceInput(.listings)
    }
}
