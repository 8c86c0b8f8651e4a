/// Failures the store layer reports in domain terms; everything else surfaces as `PostgresError`.
public enum StoreError: Error, Sendable, Equatable {
    /// Another user already has this email (compared case-insensitively).
    case emailTaken
    /// The row to change does not exist.
    case notFound
}
