import Foundation

/// Why a listing, task or activity operation did not happen, in domain terms. The HTTP layer
/// maps each case to one status and error code; a sync push maps them to `rejected`/`conflict`.
public enum ResourceError: Error, Sendable, Equatable {
    /// No such row, or the caller cannot see it (deliberately the same: contract §2).
    case notFound
    /// The caller sees the row but may not do this.
    case forbidden(String)
    /// `If-Match` / `base_version` does not match; the row's current version (nil: no row).
    case preconditionFailed(currentVersion: Int?)
    /// The client-chosen id belongs to another row (or one with different content).
    case idConflict
    /// Bad input, one entry per field.
    case validation([FieldError])
    /// The row is soft-deleted; it can be read and deleted again, nothing else.
    case deleted
    /// Someone else holds the claim.
    case claimConflict(claimedBy: UUID, claimedAt: Date)
    /// Completed or deleted items cannot be claimed.
    case notClaimable(WorkItemStatus)
}
