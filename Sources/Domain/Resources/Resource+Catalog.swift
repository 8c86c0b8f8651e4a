/// The eight synced resources (contract §1), each described once. The column lists match
/// `migrations/0001_synced_tables.sql` (SchemaTests checks them against the live database)
/// and the JSON of `dispatch_json` (migrations/0005_row_json.sql), minus the internal `txid`.
public enum Resource: String, Sendable, CaseIterable {
    case users, listings, tasks, activities, notes, subtasks
    case claimEvents = "claim_events"
    case statusChanges = "status_changes"

    public var description: ResourceDescription {
        switch self {
        case .users: Self.userDescription
        case .listings: Self.listingDescription
        case .tasks: Self.workItemDescription(name: "tasks", activity: false)
        case .activities: Self.workItemDescription(name: "activities", activity: true)
        case .notes: Self.noteDescription
        case .subtasks: Self.subtaskDescription
        case .claimEvents: Self.claimEventDescription
        case .statusChanges: Self.statusChangeDescription
        }
    }

    /// The resource whose name (table) is `name`, for `/rest/v1/<table>`.
    public init?(table name: String) {
        guard let resource = Self.allCases.first(where: { $0.description.table == name }) else { return nil }
        self = resource
    }

    // MARK: - Shared column groups

    /// id, then the server's stamps: every synced table has them (the trigger of 0001 writes them).
    private static let id = ColumnDescription("id", .uuid, access: .createOnly)
    private static let stamps: [ColumnDescription] = [
        ColumnDescription("created_at", .timestamp, access: .server),
        ColumnDescription("updated_at", .timestamp, access: .server),
        ColumnDescription("version", .integer, access: .server),
    ]
    private static let createdVia = ColumnDescription("created_via", .enumeration(["dispatch", "slack"]), access: .writable,
                                                       omitted: .value(.text("dispatch")))
    private static let slackMessages = ColumnDescription("source_slack_messages", .textArray, nullable: true, access: .writable)
    private static let priorities = ["low", "medium", "high", "urgent"]
    private static let workStatuses = ["open", "in_progress", "completed", "deleted"]
    private static let listingStatuses = ["draft", "active", "pending", "closed", "deleted"]

    // MARK: - Descriptions

    private static let userDescription = ResourceDescription(
        name: "users", table: "users",
        columns: [
            id,
            ColumnDescription("name", .text, access: .writable),
            ColumnDescription("email", .text, access: .createOnly),
            // Changed by admins only (contract §2); the store enforces who.
            ColumnDescription("user_type", .enumeration(["admin", "realtor"]), access: .writable),
            // Set by the avatar upload, not by a JSON write.
            ColumnDescription("avatar_hash", .text, nullable: true, access: .server),
            // Set by deactivation (an admin operation), not by a JSON write.
            ColumnDescription("deactivated_at", .timestamp, nullable: true, access: .server),
        ] + stamps,
        visibility: .activeUsers, deletion: .deactivate)

    private static let listingDescription = ResourceDescription(
        name: "listings", table: "listings",
        columns: [
            id,
            ColumnDescription("address", .text, access: .writable,
                              rule: .text(maximum: FieldRules.titleMaximum, allowBlank: false), omitted: .required),
            ColumnDescription("city", .text, access: .writable),
            ColumnDescription("province", .text, access: .writable),
            ColumnDescription("postal_code", .text, access: .writable),
            ColumnDescription("country", .text, access: .writable),
            ColumnDescription("price", .decimal, nullable: true, access: .writable),
            ColumnDescription("mls_number", .text, nullable: true, access: .writable),
            ColumnDescription("listing_type", .enumeration(["sale", "rental"]), access: .writable, omitted: .value(.text("sale"))),
            ColumnDescription("status", .enumeration(listingStatuses), access: .writable, omitted: .value(.text("draft"))),
            // Left out: the caller on create (ListingStore), unchanged on replace.
            ColumnDescription("owned_by", .uuid, access: .writable, omitted: .keep),
            ColumnDescription("assigned_staff", .uuid, nullable: true, access: .writable),
            createdVia, slackMessages,
            ColumnDescription("activated_at", .timestamp, nullable: true, access: .server),
            ColumnDescription("pending_at", .timestamp, nullable: true, access: .server),
            ColumnDescription("closed_at", .timestamp, nullable: true, access: .server),
            ColumnDescription("deleted_at", .timestamp, nullable: true, access: .server),
        ] + stamps,
        visibility: .listing, deletion: .softDelete)

    private static let activityType = ColumnDescription(
        "type", .enumeration(["call", "email", "meeting", "show_property", "follow_up", "other"]), access: .writable,
        omitted: .value(.text("other")))
    private static let durationSeconds = ColumnDescription("duration_seconds", .integer, nullable: true, access: .writable,
                                                            rule: .wholeNumber(unit: "seconds"))

