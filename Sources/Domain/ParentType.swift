/// What a note or subtask hangs off (contract §1): notes attach to tasks, activities and listings,
/// subtasks to tasks and activities only.
public enum ParentType: String, Sendable, CaseIterable, Codable {
    case task, activity, listing

    /// The parent's table; safe to splice into SQL (fixed list).
    public var table: String {
        switch self {
        case .task: "tasks"
        case .activity: "activities"
        case .listing: "listings"
        }
    }

    /// Subtasks are checklist items of work, so listings have none.
    public var canHaveSubtasks: Bool { self != .listing }
}
