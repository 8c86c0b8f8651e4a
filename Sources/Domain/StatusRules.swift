/// Which status changes a write may make, and what each stamps (contract §1).
///
/// Decisions: any move between the live statuses is allowed (a completed task can be reopened,
/// a closed listing relisted, a pending sale fall through). `deleted` is entered only through
/// `DELETE` (so the delete permission applies) and is terminal: a deleted row can be read and
/// deleted again, nothing else.
public enum StatusRules {
    public enum Verdict: Sendable, Equatable {
        case allowed
        /// Setting `deleted` through an update; use DELETE.
        case useDelete
        /// The row is deleted; it cannot change any more.
        case rowDeleted
    }

    public static func update(from old: WorkItemStatus, to new: WorkItemStatus) -> Verdict {
        if old == .deleted { return .rowDeleted }
        return new == .deleted ? .useDelete : .allowed
    }

    public static func update(from old: ListingStatus, to new: ListingStatus) -> Verdict {
        if old == .deleted { return .rowDeleted }
        return new == .deleted ? .useDelete : .allowed
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
