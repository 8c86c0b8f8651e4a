import Domain
import Foundation
import HTTPServer
import Postgres
import Store

/// A push mutation as store operations (contract §6: "the same rules and side effects" as REST).
///
/// Each op calls the store operation its REST route calls, on the push's transaction, with
/// the route's input parser and error mapping, so validation, permissions, claim rules, side
/// effects and error objects are those of the REST API:
/// - upsert of a listing/task/activity is `PUT` (create-or-replace);
/// - upsert of a note/subtask is `PATCH`, and `POST` with the client's id when it is missing;
/// - delete is `DELETE`, claim/release are `POST`/`DELETE …/claim`;
/// - `base_version` is `If-Match`, so a stale one is a 412 (→ conflict).
extension PushMutation {
    /// Applies the mutation as `viewer`; returns the row's JSON. Throws the `DomainError` the
    /// route would answer, or a `PostgresError` the caller maps.
    func apply(as viewer: Viewer, pool: PostgresPool, on connection: PostgresConnection) throws -> String {
        let check: VersionCheck = baseVersion.map { .oneOf([$0]) } ?? .none
        switch (kind, operation) {
        case (.listing, _):
            let store = ListingStore(pool: pool)
            switch operation {
            case .upsert:
                var body = JSONRequestBody(object: record, allowed: ResourceInputParser.listingFields,
                                           ignored: ResourceInputParser.listingIgnored)
                ResourceInputParser.checkBodyID(&body, path: id)
                let input = ResourceInputParser.listing(&body, complete: true)
                try body.finish()
                return try store.put(viewer, id: id, input: input, check: check, on: connection).row.json
            case .delete:
                return try store.delete(viewer, id: id, check: check, on: connection).json
            case .claim, .release:
                throw JSONRequestBody.validationFailed([Self.onlyWorkItemsClaim])  // `parse` refuses these first
            }
        case (.task, _), (.activity, _):
            let workKind: WorkItemKind = kind == .task ? .task : .activity
            let store = WorkItemStore(pool: pool, kind: workKind)
            switch operation {
            case .upsert:
                var body = JSONRequestBody(object: record, allowed: ResourceInputParser.workItemFields(workKind),
                                           ignored: ResourceInputParser.workItemIgnored)
                ResourceInputParser.checkBodyID(&body, path: id)
                let input = ResourceInputParser.workItem(&body, kind: workKind, complete: true)
                try body.finish()
                return try store.put(viewer, id: id, input: input, check: check, on: connection).row.json
            case .delete: return try store.delete(viewer, id: id, check: check, on: connection).json
            case .claim: return try store.claim(viewer, id: id, on: connection).row.json
            case .release: return try store.release(viewer, id: id, on: connection).row.json
            }
        case (.note, _):
            return try applyToNote(as: viewer, store: NoteStore(pool: pool), check: check, on: connection)
        case (.subtask, _):
            return try applyToSubtask(as: viewer, store: SubtaskStore(pool: pool), check: check, on: connection)
        }
    }

    private func applyToNote(as viewer: Viewer, store: NoteStore, check: VersionCheck,
                             on connection: PostgresConnection) throws -> String {
        guard operation == .upsert else {
            return try store.delete(viewer, id: id, check: check, on: connection).json
        }
        return try Self.editElseCreate(edit: {
            var change = ChildInputParser.noteChange.body(record)
            let content = try ChildInputParser.noteContent(&change)
            return try store.update(viewer, id: id, content: content, check: check, on: connection).json
        }, create: {
            var creation = ChildInputParser.noteCreation.body(creationRecord)
            let note = try ChildInputParser.newNote(&creation)
            return try store.create(viewer, note, on: connection).row.json
        })
    }

    private func applyToSubtask(as viewer: Viewer, store: SubtaskStore, check: VersionCheck,
                                on connection: PostgresConnection) throws -> String {
        guard operation == .upsert else {
            return try store.delete(viewer, id: id, check: check, on: connection).json
        }
        return try Self.editElseCreate(edit: {
            var change = ChildInputParser.subtaskChange.body(record)
            let changes = try ChildInputParser.subtaskChanges(&change)
            return try store.update(viewer, id: id, changes: changes, check: check, on: connection).json
        }, create: {
            var creation = ChildInputParser.subtaskCreation.body(creationRecord)
            let subtask = try ChildInputParser.newSubtask(&creation)
            return try store.create(viewer, subtask, on: connection).row.json
        })
    }

    /// A child upsert: edit the row when it exists (visible), else create it with the client's
    /// id. Only "not found" from the edit falls through; any other error is the answer.
    private static func editElseCreate(edit: () throws -> String, create: () throws -> String) throws -> String {
        do {
            return try edit()
        } catch let error as DomainError where error.kind == .notFound {
            return try create()
        }
    }

    /// The record with the mutation's id, as a create body.
    private var creationRecord: [String: JSONValue] {
        var creation = record
        creation["id"] = .string(id.uuidString.lowercased())
        return creation
    }

    /// The caller's view of the row now, for a conflict result; nil when it cannot see it.
    func currentRow(as viewer: Viewer, pool: PostgresPool, on connection: PostgresConnection) throws -> String? {
        do {
            switch kind {
            case .listing: return try ListingStore(pool: pool).get(viewer, id: id, on: connection).json
            case .task: return try WorkItemStore(pool: pool, kind: .task).get(viewer, id: id, on: connection).json
            case .activity: return try WorkItemStore(pool: pool, kind: .activity).get(viewer, id: id, on: connection).json
            case .note: return try NoteStore(pool: pool).get(viewer, id: id, on: connection).json
            case .subtask: return try SubtaskStore(pool: pool).get(viewer, id: id, on: connection).json
            }
        } catch let error as DomainError where error.kind == .notFound {
            return nil
        }
    }
}
