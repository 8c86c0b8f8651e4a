/// A task's or activity's lifecycle (contract §1). `deleted` is the soft delete.
public enum WorkItemStatus: String, Sendable, CaseIterable {
    case open
    case inProgress = "in_progress"
    case completed, deleted

    /// Only items someone can still work on may be claimed (contract §3).
    public var isClaimable: Bool { self == .open || self == .inProgress }
}