    /// Tasks and activities share every rule (contract §2); activities add `type` and
    /// `duration_seconds`, at their places in the table.
    private static func workItemDescription(name: String, activity: Bool) -> ResourceDescription {
        ResourceDescription(
            name: name, table: name,
            columns: [
                id,
                ColumnDescription("title", .text, access: .writable,
                                  rule: .text(maximum: FieldRules.titleMaximum, allowBlank: false), omitted: .required),
                ColumnDescription("description", .text, nullable: true, access: .writable,
                                  rule: .text(maximum: FieldRules.descriptionMaximum, allowBlank: true)),
            ] + (activity ? [activityType] : []) + [
                ColumnDescription("due_date", .timestamp, nullable: true, access: .writable),
                ColumnDescription("priority", .enumeration(priorities), access: .writable, omitted: .value(.text("medium"))),
                ColumnDescription("status", .enumeration(workStatuses), access: .writable, omitted: .value(.text("open"))),
                // The caller, on create.
                ColumnDescription("declared_by", .uuid, access: .server),
                // Changed by claim and release only (contract §3).
                ColumnDescription("claimed_by", .uuid, nullable: true, access: .server),
                ColumnDescription("listing_id", .uuid, nullable: true, access: .writable),
                createdVia, slackMessages,
            ] + (activity ? [durationSeconds] : []) + [
                ColumnDescription("claimed_at", .timestamp, nullable: true, access: .server),
                ColumnDescription("completed_at", .timestamp, nullable: true, access: .server),
                ColumnDescription("deleted_at", .timestamp, nullable: true, access: .server),
            ] + stamps,
            visibility: .workItem, deletion: .softDelete)
    }

    private static let noteDescription = ResourceDescription(
        name: "notes", table: "notes",
        columns: [
            id,
            ColumnDescription("content", .text, access: .writable),
            ColumnDescription("created_by", .uuid, access: .server),
            ColumnDescription("parent_type", .enumeration(["task", "activity", "listing"]), access: .createOnly),
            ColumnDescription("parent_id", .uuid, access: .createOnly),
            ColumnDescription("edited_at", .timestamp, nullable: true, access: .server),
            ColumnDescription("edited_by", .uuid, nullable: true, access: .server),
            ColumnDescription("deleted_at", .timestamp, nullable: true, access: .server),
        ] + stamps,
        visibility: .child(typeColumn: "parent_type", idColumn: "parent_id"), deletion: .softDelete)

    private static let subtaskDescription = ResourceDescription(
        name: "subtasks", table: "subtasks",
        columns: [
            id,
            ColumnDescription("title", .text, access: .writable),
            ColumnDescription("completed", .boolean, access: .writable, omitted: .value(.boolean(false))),
            ColumnDescription("parent_type", .enumeration(["task", "activity"]), access: .createOnly),
            ColumnDescription("parent_id", .uuid, access: .createOnly),
            // Left out on create: appended after the parent's last live subtask (SubtaskStore).
            ColumnDescription("position", .integer, access: .writable, omitted: .keep),
            ColumnDescription("deleted_at", .timestamp, nullable: true, access: .server),
        ] + stamps,
        visibility: .child(typeColumn: "parent_type", idColumn: "parent_id"), deletion: .softDelete)

    private static let claimEventDescription = ResourceDescription(
        name: "claim_events", table: "claim_events",
        columns: [
            ColumnDescription("id", .uuid, access: .server),
            ColumnDescription("entity_type", .enumeration(["task", "activity"]), access: .server),
            ColumnDescription("entity_id", .uuid, access: .server),
            ColumnDescription("user_id", .uuid, access: .server),
            ColumnDescription("action", .enumeration(["claimed", "released"]), access: .server),
            ColumnDescription("actor_id", .uuid, access: .server),
        ] + stamps,
        visibility: .child(typeColumn: "entity_type", idColumn: "entity_id"), deletion: .never)

    private static let statusChangeDescription = ResourceDescription(
        name: "status_changes", table: "status_changes",
        columns: [
            ColumnDescription("id", .uuid, access: .server),
            ColumnDescription("entity_type", .enumeration(["task", "activity", "listing"]), access: .server),
            ColumnDescription("entity_id", .uuid, access: .server),
            ColumnDescription("old_status", .text, nullable: true, access: .server),
            ColumnDescription("new_status", .text, access: .server),
            ColumnDescription("changed_by", .uuid, access: .server),
        ] + stamps,
        visibility: .child(typeColumn: "entity_type", idColumn: "entity_id"), deletion: .never)
}
