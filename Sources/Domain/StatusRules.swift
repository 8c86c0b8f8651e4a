/// Which status changes a write may make, and what each stamps (contract §1).
///
/// Decisions: any move between the live statuses is allowed (a completed task can be reopened,
/// a closed listing relisted, a pending sale fall through). `deleted` is entered only through
/// the delete operation, so the delete permission applies (`/rest/v1` turns a write of
/// `status: deleted` into that operation). A deleted row is left only by a restore: a write
/// that names a live status, allowed to whoever may delete the row (undoing a delete takes the
/// delete's permission); any other change to a deleted row is refused.
public enum StatusRules {
    public enum Verdict: Sendable, Equatable {
        case allowed
        /// Setting `deleted` through an update; use DELETE.
        case useDelete
        /// The row is deleted and the write names no live status: it cannot change.
        case rowDeleted
        /// A deleted row gets a live status back (the store checks the delete permission,
        /// clears `deleted_at` and records the change).
        case restore
    }

    public static func update(from old: WorkItemStatus, to new: WorkItemStatus) -> Verdict {
        verdict(oldDeleted: old == .deleted, newDeleted: new == .deleted)
    }

    public static func update(from old: ListingStatus, to new: ListingStatus) -> Verdict {
        verdict(oldDeleted: old == .deleted, newDeleted: new == .deleted)
    }

    private static func verdict(oldDeleted: Bool, newDeleted: Bool) -> Verdict {
        switch (oldDeleted, newDeleted) {
        case (true, true): .rowDeleted
        case (true, false): .restore
        case (false, true): .useDelete
        case (false, false): .allowed
        }
    }

    /// Whether `completed_at` is set after a change to `new` (leaving `completed` clears it).
    public static func hasCompletedAt(_ new: WorkItemStatus) -> Bool { new == .completed }

    /// The listing timestamp a change into `new` stamps with the time of the change, if any
    /// (`activated_at`, `pending_at`, `closed_at`, `deleted_at`); earlier stamps are kept as history.
    public static func stampedColumn(enteringListingStatus new: ListingStatus) -> String? {
        switch new {
        case .draft: return nil
        case .active: return "activated_at"
        case .pending: return "pending_at"
        case .closed: return "closed_at"
        case .deleted: return "deleted_at"
        }
    }
}
