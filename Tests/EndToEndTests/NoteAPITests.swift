import Foundation
import Synchronization
import Testing

/// Notes over HTTP: create/replay, validation, edits, If-Match, soft deletes, paging.
@Suite struct NoteAPITests {
    private func create(_ fixture: ChildFixture, as role: ChildFixture.Role = .claimer, id: UUID? = nil,
                        content: String = "Buyer wants a second showing") throws -> TestHTTPClient.Response {
        var body: [String: Any] = ["parent_type": "task", "parent_id": fixture.taskID.apiString, "content": content]
        if let id { body["id"] = id.apiString }
        return try fixture.request(role, "POST", "/v1/notes", json: body)
    }

    @Test func createdNoteHasLocationETagAndCallerAsAuthor() throws {
        let fixture = try ChildFixture()
        let id = UUID()
        let response = try create(fixture, id: id)
        #expect(response.status == 201)
        let json = try #require(response.json)
        #expect(json["id"] as? String == id.apiString)
        #expect(json["created_by"] as? String == fixture.id(.claimer).apiString)
        #expect(json["parent_type"] as? String == "task")
        #expect(json["version"] as? Int == 1)
        #expect(json["edited_at"] is NSNull)
        #expect(json["deleted_at"] is NSNull)
        #expect(response.header("Location") == "/v1/notes/\(id.apiString)")
        #expect(response.header("ETag") == "\"1\"")
        let fetched = try fixture.request(.owner, "GET", "/v1/notes/\(id.apiString)")
        #expect(fetched.status == 200)
        #expect(fetched.header("ETag") == "\"1\"")
        #expect(fetched.text == response.text)
    }

    @Test func identicalReplayReturnsTheRowAndDifferentContentConflicts() throws {
        let fixture = try ChildFixture()
        let id = UUID()
        let first = try create(fixture, id: id)
        #expect(first.status == 201)
        let replay = try create(fixture, id: id)
        #expect(replay.status == 200)
        #expect(replay.text == first.text)
        let conflict = try create(fixture, id: id, content: "Something else")
        #expect(conflict.status == 409)
        #expect(conflict.apiErrorCode == "id_conflict")
        // Same content from another author is not a replay either.
        #expect(try create(fixture, as: .owner, id: id).status == 409)
        let count = try fixture.app.database.pool.query("SELECT count(*) AS n FROM notes").first?.decode("n", as: Int.self)
        #expect(count == 1)
    }

