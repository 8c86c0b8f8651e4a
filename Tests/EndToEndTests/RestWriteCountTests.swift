import Foundation
import Testing

/// `Content-Range` on `/rest/v1` writes, as PostgREST's `Response.hs` sends it: `*/<n>` for
/// inserts and deletes, `0-<n-1>/<n>` for updates, `*` for the total without
/// `Prefer: count=…` (the official clients then report no count).
@Suite struct RestWriteCountTests {
    @Test func insertsAndDeletesAnswerStarSlashTheRowsWrittenWhenCounted() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let inserted = try rest.send("POST", "tasks", as: .owner, body: [["title": "A"], ["title": "B"]],
                                     prefer: ["count=exact"])
        #expect(inserted.status == 201 && inserted.body.isEmpty)
        #expect(inserted.header("Content-Range") == "*/2")
        let uncounted = try rest.send("POST", "tasks", as: .owner, body: ["title": "C"])
        #expect(uncounted.header("Content-Range") == "*/*")
        // ignore-duplicates: the row left alone is not written, so not counted.
        let id = try #require(try rest.text("SELECT id::text FROM tasks WHERE title = 'A'"))
        let ignored = try rest.send("POST", "tasks", as: .owner, body: [["id": id, "title": "A2"], ["title": "D"]],
                                    prefer: ["return=representation,count=exact", "resolution=ignore-duplicates"])
        #expect(ignored.status == 201 && RestWriteWorld.array(ignored).count == 1)
        #expect(ignored.header("Content-Range") == "*/1")

        let deleted = try rest.send("DELETE", "tasks?title=in.(A,B)", as: .owner, prefer: ["count=planned"])
        #expect(deleted.status == 204, "\(RestWriteWorld.body(deleted))")
        #expect(deleted.header("Content-Range") == "*/2")
        let represented = try rest.send("DELETE", "tasks?title=eq.C", as: .owner,
                                        prefer: ["return=representation", "count=estimated"])
        #expect(represented.status == 200 && RestWriteWorld.array(represented).count == 1)
        #expect(represented.header("Content-Range") == "*/1")
        let plain = try rest.send("DELETE", "tasks?title=eq.D", as: .owner)
        #expect(plain.status == 204 && plain.header("Content-Range") == "*/*")
        #expect(try rest.count("SELECT count(*)::int FROM tasks WHERE deleted_at IS NULL") == 0)
    }

    @Test(arguments: [
        // (filter, Prefer, status, Content-Range)
        ("title=like.T*", ["count=exact"], 204, "0-2/3"),
        ("title=like.T*", ["return=representation", "count=planned"], 200, "0-2/3"),
        ("title=like.T*", ["count=estimated,return=minimal"], 204, "0-2/3"),
        ("title=like.T*", [], 204, "0-2/*"),
        ("title=like.T*", ["return=representation"], 200, "0-2/*"),
        ("title=eq.nothing", ["count=exact"], 204, "*/0"),
        ("title=eq.nothing", ["return=representation"], 200, "*/*"),
    ] as [(String, [String], Int, String)])
    func updatesAnswerTheRangeOfTheRowsChanged(_ filter: String, _ prefer: [String], _ status: Int,
                                               _ range: String) throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let created = try rest.send("POST", "tasks", as: .owner, body: [["title": "T1"], ["title": "T2"], ["title": "T3"]])
        #expect(created.status == 201)
        let response = try rest.send("PATCH", "tasks?\(filter)", as: .owner, body: ["priority": "high"], prefer: prefer)
        #expect(response.status == status, "\(RestWriteWorld.body(response))")
        #expect(response.header("Content-Range") == range)
    }

    @Test func aUserPatchIsCountedLikeAnyOtherUpdate() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let response = try rest.send("PATCH", "users?id=eq.\(rest.world.id(.owner))", as: .owner,
                                     body: ["name": "Olive"], prefer: ["return=representation,count=exact"])
        #expect(response.status == 200 && RestWriteWorld.array(response).count == 1, "\(RestWriteWorld.body(response))")
        #expect(response.header("Content-Range") == "0-0/1")
    }
}
