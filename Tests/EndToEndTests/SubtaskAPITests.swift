import Foundation
import Testing

/// Subtasks over HTTP: ordering and reordering, create/replay, validation, If-Match, deletes.
@Suite struct SubtaskAPITests {
    private func create(_ fixture: ChildFixture, _ extra: [String: Any] = [:], parentType: String = "task") throws -> TestHTTPClient.Response {
        var body: [String: Any] = ["parent_type": parentType, "parent_id": fixture.parentID(parentType).apiString, "title": "Order sign"]
        body.merge(extra) { $1 }
        return try fixture.request(.declarer, "POST", "/v1/subtasks", json: body)
    }

    @Test func subtasksAppendInOrderAndReorderByPosition() throws {
        let fixture = try ChildFixture()
        var ids: [String] = []
        for title in ["One", "Two", "Three"] {
            let response = try create(fixture, ["title": "  \(title) "])
            #expect(response.status == 201)
            #expect(response.json?["title"] as? String == title)
            #expect(response.json?["completed"] as? Bool == false)
            ids.append(try #require(response.json?["id"] as? String))
        }
        let path = "/v1/tasks/\(fixture.taskID.apiString)/subtasks"
        let listed = try fixture.request(.claimer, "GET", path)
        #expect(listed.listedIDs == ids)
        #expect(((listed.json?["items"] as? [[String: Any]]) ?? []).compactMap { $0["position"] as? Int } == [0, 1, 2])

        // Move "One" to the end: one PATCH of its position; the server never renumbers siblings.
        let moved = try fixture.request(.owner, "PATCH", "/v1/subtasks/\(ids[0])", json: ["position": 5, "completed": true],
                                        headers: ["If-Match": "\"1\""])
        #expect(moved.status == 200)
        #expect(moved.json?["version"] as? Int == 2)
        #expect(moved.json?["completed"] as? Bool == true)
        #expect(try fixture.request(.claimer, "GET", path).listedIDs == [ids[1], ids[2], ids[0]])
        let page = try fixture.request(.claimer, "GET", path + "?limit=2")
        #expect(page.listedIDs == [ids[1], ids[2]])
        let cursor = try #require(page.json?["next_cursor"] as? String)
        #expect(try fixture.request(.claimer, "GET", path + "?limit=2&cursor=\(cursor)").listedIDs == [ids[0]])
    }

    @Test func explicitPositionIsKeptAndAppendFollowsTheLargest() throws {
        let fixture = try ChildFixture()
        #expect(try create(fixture, ["position": 10]).json?["position"] as? Int == 10)
        #expect(try create(fixture).json?["position"] as? Int == 11)
        #expect(try create(fixture, ["position": 3], parentType: "activity").json?["position"] as? Int == 3)
    }

    @Test func identicalReplayReturnsTheRowAndDifferentContentConflicts() throws {
        let fixture = try ChildFixture()
        let id = UUID().apiString
        let first = try create(fixture, ["id": id, "position": 4])
        #expect(first.status == 201)
        #expect(first.header("Location") == "/v1/subtasks/\(id)")
        let replay = try create(fixture, ["id": id, "position": 4])
        #expect(replay.status == 200)
        #expect(replay.text == first.text)
        #expect(try create(fixture, ["id": id]).status == 200)
        let conflict = try create(fixture, ["id": id, "title": "Other"])
        #expect(conflict.status == 409)
        #expect(conflict.apiErrorCode == "id_conflict")
        #expect(try create(fixture, ["id": id, "position": 5]).status == 409)
    }

    @Test func invalidFieldsAnswerOneDetailEach() throws {
        let fixture = try ChildFixture()
        let task = fixture.taskID.apiString
        let cases: [(body: [String: Any], fields: [String])] = [
            ([:], ["parent_type", "parent_id", "title"]),
            (["parent_type": "listing", "parent_id": fixture.listingID.apiString, "title": "x"], ["parent_type"]),
            (["parent_type": "task", "parent_id": 7, "title": "x"], ["parent_id"]),
            (["parent_type": "task", "parent_id": task, "title": " "], ["title"]),
            (["parent_type": "task", "parent_id": task, "title": String(repeating: "b", count: 501)], ["title"]),
            (["parent_type": "task", "parent_id": task, "title": "x", "position": -1], ["position"]),
            (["parent_type": "task", "parent_id": task, "title": "x", "position": 1.5], ["position"]),
            (["parent_type": "task", "parent_id": task, "title": "x", "position": 3_000_000_000], ["position"]),
            (["parent_type": "task", "parent_id": task, "title": "x", "position": "1"], ["position"]),
            (["parent_type": "task", "parent_id": task, "title": "x", "completed": "yes"], ["completed"]),
            (["parent_type": "task", "parent_id": task, "title": "x", "done": true, "rank": 1], ["done", "rank"]),
            (["parent_type": "task", "title": "", "position": -2, "completed": 1], ["parent_id", "title", "position", "completed"]),
        ]
        for (body, fields) in cases {
            let response = try fixture.request(.declarer, "POST", "/v1/subtasks", json: body)
            #expect(response.status == 422, "\(body)")
            #expect(Set(response.detailFields) == Set(fields), "\(body): \(response.detailFields)")
        }
        let id = try #require(try create(fixture).json?["id"] as? String)
        let patch = try fixture.request(.declarer, "PATCH", "/v1/subtasks/\(id)", json: ["title": "", "position": -1, "content": "x"])
        #expect(patch.status == 422)
        #expect(Set(patch.detailFields) == ["title", "position", "content"])
    }

    @Test func ifMatchGuardsWritesAndDeleteLeavesATombstone() throws {
        let fixture = try ChildFixture()
        let id = try #require(try create(fixture).json?["id"] as? String)
        let get = try fixture.request(.claimer, "GET", "/v1/subtasks/\(id)")
        #expect(get.header("ETag") == "\"1\"")
        let stale = try fixture.request(.claimer, "PATCH", "/v1/subtasks/\(id)", json: ["title": "New"], headers: ["If-Match": "\"2\""])
        #expect(stale.status == 412)
        #expect(try fixture.request(.claimer, "PATCH", "/v1/subtasks/\(id)", json: ["title": "Order sign"]).json?["version"] as? Int == 1)
        #expect(try fixture.request(.claimer, "DELETE", "/v1/subtasks/\(id)", headers: ["If-Match": "W/\"0\""]).status == 412)
        let deleted = try fixture.request(.claimer, "DELETE", "/v1/subtasks/\(id)", headers: ["If-Match": "*"])
        #expect(deleted.status == 200)
        #expect(deleted.json?["deleted_at"] is String)
        #expect(deleted.header("ETag") == "\"2\"")
        #expect(try fixture.request(.claimer, "PATCH", "/v1/subtasks/\(id)", json: ["completed": true]).apiErrorCode == "row_deleted")
        let path = "/v1/tasks/\(fixture.taskID.apiString)/subtasks"
        #expect(try fixture.request(.claimer, "GET", path).listedIDs == [])
        #expect(try fixture.request(.claimer, "GET", path + "?include_deleted=true").listedIDs == [id])
    }

    @Test func deletedParentTakesNoNewOrChangedSubtasks() throws {
        let fixture = try ChildFixture()
        let id = try #require(try create(fixture, parentType: "activity").json?["id"] as? String)
        try fixture.deleteParent("activity")
        #expect(try create(fixture, parentType: "activity").apiErrorCode == "parent_deleted")
        #expect(try fixture.request(.declarer, "PATCH", "/v1/subtasks/\(id)", json: ["completed": true]).apiErrorCode == "parent_deleted")
        #expect(try fixture.request(.declarer, "DELETE", "/v1/subtasks/\(id)").status == 200)
    }

    @Test func listingsHaveNoSubtaskRoute() throws {
        let fixture = try ChildFixture()
        #expect(try fixture.request(.owner, "GET", "/v1/listings/\(fixture.listingID.apiString)/subtasks").status == 404)
    }
}
