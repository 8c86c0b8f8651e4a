/// Failures the store layer reports in domain terms; everything else surfaces as `PostgresError`.
public enum StoreError: Error, Sendable, Equatable {
    /// Another user already has this email (compared case-insensitively).
    case emailTaken
    /// The row does not exist or the caller may not see it (contract §2: the two are indistinguishable).
    case notFound
    /// The caller sees the row but may not change it.
    case forbidden
    /// The caller's expected version (If-Match, a push's base_version) is not the row's; the
    /// current row comes along so a syncing client can reconcile without another read.
    case versionMismatch(current: ChildRow)
    /// A create named an id that already holds a different row.
    case idConflict
    /// A create named a parent that does not exist or that the caller cannot see.
    case noSuchParent
    /// The parent is deleted, so it takes no new or changed children.
    case parentDeleted
    /// The row itself is deleted (a tombstone) and takes no further changes.
    case rowDeleted
}