    @Test func concurrentCreatesWithOneIdMakeOneNote() throws {
        let fixture = try ChildFixture()
        let id = UUID()
        let statuses = Mutex<[Int]>([])
        let client = fixture.app.client
        let headers = ["Authorization": "Bearer \(fixture.token(.claimer))", "Content-Type": "application/json"]
        let body = Array(try JSONSerialization.data(withJSONObject: [
            "id": id.apiString, "parent_type": "task", "parent_id": fixture.taskID.apiString, "content": "Same",
        ]))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let status = (try? client.perform(method: "POST", path: "/v1/notes", headers: headers, body: body))?.status ?? 0
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0.sorted() } == [200, 200, 200, 200, 200, 200, 200, 201])
        let count = try fixture.app.database.pool.query("SELECT count(*) AS n FROM notes").first?.decode("n", as: Int.self)
        #expect(count == 1)
    }

    @Test func invalidFieldsAnswerOneDetailEach() throws {
        let fixture = try ChildFixture()
        let task = fixture.taskID.apiString
        let cases: [(body: [String: Any], fields: [String])] = [
            ([:], ["parent_type", "parent_id", "content"]),
            (["parent_type": "house", "parent_id": task, "content": "x"], ["parent_type"]),
            (["parent_type": "task", "parent_id": "not-a-uuid", "content": "x"], ["parent_id"]),
            (["parent_type": "task", "parent_id": task, "content": "   \n"], ["content"]),
            (["parent_type": "task", "parent_id": task, "content": String(repeating: "a", count: 10_001)], ["content"]),
            (["parent_type": "task", "parent_id": task, "content": 42], ["content"]),
            (["parent_type": "task", "parent_id": task, "content": "x", "colour": "red"], ["colour"]),
            (["parent_type": "task", "parent_id": task, "content": "x", "id": "nope"], ["id"]),
        ]
        for (body, fields) in cases {
            let response = try fixture.request(.claimer, "POST", "/v1/notes", json: body)
            #expect(response.status == 422, "\(body)")
            #expect(response.apiErrorCode == "validation_failed")
            #expect(Set(response.detailFields) == Set(fields), "\(body): \(response.detailFields)")
        }
        let longest = try fixture.request(.claimer, "POST", "/v1/notes", json: [
            "parent_type": "task", "parent_id": task, "content": String(repeating: "a", count: 10_000),
        ])
        #expect(longest.status == 201)
    }

    @Test func serverManagedFieldsAreIgnored() throws {
        let fixture = try ChildFixture()
        let response = try fixture.request(.claimer, "POST", "/v1/notes", json: [
            "parent_type": "task", "parent_id": fixture.taskID.apiString, "content": "x",
            "version": 99, "created_by": fixture.id(.owner).apiString, "created_at": "2001-01-01T00:00:00Z",
            "edited_at": NSNull(), "deleted_at": NSNull(),
        ])
        #expect(response.status == 201)
        #expect(response.json?["version"] as? Int == 1)
        #expect(response.json?["created_by"] as? String == fixture.id(.claimer).apiString)
    }

    @Test func editStampsEditorBumpsVersionAndHonoursIfMatch() throws {
        let fixture = try ChildFixture()
        let id = try #require(try create(fixture).json?["id"] as? String)
        let stale = try fixture.request(.claimer, "PATCH", "/v1/notes/\(id)", json: ["content": "v2"], headers: ["If-Match": "\"7\""])
        #expect(stale.status == 412)
        #expect(stale.apiErrorCode == "precondition_failed")
        let edited = try fixture.request(.claimer, "PATCH", "/v1/notes/\(id)", json: ["content": "v2"], headers: ["If-Match": "\"1\""])
        #expect(edited.status == 200)
        #expect(edited.header("ETag") == "\"2\"")
        #expect(edited.json?["content"] as? String == "v2")
        #expect(edited.json?["version"] as? Int == 2)
        #expect(edited.json?["edited_at"] is String)
        #expect(edited.json?["edited_by"] as? String == fixture.id(.claimer).apiString)

        // Admins change everything (contract §2), and are recorded as the editor.
        let byAdmin = try fixture.request(.admin, "PATCH", "/v1/notes/\(id)", json: ["content": "v3", "parent_id": UUID().apiString])
        #expect(byAdmin.status == 200)
        #expect(byAdmin.json?["edited_by"] as? String == fixture.id(.admin).apiString)
        #expect(byAdmin.json?["created_by"] as? String == fixture.id(.claimer).apiString)
        #expect(byAdmin.json?["parent_id"] as? String == fixture.taskID.apiString)
        #expect(byAdmin.json?["version"] as? Int == 3)

        let unchanged = try fixture.request(.claimer, "PATCH", "/v1/notes/\(id)", json: ["content": "v3"])
        #expect(unchanged.json?["version"] as? Int == 3)
        let blank = try fixture.request(.claimer, "PATCH", "/v1/notes/\(id)", json: ["content": " ", "title": "x"])
        #expect(blank.status == 422)
        #expect(Set(blank.detailFields) == ["content", "title"])
    }

    @Test func deleteLeavesATombstoneThatTakesNoEdits() throws {
        let fixture = try ChildFixture()
        let id = try #require(try create(fixture).json?["id"] as? String)
        #expect(try fixture.request(.claimer, "DELETE", "/v1/notes/\(id)", headers: ["If-Match": "\"5\""]).status == 412)
        let deleted = try fixture.request(.claimer, "DELETE", "/v1/notes/\(id)", headers: ["If-Match": "\"1\""])
        #expect(deleted.status == 200)
        #expect(deleted.json?["deleted_at"] is String)
        #expect(deleted.json?["version"] as? Int == 2)
        let again = try fixture.request(.claimer, "DELETE", "/v1/notes/\(id)")
        #expect(again.status == 200)
        #expect(again.json?["version"] as? Int == 2)
        let edit = try fixture.request(.claimer, "PATCH", "/v1/notes/\(id)", json: ["content": "back"])
        #expect(edit.status == 409)
        #expect(edit.apiErrorCode == "row_deleted")

        let list = "/v1/tasks/\(fixture.taskID.apiString)/notes"
        #expect(try fixture.request(.claimer, "GET", list).listedIDs == [])
        #expect(try fixture.request(.claimer, "GET", list + "?include_deleted=true").listedIDs == [id])
        #expect(try fixture.request(.claimer, "GET", "/v1/notes/\(id)").json?["deleted_at"] is String)
    }

    @Test func deletedParentTakesNoNewOrChangedNotes() throws {
        let fixture = try ChildFixture()
        let id = try #require(try create(fixture).json?["id"] as? String)
        try fixture.deleteParent("task")
        let add = try create(fixture)
        #expect(add.status == 409)
        #expect(add.apiErrorCode == "parent_deleted")
        #expect(try fixture.request(.claimer, "PATCH", "/v1/notes/\(id)", json: ["content": "x"]).apiErrorCode == "parent_deleted")
        #expect(try fixture.request(.claimer, "DELETE", "/v1/notes/\(id)").status == 200)
        #expect(try fixture.request(.claimer, "GET", "/v1/tasks/\(fixture.taskID.apiString)/notes?include_deleted=true").listedIDs == [id])
    }

    @Test func listIsOldestFirstAndPagesWithACursor() throws {
        let fixture = try ChildFixture()
        var ids: [String] = []
        for index in 0..<3 {
            ids.append(try #require(try create(fixture, content: "note \(index)").json?["id"] as? String))
        }
        let path = "/v1/tasks/\(fixture.taskID.apiString)/notes"
        let first = try fixture.request(.owner, "GET", path + "?limit=2")
        #expect(first.listedIDs == Array(ids.prefix(2)))
        let cursor = try #require(first.json?["next_cursor"] as? String)
        let second = try fixture.request(.owner, "GET", path + "?limit=2&cursor=\(cursor)")
        #expect(second.listedIDs == [ids[2]])
        #expect(second.json?["next_cursor"] is NSNull)

        #expect(try fixture.request(.owner, "GET", path + "?cursor=bm90anNvbg").apiErrorCode == "invalid_cursor")
        #expect(try fixture.request(.owner, "GET", path + "?limit=0").status == 400)
        #expect(try fixture.request(.owner, "GET", path + "?include_deleted=maybe").status == 400)
        #expect(try fixture.request(.owner, "GET", "/v1/tasks/nope/notes").apiErrorCode == "invalid_uuid")
        #expect(try fixture.request(.owner, "GET", "/v1/notes/nope").apiErrorCode == "invalid_uuid")
    }

    @Test func notesRequireAuthentication() throws {
        let fixture = try ChildFixture()
        #expect(try fixture.app.request("GET", "/v1/tasks/\(fixture.taskID.apiString)/notes").status == 401)
        #expect(try fixture.app.request("POST", "/v1/notes", json: ["content": "x"]).status == 401)
    }
}
