import Domain

/// The feed's stages in foreign-key order: a client applying a response (or a chain of pages)
/// top to bottom always has a row's parents before the row. `removed` comes last.
public enum SyncStage: Int, Sendable, CaseIterable, Comparable {
    case users, listings, tasks, activities, notes, subtasks, claimEvents, statusChanges, removed

    /// The response key.
    public var key: String {
        switch self {
        case .users: "users"
        case .listings: "listings"
        case .tasks: "tasks"
        case .activities: "activities"
        case .notes: "notes"
        case .subtasks: "subtasks"
        case .claimEvents: "claim_events"
        case .statusChanges: "status_changes"
        case .removed: "removed"
        }
    }

    /// The synced resource this stage sends (nil for `removed`): its description names the
    /// table and the visibility rule the stage reads with.
    public var resource: Resource? {
        switch self {
        case .users: .users
        case .listings: .listings
        case .tasks: .tasks
        case .activities: .activities
        case .notes: .notes
        case .subtasks: .subtasks
        case .claimEvents: .claimEvents
        case .statusChanges: .statusChanges
        case .removed: nil
        }
    }

    /// The table read by this stage; safe to splice (fixed identifiers).
    var table: String {
        resource?.description.table ?? "sync_access_changes"
    }

    public static func < (lhs: SyncStage, rhs: SyncStage) -> Bool { lhs.rawValue < rhs.rawValue }
}
