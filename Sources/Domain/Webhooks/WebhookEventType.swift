/// The event types an endpoint may subscribe to: `<resource>.created|updated|deleted` for the
/// five synced resources, and claims of tasks and activities. The database trigger (migration
/// 0033) names them the same way; `*` subscribes to all, present and future.
public enum WebhookEventType {
    public static let all: [String] = {
        var types: [String] = []
        for resource in ["task", "activity", "listing", "note", "subtask"] {
            types += ["created", "updated", "deleted"].map { "\(resource).\($0)" }
            if resource == "task" || resource == "activity" { types += ["\(resource).claimed", "\(resource).released"] }
        }
        return types
    }()

    public static let wildcard = "*"

    public static func isKnown(_ type: String) -> Bool { type == wildcard || all.contains(type) }
}
