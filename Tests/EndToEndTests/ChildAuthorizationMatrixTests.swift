import Foundation
import Testing

/// contract §2 for notes and subtasks over real HTTP: every role × parent kind × operation, with
/// the exact status. Invisible parents and children answer like missing ones (404; 422
/// `no_such_parent` on create); visible but not allowed is 403.
@Suite struct ChildAuthorizationMatrixTests {
    typealias Role = ChildFixture.Role

    enum Operation: String, CaseIterable, CustomStringConvertible {
        case list, get, add, edit, delete
        var description: String { rawValue }
    }

    struct Kind: CustomStringConvertible, Sendable {
        var collection: String   // notes | subtasks
        var parentType: String   // task | activity | listing
        var description: String { "\(collection) on \(parentType)" }
        var isNote: Bool { collection == "notes" }
        var parentPath: String { parentType == "activity" ? "activities" : parentType + "s" }
    }

    static let kinds = [
        Kind(collection: "notes", parentType: "task"), Kind(collection: "notes", parentType: "activity"),
        Kind(collection: "notes", parentType: "listing"),
        Kind(collection: "subtasks", parentType: "task"), Kind(collection: "subtasks", parentType: "activity"),
    ]

    /// The expected status. Notes under test are written by the claimer (who sees every parent
    /// here); the former author acts on its own note on a parent it no longer sees.
    static func expected(_ role: Role, _ operation: Operation, note: Bool) -> Int {
        switch role {
        case .stranger, .formerAuthor:
            return operation == .add ? 422 : 404
        case .admin, .claimer:
            return operation == .add ? 201 : 200
        case .declarer, .owner, .staff:
            switch operation {
            case .add: return 201
            case .list, .get: return 200
            // Only the author edits or deletes a note; whoever may update the parent changes subtasks.
            case .edit, .delete: return note ? 403 : 200
            }
        }
    }

    @Test(arguments: kinds)
    func childOperationsAnswerExactlyAsSpecTwoSays(kind: Kind) throws {
        let fixture = try ChildFixture()
        let parentID = fixture.parentID(kind.parentType)
        for role in Role.allCases {
            for operation in Operation.allCases {
                let status = try perform(operation, as: role, kind: kind, parentID: parentID, fixture: fixture)
                let want = Self.expected(role, operation, note: kind.isNote)
                #expect(status == want, "\(kind): \(role) \(operation) answered \(status), expected \(want)")
            }
        }
    }

    private func perform(_ operation: Operation, as role: Role, kind: Kind, parentID: UUID,
                         fixture: ChildFixture) throws -> Int {
        let target = try makeTarget(kind: kind, parentID: parentID, role: role, fixture: fixture)
        let path = "/v1/\(kind.collection)/\(target.apiString)"
        switch operation {
        case .list:
            let response = try fixture.request(role, "GET", "/v1/\(kind.parentPath)/\(parentID.apiString)/\(kind.collection)")
            if response.status == 200 { #expect(response.listedIDs.contains(target.apiString)) }
            return response.status
        case .get:
            let response = try fixture.request(role, "GET", path)
            if response.status == 200 { #expect(response.header("ETag") != nil) }
            return response.status
        case .add:
            var body: [String: Any] = ["parent_type": kind.parentType, "parent_id": parentID.apiString]
            body[kind.isNote ? "content" : "title"] = "Added by \(role)"
            let response = try fixture.request(role, "POST", "/v1/\(kind.collection)", json: body)
            if response.status == 422 { #expect(response.detailFields == ["parent_id"]) }
            if response.status == 201, kind.isNote { #expect(response.json?["created_by"] as? String == fixture.id(role).apiString) }
            return response.status
        case .edit:
            let body: [String: Any] = kind.isNote ? ["content": "Edited by \(role)"] : ["title": "Edited by \(role)", "completed": true]
            return try fixture.request(role, "PATCH", path, json: body).status
        case .delete:
            return try fixture.request(role, "DELETE", path).status
        }
    }

    /// A fresh child per operation, so deletes and edits never affect the next case.
    private func makeTarget(kind: Kind, parentID: UUID, role: Role, fixture: ChildFixture) throws -> UUID {
        guard kind.isNote else { return try fixture.insertSubtask(parentType: kind.parentType, parentID: parentID) }
        let author: Role = role == .formerAuthor ? .formerAuthor : .claimer
        return try fixture.insertNote(parentType: kind.parentType, parentID: parentID, author: author)
    }

    @Test func childListsNeverContainRowsOfOtherParentsOrInvisibleParents() throws {
        let fixture = try ChildFixture()
        let onTask = try fixture.insertNote(parentType: "task", parentID: fixture.taskID, author: .claimer)
        let onListing = try fixture.insertNote(parentType: "listing", parentID: fixture.listingID, author: .owner)
        let hidden = try fixture.insertNote(parentType: "task", parentID: fixture.strangersTaskID, author: .stranger)
        let hiddenSubtask = try fixture.insertSubtask(parentType: "task", parentID: fixture.strangersTaskID)
        let subtask = try fixture.insertSubtask(parentType: "task", parentID: fixture.taskID)

        let taskNotes = try fixture.request(.declarer, "GET", "/v1/tasks/\(fixture.taskID.apiString)/notes")
        #expect(taskNotes.listedIDs == [onTask.apiString])
        let listingNotes = try fixture.request(.staff, "GET", "/v1/listings/\(fixture.listingID.apiString)/notes")
        #expect(listingNotes.listedIDs == [onListing.apiString])
        let subtasks = try fixture.request(.owner, "GET", "/v1/tasks/\(fixture.taskID.apiString)/subtasks")
        #expect(subtasks.listedIDs == [subtask.apiString])

        for role in [Role.declarer, .claimer, .owner, .staff] {
            #expect(try fixture.request(role, "GET", "/v1/tasks/\(fixture.strangersTaskID.apiString)/notes").status == 404)
            #expect(try fixture.request(role, "GET", "/v1/notes/\(hidden.apiString)").status == 404)
            #expect(try fixture.request(role, "GET", "/v1/subtasks/\(hiddenSubtask.apiString)").status == 404)
        }
        let own = try fixture.request(.stranger, "GET", "/v1/tasks/\(fixture.strangersTaskID.apiString)/notes")
        #expect(own.listedIDs == [hidden.apiString])
    }

    @Test func invisibleAndMissingRowsAnswerTheSame() throws {
        let fixture = try ChildFixture()
        let hidden = try fixture.insertNote(parentType: "task", parentID: fixture.strangersTaskID, author: .stranger)
        let missing = UUID()
        for id in [hidden, missing] {
            let get = try fixture.request(.owner, "GET", "/v1/notes/\(id.apiString)")
            #expect(get.status == 404)
            #expect(get.apiErrorCode == "not_found")
            #expect(get.text.contains(id.apiString) == false)
            let patch = try fixture.request(.owner, "PATCH", "/v1/notes/\(id.apiString)", json: ["content": "x"])
            #expect(patch.status == 404)
        }
        for parent in [fixture.strangersTaskID, missing] {
            let add = try fixture.request(.owner, "POST", "/v1/notes",
                                          json: ["parent_type": "task", "parent_id": parent.apiString, "content": "x"])
            #expect(add.status == 422)
            #expect((add.json?["details"] as? [[String: Any]])?.first?["code"] as? String == "no_such_parent")
        }
    }
}
