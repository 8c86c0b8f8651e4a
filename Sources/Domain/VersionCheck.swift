/// A write's precondition on the row's current version: HTTP `If-Match`, or a sync push's
/// `base_version`. A failed check is `DomainError.preconditionFailed`.
public enum VersionCheck: Sendable, Equatable {
    /// Last write wins.
    case none
    /// The row must exist (`If-Match: *`).
    case exists
    /// The row's version must be one of these.
    case oneOf([Int])

    /// Whether a row at `version` (nil: there is no row) satisfies the check.
    public func allows(version: Int?) -> Bool {
        switch self {
        case .none: return true
        case .exists: return version != nil
        case .oneOf(let versions): return version.map(versions.contains) ?? false
        }
    }
}
