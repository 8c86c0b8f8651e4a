import Foundation
import Testing

/// Every list answers one cursor encoding (`KeysetCursor`: `{"o","u","i"}` naming its order).
/// Note and subtask lists used to hand out `{"key","id"}`: such a cursor still pages them, and a
/// cursor made for another list is refused as 400 `invalid_cursor`.
@Suite struct ChildListCursorTests {
    static func decode(_ token: String) throws -> [String: Any] {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func encode(_ object: [String: Any]) throws -> String {
        try JSONSerialization.data(withJSONObject: object).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func childListsUseTheListCursorAndStillReadTheirFormerOne() throws {
        let fixture = try ChildFixture()
        let task = fixture.taskID.apiString
        for (child, body, order) in [("notes", ["content": "A note"], "created_at.asc"), ("subtasks", ["title": "A step"], "position.asc")] {
            var ids: [String] = []
            for _ in 0..<3 {
                var json: [String: Any] = body
                json["parent_type"] = "task"
                json["parent_id"] = task
                let created = try fixture.request(.owner, "POST", "/v1/\(child)", json: json)
                #expect(created.status == 201, "\(child): \(created.text)")
                ids.append(try #require(created.json?["id"] as? String))
            }
            let path = "/v1/tasks/\(task)/\(child)"
            let first = try fixture.request(.owner, "GET", path + "?limit=2")
            let cursor = try #require(first.json?["next_cursor"] as? String)
            let inside = try Self.decode(cursor)
            #expect(Set(inside.keys) == ["o", "u", "i"], "\(child): \(inside)")
            #expect(inside["o"] as? String == order)
            #expect(first.listedIDs == Array(ids.prefix(2)))
            let rest = Array(ids.dropFirst(2))
            #expect(try fixture.request(.owner, "GET", path + "?limit=2&cursor=\(cursor)").listedIDs == rest)

            // The former encoding of the same position pages the same way.
            let former = try Self.encode(["key": try #require(inside["u"]), "id": try #require(inside["i"])])
            #expect(try fixture.request(.owner, "GET", path + "?limit=2&cursor=\(former)").listedIDs == rest)

            // A cursor of another list: the other child's order, or a resource list's (no `o`).
            let other = try Self.encode(["o": order == "position.asc" ? "created_at.asc" : "position.asc",
                                         "u": try #require(inside["u"]), "i": try #require(inside["i"])])
            let listCursor = try Self.encode(["u": try #require(inside["u"]), "i": try #require(inside["i"])])
            for refused in [other, listCursor] {
                let response = try fixture.request(.owner, "GET", path + "?cursor=\(refused)")
                #expect(response.status == 400 && response.apiErrorCode == "invalid_cursor", "\(child): \(response.text)")
            }
        }
    }
}
