import Foundation
import Postgres
import Testing

/// Notes and subtasks through `/rest/v1`: their stores' rules (author-only edits, parent
/// permissions) and replays, as on `/v1`.
@Suite struct RestWriteChildTests {
    @Test func notesAndSubtasksFollowTheirStoresRules() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer, .stranger])
        let scene = try rest.world.scene(claimed: false)
        let note = try rest.send("POST", "notes", as: .declarer,
                                 body: ["parent_type": "task", "parent_id": scene.task, "content": "Call after 5",
                                        "created_by": rest.world.id(.owner)], prefer: ["return=representation"])
        let noteRow = try #require(RestWriteWorld.array(note).first, "\(RestWriteWorld.body(note))")
        #expect(noteRow["created_by"] as? String == rest.world.id(.declarer))
        let noteID = try #require(noteRow["id"] as? String)
        let notAuthor = try rest.send("PATCH", "notes?id=eq.\(noteID)", as: .owner, body: ["content": "Mine"])
        #expect(notAuthor.status == 403 && notAuthor.json?["code"] as? String == "42501")

        let id = UUID().uuidString.lowercased()
        let subtask: [String: Any] = ["id": id, "parent_type": "task", "parent_id": scene.task, "title": "Photos"]
        for _ in 0..<2 {
            let response = try rest.send("POST", "subtasks", as: .staff, body: subtask, prefer: ["resolution=merge-duplicates"])
            #expect(response.status == 201, "\(RestWriteWorld.body(response))")
        }
        #expect(try rest.count("SELECT version FROM subtasks WHERE id = \(id)::uuid") == 1)
        var renamed = subtask
        renamed["title"] = "Photos and video"
        _ = try rest.send("POST", "subtasks", as: .staff, body: renamed, prefer: ["resolution=merge-duplicates"])
        #expect(try rest.text("SELECT title || ' v' || version FROM subtasks WHERE id = \(id)::uuid") == "Photos and video v2")
        // An outsider's delete matches nothing; the declarer's is the soft delete.
        #expect(try rest.send("DELETE", "subtasks?parent_id=eq.\(scene.task)", as: .stranger).status == 204)
        #expect(try rest.count("SELECT count(*)::int FROM subtasks WHERE deleted_at IS NOT NULL") == 0)
        #expect(try rest.send("DELETE", "subtasks?parent_id=eq.\(scene.task)", as: .declarer).status == 204)
        #expect(try rest.count("SELECT count(*)::int FROM subtasks WHERE id = \(id)::uuid AND deleted_at IS NOT NULL") == 1)
    }
}
