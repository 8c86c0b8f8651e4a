import Domain
import Foundation
import HTTPServer
import JSON
import Postgres
import RouteKit
import Store

/// One write of one row of a client-writable resource, as the store operations `/v1` calls,
/// on the caller's transaction: the single mapping from "a JSON record and an operation" to
/// those operations, shared by the sync push (`PushMutation+Apply`) and `/rest/v1`'s writes
/// (`RestWriteRoutes`), so both have `/v1`'s validation (the same input parsers and 422s),
/// permissions, server-managed fields (`declared_by`/`created_by` = the caller, stamps
/// ignored), status stamps, history rows and claim rules — there is no second copy.
///
/// Operations (`check` is `If-Match` / `base_version`):
/// - `replace`: `PUT` (create or replace) for listings, tasks, activities; children have no
///   replace, so for them it is `merge`.
/// - `merge`: only the keys sent change, on the visible row, else a create with this id; a
///   merge that would change nothing writes nothing (`WritableRowStore.upsertMerging`; the
///   child stores' edits already skip a no-op).
/// - `insert`: `POST` (a repeated id with the same content answers the stored row).
/// - `patch`: `PATCH` of an existing visible row. `delete`, `claim`, `release`: their routes.
package struct ResourceWriter {
    /// The kinds a client may write: users are changed through the user rules, history rows
    /// only by the server.
    package enum Kind: String, Sendable {
        case listing, task, activity, note, subtask

        package var isClaimable: Bool { self == .task || self == .activity }
        /// Rows with a `status`, whose soft delete is `status = deleted`.
        package var hasStatus: Bool { self == .listing || isClaimable }

        package init?(_ resource: Resource) {
            switch resource {
            case .listings: self = .listing
            case .tasks: self = .task
            case .activities: self = .activity
            case .notes: self = .note
            case .subtasks: self = .subtask
            case .users, .claimEvents, .statusChanges: return nil
            }
        }

        package var workItemKind: WorkItemKind? {
            switch self {
            case .task: .task
            case .activity: .activity
            default: nil
            }
        }
    }

    package static let onlyWorkItemsClaim = FieldError(field: "op", code: .invalidValue,
                                               message: "Only tasks and activities can be claimed.")

    package let kind: Kind
    package let viewer: Viewer
    package let pool: PostgresPool
    package let connection: PostgresConnection

    package init(kind: Kind, viewer: Viewer, pool: PostgresPool, connection: PostgresConnection) {
        self.kind = kind
        self.viewer = viewer
        self.pool = pool
        self.connection = connection
    }

    package func replace(id: UUID, record: [String: JSONValue], check: VersionCheck) throws -> CreateResult {
        switch kind {
        case .listing:
            let input = try listing(record, id: id, complete: true)
            return try ListingStore(pool: pool).put(viewer, id: id, input: input, check: check, on: connection)
        case .task, .activity:
            let (store, input) = try workItem(record, id: id, complete: true)
            return try store.put(viewer, id: id, input: input, check: check, on: connection)
        case .note, .subtask:
            return try merge(id: id, record: record, check: check)
        }
    }

    package func merge(id: UUID, record: [String: JSONValue], check: VersionCheck) throws -> CreateResult {
        switch kind {
        case .listing:
            let input = try listing(record, id: id, complete: false)
            return try ListingStore(pool: pool).upsertMerging(viewer, id: id, input: input, check: check, on: connection)
        case .task, .activity:
            let (store, input) = try workItem(record, id: id, complete: false)
            return try store.upsertMerging(viewer, id: id, input: input, check: check, on: connection)
        case .note, .subtask:
            // Edit the row when it exists (visible), else create it with the client's id. Only
            // "not found" from the edit falls through; any other error is the answer.
            do {
                return CreateResult(row: try patch(id: id, record: record, check: check), created: false)
            } catch let error as DomainError where error.kind == .notFound {
                var creation = record
                creation["id"] = .string(id.uuidString.lowercased())
                return try insert(record: creation)
            }
        }
    }

    /// A create; the id, when sent, is read from the record.
    package func insert(record: [String: JSONValue]) throws -> CreateResult {
        switch kind {
        case .listing:
            var body = listingBody(record)
            let id = ResourceInputParser.id(&body)
            let input = ResourceInputParser.listing(&body, complete: true)
            try body.finish()
            return try ListingStore(pool: pool).create(viewer, id: id, input: input, on: connection)
        case .task, .activity:
            let (store, input, id) = try newWorkItem(record)
            return try store.create(viewer, id: id, input: input, on: connection)
        case .note:
            var body = ChildInputParser.noteCreation.body(record)
            return try NoteStore(pool: pool).create(viewer, try ChildInputParser.newNote(&body), on: connection)
        case .subtask:
            var body = ChildInputParser.subtaskCreation.body(record)
            return try SubtaskStore(pool: pool).create(viewer, try ChildInputParser.newSubtask(&body), on: connection)
        }
    }

    package func patch(id: UUID, record: [String: JSONValue], check: VersionCheck) throws -> ResourceRow {
        switch kind {
        case .listing:
            var body = listingBody(record)
            ResourceInputParser.checkBodyID(&body, path: id)
            let input = ResourceInputParser.listing(&body, complete: false)
            try body.finish()
            let store = ListingStore(pool: pool)
            guard let row = try store.mergeIfVisible(viewer, id: id, input: input, check: check, on: connection) else {
                throw DomainError.notFound("listing")
            }
            return row
        case .task, .activity:
            let (store, input) = try workItem(record, id: id, complete: false)
            guard let row = try store.mergeIfVisible(viewer, id: id, input: input, check: check, on: connection) else {
                throw DomainError.notFound(kind.rawValue)
            }
            return row
        case .note:
            var change = ChildInputParser.noteChange.body(record)
            let content = try ChildInputParser.noteContent(&change)
            return try NoteStore(pool: pool).update(viewer, id: id, content: content, check: check, on: connection)
        case .subtask:
            var change = ChildInputParser.subtaskChange.body(record)
            let changes = try ChildInputParser.subtaskChanges(&change)
            return try SubtaskStore(pool: pool).update(viewer, id: id, changes: changes, check: check, on: connection)
        }
    }

    package func delete(id: UUID, check: VersionCheck) throws -> ResourceRow {
        switch kind {
        case .listing: try ListingStore(pool: pool).delete(viewer, id: id, check: check, on: connection)
        case .task, .activity: try workItemStore().delete(viewer, id: id, check: check, on: connection)
        case .note: try NoteStore(pool: pool).delete(viewer, id: id, check: check, on: connection)
        case .subtask: try SubtaskStore(pool: pool).delete(viewer, id: id, check: check, on: connection)
        }
    }

    /// `POST …/claim`: `changed` is false when the caller already held it.
    package func claim(id: UUID) throws -> (row: ResourceRow, changed: Bool) {
        try workItemStore().claim(viewer, id: id, on: connection)
    }

    /// `DELETE …/claim`: `changed` is false when the item was not claimed.
    package func release(id: UUID) throws -> (row: ResourceRow, changed: Bool) {
        try workItemStore().release(viewer, id: id, on: connection)
    }

    /// The caller's view of the row now; nil when they cannot see it.
    package func current(id: UUID) throws -> ResourceRow? {
        do {
            switch kind {
            case .listing: return try ListingStore(pool: pool).get(viewer, id: id, on: connection)
            case .task, .activity: return try workItemStore().get(viewer, id: id, on: connection)
            case .note: return try NoteStore(pool: pool).get(viewer, id: id, on: connection)
            case .subtask: return try SubtaskStore(pool: pool).get(viewer, id: id, on: connection)
            }
        } catch let error as DomainError where error.kind == .notFound {
            return nil
        }
    }

    // MARK: - Parsing, with the routes' parsers

    private func listingBody(_ record: [String: JSONValue]) -> JSONRequestBody {
        JSONRequestBody(object: record, allowed: ResourceInputParser.listingFields, ignored: ResourceInputParser.listingIgnored)
    }

    /// The input of a write to the listing `id` (`complete`: every field, for a replace).
    private func listing(_ record: [String: JSONValue], id: UUID, complete: Bool) throws -> ListingInput {
        var body = listingBody(record)
        ResourceInputParser.checkBodyID(&body, path: id)
        let input = ResourceInputParser.listing(&body, complete: complete)
        try body.finish()
        return input
    }

    private func workItemStore() throws -> WorkItemStore {
        guard let workKind = kind.workItemKind else { throw JSONRequestBody.validationFailed([Self.onlyWorkItemsClaim]) }
        return WorkItemStore(pool: pool, kind: workKind)
    }

    private func workItemBody(_ record: [String: JSONValue], _ workKind: WorkItemKind) -> JSONRequestBody {
        JSONRequestBody(object: record, allowed: ResourceInputParser.workItemFields(workKind),
                        ignored: ResourceInputParser.workItemIgnored)
    }

    /// The input of a write to the row `id` (`complete`: every field, for a replace).
    private func workItem(_ record: [String: JSONValue], id: UUID, complete: Bool) throws -> (WorkItemStore, WorkItemInput) {
        let store = try workItemStore()
        var body = workItemBody(record, store.kind)
        ResourceInputParser.checkBodyID(&body, path: id)
        let input = ResourceInputParser.workItem(&body, kind: store.kind, complete: complete)
        try body.finish()
        return (store, input)
    }

    private func newWorkItem(_ record: [String: JSONValue]) throws -> (WorkItemStore, WorkItemInput, UUID?) {
        let store = try workItemStore()
        var body = workItemBody(record, store.kind)
        let id = ResourceInputParser.id(&body)
        let input = ResourceInputParser.workItem(&body, kind: store.kind, complete: true)
        try body.finish()
        return (store, input, id)
    }
}
